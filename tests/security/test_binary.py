"""The binary's own behaviour: certificates and the auth file reloaded on SIGHUP (certificates
with open connections kept), and the loud warning when it listens beyond loopback with no authentication."""

import base64
import json
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from thrift.transport.TTransport import TTransportException

from conftest import PASSWORD, Server, free_port, openssl
from thrift_util import get_table_names, sasl, tls_socket


def wait_for(predicate, what, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_sighup_reloads_certificates_and_keeps_connections(server):
    t = sasl(tls_socket(server), "alice", PASSWORD)
    t.open()
    get_table_names(t)
    before = server.log_path.read_text().count("TLS certificates reloaded")
    # A new server key and certificate from the same CA, in place.
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key",
            "-out", "server.csr", cwd=server.dir)
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "server.ext", "-out", "server.crt", cwd=server.dir)
    server.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: "SIGHUP: reloading the TLS certificates" in server.log_path.read_text(), "the SIGHUP log line")
    wait_for(lambda: server.log_path.read_text().count("TLS certificates reloaded") > before, "the reload")
    assert server.proc.poll() is None
    # The open connection still works, and new ones get the new certificate.
    get_table_names(t)
    t.close()
    fresh = sasl(tls_socket(server), "alice", PASSWORD)
    fresh.open()
    get_table_names(fresh)
    fresh.close()


def test_exposed_without_auth_warns_in_the_log_and_the_status(server, tmp_path):
    t1, http = free_port(), free_port()
    log = tmp_path / "exposed.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [server.bin, "serve", "--data-dir", str(tmp_path / "data"), "--gateways", "thrift1",
             "--thrift1-addr", f"0.0.0.0:{t1}", "--http-addr", f"127.0.0.1:{http}"],
            stdout=out, stderr=subprocess.STDOUT)
        try:
            def up():
                try:
                    socket.create_connection(("127.0.0.1", http), timeout=0.5).close()
                    return True
                except OSError:
                    return False
            wait_for(up, "the server")
            with urllib.request.urlopen(f"http://127.0.0.1:{http}/api/status", timeout=10) as r:
                status = json.load(r)
            assert status["security"]["authentication"] is False
            [warning] = status["security"]["warnings"]
            assert f"0.0.0.0:{t1}" in warning and "no authentication" in warning
            assert log.read_text().count("SECURITY WARNING") == 1
        finally:
            proc.terminate()
            assert proc.wait(30) == 0


def test_sighup_reloads_the_auth_file_and_a_bad_one_keeps_the_old(tmp_path):
    s = Server(tmp_path, "plaintext-auth")
    try:
        log = s.log_path.read_text

        def login(password):
            t = sasl(tls_socket(s), "alice", password)
            t.open()
            get_table_names(t)
            t.close()

        def refused(password):
            with pytest.raises(TTransportException) as e:
                login(password)
            assert "authentication failed" in str(e.value)

        def http_status(password):
            """The HTTP listener's answer to alice's Basic credentials (it remembers accepted ones)."""
            basic = base64.b64encode(f"alice:{password}".encode()).decode()
            req = urllib.request.Request(f"http://127.0.0.1:{s.http}/api/status",
                                         headers={"Authorization": f"Basic {basic}"})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status
            except urllib.error.HTTPError as e:
                return e.code

        login(PASSWORD)
        assert http_status(PASSWORD) == 200
        hashed = subprocess.run([s.bin, "hash-password"], input=b"second pass phrase", check=True,
                                capture_output=True).stdout.decode().strip()
        (tmp_path / "users.toml").write_text(f'[users.alice]\npassword = "{hashed}"\n')
        s.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "auth file reloaded" in log(), "the auth file reload")
        login("second pass phrase")
        refused(PASSWORD)
        # The HTTP listener forgets what it remembered at the same moment.
        assert http_status(PASSWORD) == 401
        assert http_status("second pass phrase") == 200

        # A file that does not load: the server says why and keeps the users it has.
        (tmp_path / "users.toml").write_text('[users.alice]\npassword = "not a hash"\n')
        s.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "auth file reload failed" in log(), "the failed reload")
        [why] = [line for line in log().splitlines() if "auth file reload failed" in line]
        assert "not an argon2 PHC string" in why, why
        assert s.proc.poll() is None
        login("second pass phrase")
        refused(PASSWORD)
    finally:
        s.stop()
