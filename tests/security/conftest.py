"""One redbase for the suite with every transport protection on: TLS with a client CA,
--require-tls, and an auth file (alice: password, superuser; bob: a bearer token). The
certificates are made with openssl in a temporary directory; the password hash by
`redbase hash-password`. Stopped with SIGTERM at the end (must exit 0)."""

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

PASSWORD = "alice's pass phrase"
TOKEN = "bob-token-0123456789abcdef"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(d: Path):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=redbase test CA",
            "-keyout", "ca.key", "-out", "ca.crt", cwd=d)
    (d / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    (d / "client.ext").write_text("extendedKeyUsage=clientAuth\n")
    for name, cn in (("server", "localhost"), ("alice", "alice")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}", "-keyout", f"{name}.key",
                "-out", f"{name}.csr", cwd=d)
        ext = "server.ext" if name == "server" else "client.ext"
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", ext, "-out", f"{name}.crt", cwd=d)


class Server:
    def __init__(self, d: Path):
        self.dir = d
        self.bin = os.environ.get("REDBASE_BIN", "target/debug/redbase")
        make_certs(d)
        hashed = subprocess.run([self.bin, "hash-password"], input=PASSWORD.encode(), check=True,
                                capture_output=True).stdout.decode().strip()
        token = subprocess.run([self.bin, "hash-password", "--token"], input=TOKEN.encode(), check=True,
                               capture_output=True).stdout.decode().strip()
        (d / "users.toml").write_text(
            f'[users.alice]\npassword = "{hashed}"\nsuperuser = true\n\n[users.bob]\ntokens = ["{token}"]\n')
        self.t1, self.t2, self.http = free_port(), free_port(), free_port()
        self.log_path = d / "redbase.log"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [self.bin, "serve", "--data-dir", str(d / "data"),
             "--thrift1-addr", f"127.0.0.1:{self.t1}", "--thrift2-addr", f"127.0.0.1:{self.t2}",
             "--http-addr", f"127.0.0.1:{self.http}",
             "--tls-cert", str(d / "server.crt"), "--tls-key", str(d / "server.key"),
             "--tls-client-ca", str(d / "ca.crt"), "--require-tls", "--auth-file", str(d / "users.toml"),
             "--auth-max-failures", "1000"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.t1), timeout=0.5).close()
                socket.create_connection(("127.0.0.1", self.http), timeout=0.5).close()
                return
            except OSError:
                assert self.proc.poll() is None, self.log_path.read_text()
                time.sleep(0.1)
        raise RuntimeError("redbase did not start: " + self.log_path.read_text())

    def path(self, name):
        return str(self.dir / name)

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(30) == 0, self.log_path.read_text()
        self.log.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("security"))
    yield s
    s.stop()
    text = s.log_path.read_text()
    assert PASSWORD not in text and TOKEN not in text, "a secret reached the log"
