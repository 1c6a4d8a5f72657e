"use strict";
// The gateway's status page: reads /api/stats, /api/nodes and /api/packets
// from the server that sent it (nothing else), refreshes every few
// seconds; Meshtastic's and MeshCore's rows side by side, each with its
// mesh. Text from the feed reaches the page only through textContent.
const REFRESH_MS = 5000;
const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function when(ms) {
  return ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : "";
}

async function get(path) {
  const r = await fetch(path, { headers: { accept: "application/json" } });
  if (!r.ok) throw new Error(path + ": " + r.status);
  return r.json();
}

function row(cells, classes) {
  const tr = el("tr");
  cells.forEach((c, i) => tr.appendChild(el("td", c, classes && classes[i])));
  return tr;
}

function showHealth(g) {
  const h = document.getElementById("health");
  h.textContent = g.ready ? "ready" : (!g.subscribed ? "not subscribed" : (!g.store_writable ? "store not writable" : "not ready"));
  h.className = "badge " + (g.ready ? "ok" : "bad");
  const c = g.counts;
  const m = c.meshcore || { messages: 0, receptions: 0 };
  document.getElementById("counts").textContent =
    `messages ${c.messages} · packets ${c.packets} · stored ${c.store.packets} · meshcore messages ${m.messages}, ` +
    `receptions ${m.receptions}, stored ${c.store.meshcore_packets || 0} · held ${c.held} · connects ${c.connection.connects}`;
}

function showRate(stats) {
  const plot = document.getElementById("rate");
  const legend = document.getElementById("legend");
  plot.replaceChildren();
  legend.replaceChildren();
  const end = Math.floor(Date.now() / 60000) * 60000;
  const start = end - (stats.minutes - 1) * 60000;
  const series = new Map();
  let max = 1;
  for (const m of stats.per_minute) {
    if (!series.has(m.channel_id)) series.set(m.channel_id, new Map());
    series.get(m.channel_id).set(m.minute_ms, m.packets);
    max = Math.max(max, m.packets);
  }
  const x = t => 30 + (t - start) / Math.max(1, end - start) * 560;
  const y = v => 165 - v / max * 150;
  plot.appendChild(svg("text", { x: 2, y: 15, "font-size": 10 }, max));
  plot.appendChild(svg("line", { x1: 30, y1: 165, x2: 590, y2: 165, stroke: "#999" }));
  let i = 0;
  for (const [channel, points] of series) {
    const colour = COLOURS[i++ % COLOURS.length];
    let d = "";
    for (let t = start; t <= end; t += 60000) d += (d ? " L" : "M") + x(t).toFixed(1) + " " + y(points.get(t) || 0).toFixed(1);
    plot.appendChild(svg("path", { d, fill: "none", stroke: colour, "stroke-width": 1.5 }));
    const key = el("span", channel);
    key.style.color = colour;
    legend.appendChild(key);
  }
}

// The operator's tile server (`--map-tiles`), or none: then positions are
// drawn on a plain latitude/longitude plot and nothing is loaded from
// elsewhere.
const TILES = document.getElementById("map").dataset.tiles || "";
const TILE = 256;

