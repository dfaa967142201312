// The status page: fetches api/status every 2 s and redraws. It leads with the hottest regions
// of the server (table, key range, rates), then each table, busiest first, with a heat strip of
// its regions that wraps to fit any number of them. A region's colour scales with its recent
// reads + writes per second against the busiest region (or HEAT_FLOOR, whichever is more), and
// a region under IDLE_RATE or IDLE_SHARE of that is drawn idle, in grey. The busiest region is
// marked in the DOM (class "hottest", data-hottest="true") for people and tests alike.
"use strict";

const REFRESH_MS = 2000;
// Under this many reads + writes per second a region is idle, however quiet the rest are.
const IDLE_RATE = 1;
// Under this share of the heat scale a region is idle too: a trickle beside a hotspot.
const IDLE_SHARE = 0.02;
// The heat scale is the busiest region's rate, but never less than this: a server doing a
// few calls a second shows no red.
const HEAT_FLOOR = 50;
// Regions listed at the top.
const HOT_LIST = 5;
// Strips of more regions draw small cells without text; of this many, smaller still.
const DETAILED_MAX = 48;
const TINY_MIN = 2000;
// Region tables of more rows start folded.
const TABLE_OPEN_MAX = 32;
// Keys longer than this are cut on the page (the full key is in the tooltip).
const KEY_CHARS = 28;

const IDLE_COLOUR = "hsl(210, 16%, 91%)";

let updates = 0;
// Which tables' region lists the user opened or folded, kept across redraws.
const folded = new Map();

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) {
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}

function rate(r) {
  if (r >= 100) return Math.round(r).toLocaleString();
  if (r >= 10) return r.toFixed(1);
  return r.toFixed(2);
}

function duration(secs) {
  const d = Math.floor(secs / 86400), h = Math.floor(secs / 3600) % 24;
  const m = Math.floor(secs / 60) % 60, s = secs % 60;
  return (d ? d + "d " : "") + (d || h ? h + "h " : "") + (d || h || m ? m + "m " : "") + s + "s";
}

const load = (r) => r.reads_per_sec + r.writes_per_sec;

function isIdle(rateNow, heat) {
  return rateNow < IDLE_RATE || heat < IDLE_SHARE;
}

// Grey when idle; then pale amber through orange to red as a region nears the scale's top.
function heatColour(heat, rateNow) {
  if (isIdle(rateNow, heat)) return IDLE_COLOUR;
  const t = Math.min(1, heat);
  const hue = 42 * (1 - t);
  const light = 80 - 36 * t;
  return `hsl(${hue.toFixed(0)}, 92%, ${light.toFixed(0)}%)`;
}

function shortKey(k) {
  return k.length > KEY_CHARS ? k.slice(0, KEY_CHARS - 1) + "\u2026" : k;
}

function keyRange(r, cut) {
  const f = cut ? shortKey : (k) => k;
  return `[${r.start_key === "" ? "\u2026" : f(r.start_key)}, ` +
    `${r.end_key === "" ? "\u2026" : f(r.end_key)})`;
}

function familiesTable(families) {
  const head = el("tr", {}, ...["family", "versions", "min versions", "TTL", "keep deleted",
    "bloom filter", "compression", "in memory", "block size"].map((h) => el("th", {}, h)));
  const rows = families.map((f) => el("tr", {},
    el("td", { class: "key" }, f.name),
    el("td", {}, f.max_versions),
    el("td", {}, f.min_versions),
    el("td", {}, f.ttl_secs == null ? "forever" : duration(f.ttl_secs)),
    el("td", {}, f.keep_deleted_cells),
    el("td", {}, f.bloom_filter),
    el("td", {}, f.compression),
    el("td", {}, f.in_memory ? "yes" : "no"),
    el("td", {}, bytes(f.block_size))));
  return el("table", { class: "families" }, el("thead", {}, head), el("tbody", {}, ...rows));
}

