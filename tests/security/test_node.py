"""The thrift npm package (Node) against redbase's Thrift2 port: `createSSLConnection` with and
without a client certificate, `createHttpConnection` with `https: true` and HTTP Basic, and a
plaintext `createConnection` under --require-tls. The Thrift2 client is the Thrift compiler's
`--gen js:node` output of idl/hbase2.thrift."""

import json
import os

from build import ROOT, built, run
from conftest import PASSWORD

CLIENT = ROOT / "tests" / "security" / "node" / "client.js"

def node(server, mode, table, **kw):
    opts = {"mode": mode, "port": server.t2, "ca": server.path("ca.crt"), "table": table,
            "gen": str(built("node/gen")), **kw}
    # The generated code requires "thrift": from this suite's node_modules.
    env = {**os.environ, "NODE_PATH": str(ROOT / "tests" / "security" / "node" / "node_modules")}
    return run(["node", CLIENT, json.dumps(opts)], env=env)

def test_tls_with_a_client_certificate_works(server):
    code, out = node(server, "tls", "node_tls", cert=server.path("alice.crt"), key=server.path("alice.key"))
    assert (code, out.strip()) == (0, "OK from node"), out

def test_tls_without_identity_is_refused(server):
    code, out = node(server, "tls", "node_anonymous")
    assert code == 2 and "authentication required" in out, out

def test_https_with_basic_credentials_works(server):
    code, out = node(server, "https", "node_https", user="alice", password=PASSWORD)
    assert (code, out.strip()) == (0, "OK from node"), out

def test_https_with_a_wrong_password_is_401(server):
    code, out = node(server, "https", "node_https_wrong", user="alice", password="wrong")
    assert code == 2 and "401" in out, out

def test_plaintext_is_refused_under_require_tls(server):
    code, out = node(server, "plain", "node_plain")
    assert code == 2 and "--require-tls" in out, out
