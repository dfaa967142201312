"""Apache Thrift's Java library (libthrift 0.14.1, as hbase-thrift 2.6.1 uses it) with the
Thrift2 client classes hbase-thrift ships: TSSLTransportFactory trusting the suite's CA from a
PKCS12 truststore made with keytool (and a client certificate from a PKCS12 keystore), and
TSaslClientTransport over the JDK's SASL PLAIN client, over TLS (and over plaintext where
--allow-plaintext-auth)."""

import subprocess

import pytest

from build import built, run
from conftest import PASSWORD

TRUST_PASS = "changeit"


def truststore(server):
    path = server.dir / "trust.p12"
    if not path.exists():
        subprocess.run(["keytool", "-importcert", "-noprompt", "-alias", "redbase-test-ca", "-file",
                        server.path("ca.crt"), "-keystore", str(path), "-storetype", "PKCS12",
                        "-storepass", TRUST_PASS], check=True, capture_output=True)
    return str(path)


def keystore(server, name):
    """The client certificate and key as PKCS12, made with openssl."""
    path = server.dir / f"{name}.p12"
    if not path.exists():
        subprocess.run(["openssl", "pkcs12", "-export", "-in", server.path(f"{name}.crt"), "-inkey",
                        server.path(f"{name}.key"), "-out", str(path), "-passout", f"pass:{TRUST_PASS}"],
                       check=True, capture_output=True)
    return ["--keystore", str(path), TRUST_PASS]


def java(server, mode, table, *args):
    classpath = f"{built('java/classes')}:{built('java/classpath.txt').read_text().strip()}"
    return run(["java", "-cp", classpath, "redbase.security.JavaClient", mode, server.t2, table, *args])


@pytest.fixture(scope="module")
def tls(server):
    return ["--truststore", truststore(server), TRUST_PASS]


def test_sasl_plain_over_tls_works(server, tls):
    code, out = java(server, "tls", "java_sasl_tls", *tls, "--sasl", "alice", PASSWORD)
    assert (code, out.strip()) == (0, "OK from java"), out


def test_sasl_plain_wrong_password_is_refused(server, tls):
    code, out = java(server, "tls", "java_sasl_wrong", *tls, "--sasl", "alice", "not the password")
    assert code == 2 and "authentication failed" in out, out


def test_client_certificate_over_tls_works(server, tls):
    code, out = java(server, "tls", "java_cert", *tls, *keystore(server, "alice"))
    assert (code, out.strip()) == (0, "OK from java"), out


def test_tls_without_identity_is_refused(server, tls):
    code, out = java(server, "tls", "java_anonymous", *tls)
    assert code == 2 and "TApplicationException" in out and "authentication required" in out, out


def test_plaintext_is_refused_under_require_tls(server):
    code, out = java(server, "plain", "java_plain")
    assert code == 2 and "--require-tls" in out, out


def test_plaintext_sasl_is_refused_under_require_tls(server):
    code, out = java(server, "plain", "java_plain_sasl", "--sasl", "alice", PASSWORD)
    assert code == 2 and "--require-tls" in out, out


def test_sasl_plain_over_plaintext_with_allow_plaintext_auth(plaintext_auth_server):
    code, out = java(plaintext_auth_server, "plain", "java_sasl_plain", "--sasl", "alice", PASSWORD)
    assert (code, out.strip()) == (0, "OK from java"), out
    code, out = java(plaintext_auth_server, "plain", "java_sasl_plain_wrong", "--sasl", "alice", "wrong")
    assert code == 2 and "authentication failed" in out, out


def test_sasl_plain_over_tls_where_tls_is_optional(plaintext_auth_server):
    tls = ["--truststore", truststore(plaintext_auth_server), TRUST_PASS]
    code, out = java(plaintext_auth_server, "tls", "java_sasl_tls_optional", *tls, "--sasl", "alice", PASSWORD)
    assert (code, out.strip()) == (0, "OK from java"), out
