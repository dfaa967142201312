"""thriftpy2 (PyPI), loading idl/hbase2.thrift at run time, over its TSSLSocket to the Thrift2
port of a redbase with TLS, a client CA, --require-tls and an auth file."""

import ssl
import subprocess
from pathlib import Path

import pytest
import thriftpy2
from thriftpy2.rpc import make_client
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

IDL = Path(__file__).resolve().parents[2] / "idl" / "hbase2.thrift"
hbase2 = thriftpy2.load(str(IDL), module_name="hbase2_thrift")


def client(server, cert=None, tls=True):
    if not tls:
        return make_client(hbase2.THBaseService, "127.0.0.1", server.t2, timeout=20000)
    ctx = ssl.create_default_context(cafile=server.path("ca.crt"))
    if cert:
        ctx.load_cert_chain(server.path(f"{cert}.crt"), server.path(f"{cert}.key"))
    return make_client(hbase2.THBaseService, "127.0.0.1", server.t2, ssl_context=ctx, timeout=20000)


def test_client_certificate_identity_creates_puts_and_gets(server):
    c = client(server, cert="alice")
    name = hbase2.TTableName(ns=b"default", qualifier=b"thriftpy2_tls")
    c.createTable(hbase2.TTableDescriptor(tableName=name, columns=[hbase2.TColumnFamilyDescriptor(name=b"f")]), None)
    assert c.tableExists(name) is True
    c.put(b"thriftpy2_tls", hbase2.TPut(row=b"r1", columnValues=[
        hbase2.TColumnValue(family=b"f", qualifier=b"q", value=b"over TLS")]))
    result = c.get(b"thriftpy2_tls", hbase2.TGet(row=b"r1"))
    assert [(v.family, v.qualifier, v.value) for v in result.columnValues] == [(b"f", b"q", b"over TLS")]
    c.close()


def test_tls_without_identity_is_refused(server):
    c = client(server)
    with pytest.raises(TApplicationException) as e:
        c.listNamespaces()
    assert "authentication required" in str(e.value)
    c.close()


def test_a_certificate_named_alice_from_another_ca_is_refused(server, tmp_path):
    # Self-signed: the server's client CA did not sign it, so the handshake fails.
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=alice",
                    "-addext", "extendedKeyUsage=clientAuth", "-keyout", "k.pem", "-out", "c.pem"],
                   cwd=tmp_path, check=True, capture_output=True)
    ctx = ssl.create_default_context(cafile=server.path("ca.crt"))
    ctx.load_cert_chain(str(tmp_path / "c.pem"), str(tmp_path / "k.pem"))
    with pytest.raises((TTransportException, ssl.SSLError)) as e:
        c = make_client(hbase2.THBaseService, "127.0.0.1", server.t2, ssl_context=ctx, timeout=20000)
        c.listNamespaces()
    assert "CERTIFICATE_UNKNOWN" in str(e.value) or "certificate unknown" in str(e.value), e.value


def test_plaintext_is_refused_under_require_tls(server):
    c = client(server, tls=False)
    with pytest.raises(TApplicationException) as e:
        c.listNamespaces()
    assert "--require-tls" in str(e.value)
    c.close()
