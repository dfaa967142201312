"""curl with HTTP Basic and Bearer over HTTPS: Thrift over HTTP on the Thrift port, and the
operations listener's status API."""

import json
import subprocess

from conftest import PASSWORD, TOKEN
from thrift_util import get_table_names_request


def curl(server, url, *args, body=None):
    """(status, body) of one curl request trusting the suite's CA."""
    cmd = ["curl", "-sS", "--cacert", server.path("ca.crt"), "-o", "-", "-w", "\n%{http_code}", *args, url]
    out = subprocess.run(cmd, input=body, capture_output=True, check=True).stdout
    text, _, code = out.rpartition(b"\n")
    return int(code), text


def thrift_post(server, *args, scheme="https"):
    return curl(server, f"{scheme}://127.0.0.1:{server.t1}/", "-X", "POST", "--data-binary", "@-",
                "-H", "Content-Type: application/x-thrift", *args, body=get_table_names_request())


def test_basic_over_https_calls_thrift(server):
    code, body = thrift_post(server, "-u", f"alice:{PASSWORD}")
    assert code == 200, body
    assert body[:4] == b"\x80\x01\x00\x02", body  # a strict binary reply


def test_bearer_over_https_calls_thrift(server):
    code, body = thrift_post(server, "-H", f"Authorization: Bearer {TOKEN}")
    assert code == 200, body


def test_wrong_password_is_401(server):
    code, body = thrift_post(server, "-u", "alice:wrong")
    assert code == 401
    assert b"authentication failed" in body


def test_plain_http_is_refused_under_require_tls(server):
    code, body = thrift_post(server, "-u", f"alice:{PASSWORD}", scheme="http")
    assert code == 400
    assert b"--require-tls" in body


def test_status_api_needs_credentials(server):
    url = f"https://127.0.0.1:{server.http}/api/status"
    code, _ = curl(server, url)
    assert code == 401
    code, body = curl(server, url, "-u", f"alice:{PASSWORD}")
    assert code == 200, body
    status = json.loads(body)
    assert status["security"] == {"tls": True, "require_tls": True, "authentication": True, "warnings": []}


def test_cross_site_post_is_refused(server):
    code, body = curl(server, f"https://127.0.0.1:{server.t1}/", "-X", "POST", "--data-binary", "@-",
                      "-H", "Origin: http://evil.example", "-H", "Content-Type: text/plain",
                      "-u", f"alice:{PASSWORD}", body=get_table_names_request())
    assert code == 403, body
