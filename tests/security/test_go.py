"""Apache Thrift's Go library (github.com/apache/thrift, TSSLSocket with a tls.Config holding a
client certificate) and the Thrift2 client sdks/go/hbase2, against a redbase that requires a
client certificate (--tls-require-client-cert): the certificate's CN is the identity."""

import subprocess

from build import built, run


def go(server, *args):
    return run([built("go/tlsclient"), "-addr", f"127.0.0.1:{server.t2}", "-ca", server.path("ca.crt"), *args])


def cert(server, name):
    return ["-cert", server.path(f"{name}.crt"), "-key", server.path(f"{name}.key")]


def test_client_certificate_is_the_identity(client_cert_server):
    # gopher is not in the auth file: the client CA vouches for it, so the connection is
    # gopher's; with no grant, creating a table is refused in gopher's name.
    code, out = go(client_cert_server, *cert(client_cert_server, "gopher"), "-table", "go_gopher")
    assert code == 2, out
    assert "AccessDeniedException: Insufficient permissions" in out and "gopher" in out, out
    # alice, a superuser in the auth file, may.
    code, out = go(client_cert_server, *cert(client_cert_server, "alice"), "-table", "go_alice")
    assert (code, out.strip()) == (0, "OK from go"), out


def test_without_a_certificate_the_handshake_is_refused(client_cert_server):
    code, out = go(client_cert_server, "-table", "go_nocert")
    assert code == 2 and out.startswith("ERROR"), out
    assert "certificate required" in out, out


def test_plaintext_is_refused_under_require_tls(client_cert_server):
    code, out = go(client_cert_server, "-plaintext", "-table", "go_plain")
    assert code == 2 and "--require-tls" in out, out


def test_without_a_certificate_where_one_is_optional_no_identity(server):
    code, out = go(server, "-table", "go_anonymous")
    assert code == 2 and "authentication required" in out, out


def test_a_certificate_named_alice_from_another_ca_is_refused(client_cert_server, tmp_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=alice",
                    "-addext", "extendedKeyUsage=clientAuth", "-keyout", "k.pem", "-out", "c.pem"],
                   cwd=tmp_path, check=True, capture_output=True)
    code, out = go(client_cert_server, "-cert", tmp_path / "c.pem", "-key", tmp_path / "k.pem", "-table", "go_forged")
    assert code == 2 and "tls: unknown certificate" in out, out