// The top of the page: the busiest regions of the whole server, hottest first, and how many
// more are under load or idle.
function hotList(busy, regions, total, windowSecs, scale, hottest) {
  document.getElementById("hot-window").textContent =
    `(reads + writes per second over the last ${windowSecs} s)`;
  if (busy.length === 0) {
    return [el("p", { class: "muted", id: "all-idle" },
      `All ${regions.toLocaleString()} regions idle: none had ${IDLE_RATE} read or write ` +
      "per second or more.")];
  }
  const hot = busy.slice(0, HOT_LIST);
  const more = busy.length - hot.length;
  const idle = regions - busy.length;
  const rest = [more ? `${more.toLocaleString()} more under load` : "",
    idle ? `${idle.toLocaleString()} idle` : ""].filter((x) => x).join(", ");
  const head = el("tr", {}, ...["", "table", "key range", "reads/s", "writes/s", "share"]
    .map((h, i) => el("th", { class: i >= 3 ? "num" : "" }, h)));
  const rows = hot.map(({ table, region: r }, i) => {
    const share = total > 0 ? load(r) / total : 0;
    const heat = load(r) / scale;
    return el("tr", {
      class: "hot-region" + (r === hottest ? " hottest" : ""),
      "data-table": table,
      "data-region": r.encoded_name,
      "data-start": r.start_key,
      "data-hottest": r === hottest ? "true" : "false",
      title: `${r.name}\n${keyRange(r, false)}`,
    },
    el("td", { class: "rank" }, el("span", { class: "swatch",
      style: `background: ${heatColour(heat, load(r))}` }), `${i + 1}`),
    el("td", { class: "name" }, table),
    el("td", { class: "key" }, keyRange(r, true)),
    el("td", { class: "num" }, rate(r.reads_per_sec)),
    el("td", { class: "num" }, rate(r.writes_per_sec)),
    el("td", { class: "num" }, `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`));
  });
  const list = el("table", { class: "hot" }, el("thead", {}, head), el("tbody", {}, ...rows));
  return rest ? [list, el("p", { class: "muted rest" }, `Other regions: ${rest}.`)] : [list];
}

// Strips of a few regions get balanced rows (16 as 8 + 8, not 12 + 4), each cell at least
// CELL_MIN wide; the grid still wraps, so nothing leaves the card.
const CELL_MIN = 96, CELL_GAP = 3;
function balance() {
  for (const s of document.querySelectorAll(".heat:not(.dense)")) {
    const n = s.children.length;
    if (n === 0) continue;
    const fit = Math.max(1, Math.floor((s.clientWidth + CELL_GAP) / (CELL_MIN + CELL_GAP)));
    const rows = Math.ceil(n / fit);
    s.style.gridTemplateColumns = `repeat(${Math.ceil(n / rows)}, minmax(0, 1fr))`;
  }
}

function strip(t, scale, hottest) {
  const n = t.regions.length;
  const cls = "heat" + (n > DETAILED_MAX ? " dense" : "") + (n >= TINY_MIN ? " tiny" : "");
  return el("div", { class: cls, "data-table": t.name }, ...t.regions.map((r) => {
    const heat = load(r) / scale;
    const hot = r === hottest;
    const idle = isIdle(load(r), heat);
    const cell = el("div", {
      class: "region" + (hot ? " hottest" : "") + (idle ? " idle" : ""),
      "data-region": r.encoded_name,
      "data-start": r.start_key,
      "data-end": r.end_key,
      "data-heat": heat.toFixed(6),
      "data-hottest": hot ? "true" : "false",
      title: `${r.name}\n${keyRange(r, false)}\n${bytes(r.size_bytes)}, ` +
        `${rate(r.reads_per_sec)} reads/s, ${rate(r.writes_per_sec)} writes/s`,
      // Light text where the colour gets dark (orange to red).
      style: `background-color: ${heatColour(heat, load(r))}` +
        (!idle && heat > 0.55 ? "; color: #fff" : ""),
    });
    if (n <= DETAILED_MAX) {
      cell.append(
        el("div", { class: "range" }, keyRange(r, true)),
        el("div", { class: "rate" }, `${rate(r.writes_per_sec)} w/s`),
        el("div", { class: "rate" }, `${rate(r.reads_per_sec)} r/s`),
        el("div", { class: "size" }, bytes(r.size_bytes)));
      if (hot) cell.append(el("div", { class: "tag" }, "hottest"));
    }
    return cell;
  }));
}

