// The status page: fetches api/status every 2 s and redraws. Each region's colour scales with
// its recent reads + writes per second against the busiest region on the server, so a
// hotspot (sequential keys piling onto one region) shows at a glance. The busiest region is
// also marked in the DOM (class "hottest", data-hottest="true") for people and tests alike.
"use strict";

const REFRESH_MS = 2000;
let updates = 0;

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

// Cool grey for idle, then yellow through orange to red as a region nears the busiest one.
function heatColour(heat, busy) {
  if (!busy) return "hsl(210, 20%, 90%)";
  const hue = 55 * (1 - heat);
  const light = 72 - 27 * heat;
  return `hsl(${hue.toFixed(0)}, 95%, ${light.toFixed(0)}%)`;
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

function keyRange(r) {
  return `[${r.start_key === "" ? "\u2026" : r.start_key}, ${r.end_key === "" ? "\u2026" : r.end_key})`;
}

function render(status) {
  const regions = status.tables.flatMap((t) => t.regions);
  const load = (r) => r.reads_per_sec + r.writes_per_sec;
  const max = regions.reduce((m, r) => Math.max(m, load(r)), 0);
  const hottest = max > 0 ? regions.find((r) => load(r) === max) : null;

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
  document.getElementById("region-count").textContent = regions.length;
  document.getElementById("commits").textContent = status.commits.toLocaleString();
  document.getElementById("compactions").textContent = status.compactions.toLocaleString();
  document.getElementById("splits").textContent = status.splits.toLocaleString();

  const sections = status.tables.map((t) => {
    const badge = t.offline ? el("span", { class: "badge offline", title: t.offline }, "offline")
      : t.enabled ? el("span", { class: "badge" }, "enabled")
      : el("span", { class: "badge off" }, "disabled");
    const strip = el("div", { class: "heat", "data-table": t.name }, ...t.regions.map((r) => {
      const heat = max > 0 ? load(r) / max : 0;
      const hot = r === hottest;
      const cell = el("div", {
        class: "region" + (hot ? " hottest" : ""),
        "data-region": r.encoded_name,
        "data-start": r.start_key,
        "data-end": r.end_key,
        "data-heat": heat.toFixed(6),
        "data-hottest": hot ? "true" : "false",
        title: `${r.name}\n${keyRange(r)}\n${bytes(r.size_bytes)}, ` +
          `${rate(r.reads_per_sec)} reads/s, ${rate(r.writes_per_sec)} writes/s`,
        // Light text where the colour gets dark (orange to red).
        style: `background-color: ${heatColour(heat, load(r) > 0)}` +
          (heat > 0.6 ? "; color: #fff" : ""),
      },
      el("div", { class: "range" }, keyRange(r)),
      el("div", { class: "rate" }, `${rate(r.writes_per_sec)} w/s`),
      el("div", { class: "rate" }, `${rate(r.reads_per_sec)} r/s`),
      el("div", {}, bytes(r.size_bytes)));
      if (hot) cell.append(el("div", { class: "tag" }, "hottest"));
      return cell;
    }));
    const head = el("tr", {}, ...["start key", "end key", "size", "reads/s", "writes/s",
      "reads", "writes", "heat"].map((h, i) => el("th", { class: i >= 2 ? "num" : "" }, h)));
    const rows = t.regions.map((r) => {
      const heat = max > 0 ? load(r) / max : 0;
      return el("tr", {},
        el("td", { class: "key" }, r.start_key === "" ? "(start)" : r.start_key),
        el("td", { class: "key" }, r.end_key === "" ? "(end)" : r.end_key),
        el("td", { class: "num" }, bytes(r.size_bytes)),
        el("td", { class: "num" }, rate(r.reads_per_sec)),
        el("td", { class: "num" }, rate(r.writes_per_sec)),
        el("td", { class: "num" }, r.reads.toLocaleString()),
        el("td", { class: "num" }, r.writes.toLocaleString()),
        el("td", { class: "num" }, el("span", { class: "meter",
          style: `width: ${Math.max(2, Math.round(heat * 80))}px; ` +
            `background: ${heatColour(heat, load(r) > 0)}` })));
    });
    return el("section", { class: "table", "data-table": t.name },
      el("h2", {}, t.name, badge),
      el("h3", {}, `Regions (${t.regions.length})`),
      strip,
      el("table", { class: "regions" }, el("thead", {}, head), el("tbody", {}, ...rows)),
      el("h3", {}, "Column families"),
      familiesTable(t.families));
  });
  const main = document.getElementById("tables");
  main.replaceChildren(...(sections.length ? sections
    : [el("p", { class: "muted" }, "No tables yet.")]));
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

refresh();
