"""The status page: its JSON feed, its embedded assets, and a browser test in which headless
Chromium (Debian's, driven by Playwright) watches a skewed write load and must single out the
hot region.

Set REDBASE_SCREENSHOT=docs/status-page.png to refresh the picture in the README from the
browser test (tests do not rewrite tracked files otherwise)."""

import os
import re
import shutil
import threading
import time
from pathlib import Path

import pytest

from ops_util import REPO, create_table

SPLITS = ["b", "c", "d", "e", "f", "g"]
HOT_START = "d"


def test_status_feed_lists_tables_families_and_regions(server, table_name):
    c2 = server.client2()
    create_table(c2, table_name, families=("f", "g"), splits=["k", "t"])
    c2.close()
    st = server.status()
    assert st["ready"] is True and st["rate_window_secs"] > 0
    (t,) = [t for t in st["tables"] if t["name"] == table_name]
    assert t["enabled"] is True and t["offline"] is None
    assert [f["name"] for f in t["families"]] == ["f", "g"]
    assert all(f["max_versions"] == 3 for f in t["families"])
    ranges = [(r["start_key"], r["end_key"]) for r in t["regions"]]
    assert ranges == [("", "k"), ("k", "t"), ("t", "")]
    for r in t["regions"]:
        assert r["name"].startswith(f"{table_name},{r['start_key']},")
        assert re.fullmatch(r"[0-9a-f]{32}", r["encoded_name"])


def test_page_assets_are_embedded_and_self_contained(server):
    pages = {
        "/": "text/html",
        "/status.css": "text/css",
        "/status.js": "text/javascript",
    }
    for path, ctype in pages.items():
        code, got, body = server.get(path)
        assert code == 200 and got.startswith(ctype), (path, code, got)
        # No external assets: nothing fetched from another origin.
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", body), path
        assert "@import" not in body and "url(http" not in body, path
    html = server.get("/")[2]
    assert 'href="status.css"' in html and 'src="status.js"' in html


class SkewedLoad:
    """Sequential row keys into one region (the seeds' hotspot), plus a trickle of writes to
    every other region so they are not simply idle. Bounded in time and count."""

    def __init__(self, server, table, seconds=90, max_rows=400_000):
        self.server, self.table = server, table
        self.deadline = time.monotonic() + seconds
        self.max_rows = max_rows
        self.stop = threading.Event()
        self.errors = []
        self.hot_rows = 0
        self.threads = [threading.Thread(target=self._guard(self._hot), daemon=True),
                        threading.Thread(target=self._guard(self._trickle), daemon=True)]

    def _guard(self, f):
        def run():
            try:
                f()
            except Exception as e:  # reported by the test, not lost in a thread
                self.errors.append(e)
        return run

    def _running(self):
        return not self.stop.is_set() and time.monotonic() < self.deadline

    def _hot(self):
        conn = self.server.happybase()
        table = conn.table(self.table)
        while self._running() and self.hot_rows < self.max_rows:
            with table.batch() as b:
                for _ in range(50):
                    b.put(f"{HOT_START}{self.hot_rows:010d}".encode(), {b"f:v": b"x" * 64})
                    self.hot_rows += 1
        conn.close()

    def _trickle(self):
        conn = self.server.happybase()
        table = conn.table(self.table)
        starts = ["a"] + [s for s in SPLITS if s != HOT_START]
        n = 0
        while self._running():
            for s in starts:
                table.put(f"{s}{n:06d}".encode(), {b"f:v": b"y"})
            n += 1
            time.sleep(0.2)
        conn.close()

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=30)
        assert not self.errors, self.errors


def chromium_path():
    path = os.environ.get("CHROMIUM") or shutil.which("chromium")
    assert path, "Debian's chromium is required (tests/ops/run.sh installs it)"
    return path


def test_browser_shows_the_hot_region(redbase, tmp_path):
    from playwright.sync_api import sync_playwright

    # A server of its own, so the page (and the README's picture) shows this table alone.
    server = redbase()
    table_name = "access_logs"
    c2 = server.client2()
    create_table(c2, table_name, splits=SPLITS)
    c2.close()
    with SkewedLoad(server, table_name) as load, sync_playwright() as pw:
        browser = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=chromium_path(),
            headless=True,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
            viewport={"width": 1280, "height": 900},
        )
        try:
            page = browser.new_page()
            page.goto(server.http_url("/"))
            strip = f'.heat[data-table="{table_name}"]'
            # The page refreshes itself: wait for a few updates with a hot region marked.
            page.wait_for_function(
                """([strip]) => Number(document.body.dataset.updates || 0) >= 3 &&
                     document.querySelector(strip + ' .region[data-hottest="true"]')""",
                arg=[strip],
                timeout=45_000,
            )
            first = int(page.evaluate("document.body.dataset.updates"))
            page.wait_for_function(
                "(n) => Number(document.body.dataset.updates) > n", arg=first, timeout=15_000
            )
            cells = page.eval_on_selector_all(
                f"{strip} .region",
                """els => els.map(e => ({start: e.dataset.start, heat: Number(e.dataset.heat),
                          hottest: e.dataset.hottest, cls: e.className,
                          colour: getComputedStyle(e).backgroundColor}))""",
            )
            shot = tmp_path / "status-page.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
        assert load.hot_rows > 0

    assert [c["start"] for c in cells] == [""] + SPLITS
    hot = [c for c in cells if c["hottest"] == "true"]
    assert len(hot) == 1, cells
    assert hot[0]["start"] == HOT_START, cells
    assert hot[0]["heat"] == 1.0 and "hottest" in hot[0]["cls"]
    others = [c for c in cells if c["start"] != HOT_START]
    assert all(c["heat"] < 0.3 and "hottest" not in c["cls"] for c in others), cells
    assert any(c["heat"] > 0 for c in others), "the trickle makes other regions warm, not idle"
    assert all(c["colour"] != hot[0]["colour"] for c in others), "the hot region looks different"

    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    target = os.environ.get("REDBASE_SCREENSHOT")
    if target:
        dest = Path(target) if Path(target).is_absolute() else REPO / target
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(png)
