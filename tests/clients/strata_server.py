"""A `strata server` on a free loopback port, for the client-level tests.

The binary is the one cargo built (STRATA_BIN, else target/debug/strata
under CARGO_TARGET_DIR).
"""

import os
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request


def strata_binary():
    if os.environ.get("STRATA_BIN"):
        return os.environ["STRATA_BIN"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    return os.path.join(target, "debug", "strata")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StrataServer:
    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()
        self.port = free_port()
        self.process = subprocess.Popen(
            [strata_binary(), "server", "--path", os.path.join(self.dir.name, "data"),
             "--http-port", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/ping", timeout=1) as r:
                    if r.read() == b"Ok.\n":
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.time() > deadline:
                raise RuntimeError("strata server did not start: "
                                   + self.process.stderr.read().decode(errors="replace"))
            time.sleep(0.05)

    def stop(self):
        self.process.terminate()
        code = self.process.wait(timeout=30)
        self.dir.cleanup()
        return code

    def query(self, sql):
        """The TabSeparated text of `sql`, run as the default user."""
        url = f"http://127.0.0.1:{self.port}/"
        with urllib.request.urlopen(url, data=sql.encode(), timeout=30) as response:
            return response.read().decode()


class ServerTestCase(unittest.TestCase):
    """Tests sharing one server per class; SIGTERM must stop it cleanly."""

    @classmethod
    def setUpClass(cls):
        cls.server = StrataServer()

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0