// Web Mercator pixel coordinates at zoom z.
function mercator(lat, lon, z) {
  const n = TILE * 2 ** z;
  const s = Math.sin(Math.max(-85, Math.min(85, lat)) * Math.PI / 180);
  return [(lon + 180) / 360 * n, (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n];
}

// A projection of the positions into the 600 x 300 plot: over tiles, the
// largest zoom that holds them all (the tiles behind it are drawn); else a
// plain equirectangular plot fitted to them.
function projection(plot, lats, lons) {
  const pad = 0.01;
  const [la0, la1] = [Math.min(...lats) - pad, Math.max(...lats) + pad];
  const [lo0, lo1] = [Math.min(...lons) - pad, Math.max(...lons) + pad];
  if (!TILES) {
    return (lat, lon) => [10 + (lon - lo0) / (lo1 - lo0) * 580, 290 - (lat - la0) / (la1 - la0) * 280];
  }
  let z = 18;
  for (; z > 0; z--) {
    const [x0, y0] = mercator(la1, lo0, z), [x1, y1] = mercator(la0, lo1, z);
    if (x1 - x0 <= 580 && y1 - y0 <= 280) break;
  }
  const [x0, y0] = mercator(la1, lo0, z), [x1, y1] = mercator(la0, lo1, z);
  const ox = (x0 + x1) / 2 - 300, oy = (y0 + y1) / 2 - 150, n = 2 ** z;
  for (let ty = Math.floor(oy / TILE); ty * TILE < oy + 300; ty++) {
    if (ty < 0 || ty >= n) continue;
    for (let tx = Math.floor(ox / TILE); tx * TILE < ox + 600; tx++) {
      const href = TILES.replace("{z}", z).replace("{x}", ((tx % n) + n) % n).replace("{y}", ty);
      plot.appendChild(svg("image", { href, x: tx * TILE - ox, y: ty * TILE - oy, width: TILE, height: TILE }));
    }
  }
  plot.appendChild(svg("text", { x: 4, y: 296, "font-size": 9 }, "tiles: " + new URL(TILES).host));
  return (lat, lon) => { const [x, y] = mercator(lat, lon, z); return [x - ox, y - oy]; };
}

// A MeshCore key or hash, shortened for a table cell (the whole of it is
// in the row's data and the API).
function short(hex) {
  return hex ? hex.slice(0, 12) : "";
}

function showMap(packets, nodes) {
  const plot = document.getElementById("map");
  plot.replaceChildren();
  const last = new Map();
  for (const p of packets) if (p.position && !last.has(p.from)) last.set(p.from, p.position);
  for (const n of nodes) {
    if (n.mesh === "meshcore" && n.latitude !== null && n.longitude !== null && !last.has(short(n.id))) {
      last.set(short(n.id), { latitude: n.latitude, longitude: n.longitude });
    }
  }
  const pts = [...last.entries()];
  if (!pts.length) { plot.appendChild(svg("text", { x: 10, y: 20 }, "no positions heard")); return; }
  const at = projection(plot, pts.map(p => p[1].latitude), pts.map(p => p[1].longitude));
  for (const [id, pos] of pts) {
    const [cx, cy] = at(pos.latitude, pos.longitude);
    const dot = svg("circle", { cx: cx.toFixed(1), cy: cy.toFixed(1), r: 4, fill: "#d62728" });
    dot.appendChild(svg("title", {}, `${id} ${pos.latitude.toFixed(5)}, ${pos.longitude.toFixed(5)}`));
    plot.appendChild(dot);
    plot.appendChild(svg("text", { x: (cx + 6).toFixed(1), y: (cy + 4).toFixed(1), "font-size": 10 }, id));
  }
}

async function showNode(id) {
  const out = document.getElementById("node-detail");
  try {
    out.textContent = JSON.stringify(await get("/api/nodes/" + encodeURIComponent(id)), null, 2);
  } catch (e) {
    out.textContent = String(e);
  }
}

function nodeRow(n) {
  if (n.mesh === "meshcore") {
    return row(["meshcore", short(n.id), n.name, n.node_type, "", n.signature, "yes", "", when(n.last_seen_ms)],
      [null, null, null, null, null, n.signature, null, null, null]);
  }
  const renumbered = n.renumbered_from ? `from ${n.renumbered_from}` : (n.renumbered_to ? `to ${n.renumbered_to}` : "");
  return row(["meshtastic", n.id, n.long_name, n.short_name, n.identity, n.signing, n.public_key ? "yes" : "", renumbered,
    when(n.last_seen_ms)], [null, null, null, null, n.identity, n.signing, null, null, null]);
}

function showNodes(nodes) {
  const body = document.querySelector("#nodes tbody");
  const rows = nodes.map(n => {
    const tr = nodeRow(n);
    tr.dataset.node = n.id;
    tr.dataset.mesh = n.mesh;
    const signing = n.mesh === "meshcore" ? n.signature : n.signing;
    if (signing) tr.dataset.signing = signing;
    tr.addEventListener("click", () => showNode(n.id));
    return tr;
  });
  body.replaceChildren(...rows);
  document.getElementById("node-count").textContent = `(${nodes.length})`;
}

function packetRow(p) {
  if (p.mesh === "meshcore") {
    const tr = row([when(p.first_seen_ms), "meshcore", short(p.sender) || p.src_hash, short(p.our_key) || p.dst_hash,
      p.channel_name || p.channel_hash, p.payload_type, p.decrypted ? "decrypted" : "", p.signature,
      p.receptions.count, p.text], [null, null, null, null, null, null, null, p.signature, null, null]);
    tr.dataset.packet = "meshcore/" + p.hash;
    tr.title = p.receptions.list.map(r => short(r.observer_id) + (r.rssi !== null ? ` ${r.rssi} dBm` : "")).join(", ");
    return tr;
  }
  const tr = row([when(p.first_seen_ms), "meshtastic", p.from, p.to, p.channel_name || p.channel_id, p.portnum,
    p.decryption, p.signature, p.receptions.count, p.text], [null, null, null, null, null, null, null, p.signature, null, null]);
  tr.dataset.packet = p.from + "/" + p.id;
  tr.title = p.receptions.list.map(r => r.gateway_id + (r.rssi !== null ? ` ${r.rssi} dBm` : "")).join(", ");
  return tr;
}

function showPackets(packets) {
  const body = document.querySelector("#packets tbody");
  body.replaceChildren(...packets.map(packetRow));
}

async function refresh() {
  try {
    const [stats, nodes, packets, positions] = await Promise.all([
      get("/api/stats?minutes=60"), get("/api/nodes?limit=500"), get("/api/packets?limit=100"),
      get("/api/packets?portnum=3&limit=500")]);
    showHealth(stats.gateway);
    showRate(stats);
    showNodes(nodes.nodes);
    showPackets(packets.packets);
    showMap(positions.packets, nodes.nodes);
    document.getElementById("updated").textContent = "updated " + when(Date.now());
    if (!document.body.dataset.loaded) {
      // The first render's time since navigation began, once the frame
      // holding it is drawn (a task after the next animation frame).
      requestAnimationFrame(() => setTimeout(() => {
        document.body.dataset.firstRenderMs = performance.now().toFixed(1);
      }, 0));
    }
    document.body.dataset.loaded = "1";
  } catch (e) {
    const h = document.getElementById("health");
    h.textContent = "unreachable: " + e.message;
    h.className = "badge bad";
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
