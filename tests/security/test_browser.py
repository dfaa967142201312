"""A web page on another origin, in headless Chromium (Debian's `chromium`), tries to make a
developer's redbase (loopback, no TLS, no auth file: the default) run Thrift calls through the
Thrift2 port's Thrift over HTTP: a "simple" `fetch` POST with `Content-Type: text/plain` (no CORS
preflight needed, so a browser sends it, in `cors` and in `no-cors` mode) and one with
`application/x-thrift` (which needs a preflight). Each carries a real serialized
`createNamespace` call. The page must see every fetch fail, and the namespaces must not exist
afterwards (checked with thriftpy2).

So that the test cannot pass by accident:
- the same page against a recording HTTP server shows what Chromium really sends: the simple
  POSTs arrive whole, with the page's Origin; the other one only as an OPTIONS preflight;
- the same bytes posted by a normal client with no Origin and a Thrift content type do create
  the namespace, and the page's simple request without its Origin is refused only for its
  content type (415), with it for its Origin (403)."""

import http.client
import http.server
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
import thriftpy2
from thrift.protocol import TBinaryProtocol
from thrift.Thrift import TMessageType, TType
from thrift.transport import TTransport
from thriftpy2.rpc import make_client

from conftest import free_port

IDL = Path(__file__).resolve().parents[2] / "idl" / "hbase2.thrift"
hbase2 = thriftpy2.load(str(IDL), module_name="hbase2_browser_thrift")

KINDS = ("simple", "nocors", "preflight")

PAGE = """<!doctype html>
<html><body><pre id="out">RUNNING</pre>
<script>
const target = new URLSearchParams(location.search).get("target");
const bodies = %(bodies)s;
function bytes(hex) {
  return new Uint8Array(hex.match(/../g).map(h => parseInt(h, 16)));
}
async function attempt(kind, init) {
  try {
    const r = await fetch(target, Object.assign({method: "POST", body: bytes(bodies[kind])}, init));
    return kind + " resolved type=" + r.type + " status=" + r.status;
  } catch (e) {
    return kind + " failed " + e.name + ": " + e.message;
  }
}
(async () => {
  const lines = [];
  lines.push(await attempt("simple", {headers: {"Content-Type": "text/plain"}}));
  lines.push(await attempt("nocors", {mode: "no-cors", headers: {"Content-Type": "text/plain"}}));
  lines.push(await attempt("preflight", {headers: {"Content-Type": "application/x-thrift"}}));
  document.getElementById("out").textContent = "DONE\\n" + lines.join("\\n");
})();
</script></body></html>
"""


def create_namespace_call(name: str) -> bytes:
    """The bytes of a strict binary THBaseService.createNamespace call."""
    buf = TTransport.TMemoryBuffer()
    prot = TBinaryProtocol.TBinaryProtocol(buf)
    prot.writeMessageBegin("createNamespace", TMessageType.CALL, 1)
    prot.writeStructBegin("createNamespace_args")
    prot.writeFieldBegin("namespaceDesc", TType.STRUCT, 1)
    prot.writeStructBegin("TNamespaceDescriptor")
    prot.writeFieldBegin("name", TType.STRING, 1)
    prot.writeString(name)
    prot.writeFieldEnd()
    prot.writeFieldStop()
    prot.writeStructEnd()
    prot.writeFieldEnd()
    prot.writeFieldStop()
    prot.writeStructEnd()
    prot.writeMessageEnd()
    return buf.getvalue()


