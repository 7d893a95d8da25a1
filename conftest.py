"""Collection rules of the whole repository (the test suite's own fixtures are in
``tests/conftest.py``).

The doctests of ``ldp/collector/app.py`` need the ``server`` extra (Starlette); without it
the module is not collected, and ``tests/collector/test_app.py`` says why it skips.
"""

import importlib.util

collect_ignore = []
if importlib.util.find_spec("starlette") is None:
    collect_ignore.append("ldp/collector/app.py")
