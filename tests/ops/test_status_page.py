"""The status page: its JSON feed, its embedded assets, and browser tests in which headless
Chromium (Debian's, driven by Playwright) watches write loads: a skewed one whose hot region
the page must single out, and the seeds' access-logs table (MD5-prefixed keys, 16 regions)
with one hot user beside tables of 200 and 1000 idle regions, at 1280x800 and 1920x1080: no
region drawn outside its card, the hot region at the top of the first screen, idle regions
grey.

Set REDBASE_SCREENSHOT=docs/status-page.png to refresh the picture in the docs from the
second test's first screen at 1280x800 (tests do not rewrite tracked files otherwise)."""

import hashlib
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


# The seeds' access-logs (sdks/schemas/access_logs.toml): user id replaced by the first five
# hex characters of its MD5, pre-split on the first one into 16 regions.
ACCESS_LOGS = "access-logs"
ACCESS_SPLITS = list("123456789abcdef")
HOT_USER = "dave"  # MD5 16108...: region [1, 2)
VIEWPORTS = [(1280, 800), (1920, 1080)]


def access_key(user, system, period):
    return f"{hashlib.md5(user.encode()).hexdigest()[:5]}|{system}|{period}".encode()


def hex_splits(regions):
    """Split keys for `regions` regions over 4-hex-digit prefixes."""
    return [f"{i * 0x10000 // regions:04x}" for i in range(1, regions)]


class HotUserLoad(SkewedLoad):
    """One user's rows written as fast as one client can (a hot key prefix in a hashed
    table), and a trickle from 32 others spread over every region. Bounded in time and count."""

    def _hot(self):
        conn = self.server.happybase()
        table = conn.table(self.table)
        while self._running() and self.hot_rows < self.max_rows:
            with table.batch() as b:
                for _ in range(50):
                    n = self.hot_rows
                    b.put(access_key(HOT_USER, f"sys{n % 97}", 200000 + n), {b"t:h": b"1"})
                    self.hot_rows += 1
        conn.close()

    def _trickle(self):
        conn = self.server.happybase()
        table = conn.table(self.table)
        n = 0
        while self._running():
            for u in range(32):
                table.put(access_key(f"user{u}", "jericho", 201510 + n), {b"t:h": b"1"})
            n += 1
            time.sleep(1.0)
        conn.close()


# Every element of every card (the hottest-regions card and each table's) must lie within
# its card, and the page must not scroll sideways.
GEOMETRY = """() => {
  const cards = [];
  for (const card of document.querySelectorAll("section.card")) {
    const c = card.getBoundingClientRect();
    const outside = [];
    for (const e of card.querySelectorAll("*")) {
      // Not drawn: a folded list of regions (its rows keep boxes, but nobody sees them).
      if (!e.checkVisibility()) continue;
      const b = e.getBoundingClientRect();
      if (b.width === 0 && b.height === 0) continue;
      if (b.left < c.left - 0.5 || b.right > c.right + 0.5 ||
          b.top < c.top - 0.5 || b.bottom > c.bottom + 0.5) {
        outside.push(`${e.tagName}.${e.className} [${b.left}, ${b.right}] in [${c.left}, ${c.right}]`);
      }
    }
    cards.push({ name: card.dataset.table || card.id, outside: outside.slice(0, 5),
                 count: outside.length, overflow: card.scrollWidth - card.clientWidth,
                 regions: card.querySelectorAll(".region").length });
  }
  return { cards, sideways: document.documentElement.scrollWidth - window.innerWidth,
           order: [...document.querySelectorAll("section.table")].map((s) => s.dataset.table) };
}"""

FIRST_SCREEN = """() => {
  const e = document.querySelector('#hot tr.hot-region[data-hottest="true"]');
  if (!e) return null;
  const b = e.getBoundingClientRect();
  return { table: e.dataset.table, start: e.dataset.start, top: b.top, bottom: b.bottom,
           left: b.left, right: b.right, width: window.innerWidth, height: window.innerHeight,
           scrolled: window.scrollY };
}"""

