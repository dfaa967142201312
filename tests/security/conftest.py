"""One redbase for the suite with every transport protection on: TLS with a client CA,
--require-tls, and an auth file (alice: password, superuser; bob: a bearer token). The
certificates are made with openssl in a temporary directory (client certificates: alice, and
gopher, who is not in the auth file); the password hash by `redbase hash-password`. Stopped
with SIGTERM at the end (must exit 0).

Other protections for the tests that need them, one server each per module: `client_cert_server`
(--tls-require-client-cert as well), `plaintext_auth_server` (TLS optional,
--allow-plaintext-auth) and `open_server` (no TLS, no auth file: a developer's loopback server,
what a cross-site page in a browser aims at)."""

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
    for name, cn in (("server", "localhost"), ("alice", "alice"), ("gopher", "gopher")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}", "-keyout", f"{name}.key",
                "-out", f"{name}.csr", cwd=d)
        ext = "server.ext" if name == "server" else "client.ext"
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", ext, "-out", f"{name}.crt", cwd=d)


# The flags of each kind of server, after the listener addresses.
SECURED = ["--tls-cert", "server.crt", "--tls-key", "server.key", "--tls-client-ca", "ca.crt",
           "--require-tls", "--auth-file", "users.toml", "--auth-max-failures", "1000"]
KINDS = {
    "secured": SECURED,
    "client-cert": SECURED + ["--tls-require-client-cert"],
    "plaintext-auth": ["--tls-cert", "server.crt", "--tls-key", "server.key", "--tls-client-ca", "ca.crt",
                       "--auth-file", "users.toml", "--allow-plaintext-auth", "--auth-max-failures", "1000"],
    "open": [],
}
FILES = {"server.crt", "server.key", "ca.crt", "users.toml"}


class Server:
    def __init__(self, d: Path, kind="secured"):
        self.dir = d
        self.kind = kind
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
             *[str(d / a) if a in FILES else a for a in KINDS[kind]]],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.t1), timeout=0.5).close()
                socket.create_connection(("127.0.0.1", self.t2), timeout=0.5).close()
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


def _other(tmp_path_factory, kind):
    s = Server(tmp_path_factory.mktemp(kind), kind)
    yield s
    s.stop()
    assert PASSWORD not in s.log_path.read_text(), "a secret reached the log"


@pytest.fixture(scope="module")
def client_cert_server(tmp_path_factory):
    yield from _other(tmp_path_factory, "client-cert")


@pytest.fixture(scope="module")
def plaintext_auth_server(tmp_path_factory):
    yield from _other(tmp_path_factory, "plaintext-auth")


@pytest.fixture(scope="module")
def open_server(tmp_path_factory):
    yield from _other(tmp_path_factory, "open")
