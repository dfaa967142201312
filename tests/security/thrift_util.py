"""Raw Thrift1 calls through Apache Thrift's Python protocol classes (no generated code), and
the small adapter PyHive and impyla also use to put pure-sasl behind thrift_sasl."""

import ssl

from puresasl.client import SASLClient
from thrift.protocol import TBinaryProtocol
from thrift.Thrift import TApplicationException, TMessageType, TType
from thrift.transport import TSocket, TSSLSocket, TTransport
from thrift_sasl import TSaslClientTransport


class PureSasl:
    """thrift_sasl speaks the `sasl` package's interface; pure-sasl's client behind it."""

    def __init__(self, user, password):
        self.client = SASLClient("127.0.0.1", "hbase", mechanism="PLAIN", username=user, password=password)

    def start(self, mechanism):
        return True, mechanism, self.client.process()

    def step(self, challenge):
        return True, self.client.process(challenge)

    def encode(self, data):
        return True, data

    def decode(self, data):
        return True, data

    def getError(self):
        return ""


def tls_socket(server, cert=None):
    ctx = ssl.create_default_context(cafile=server.path("ca.crt"))
    if cert:
        ctx.load_cert_chain(server.path(f"{cert}.crt"), server.path(f"{cert}.key"))
    return TSSLSocket.TSSLSocket("127.0.0.1", server.t1, ssl_context=ctx)


def sasl(socket, user, password):
    return TSaslClientTransport(lambda: PureSasl(user, password), "PLAIN", socket)


def framed(socket):
    return TTransport.TFramedTransport(socket)


def plain_socket(server):
    return TSocket.TSocket("127.0.0.1", server.t1)


def _reply(prot):
    _, mtype, _ = prot.readMessageBegin()
    if mtype == TMessageType.EXCEPTION:
        x = TApplicationException()
        x.read(prot)
        prot.readMessageEnd()
        raise x
    return mtype


def get_table_names(transport):
    prot = TBinaryProtocol.TBinaryProtocol(transport)
    prot.writeMessageBegin("getTableNames", TMessageType.CALL, 1)
    prot.writeStructBegin("getTableNames_args")
    prot.writeFieldStop()
    prot.writeStructEnd()
    prot.writeMessageEnd()
    transport.flush()
    _reply(prot)
    names = []
    prot.readStructBegin()
    while True:
        _, ftype, fid = prot.readFieldBegin()
        if ftype == TType.STOP:
            break
        if fid == 0 and ftype == TType.LIST:
            _, n = prot.readListBegin()
            names = [prot.readBinary() for _ in range(n)]
            prot.readListEnd()
        else:
            prot.skip(ftype)
        prot.readFieldEnd()
    prot.readStructEnd()
    prot.readMessageEnd()
    return names


def create_table(transport, name: bytes):
    prot = TBinaryProtocol.TBinaryProtocol(transport)
    prot.writeMessageBegin("createTable", TMessageType.CALL, 2)
    prot.writeStructBegin("createTable_args")
    prot.writeFieldBegin("tableName", TType.STRING, 1)
    prot.writeBinary(name)
    prot.writeFieldEnd()
    prot.writeFieldBegin("columnFamilies", TType.LIST, 2)
    prot.writeListBegin(TType.STRUCT, 1)
    prot.writeStructBegin("ColumnDescriptor")
    prot.writeFieldBegin("name", TType.STRING, 1)
    prot.writeBinary(b"f:")
    prot.writeFieldEnd()
    # The IDL's defaults, which generated clients would send.
    prot.writeFieldBegin("maxVersions", TType.I32, 2)
    prot.writeI32(3)
    prot.writeFieldEnd()
    for fid, name in ((3, "compression"), (5, "bloomFilterType")):
        prot.writeFieldBegin(name, TType.STRING, fid)
        prot.writeString("NONE")
        prot.writeFieldEnd()
    prot.writeFieldBegin("timeToLive", TType.I32, 9)
    prot.writeI32(2147483647)
    prot.writeFieldEnd()
    prot.writeFieldStop()
    prot.writeStructEnd()
    prot.writeListEnd()
    prot.writeFieldEnd()
    prot.writeFieldStop()
    prot.writeStructEnd()
    prot.writeMessageEnd()
    transport.flush()
    _reply(prot)
    # The result: empty, or one of IOError, IllegalArgument, AlreadyExists (message field 1).
    error = None
    prot.readStructBegin()
    while True:
        _, ftype, fid = prot.readFieldBegin()
        if ftype == TType.STOP:
            break
        if ftype == TType.STRUCT:
            prot.readStructBegin()
            while True:
                _, t, i = prot.readFieldBegin()
                if t == TType.STOP:
                    break
                if i == 1 and t == TType.STRING:
                    error = prot.readString()
                else:
                    prot.skip(t)
                prot.readFieldEnd()
            prot.readStructEnd()
        else:
            prot.skip(ftype)
        prot.readFieldEnd()
    prot.readStructEnd()
    prot.readMessageEnd()
    if error is not None:
        raise RuntimeError(f"createTable failed: {error}")


def get_table_names_request():
    """The bytes of a strict binary getTableNames call (for curl)."""
    buf = TTransport.TMemoryBuffer()
    prot = TBinaryProtocol.TBinaryProtocol(buf)
    prot.writeMessageBegin("getTableNames", TMessageType.CALL, 1)
    prot.writeStructBegin("getTableNames_args")
    prot.writeFieldStop()
    prot.writeStructEnd()
    prot.writeMessageEnd()
    return buf.getvalue()