function regionsTable(t, scale) {
  const head = el("tr", {}, ...["start key", "end key", "size", "reads/s", "writes/s",
    "reads", "writes", "heat"].map((h, i) => el("th", { class: i >= 2 ? "num" : "" }, h)));
  const rows = t.regions.map((r) => {
    const heat = load(r) / scale;
    return el("tr", {},
      el("td", { class: "key", title: r.start_key }, r.start_key === "" ? "(start)" : shortKey(r.start_key)),
      el("td", { class: "key", title: r.end_key }, r.end_key === "" ? "(end)" : shortKey(r.end_key)),
      el("td", { class: "num" }, bytes(r.size_bytes)),
      el("td", { class: "num" }, rate(r.reads_per_sec)),
      el("td", { class: "num" }, rate(r.writes_per_sec)),
      el("td", { class: "num" }, r.reads.toLocaleString()),
      el("td", { class: "num" }, r.writes.toLocaleString()),
      el("td", { class: "num" }, el("span", { class: "meter",
        style: `width: ${Math.max(2, Math.round(Math.min(1, heat) * 80))}px; ` +
          `background: ${heatColour(heat, load(r))}` })));
  });
  const open = folded.has(t.name) ? folded.get(t.name) : t.regions.length <= TABLE_OPEN_MAX;
  const details = el("details", { class: "region-list" },
    el("summary", {}, `Regions (${t.regions.length})`),
    el("table", { class: "regions" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  details.open = open;
  details.addEventListener("toggle", () => folded.set(t.name, details.open));
  return details;
}

function render(status) {
  const all = status.tables.flatMap((t) => t.regions.map((region) => ({ table: t.name, region })));
  const max = all.reduce((m, x) => Math.max(m, load(x.region)), 0);
  const total = all.reduce((s, x) => s + load(x.region), 0);
  const scale = Math.max(max, HEAT_FLOOR);
  // Under load: neither idle rule holds. The busiest of them is the hottest.
  const busy = all.filter((x) => !isIdle(load(x.region), load(x.region) / scale))
    .sort((a, b) => load(b.region) - load(a.region));
  const hottest = busy.length ? busy[0].region : null;

  document.getElementById("version").textContent = status.version;
  document.getElementById("uptime").textContent = duration(status.uptime_secs);
  document.getElementById("ready").textContent = status.ready ? "ready" : "not ready";
  // How the server is protected, and a warning when it is exposed without authentication.
  const sec = status.security;
  document.getElementById("security").textContent =
    (sec.tls ? (sec.require_tls ? "TLS only" : "TLS") : "plaintext") + ", " +
    (sec.authentication ? "authentication on" : "no authentication");
  const warnings = document.getElementById("security-warnings");
  warnings.textContent = sec.warnings.map((w) => "Security warning: " + w).join("\n");
  warnings.hidden = sec.warnings.length === 0;
  document.getElementById("table-count").textContent = status.tables.length;
  document.getElementById("region-count").textContent = all.length.toLocaleString();
  document.getElementById("reads-rate").textContent =
    rate(all.reduce((s, x) => s + x.region.reads_per_sec, 0));
  document.getElementById("writes-rate").textContent =
    rate(all.reduce((s, x) => s + x.region.writes_per_sec, 0));
  document.getElementById("commits").textContent = status.commits.toLocaleString();
  document.getElementById("compactions").textContent = status.compactions.toLocaleString();
  document.getElementById("splits").textContent = status.splits.toLocaleString();
  document.getElementById("hot-list").replaceChildren(
    ...hotList(busy, all.length, total, status.rate_window_secs, scale, hottest));

  // Busiest tables first, then by name.
  const tableLoad = (t) => t.regions.reduce((m, r) => Math.max(m, load(r)), 0);
  const loaded = (t) => (isIdle(tableLoad(t), tableLoad(t) / scale) ? 0 : tableLoad(t));
  const tables = [...status.tables].sort((a, b) =>
    loaded(b) - loaded(a) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sections = tables.map((t) => {
    const badge = t.offline ? el("span", { class: "badge offline", title: t.offline }, "offline")
      : t.enabled ? el("span", { class: "badge" }, "enabled")
      : el("span", { class: "badge off" }, "disabled");
    const tLoad = t.regions.reduce((s, r) => s + load(r), 0);
    return el("section", { class: "table card", "data-table": t.name },
      el("h2", {}, t.name, badge,
        el("span", { class: "muted table-load" },
          `${t.regions.length.toLocaleString()} regions, ${rate(tLoad)} reads + writes/s`)),
      strip(t, scale, hottest),
      regionsTable(t, scale),
      el("h3", {}, "Column families"),
      familiesTable(t.families));
  });
  const main = document.getElementById("tables");
  main.replaceChildren(...(sections.length ? sections
    : [el("p", { class: "muted" }, "No tables yet.")]));
  balance();
}

async function refresh() {
  const error = document.getElementById("error");
  try {
    const response = await fetch("api/status", { cache: "no-store" });
    if (!response.ok) throw new Error(`api/status answered ${response.status}`);
    render(await response.json());
    updates += 1;
    document.body.dataset.updates = String(updates);
    error.hidden = true;
    document.getElementById("updated").textContent =
      "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    error.textContent = "Cannot reach the server: " + e.message;
    error.hidden = false;
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

document.getElementById("heat-floor").textContent = HEAT_FLOOR;
document.getElementById("idle-rate").textContent = IDLE_RATE;
document.getElementById("idle-share").textContent = IDLE_SHARE * 100;
window.addEventListener("resize", balance);
refresh();
