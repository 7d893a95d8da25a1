"""A real collector for tests: ``python -m ldp serve`` in a child process on a free port."""

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest

#: What the HTTP service needs (the ``server`` extra, also in the ``test`` extra).
SERVER_EXTRA = ("starlette", "uvicorn")
NO_SERVER_EXTRA = (
    "the collector's HTTP service needs the server extra (starlette, uvicorn): "
    'pip install -e ".[server]"'
)


def require_server_extra() -> None:
    """Skip the calling test module, saying why, when the ``server`` extra is not installed
    (in CI, where the test extra installs it, fail instead)."""
    if all(importlib.util.find_spec(name) is not None for name in SERVER_EXTRA):
        return
    if os.environ.get("CI"):
        pytest.fail(NO_SERVER_EXTRA, pytrace=False)
    pytest.skip(NO_SERVER_EXTRA, allow_module_level=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(url, body=None, *, method=None, timeout=30.0):
    """``(status, parsed JSON)`` of a request (errors included)."""
    data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


class Server:
    def __init__(self, process, url, log):
        self.process, self.url, self.log = process, url, log

    def stop(self, sig=signal.SIGTERM, timeout=30.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)

    def logs(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]


@contextmanager
def serving(protocol_paths, store, tmp_path, *options, wait=30.0):
    """A collector serving ``protocol_paths`` on ``store``; stopped (SIGTERM) at the end."""
    port = free_port()
    log = tmp_path / f"serve-{port}.log"
    command = [sys.executable, "-m", "ldp", "serve", *map(str, protocol_paths)]
    command += ["--store", str(store), "--port", str(port), *options]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(log, "wb") as handle:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=handle, env=env)
    server = Server(process, f"http://127.0.0.1:{port}", log)
    try:
        deadline = time.monotonic() + wait
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"ldp serve ended with {process.returncode}:\n{log.read_text()}")
            try:
                if request(server.url + "/health", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"ldp serve did not answer:\n{log.read_text()}")
            time.sleep(0.05)
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
