"""A newcomer's first minutes: take the wheel (built once per session by the ``built_wheel``
fixture), install it in a clean virtual environment (no system site-packages; dependencies
come from the package index), and run the ``ldp`` command.

This is slow (about 10 s with a warm pip cache, more on a busy machine) and needs the package
index, so it is marked ``slow``: ``pytest -m "not slow"`` skips it, CI runs it.
"""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

TIMEOUT = 600  # seconds, per step


def _run(argv: list, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"
    result = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, f"{argv} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.slow
def test_wheel_installs_in_a_clean_venv_and_runs(tmp_path, built_wheel):
    wheel = built_wheel
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        assert "ldp = ldp.cli:main" in archive.read(entry_points).decode()
    assert {"ldp/cli/__init__.py", "estimators/__init__.py", "ldp/_data/anes96.csv"} <= names
    # the device clients travel with the library (ldp.protocol.client_source)
    assert {"ldp/_clients/ldp_client.py", "ldp/_clients/ldp_client.mjs"} <= names

    env = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", env], tmp_path)  # a clean environment
    bin_dir = env / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    # --no-compile: pip would byte-compile every dependency (numpy, scipy, pandas, ...),
    # half of the install's time; what runs below compiles what it imports
    _run([python, "-m", "pip", "install", "--no-compile", "--disable-pip-version-check", wheel],
         tmp_path)  # fmt: skip

    # one interpreter of the venv answers every question below about the installed copy (each
    # start imports the library afresh, a second or more on a busy machine)
    probe = (
        "import json, sys, ldp\n"
        "from ldp.collector.survey import survey_dir\n"
        "from ldp.datasets import load_anes96\n"
        "from ldp.protocol import client_source\n"
        "print(json.dumps({'module': ldp.__file__, 'prefix': sys.prefix,\n"
        "    'client': str(client_source()), 'survey': str(survey_dir()),\n"
        "    'anes96': list(load_anes96().shape)}))\n"
    )
    installed = json.loads(_run([python, "-c", probe], tmp_path))
    # the installed copy is the one that runs, not the checkout
    assert Path(installed["module"]).resolve().is_relative_to(env.resolve())
    assert Path(installed["prefix"]).resolve() == env.resolve()

    table = _run([bin_dir / "ldp", "report", "k-rr", "--k", "4", "--epsilon", "1"], tmp_path)
    assert "4 inputs x 4 outputs" in table
    assert "Ghazi-Issa (2023), Theorem 5" in table
    data = json.loads(_run([python, "-m", "ldp", "report", "k-rr", "--k", "4", "--epsilon", "1",
                            "--json"], tmp_path))  # fmt: skip
    # the exact level of the calibrated 4-RR matrix, at most the 1 asked for
    assert 1.0 - 1e-12 < data["epsilon"] <= 1.0
    assert set(data["contraction"]) >= {"kl", "chi2", "tv"}
    # the deploy path with the installed command and the client shipped in the wheel
    protocol = tmp_path / "protocol.json"
    _run([bin_dir / "ldp", "design", "--k", "3", "--epsilon", "1", "--utility", "mi",
          "--labels", "a,b,c", "--out", protocol], tmp_path)  # fmt: skip
    client = installed["client"]
    assert Path(client).resolve().is_relative_to(env.resolve())
    code = (
        f"import sys, json; sys.path.insert(0, {str(Path(client).parent)!r}); import ldp_client; "
        f"print(json.dumps(ldp_client.privatize(open({str(protocol)!r}).read(), 'b')))"
    )
    record = json.loads(_run([sys.executable, "-I", "-c", code], tmp_path))
    assert set(record) == {"id", "fingerprint", "report"}
    # the web survey that ldp serve serves travels with the wheel (without the server extra)
    survey = installed["survey"]
    assert Path(survey).resolve().is_relative_to(env.resolve())
    assert {p.name for p in Path(survey).iterdir()} >= {"index.html", "app.mjs", "results.mjs"}
    # the bundled data travel with the wheel
    assert installed["anes96"] == [944, 10]