COLOURS = """(table) => {
  const idle = getComputedStyle(document.querySelector("#legend .swatch.idle")).backgroundColor;
  const cells = [...document.querySelectorAll(`.heat[data-table="${table}"] .region`)];
  return { idle, cells: cells.map((e) => ({ start: e.dataset.start, hottest: e.dataset.hottest,
    colour: getComputedStyle(e).backgroundColor })) };
}"""


def test_page_fits_any_region_count_and_leads_with_the_hot_region(redbase, tmp_path):
    from playwright.sync_api import sync_playwright

    server = redbase()
    # A thousand region files take a while to create on a busy machine.
    c2 = server.client2(timeout_ms=120_000)
    # Alphabetically before access-logs: sorted by name, they would push it below the fold.
    create_table(c2, "a-1000-regions", splits=hex_splits(1000))
    create_table(c2, "a-200-regions", splits=hex_splits(200))
    create_table(c2, ACCESS_LOGS, families=("t",), splits=ACCESS_SPLITS)
    c2.close()
    seen = {}
    with HotUserLoad(server, ACCESS_LOGS) as load, sync_playwright() as pw:
        browser = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=chromium_path(),
            headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"],
        )
        try:
            for width, height in VIEWPORTS:
                page = browser.new_page()
                page.set_viewport_size({"width": width, "height": height})
                page.goto(server.http_url("/"))
                # A few updates in, with the hot user's region at the top of the list.
                page.wait_for_function(
                    """() => Number(document.body.dataset.updates || 0) >= 3 &&
                         document.querySelector('#hot tr.hot-region[data-hottest="true"]')
                           ?.dataset.start === "1" """,
                    timeout=45_000,
                )
                first = int(page.evaluate("document.body.dataset.updates"))
                page.wait_for_function(
                    "(n) => Number(document.body.dataset.updates) > n", arg=first, timeout=15_000
                )
                seen[(width, height)] = {
                    "geometry": page.evaluate(GEOMETRY),
                    "first_screen": page.evaluate(FIRST_SCREEN),
                    "colours": {t: page.evaluate(COLOURS, t)
                                for t in (ACCESS_LOGS, "a-200-regions", "a-1000-regions")},
                }
                if (width, height) == VIEWPORTS[0]:
                    shot = tmp_path / "first-screen.png"
                    page.screenshot(path=str(shot))
                page.close()
        finally:
            browser.close()
        assert load.hot_rows > 0

    for size, s in seen.items():
        g = s["geometry"]
        assert g["sideways"] <= 0, (size, g)
        assert g["order"][0] == ACCESS_LOGS, (size, g["order"])
        by_name = {c["name"]: c for c in g["cards"]}
        assert {by_name[t]["regions"] for t in ("a-1000-regions", "a-200-regions", ACCESS_LOGS)} \
            == {1000, 200, 16}, (size, g["cards"])
        for card in g["cards"]:
            assert card["count"] == 0 and card["overflow"] <= 0, (size, card)

        hot = s["first_screen"]
        assert hot and hot["table"] == ACCESS_LOGS and hot["start"] == "1", (size, hot)
        assert hot["scrolled"] == 0, (size, hot)
        assert 0 <= hot["top"] and hot["bottom"] <= hot["height"], (size, hot)
        assert 0 <= hot["left"] and hot["right"] <= hot["width"], (size, hot)

        access = s["colours"][ACCESS_LOGS]
        idle = access["idle"]
        assert [c["start"] for c in access["cells"]] == [""] + ACCESS_SPLITS
        (hot_cell,) = [c for c in access["cells"] if c["hottest"] == "true"]
        assert hot_cell["start"] == "1" and hot_cell["colour"] != idle, (size, access)
        # The trickle is well under 2% of the hot user's rate: drawn idle, not warm.
        assert all(c["colour"] == idle for c in access["cells"] if c["start"] != "1"), \
            (size, access)
        for t in ("a-200-regions", "a-1000-regions"):
            assert all(c["colour"] == idle for c in s["colours"][t]["cells"]), (size, t)

    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    target = os.environ.get("REDBASE_SCREENSHOT")
    if target:
        dest = Path(target) if Path(target).is_absolute() else REPO / target
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(png)
