"""Apache Thrift's Python client (TSSLSocket, TSocket) with thrift_sasl + pure-sasl against a
redbase with TLS, a client CA, --require-tls and an auth file."""

import pytest
from thrift.Thrift import TApplicationException
from thrift.transport.TTransport import TTransportException

from conftest import PASSWORD
from thrift_util import create_table, framed, get_table_names, plain_socket, sasl, tls_socket




def test_sasl_plain_identity_works(server):
    t = sasl(tls_socket(server), "alice", PASSWORD)
    t.open()
    create_table(t, b"py_sasl")
    assert b"py_sasl" in get_table_names(t)
    t.close()


def test_sasl_wrong_password_is_refused(server):
    t = sasl(tls_socket(server), "alice", "not the password")
    with pytest.raises(TTransportException) as e:
        t.open()
    assert "authentication failed" in str(e.value)


def test_client_certificate_identity_works(server):
    t = framed(tls_socket(server, cert="alice"))
    t.open()
    create_table(t, b"py_cert")
    assert b"py_cert" in get_table_names(t)
    t.close()


def test_tls_without_identity_is_refused(server):
    t = framed(tls_socket(server))
    t.open()
    with pytest.raises(TApplicationException) as e:
        get_table_names(t)
    assert "authentication required" in str(e.value)
    t.close()


def test_plaintext_is_refused_under_require_tls(server):
    t = framed(plain_socket(server))
    t.open()
    with pytest.raises(TApplicationException) as e:
        get_table_names(t)
    assert "--require-tls" in str(e.value)
    t.close()


def test_plaintext_sasl_is_refused_under_require_tls(server):
    t = sasl(plain_socket(server), "alice", PASSWORD)
    with pytest.raises(TTransportException) as e:
        t.open()
    assert "--require-tls" in str(e.value)