def namespace_name(kind):
    return f"browser_{kind}"


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every request 200 with no CORS headers, and remembers it."""
    seen = []

    def _record(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        Recorder.seen.append((self.command, self.headers.get("Origin"), self.headers.get("Content-Type"), body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_OPTIONS = _record

    def log_message(self, *args):
        pass


def serve(handler, directory=None):
    port = free_port()
    if directory is not None:
        def make(*a, **k):
            return handler(*a, directory=str(directory), **k)
    else:
        make = handler
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), make)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, port


@pytest.fixture(scope="module")
def page_origin(tmp_path_factory):
    d = tmp_path_factory.mktemp("page")
    bodies = {k: create_namespace_call(namespace_name(k)).hex() for k in KINDS}
    (d / "page.html").write_text(PAGE % {"bodies": repr(bodies).replace("'", '"')})
    httpd, port = serve(Quiet, d)
    yield f"http://127.0.0.1:{port}"
    httpd.shutdown()


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return name
    raise AssertionError("no chromium: tests/security/run.sh installs Debian's chromium")


def run_page(origin, target, tmp_path):
    """The page's result lines after its fetches, from headless Chromium's DOM dump."""
    out = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-extensions", "--disable-sync", "--disable-dev-shm-usage",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=15000", "--timeout=30000",
         "--dump-dom", f"{origin}/page.html?target={target}"],
        capture_output=True, timeout=120)
    dom = out.stdout.decode(errors="replace")
    assert "DONE" in dom, f"the page did not finish (exit {out.returncode}): {dom[-2000:]} {out.stderr[-3000:]!r}"
    text = dom.split("DONE", 1)[1].split("</pre>", 1)[0]
    lines = [line.strip() for line in text.strip().splitlines()]
    return {line.split(" ", 1)[0]: line for line in lines}


def thrift_post(port, body, headers):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("POST", "/", body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def namespaces(server):
    c = make_client(hbase2.THBaseService, "127.0.0.1", server.t2, timeout=20000)
    try:
        return set(c.listNamespaces())
    finally:
        c.close()


def test_what_chromium_sends_cross_origin(page_origin, tmp_path):
    Recorder.seen.clear()
    httpd, port = serve(Recorder)
    try:
        results = run_page(page_origin, f"http://127.0.0.1:{port}/", tmp_path)
    finally:
        httpd.shutdown()
    # No Access-Control-Allow-Origin: the page cannot read a cors answer, and the preflight fails.
    assert results["simple"].startswith("simple failed TypeError"), results
    assert results["nocors"] == "nocors resolved type=opaque status=0", results
    assert results["preflight"].startswith("preflight failed TypeError"), results
    posts = [s for s in Recorder.seen if s[0] == "POST"]
    body = {create_namespace_call(namespace_name(k)): k for k in KINDS}
    assert sorted(body.get(b, "?") for _, _, _, b in posts) == ["nocors", "simple"], Recorder.seen
    assert all(o == page_origin and ct == "text/plain" for _, o, ct, _ in posts), posts
    options = [s for s in Recorder.seen if s[0] == "OPTIONS"]
    assert len(options) == 1 and options[0][1] == page_origin, Recorder.seen


def test_cross_origin_fetches_fail_and_change_nothing(open_server, page_origin, tmp_path):
    target = f"http://127.0.0.1:{open_server.t2}/"
    before = namespaces(open_server)
    results = run_page(page_origin, target, tmp_path)
    assert results["simple"].startswith("simple failed TypeError"), results
    assert results["preflight"].startswith("preflight failed TypeError"), results
    # no-cors hides every answer from the page; what matters is that nothing happened.
    assert results["nocors"] == "nocors resolved type=opaque status=0", results
    after = namespaces(open_server)
    assert after == before, after
    for k in KINDS:
        assert namespace_name(k) not in after

    # What the server answers each part of the browser's simple request.
    call = create_namespace_call(namespace_name("simple"))
    status, body = thrift_post(open_server.t2, call, {"Content-Type": "text/plain", "Origin": page_origin})
    assert status in (403, 415), (status, body)
    status, body = thrift_post(open_server.t2, call, {"Content-Type": "application/x-thrift", "Origin": page_origin})
    assert status == 403 and b"cross-site request refused" in body, (status, body)
    status, body = thrift_post(open_server.t2, call, {"Content-Type": "text/plain"})
    assert status == 415, (status, body)
    assert namespace_name("simple") not in namespaces(open_server)

    # The same bytes from a normal client, no Origin, a Thrift content type: the call runs.
    for k in KINDS:
        status, body = thrift_post(open_server.t2, create_namespace_call(namespace_name(k)),
                                   {"Content-Type": "application/x-thrift"})
        assert status == 200 and body[:4] == b"\x80\x01\x00\x02", (status, body)
    assert {namespace_name(k) for k in KINDS} <= namespaces(open_server)
