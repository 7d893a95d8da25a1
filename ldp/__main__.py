"""``python -m ldp``: the ``ldp`` command."""

import sys

from ldp.cli import main

if __name__ == "__main__":
    sys.exit(main())
