// maester's web pages: pan and zoom the map (mouse, wheel, touch pinch), a tile's panel,
// holdfast search, the countdown to the next tick, and the dice checked in the browser.
// Plain JavaScript, no libraries; the page's data comes from the JSON block #page-data.
"use strict";

(function () {
  const data = JSON.parse(document.getElementById("page-data").textContent);
  const SVGNS = "http://www.w3.org/2000/svg";
  const box = document.getElementById("map");
  const svg = box.querySelector("svg");
  // [id, name, terrain, x, y, holdfast, port, resource, holder, id's [x, y, size] or null]
  const tiles = data.map.tiles;
  const byId = new Map(tiles.map((t) => [t[0], t]));
  let full = { x: 0, y: 0, w: data.map.width, h: data.map.height };
  let view = Object.assign({}, full);

  // The whole map, in a box of the map element's shape (so zooming keeps that shape).
  function fitFull() {
    const ratio = (box.clientWidth || 1) / (box.clientHeight || 1);
    const w = data.map.width;
    const h = data.map.height;
    full = w / h < ratio ? { x: -(h * ratio - w) / 2, y: 0, w: h * ratio, h }
                         : { x: 0, y: -(w / ratio - h) / 2, w, h: w / ratio };
  }

  // ------------------------------------------------------------------ pan and zoom
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");

  function show() {
    svg.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
    box.dataset.zoom = (full.w / view.w).toFixed(3);
    if (!idsPending) {
      idsPending = true;
      requestAnimationFrame(drawIds);
    }
  }

  // Tile ids, drawn only for the tiles in view once they are large enough to read (a whole
  // map of ids would be thousands of unreadable texts to lay out at every load).
  const idLayer = document.createElementNS(SVGNS, "g");
  idLayer.setAttribute("id", "tile-ids");
  idLayer.setAttribute("text-anchor", "middle");
  idLayer.setAttribute("dominant-baseline", "central");
  idLayer.setAttribute("pointer-events", "none");
  // above the terrain (the SVG's background and the scene's base layer), under the markers
  svg.insertBefore(idLayer, svg.children[1 + data.map.base] || null);
  let idsPending = false;
  let idsShown = "";
  function drawIds() {
    idsPending = false;
    const pixelsPerHex = (box.clientWidth / view.w) * data.map.hex;
    const m = data.map.hex;
    const inView = pixelsPerHex < 28 ? [] : tiles.filter((t) => t[9] &&
      t[3] > view.x - m && t[3] < view.x + view.w + m && t[4] > view.y - m &&
      t[4] < view.y + view.h + m);
    if (inView.length > 3000) inView.length = 0;
    const key = inView.length ? `${inView[0][0]}:${inView.length}` : "";
    if (key === idsShown) return;
    idsShown = key;
    idLayer.textContent = "";
    for (const t of inView) {
      const text = document.createElementNS(SVGNS, "text");
      // where the scene placed it, clear of the other labels (an id it found no room for
      // is left out, as in the pictures: zooming scales the labels with the map)
      text.setAttribute("x", t[9][0].toFixed(1));
      text.setAttribute("y", t[9][1].toFixed(1));
      text.setAttribute("font-size", String(t[9][2]));
      text.setAttribute("fill", t[2] === "impassable" ? "#f0f0f0" : "#333333");
      text.textContent = t[0];
      idLayer.appendChild(text);
    }
  }

  // The point of the map under a point of the screen.
  function mapPoint(clientX, clientY) {
    const p = svg.createSVGPoint();
    p.x = clientX;
    p.y = clientY;
    const m = svg.getScreenCTM();
    return m ? p.matrixTransform(m.inverse()) : { x: 0, y: 0 };
  }

  function zoomAt(factor, mx, my) {
    const w = Math.min(full.w * 1.5, Math.max(full.w / 60, view.w / factor));
    const h = (w / view.w) * view.h;
    view = { x: mx - ((mx - view.x) * w) / view.w, y: my - ((my - view.y) * h) / view.h, w, h };
    show();
  }

  function centreOn(x, y, width) {
    const h = (width / view.w) * view.h;
    view = { x: x - width / 2, y: y - h / 2, w: width, h };
    show();
  }

  box.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = mapPoint(e.clientX, e.clientY);
    zoomAt(e.deltaY < 0 ? 1.25 : 0.8, p.x, p.y);
  }, { passive: false });

  const pointers = new Map();
  let dragged = 0;
  let pinch = null;

  box.addEventListener("pointerdown", (e) => {
    try {
      box.setPointerCapture(e.pointerId);
    } catch (err) {
      // a pointer the browser no longer tracks: panning still works without capture
    }
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    dragged = 0;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) };
    }
  });

  box.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    const now = { x: e.clientX, y: e.clientY };
    if (pointers.size === 2 && pinch) {
      pointers.set(e.pointerId, now);
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      if (pinch.d > 0 && d > 0) {
        const mid = mapPoint((a.x + b.x) / 2, (a.y + b.y) / 2);
        zoomAt(d / pinch.d, mid.x, mid.y);
      }
      pinch.d = d;
      dragged += 10;
      return;
    }
    const p0 = mapPoint(last.x, last.y);
    const p1 = mapPoint(now.x, now.y);
    view.x -= p1.x - p0.x;
    view.y -= p1.y - p0.y;
    dragged += Math.abs(now.x - last.x) + Math.abs(now.y - last.y);
    pointers.set(e.pointerId, now);
    show();
  });

  function release(e) {
    const wasTap = pointers.size === 1 && dragged < 6;
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (wasTap && e.type === "pointerup") {
      const p = mapPoint(e.clientX, e.clientY);
      const t = nearest(p.x, p.y);
      if (t) select(t);
    }
  }
  box.addEventListener("pointerup", release);
  box.addEventListener("pointercancel", release);

  document.getElementById("zoom-in").addEventListener("click", () =>
    zoomAt(1.5, view.x + view.w / 2, view.y + view.h / 2));
  document.getElementById("zoom-out").addEventListener("click", () =>
    zoomAt(1 / 1.5, view.x + view.w / 2, view.y + view.h / 2));
  document.getElementById("zoom-reset").addEventListener("click", () => {
    view = Object.assign({}, full);
    show();
  });
  box.addEventListener("keydown", (e) => {
    const step = view.w / 10;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step],
                    ArrowDown: [0, step] };
    if (moves[e.key]) {
      view.x += moves[e.key][0];
      view.y += moves[e.key][1];
      show();
      e.preventDefault();
    } else if (e.key === "+" || e.key === "=") {
      zoomAt(1.25, view.x + view.w / 2, view.y + view.h / 2);
    } else if (e.key === "-") {
      zoomAt(0.8, view.x + view.w / 2, view.y + view.h / 2);
    }
  });

  // ------------------------------------------------------------------ a tile's panel
  function nearest(x, y) {
    let best = null;
    let bestD = Infinity;
    for (const t of tiles) {
      const d = (t[3] - x) ** 2 + (t[4] - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = t;
      }
    }
    return best && bestD <= (data.map.hex * 1.05) ** 2 ? best : null;
  }

  const panel = document.getElementById("panel");
  const panelBody = document.getElementById("panel-body");
  let marker = null;

  function add(parent, tag, text, cls) {
    const el = document.createElement(tag);
    if (text !== undefined) el.textContent = text;
    if (cls) el.className = cls;
    parent.appendChild(el);
    return el;
  }

  function atTile(id) {
    const s = data.map.situation;
    const out = [];
    for (const a of s.armies) {
      if (a.tile !== id) continue;
      const what = a.fleet ? "fleet" : "army";
      const size = a.infantry + a.cavalry + a.ships;
      out.push(`${a.own ? "your " : ""}${a.claim} ${what}${a.id ? " #" + a.id : ""}` +
                (size ? ` (${a.infantry} inf, ${a.cavalry} cav${a.ships ? ", " + a.ships + " ships" : ""})` : "") +
                (a.path.length ? ` marching to ${a.path[a.path.length - 1]}` : ""));
    }
    for (const [h, b] of s.sieges) if (h === id) out.push(`besieged by ${b}`);
    for (const [w, p, c] of s.blockades) {
      if (w === id || p === id) out.push(`blockade by ${c} (${w} → ${p})`);
    }
    for (const [t, a, d] of s.battles) if (t === id) out.push(`battle this month: ${a} vs ${d}`);
    for (const s2 of data.sightings || []) {
      if (s2.tile === id) {
        out.push(`${s2.claim} sighted here ${s2.seen_at.slice(0, 16).replace("T", " ")} UTC` +
                 (s2.current ? "" : " (last seen; it may have moved on)"));
      }
    }
    return out;
  }

  function select(t) {
    const [id, name, terrain, x, y, holdfast, port, resource, holder] = t;
    panelBody.textContent = "";
    add(panelBody, "h3", name || `Tile ${id}`);
    const dl = add(panelBody, "dl");
    const facts = [["Tile", id], ["Terrain", terrain]];
    if (holdfast) facts.push(["Holdfast", (holdfast === 2 ? "special, " : "") + (holder ? "held by " + holder : "unheld")]);
    if (port) facts.push(["Port", "yes"]);
    if (resource) facts.push(["Resource", resource]);
    for (const [k, v] of facts) {
      add(dl, "dt", k);
      add(dl, "dd", v);
    }
    const here = atTile(id);
    if (here.length) {
      const ul = add(panelBody, "ul");
      for (const line of here) add(ul, "li", line);
    } else {
      add(panelBody, "p", "Nothing known here.", "quiet");
    }
    panel.hidden = false;
    panel.dataset.tile = id;
    if (!marker) {
      marker = document.createElementNS(SVGNS, "circle");
      marker.setAttribute("fill", "none");
      marker.setAttribute("stroke", "#ff00aa");
      marker.setAttribute("stroke-width", "3");
      marker.setAttribute("r", String(data.map.hex * 0.9));
      marker.setAttribute("id", "selected");
      svg.appendChild(marker);
    }
    marker.setAttribute("cx", String(x));
    marker.setAttribute("cy", String(y));
  }
  document.getElementById("panel-close").addEventListener("click", () => {
    panel.hidden = true;
  });

  for (const a of document.querySelectorAll("a.tile-link")) {
    a.addEventListener("click", (e) => {
      const t = byId.get(a.dataset.tile);
      if (!t) return;
      e.preventDefault();
      centreOn(t[3], t[4], Math.min(full.w, data.map.hex * 30));
      select(t);
      box.scrollIntoView({ block: "nearest" });
    });
  }

  // ------------------------------------------------------------------ search
  const list = document.getElementById("holdfasts");
  for (const t of tiles) {
    if (t[5] && t[1]) {
      const o = document.createElement("option");
      o.value = t[1];
      list.appendChild(o);
    }
  }
  document.getElementById("search").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = document.getElementById("search-input");
    const q = input.value.trim().toLowerCase();
    if (!q) return;
    const found = byId.get(input.value.trim()) ||
      tiles.find((t) => t[1].toLowerCase() === q && t[5]) ||
      tiles.find((t) => t[1].toLowerCase() === q) ||
      tiles.find((t) => t[5] && t[1].toLowerCase().startsWith(q)) ||
      tiles.find((t) => t[1].toLowerCase().includes(q));
    input.setCustomValidity(found ? "" : "No tile of that name");
    input.reportValidity();
    if (!found) return;
    centreOn(found[3], found[4], Math.min(full.w, data.map.hex * 30));
    select(found);
  });

  // ------------------------------------------------------------------ countdown
  const nextEl = document.getElementById("next-tick");
  const countdown = document.getElementById("countdown");
  const next = new Date(nextEl.getAttribute("datetime"));
  const pad = (n) => String(n).padStart(2, "0");
  nextEl.textContent = `${next.toISOString().slice(0, 16).replace("T", " ")} UTC ` +
    `(${next.toLocaleString([], { dateStyle: "medium", timeStyle: "short" })} your time)`;
  function tickDown() {
    const left = Math.max(0, Math.floor((next - Date.now()) / 1000));
    countdown.textContent = left > 0
      ? `in ${Math.floor(left / 3600)}h ${pad(Math.floor(left / 60) % 60)}m ${pad(left % 60)}s`
      : "due now: the page shows the world as of the last tick; reload after it";
  }
  tickDown();
  setInterval(tickDown, 1000);

  // ------------------------------------------------------------------ dice (docs/dice.md)
  const enc = new TextEncoder();
  const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const unhex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));

  async function sha256(bytes) {
    return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  }

  async function hmac(keyBytes, message) {
    const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" },
                                              false, ["sign"]);
    return new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(message)));
  }

  // The dice of one event: a SHA-256 counter stream of 32-bit big-endian words, with the
  // top values that would bias a die thrown away.
  // A line bound to a public beacon round mixes in "drand:<round>:<randomness>", the
  // randomness being the SHA-256 of the round's signature (the BLS signature itself is not
  // checked here: docs/verify_dice.py and `maester verify` do that).
  async function replay(secret, key, orders, sides, mix) {
    const seed = await hmac(secret, `${key}|${orders}` + (mix ? `|${mix}` : ""));
    let block = 0;
    let words = [];
    async function word() {
      if (!words.length) {
        const input = new Uint8Array(seed.length + 8);
        input.set(seed);
        new DataView(input.buffer).setBigUint64(seed.length, BigInt(block));
        block += 1;
        const digest = await sha256(input);
        const dv = new DataView(digest.buffer);
        words = [];
        for (let i = 0; i < 8; i++) words.push(dv.getUint32(i * 4));
      }
      return words.shift();
    }
    const out = [];
    for (const n of sides) {
      const limit = 2 ** 32 - (2 ** 32 % n);
      let w = await word();
      while (w >= limit) w = await word();
      out.push((w % n) + 1);
    }
    return out;
  }

  function mark(el, ok, text) {
    el.textContent = ok ? "✓ verified" : "✗ " + text;
    el.classList.add(ok ? "ok" : "bad");
  }

  async function verifyDice() {
    if (!(window.crypto && crypto.subtle)) {
      for (const el of document.querySelectorAll(".verdict")) {
        el.textContent = "this browser cannot check (no WebCrypto: open the page over HTTPS)";
      }
      return;
    }
    for (const reveal of document.querySelectorAll(".reveal")) {
      const secret = unhex(reveal.dataset.secret);
      const committed = hex(await sha256(secret)) === reveal.dataset.commitment;
      mark(reveal.querySelector(".commitment-verdict"), committed,
           "the secret does not match its commitment");
      for (const line of reveal.querySelectorAll(".dice-line")) {
        const rolls = JSON.parse(line.dataset.rolls);
        let mix = "";
        if (line.dataset.beacon) {
          if (!line.dataset.signature) {
            mark(line.querySelector(".verdict"), false,
                 `beacon round ${line.dataset.beacon} is not on this page`);
            continue;
          }
          const randomness = hex(await sha256(unhex(line.dataset.signature)));
          mix = `drand:${line.dataset.beacon}:${randomness}`;
        }
        const got = await replay(secret, line.dataset.key, line.dataset.orders,
                                 rolls.map((r) => r[0]), mix);
        const bad = rolls.findIndex((r, i) => r[1] !== got[i]);
        mark(line.querySelector(".verdict"), bad < 0,
             bad < 0 ? "" : `roll ${bad + 1}: printed ${rolls[bad][1]}, the secret gives ${got[bad]}`);
      }
    }
    document.body.dataset.diceChecked = "1";
  }
  verifyDice();

  fitFull();
  view = Object.assign({}, full);
  show();
  window.addEventListener("resize", () => {
    const centre = { x: view.x + view.w / 2, y: view.y + view.h / 2 };
    const zoom = full.w / view.w;
    fitFull();
    centreOn(centre.x, centre.y, full.w / zoom);
  });
  // how long from the navigation to an interactive map (the benchmark reads it)
  document.body.dataset.readyMs = performance.now().toFixed(0);
  document.body.dataset.ready = "1";
})();
