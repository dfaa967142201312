"""The redbase process for the hbase-driver suite: the native RPC listener and the ZooKeeper
responder on free loopback ports (with the HTTP operations listener), and the driver's
configuration pointing at that ZooKeeper and nothing else."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redbase_proc import RedbaseProcess, free_port, server_binary  # noqa: E402


class NativeServer(RedbaseProcess):
    """`redbase serve --gateways native` with `--hbase-rpc-addr` and `--zookeeper-addr`."""

    def __init__(self, data_dir, args=()):
        super().__init__(data_dir, args, gateways=())
        self.rpc_port = free_port()
        self.zk_port = free_port()

    def start(self, timeout=30.0):
        binary = server_binary()
        if not binary.exists():
            raise RuntimeError(f"redbase binary not found at {binary}: set REDBASE_BIN")
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(5):
            ports = [self.rpc_port, self.zk_port, self.http_port]
            if len(set(ports)) == 3 and self._start(binary, ports, timeout):
                return self
            self.rpc_port, self.zk_port, self.http_port = free_port(), free_port(), free_port()
        raise RuntimeError(f"redbase could not bind its ports:\n{self.log_tail()}")

    def _start(self, binary, ports, timeout) -> bool:
        cmd = [
            str(binary), "serve", "--data-dir", str(self.data_dir), "--gateways", "native",
            "--hbase-rpc-addr", f"{self.host}:{self.rpc_port}",
            "--zookeeper-addr", f"{self.host}:{self.zk_port}",
            "--http-addr", f"{self.host}:{self.http_port}",
            "--advertised-host", self.host, *self.args,
        ]
        self._log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.setdefault("RUST_LOG", "info")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        pending = list(ports)
        while pending:
            if self.proc.poll() is not None:
                self._log.close()
                if "cannot bind" in self.log_tail():
                    return False
                raise RuntimeError(f"redbase exited while starting:\n{self.log_tail()}")
            try:
                socket.create_connection((self.host, pending[0]), timeout=0.5).close()
                pending.pop(0)
            except OSError:
                if time.monotonic() > deadline:
                    self.proc.send_signal(signal.SIGKILL)
                    self.proc.wait()
                    raise RuntimeError(f"redbase did not listen:\n{self.log_tail()}")
                time.sleep(0.02)
        return True

    @property
    def quorum(self) -> str:
        return f"{self.host}:{self.zk_port}"

    def driver_config(self) -> dict:
        """All the driver is told: where ZooKeeper is."""
        return {"hbase.zookeeper.quorum": self.quorum}
