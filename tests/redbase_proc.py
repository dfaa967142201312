"""The `redbase serve` process for the Python suites: free loopback ports, start-up that waits
until every gateway and the HTTP operations listener accept, SIGTERM shutdown whose exit code
the tests check.

Each suite's helper module subclasses `RedbaseProcess` and adds its own clients.
"""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def server_binary() -> Path:
    """`REDBASE_BIN`, or the debug build."""
    path = Path(os.environ.get("REDBASE_BIN", REPO / "target" / "debug" / "redbase"))
    if not path.is_absolute():
        path = REPO / path
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedbaseProcess:
    """One running `redbase serve` with the named gateways (`thrift1`, `thrift2`) on loopback,
    and its HTTP operations listener on `http_port` (always on its own free port, so parallel
    servers never compete for the default 8080)."""

    def __init__(self, data_dir: Path, args=(), gateways=("thrift1", "thrift2"), ports=None):
        self.data_dir = Path(data_dir)
        self.args = list(args)
        self.host = "127.0.0.1"
        self.ports = dict(ports or {})
        for g in gateways:
            self.ports.setdefault(g, free_port())
        self.http_port = free_port()
        self.proc = None
        self._log = None
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}.log"

    def start(self, timeout=30.0):
        binary = server_binary()
        if not binary.exists():
            raise RuntimeError(
                f"redbase binary not found at {binary}: build it (cargo build -p redbase) "
                "or set REDBASE_BIN"
            )
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        # The ports were free a moment ago; if someone took one since, choose again.
        for _ in range(5):
            distinct = len({*self.ports.values(), self.http_port}) == len(self.ports) + 1
            if distinct and self._launch(binary, timeout):
                return self
            self.ports = {g: free_port() for g in self.ports}
            self.http_port = free_port()
        raise RuntimeError(f"redbase could not bind its ports:\n{self.log_tail()}")

    def _launch(self, binary, timeout) -> bool:
        """Starts the process; True once every port accepts, False if a bind failed."""
        cmd = [str(binary), "serve", "--data-dir", str(self.data_dir)]
        for g, port in self.ports.items():
            cmd += [f"--{g}-addr", f"{self.host}:{port}"]
        # Gateways not asked for stay off, so parallel servers never compete for their ports.
        cmd += ["--gateways", ",".join(self.ports), "--advertised-host", "localhost"]
        cmd += ["--http-addr", f"{self.host}:{self.http_port}", *self.args]
        self._log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.setdefault("RUST_LOG", "info")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        pending = [*self.ports.values(), self.http_port]
        while pending:
            if self.proc.poll() is not None:
                self._log.close()
                if "cannot bind" in self.log_tail():
                    return False
                raise RuntimeError(
                    f"redbase exited with {self.proc.returncode} while starting:\n{self.log_tail()}"
                )
            try:
                socket.create_connection((self.host, pending[0]), timeout=0.5).close()
                pending.pop(0)
            except OSError:
                if time.monotonic() > deadline:
                    self.proc.kill()
                    self.proc.wait()
                    self._log.close()
                    raise RuntimeError(f"redbase did not listen on {pending}:\n{self.log_tail()}")
                time.sleep(0.02)
        return True

    def http_url(self, path="/") -> str:
        return f"http://{self.host}:{self.http_port}{path}"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=30.0, sig=signal.SIGTERM):
        """Signals (SIGTERM) and waits. Returns the exit code, or None if the process did not
        exit within `timeout` (it is then killed)."""
        if self.proc is None:
            return 0
        code = self.proc.poll()
        if code is None:
            self.proc.send_signal(sig)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                code = None
        if self._log and not self._log.closed:
            self._log.close()
        return code

    def stop_and_check(self):
        code = self.stop()
        assert code is not None, f"redbase did not exit after SIGTERM:\n{self.log_tail()}"
        assert code == 0, f"redbase exited with {code} after SIGTERM:\n{self.log_tail()}"

    def log_tail(self, n=40) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join(lines[-n:])


def wait_until(predicate, timeout=10.0, interval=0.05):
    """Polls `predicate` until it returns a truthy value (returned) or `timeout` passes (None)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(interval)


def server_fixtures(server_class, table_prefix):
    """The fixtures the Thrift1 and Thrift2 suites share, for their own `Server` class:

    - `server`: a fresh server per test module (extra flags from the module's REDBASE_ARGS),
      stopped with SIGTERM at the end and required to exit 0;
    - `redbase`: a factory for servers of a test's own, `redbase(args=(), data_dir=None)`;
      those still running at the end are stopped and must exit 0;
    - `table_name`: a table name unique within the session, readable in server logs.

    A conftest assigns them: `server, redbase, table_name = server_fixtures(Server, "t")`.
    """
    import itertools
    import re

    import pytest

    @pytest.fixture(scope="module")
    def server(request, tmp_path_factory):
        args = getattr(request.module, "REDBASE_ARGS", [])
        base = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
        srv = server_class(base / "data", args).start()
        yield srv
        srv.stop_and_check()

    @pytest.fixture
    def redbase(tmp_path):
        started = []

        def start(args=(), data_dir=None):
            srv = server_class(data_dir or (tmp_path / f"data{len(started)}"), args).start()
            started.append(srv)
            return srv

        yield start
        failures = []
        for srv in started:
            if srv.proc is not None and srv.proc.returncode is None:
                code = srv.stop()
                if code != 0:
                    what = "did not exit" if code is None else f"exited with {code}"
                    failures.append(f"redbase {what} after SIGTERM:\n{srv.log_tail()}")
        assert not failures, "\n".join(failures)

    names = itertools.count()

    @pytest.fixture
    def table_name(request):
        base = re.sub(r"[^A-Za-z0-9_]", "_", request.node.name)[:60]
        return f"{table_prefix}{next(names)}_{base}"

    return server, redbase, table_name
