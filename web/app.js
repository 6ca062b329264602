// Web board for the morris tables: plain JavaScript, no framework, no network beyond the
// page's own server. The client knows no rules: /api/probe lists every legal move with the
// position it leads to, and the board is drawn from position strings.
"use strict";

// ---------------------------------------------------------------------------------------
// Geometry and notation

// The board comes from /api/info (`board`): the server's rule set decides the points,
// the lines and the stones. The standard board below is only the fallback for a server
// that does not say.
const BOARD = {
  name: "nine",
  // Board characters of a position string come in this order.
  points: "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1".split(" "),
  edges: null, // [[p, q]]; null: the standard board's lines
  columns: 7,
  stones: 9,
};
let ORDER = BOARD.points;
const emptyStart = () => `${".".repeat(ORDER.length)} w ${BOARD.stones} ${BOARD.stones}`;
// What each named rule set is called, for the page's title.
const GAME_NAMES = {
  standard: "Nine Men's Morris", lasker: "Lasker Morris", morabaraba: "Morabaraba",
  twelve: "Twelve Men's Morris", six: "Six Men's Morris", five: "Five Men's Morris",
};
const STEP_MS = 600; // best-line animation, per ply
const SVG_NS = "http://www.w3.org/2000/svg";
const UNIT = 100; // SVG units between neighbouring columns or rows
const LABEL = 76; // SVG units from the outer points to the coordinate labels

// Where a point is drawn; flipped, the board is turned half round (Black's view).
let flipped = false;
function xy(point) {
  const col = point.charCodeAt(0) - 97; // a..g
  const row = point.charCodeAt(1) - 48; // 1..7
  const n = BOARD.columns - 1;
  return flipped ? [(n - col) * UNIT, (row - 1) * UNIT] : [col * UNIT, (BOARD.columns - row) * UNIT];
}

function flip() {
  flipped = !flipped;
  document.body.dataset.flipped = flipped ? "1" : "0";
  buildBoard();
  renderAll();
}

// Parses `BOARD SIDE [WH BH]` leniently (for drawing only; the server validates).
function parsePosition(text) {
  const f = String(text).trim().split(/\s+/);
  if (f.length < 2 || f[0].length !== ORDER.length || !/^[WB.]+$/.test(f[0]) || !/^[wb]$/.test(f[1])) return null;
  const board = {};
  ORDER.forEach((p, i) => { board[p] = f[0][i]; });
  const wh = f.length >= 4 ? parseInt(f[2], 10) || 0 : 0;
  const bh = f.length >= 4 ? parseInt(f[3], 10) || 0 : 0;
  return { board, side: f[1], wh, bh };
}

function formatPosition(board, side, wh, bh) {
  const b = ORDER.map((p) => board[p] || ".").join("");
  return wh > 0 || bh > 0 ? `${b} ${side} ${wh} ${bh}` : `${b} ${side}`;
}

// `d1`, `d1xg7`, `a1-a4`, `a1-a4xd7`, and under `take=each` a move closing two mills,
// `d7xa1xb4` -> {from, to, caps: [point]}
function parseMove(text) {
  const m = /^([a-g][1-7])(?:-([a-g][1-7]))?((?:x[a-g][1-7])*)$/.exec(text);
  if (!m) return null;
  const caps = m[3] ? m[3].slice(1).split("x") : [];
  return m[2] ? { from: m[1], to: m[2], caps } : { from: null, to: m[1], caps };
}

// One key for a move whatever the order of its captures.
const moveKey = (mv) => `${mv.from}-${mv.to}x${[...mv.caps].sort().join("x")}`;

const sideName = (s) => (s === "w" || s === "white" ? "White" : "Black");
const plies = (n) => `${n} ${n === 1 ? "ply" : "plies"}`;

function valueWords(probe) {
  const side = sideName(probe.side);
  if (probe.result === "win") return `${side} to move wins in ${plies(probe.plies)}`;
  // With draw classes (`morris solve --ultra`) a draw says which draw it is.
  if (probe.result === "draw") return probe.class && probe.class.words ? `${side} to move: ${probe.class.words}` : `${side} to move: draw`;
  if (probe.plies === 0) {
    const p = parsePosition(probe.position);
    let why = "";
    if (p) {
      const own = p.side === "w" ? "W" : "B";
      const stones = ORDER.filter((q) => p.board[q] === own).length + (p.side === "w" ? p.wh : p.bh);
      why = stones < 3 ? " (fewer than 3 stones)" : " (no legal move)";
    }
    return `Game over: ${side} to move has lost${why}`;
  }
  return `${side} to move loses in ${plies(probe.plies)}`;
}

// ---------------------------------------------------------------------------------------
// State

const state = {
  // The game as a tree, as on the lichess analysis board: a node is {id, position, move,
  // parent, children}, `move` the move that led to it (null for a position typed, set up
  // or opened). children[0] continues the node's line; the others start side lines.
  root: null,
  node: null, // the node shown
  probe: null, // probe of the current position once it has arrived
  sel: null, // {from, to} while a click sequence is under way
  hover: null, // a move object of the list being hovered
  setup: null, // {board, side, wh, bh} in set-up mode
  anim: null, // {stop: bool} while the best line plays
  info: null,
  token: 0, // discards stale probe answers
  openRuns: new Set(), // folded runs of the move list the player opened (value keys)
};
const cache = new Map(); // position -> probe JSON

const $ = (id) => document.getElementById(id);

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(path, position) {
  const url = position === undefined ? path : `${path}?position=${encodeURIComponent(position)}`;
  let res;
  try {
    res = await fetch(url, { headers: { Accept: "application/json" } });
  } catch (e) {
    throw new ApiError(0, `cannot reach the server (${e.message})`);
  }
  let body = null;
  try { body = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok) throw new ApiError(res.status, (body && body.error) || `HTTP ${res.status}`);
  return body;
}

async function probe(position) {
  if (cache.has(position)) return cache.get(position);
  const p = await api("api/probe", position);
  if (cache.size > 2000) cache.clear();
  cache.set(position, p);
  cache.set(p.position, p);
  return p;
}

// While a request runs the board and the move list take no input (the page's CSS greys
// them), and after a moment a notice says that the server is working, with the
// seconds so far: a search can take many seconds.
let busyTimer = null;
function setBusy(on) {
  document.body.dataset.busy = on ? "1" : "0";
  clearInterval(busyTimer);
  busyTimer = null;
  const note = $("busy");
  if (!on) { note.hidden = true; return; }
  const t0 = Date.now();
  busyTimer = setInterval(() => {
    const s = (Date.now() - t0) / 1000;
    if (s < 0.3) return;
    note.hidden = false;
    note.textContent = `Working out this position… ${s.toFixed(0)} s`;
  }, 100);
}
const busy = () => document.body.dataset.busy === "1";

function status(text, kind) {
  const el = $("status");
  el.textContent = text || "";
  el.className = kind || "";
}

const current = () => state.node;

let nodeIds = 0;
function newNode(position, move, parent) {
  return { id: ++nodeIds, position, move, parent, children: [] };
}

// A list of {position, move} as a line from a new root: [root, last node].
function lineOf(entries) {
  let root = null, last = null;
  for (const e of entries) {
    const n = newNode(e.position, e.move, last);
    if (last) last.children.push(n); else root = n;
    last = n;
  }
  return [root, last];
}
const sideOf = (position) => (position.split(" ")[1] || "w").toLowerCase();

// ---------------------------------------------------------------------------------------
// Board drawing

const pointEls = {}; // point -> {stone, ring, cross, hit, label}

function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

// The standard board's lines: the sides of the three squares and the four joins.
function standardEdges() {
  const sq = (k) => { const a = "abc"[k], z = "gfe"[k], lo = k + 1, hi = 7 - k, m = 4;
    const c = [`${a}${hi}`, `d${hi}`, `${z}${hi}`, `${z}${m}`, `${z}${lo}`, `d${lo}`, `${a}${lo}`, `${a}${m}`];
    return c.map((p, i) => [p, c[(i + 1) % 8]]); };
  return [...sq(0), ...sq(1), ...sq(2), ["d7", "d6"], ["d6", "d5"], ["d3", "d2"], ["d2", "d1"],
    ["a4", "b4"], ["b4", "c4"], ["e4", "f4"], ["f4", "g4"]];
}

function buildBoard() {
  const root = $("board");
  root.textContent = "";
  if (!ORDER.includes(focusPoint)) focusPoint = ORDER[0];
  const span = (BOARD.columns - 1) * UNIT;
  // A ring round a point reaches 49 units from it (radius 45, stroke 8 at most); the
  // margins keep it clear of the board's edge, and the labels (LABEL from the outer
  // points, about 35 units high) clear of it.
  const [left, top, size] = [-LABEL - 28, -60, span + LABEL + 88];
  root.setAttribute("viewBox", `${left} ${top} ${size} ${size}`);
  root.setAttribute("aria-label", `${BOARD.name} board, ${ORDER.length} points`);
  svg("rect", { x: left, y: top, width: size, height: size, rx: 24, class: "board-bg" }, root);
  const lines = svg("g", { class: "lines" }, root);
  for (const [p, q] of BOARD.edges || standardEdges()) {
    const [x1, y1] = xy(p), [x2, y2] = xy(q);
    svg("line", { x1, y1, x2, y2, "data-edge": `${p}-${q}` }, lines);
  }
  // The labels sit clear of the stones on the edge points and of the rings round them.
  const labels = svg("g", { class: "coords" }, root);
  for (let c = 0; c < BOARD.columns; c++) {
    const t = svg("text", { x: xy(`${"abcdefg"[c]}1`)[0], y: span + LABEL }, labels);
    t.textContent = "abcdefg"[c];
  }
  for (let r = 1; r <= BOARD.columns; r++) {
    const t = svg("text", { x: -LABEL, y: xy(`a${r}`)[1] + 1 }, labels);
    t.textContent = String(r);
  }
  const layer = svg("g", { class: "points" }, root);
  for (const p of ORDER) {
    const [x, y] = xy(p);
    const g = svg("g", { class: "pt", transform: `translate(${x} ${y})` }, layer);
    svg("circle", { class: "spot", r: 9 }, g);
    const ring = svg("circle", { class: "ring", r: 45 }, g);
    const stone = svg("circle", { class: "stone", r: 34 }, g);
    const dot = svg("circle", { class: "dot", r: 15 }, g);
    const cross = svg("path", { class: "cross", d: "M-22,-22 L22,22 M22,-22 L-22,22" }, g);
    // One point at a time is in the tab order (the last one focused): Tab reaches the
    // board once, and the arrow keys move within it.
    const hit = svg("circle", { class: "hit", r: 47, "data-point": p, role: "button", tabindex: p === focusPoint ? 0 : -1 }, g);
    const title = svg("title", {}, hit);
    title.textContent = p;
    hit.addEventListener("click", (e) => { e.preventDefault(); onPointClick(p); });
    hit.addEventListener("focus", () => focusOn(p, false));
    hit.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onPointClick(p); return; }
      const q = e.key.startsWith("Arrow") ? neighbour(p, e.key) : null;
      if (e.key.startsWith("Arrow")) e.preventDefault(); // not a step through the game
      if (q) focusOn(q, true);
    });
    pointEls[p] = { g, ring, stone, dot, cross, hit };
  }
}

// The point of the board in the tab order.
let focusPoint = null;

function focusOn(p, move) {
  if (focusPoint && pointEls[focusPoint]) pointEls[focusPoint].hit.setAttribute("tabindex", "-1");
  focusPoint = p;
  pointEls[p].hit.setAttribute("tabindex", "0");
  if (move) pointEls[p].hit.focus();
}

// Where an arrow key goes from `p`: the nearest point that way as the board is drawn
// (flipped too), those on p's own row or column first; null at the edge.
function neighbour(p, key) {
  const [dx, dy] = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] }[key] || [0, 0];
  const [x, y] = xy(p);
  let best = null, cost = Infinity;
  for (const q of ORDER) {
    const [qx, qy] = xy(q);
    const along = (qx - x) * dx + (qy - y) * dy;
    const across = Math.abs((qx - x) * dy) + Math.abs((qy - y) * dx);
    if (along <= 0 || across > along) continue;
    if (along + 3 * across < cost) { best = q; cost = along + 3 * across; }
  }
  return best;
}

// Draws `board` (point -> 'W'|'B'|'.') with marks: {selected, targets, captures, from, to,
// caps (points crossed out), ghost (point: 'W'|'B' drawn translucent), clickable, preview}
function drawBoard(board, marks) {
  marks = marks || {};
  for (const p of ORDER) {
    const el = pointEls[p];
    const c = board ? board[p] || "." : ".";
    const ghost = marks.ghost && marks.ghost[p];
    const s = ghost || c;
    el.stone.setAttribute("class", "stone" + (s === "W" ? " white" : s === "B" ? " black" : " none") + (ghost ? " ghost" : ""));
    el.hit.setAttribute("data-stone", c);
    const ring = [];
    if (marks.selected === p) ring.push("selected");
    if (marks.from === p || marks.to === p) ring.push(marks.preview ? "preview" : "last");
    if (marks.captures && marks.captures.has(p)) ring.push("capturable");
    el.ring.setAttribute("class", "ring " + ring.join(" "));
    el.dot.setAttribute("class", "dot" + (marks.targets && marks.targets.has(p) ? ` target ${marks.targets.get(p)}` : ""));
    el.cross.setAttribute("class", "cross" + (marks.caps && marks.caps.includes(p) ? " on" : ""));
    el.hit.setAttribute("class", "hit" + (marks.clickable && marks.clickable.has(p) ? " clickable" : ""));
    const what = [s === "W" ? "white stone" : s === "B" ? "black stone" : "empty"];
    if (marks.selected === p) what.push("selected");
    if (marks.captures && marks.captures.has(p)) what.push("can be captured");
    else if (marks.targets && marks.targets.has(p)) what.push(`${marks.targets.get(p)} here`);
    el.hit.setAttribute("aria-label", `${p}, ${what.join(", ")}`);
  }
}

// The legal moves of the current position, parsed, each once: a move that takes two
// stones may come once for each order of its captures.
function legalMoves() {
  if (!state.probe) return [];
  const seen = new Set();
  return state.probe.moves.map((m) => ({ ...m, parsed: parseMove(m.move) }))
    .filter((m) => m.parsed && !seen.has(moveKey(m.parsed)) && seen.add(moveKey(m.parsed)));
}

function render() {
  const entry = current();
  if (state.setup) {
    const s = state.setup;
    const all = new Set(ORDER);
    drawBoard(s.board, { clickable: all });
    hint("");
    setupSummary();
    return;
  }
  if (!entry) { drawBoard(null); hint(""); return; }
  const pos = parsePosition(entry.position);
  const board = pos ? pos.board : null;

  if (state.hover) {
    const after = parsePosition(state.hover.position);
    const mv = state.hover.parsed;
    const ghost = {};
    if (board) for (const c of mv.caps) ghost[c] = board[c];
    if (mv.from && board) ghost[mv.from] = board[mv.from];
    drawBoard(after ? after.board : board, { from: mv.from, to: mv.to, caps: mv.caps, ghost, preview: true });
    hint("");
    return;
  }

  const moves = legalMoves();
  const marks = { clickable: new Set(), targets: new Map(), captures: new Set() };
  const last = entry.move ? parseMove(entry.move) : null;
  // The last move: where it came from and went, and the points whose stones it took.
  if (last) { marks.from = last.from; marks.to = last.to; marks.caps = last.caps; }
  const sel = state.sel;
  let shown = board;
  if (!sel) {
    for (const m of moves) {
      marks.clickable.add(m.parsed.from || m.parsed.to);
      // A placement colours its empty point by its best move (moves come best first).
      if (!m.parsed.from && !marks.targets.has(m.parsed.to)) marks.targets.set(m.parsed.to, m.result);
    }
  } else if (sel.to) {
    // waiting for a capture: show the stone already moved, and the stones already
    // chosen taken
    shown = { ...board };
    const mover = entry.position.split(/\s+/)[1] === "w" ? "W" : "B";
    if (sel.from) shown[sel.from] = ".";
    shown[sel.to] = mover;
    for (const c of sel.caps) shown[c] = ".";
    marks.from = sel.from; marks.to = sel.to; marks.caps = sel.caps;
    for (const m of capturesLeft(moves, sel)) {
      for (const c of m.parsed.caps) {
        if (sel.caps.includes(c)) continue;
        marks.captures.add(c);
        marks.clickable.add(c);
      }
    }
  } else if (sel.from) {
    marks.selected = sel.from;
    marks.from = marks.to = null;
    for (const m of moves) {
      if (m.parsed.from === sel.from) {
        // moves are listed best first: a destination takes the colour of its best move
        if (!marks.targets.has(m.parsed.to)) marks.targets.set(m.parsed.to, m.result);
        marks.clickable.add(m.parsed.to);
      }
      if (m.parsed.from) marks.clickable.add(m.parsed.from);
    }
  }
  drawBoard(shown, marks);
  hint(sel && sel.to ? captureHint(entry.position, moves, sel)
    : sel && sel.from ? `${sel.from} selected: click its destination (Esc cancels).` : "");
}

function hint(text) { $("hint").textContent = text; }

// What to click while a move waits for its captures: one stone, or under `take=each`
// after closing two mills, two, one at a time.
function captureHint(position, moves, sel) {
  const left = Math.max(0, ...capturesLeft(moves, sel).map((m) => m.parsed.caps.length)) - sel.caps.length;
  const whose = otherName(position);
  if (left > 1) return `Two mills: click ${left === 2 ? "two" : left} ${whose} stones to capture, one at a time (Esc cancels).`;
  return sel.caps.length ? `Click one more ${whose} stone to capture (Esc cancels).` : `Mill: click the ${whose} stone to capture (Esc cancels).`;
}
const otherName = (position) => (position.split(/\s+/)[1] === "w" ? "black" : "white");

// ---------------------------------------------------------------------------------------
// Side panel

function renderInfo() {
  const entry = current();
  const p = state.probe;
  const pos = entry ? parsePosition(entry.position) : null;
  if (state.setup) {
    $("value-words").textContent = "Set-up mode";
    $("value-words").className = "";
  } else if (p) {
    $("value-words").textContent = valueWords(p);
    $("value-words").className = p.result;
  } else {
    $("value-words").textContent = entry ? "Looking up…" : "";
    $("value-words").className = "";
  }
  if (pos && !state.setup) {
    $("side-to-move").innerHTML = `<span class="swatch ${pos.side === "w" ? "white" : "black"}"></span>${sideName(pos.side)} to move`;
    const count = (c) => ORDER.filter((q) => pos.board[q] === c).length;
    $("hands").textContent = pos.wh > 0 || pos.bh > 0
      ? `In hand: White ${pos.wh} · Black ${pos.bh}`
      : `Movement phase · White ${count("W")} · Black ${count("B")}`;
  } else {
    $("side-to-move").textContent = "";
    $("hands").textContent = "";
  }
  $("method").textContent = p && p.method && !state.setup ? `${p.method === "table" ? "table" : "search"}${typeof p.seconds === "number" ? `, ${fmtSeconds(p.seconds)}` : ""}` : "";
  $("value-words").title = $("value-words").textContent;
  $("facts").title = [$("side-to-move").textContent, $("hands").textContent, $("method").textContent].filter((t) => t).join(" · ");
  $("undo").disabled = !!state.setup || !entry || !entry.parent;
  $("redo").disabled = !!state.setup || !entry || !entry.children.length;
  $("best-line").textContent = state.anim ? "■ Stop" : "▶ Play best line";
  $("best-line").disabled = !!state.setup || !p;
  $("setup").disabled = !!state.setup;
  const input = $("position-input");
  if (entry && document.activeElement !== input) input.value = entry.position;
  document.body.dataset.position = entry ? entry.position : "";
  document.body.dataset.mode = state.setup ? "setup" : "play";
}

function fmtSeconds(s) {
  return s < 1 ? `${(s * 1000).toFixed(s < 0.01 ? 2 : 0)} ms` : `${s.toFixed(2)} s`;
}

function renderMoves() {
  const list = $("moves");
  list.textContent = "";
  const p = state.probe;
  if (state.setup || !p) { $("move-count").textContent = ""; return; }
  const all = legalMoves();
  $("move-count").textContent = all.length ? `(${all.length})` : "";
  if (!p.moves.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = p.result === "loss" && p.plies === 0 ? "No moves: the game is over." : "No legal move.";
    list.appendChild(li);
    return;
  }
  // Grouped by result, best first (the server's order), and each run of more than
  // RUN moves of one value but the best folded into one line ("46 moves: loss in 2")
  // that opens on a click.
  const groups = [["win", "Winning moves"], ["draw", "Drawing moves"], ["loss", "Losing moves"]];
  for (const [res, title] of groups) {
    const ms = all.filter((m) => m.result === res);
    if (!ms.length) continue;
    const head = document.createElement("li");
    head.className = `group ${res}`;
    head.textContent = `${title} (${ms.length})`;
    list.appendChild(head);
    for (let i = 0; i < ms.length;) {
      let j = i;
      while (j < ms.length && valueKey(ms[j]) === valueKey(ms[i])) j++;
      const run = ms.slice(i, j);
      // The best moves (the first run) are always shown.
      if (run.length > RUN && run[0] !== all[0]) {
        const key = valueKey(run[0]);
        const open = state.openRuns.has(key);
        const sum = document.createElement("li");
        sum.className = `run ${res}`;
        sum.tabIndex = 0;
        sum.setAttribute("role", "button");
        sum.setAttribute("aria-expanded", String(open));
        sum.textContent = `${run.length} moves: ${runWords(run[0])}`;
        const items = run.map((m) => moveItem(m, p));
        items.forEach((li) => { li.hidden = !open; });
        const toggle = () => {
          const now = sum.getAttribute("aria-expanded") !== "true";
          sum.setAttribute("aria-expanded", String(now));
          items.forEach((li) => { li.hidden = !now; });
          if (now) state.openRuns.add(key); else state.openRuns.delete(key);
        };
        sum.addEventListener("click", toggle);
        sum.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
        list.appendChild(sum);
        items.forEach((li) => list.appendChild(li));
      } else {
        run.forEach((m) => list.appendChild(moveItem(m, p)));
      }
      i = j;
    }
  }
}

// Runs of equal moves longer than this are folded.
const RUN = 3;

const valueKey = (m) => `${m.result}/${m.plies}/${m.class ? m.class.class : ""}`;

function runWords(m) {
  if (m.class && m.class.words) return m.class.words;
  return m.plies === null || m.plies === undefined ? m.result : `${m.result} in ${m.plies}`;
}

function moveItem(m, p) {
  const li = document.createElement("li");
  li.className = `move ${m.result}`;
  li.dataset.move = m.move;
  li.dataset.result = m.result;
  li.dataset.plies = m.plies === null || m.plies === undefined ? "" : String(m.plies);
  li.dataset.position = m.position;
  li.tabIndex = 0;
  li.title = `${m.move}: ${m.result}${m.plies !== null ? ` in ${plies(m.plies)}` : ""} for ${sideName(p.side)} — click to play`;
  const a = document.createElement("span"); a.className = "mv"; a.textContent = m.move;
  const b = document.createElement("span"); b.className = "res"; b.textContent = m.result;
  if (m.class && m.class.sector) {
    // The sector the draw heads for, and whether that is good for the mover.
    const k = document.createElement("span");
    k.className = `cls ${m.class.class > 0 ? "up" : m.class.class < 0 ? "down" : "even"}`;
    k.textContent = m.class.class === 0 ? " =" : ` ${m.class.sector}`;
    k.title = m.class.words || "";
    b.appendChild(k);
    li.dataset.class = String(m.class.class);
  }
  const c = document.createElement("span"); c.className = "plies"; c.textContent = m.plies === null ? "–" : String(m.plies);
  li.append(a, b, c);
  li.addEventListener("mouseenter", () => { state.hover = m; render(); });
  li.addEventListener("mouseleave", () => { if (state.hover === m) { state.hover = null; render(); } });
  li.addEventListener("focus", () => { state.hover = m; render(); });
  li.addEventListener("blur", () => { if (state.hover === m) { state.hover = null; render(); } });
  li.addEventListener("click", () => { stopAnim(); playMove(m); });
  li.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); stopAnim(); playMove(m); } });
  return li;
}

// How a node is written in the history: numbered as players write games, counted from
// the last position not reached by a move (the start, or one typed or set up). A black
// move carries its number ("3... b6") where it opens a line or follows a side line.
function nodeLabel(n, numbered) {
  if (!n.move) return n.parent ? "position" : "start";
  let ply = 0, from = n;
  while (from.move) { ply++; from = from.parent; }
  const k = ply - 1 + (sideOf(from.position) === "w" ? 0 : 1);
  const number = Math.floor(k / 2) + 1;
  if (k % 2 === 0) return `${number}. ${n.move}`;
  return numbered || ply === 1 ? `${number}... ${n.move}` : n.move;
}

function renderHistory() {
  const list = $("history");
  list.textContent = "";
  if (!state.root) return;
  const ahead = new Set();
  for (let n = state.node && state.node.children[0]; n; n = n.children[0]) ahead.add(n);
  const item = (n, numbered) => {
    const li = document.createElement("li");
    li.className = "node";
    li.textContent = nodeLabel(n, numbered);
    if (n === state.node) li.classList.add("current");
    if (ahead.has(n)) li.classList.add("future");
    li.title = n.position;
    li.dataset.position = n.position;
    li.addEventListener("click", () => { stopAnim(); jump(n); });
    return li;
  };
  // A line from `from` on: each move, then the side lines that replace it, indented, each
  // a line of its own; after them the line goes on, its next move numbered afresh.
  const line = (from, ol) => {
    let numbered = false;
    for (let n = from; n.children.length;) {
      const [next, ...others] = n.children;
      ol.appendChild(item(next, numbered));
      for (const other of others) {
        const li = document.createElement("li");
        li.className = "variation";
        const sub = document.createElement("ol");
        sub.appendChild(item(other, true));
        line(other, sub);
        li.appendChild(sub);
        ol.appendChild(li);
      }
      numbered = others.length > 0;
      n = next;
    }
  };
  list.appendChild(item(state.root, false));
  line(state.root, list);
  const cur = list.querySelector(".current");
  if (cur && cur.scrollIntoView && list.scrollHeight > list.clientHeight) cur.scrollIntoView({ block: "nearest" });
}

function renderAll() {
  render();
  renderInfo();
  renderMoves();
  renderHistory();
}

// ---------------------------------------------------------------------------------------
// Navigation

// The URL holds the position, and the line that led to it: the game's first position
// (`game`) and the moves played from it up to here (`moves`), so that a link restores
// Undo as well as the board (not the side lines).
function setUrl(position) {
  let url = `${location.pathname}?position=${encodeURIComponent(position)}`;
  const path = [];
  for (let n = state.node; n; n = n.parent) path.unshift(n);
  const upto = path.slice(1);
  if (upto.length && upto.every((h) => h.move)) {
    url += `&game=${encodeURIComponent(path[0].position)}&moves=${encodeURIComponent(upto.map((h) => h.move).join(" "))}`;
  }
  try { history.replaceState(null, "", url); } catch (e) { /* file:// */ }
}

// The history of a link's game: `game`, then each of `moves` played through the API.
// Null unless every move is legal and the game ends on `position`.
async function replayGame(game, moves, position) {
  try {
    const first = await probe(game);
    const out = [{ position: first.position, move: null }];
    let p = first;
    for (const mv of moves.split(" ").filter((m) => m)) {
      const m = p.moves.find((x) => x.move === mv);
      if (!m) return null;
      p = await probe(m.position);
      out.push({ position: p.position, move: mv });
    }
    return p.position === position ? out : null;
  } catch (e) {
    return null;
  }
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText(location.href);
    status("Link copied.", "info");
  } catch (e) {
    const input = $("position-input");
    input.value = location.href;
    input.select();
    const ok = document.execCommand && document.execCommand("copy");
    status(ok ? "Link copied." : "Select the field and copy the link.", "info");
  }
}

// Shows the game's node `node` and loads its probe. Resolves true once the probe is shown.
async function show(node) {
  if (node !== state.node) state.openRuns = new Set();
  state.node = node;
  state.sel = null;
  state.hover = null;
  const entry = current();
  state.probe = cache.get(entry.position) || null;
  // Every show supersedes the requests of earlier ones, even when its own answer is
  // cached: a late answer for another entry must not replace this one's.
  const token = ++state.token;
  setUrl(entry.position);
  renderAll();
  if (state.probe) { setBusy(false); done(entry); return true; }
  setBusy(true);
  try {
    const p = await probe(entry.position);
    if (token !== state.token) return false;
    entry.position = p.position;
    state.probe = p;
    setUrl(p.position);
    // The answer clears an earlier message, but not the best line while it plays: that
    // stays written out beside the moves it is stepping through.
    if (!state.anim) status("");
    renderAll();
    done(entry);
    return true;
  } catch (e) {
    if (token !== state.token) return false;
    errorStatus(e);
    renderAll();
    return false;
  } finally {
    if (token === state.token) setBusy(false);
  }
}

function done(entry) {
  document.body.dataset.loaded = entry.position;
  document.body.dataset.ready = "1";
}

// Messages for the player: the server's own words (paths, command-line flags) are for
// its operator and stay out, except for an illegal position, which they explain.
function errorText(e) {
  if (e.status === 400) return `Illegal position: ${e.message}`;
  if (e.status === 404) return "The server's tables do not cover this position, so it cannot be answered here.";
  if (e.status === 503) return "The server is busy, or this position takes too long to work out. Try again in a moment.";
  if (e.status === 0) return "Cannot reach the server. Check the connection and try again.";
  return "The server could not answer. Try again in a moment.";
}

// Shows an error; where trying again may help (no connection, server busy), with a
// button that shows the current position again.
function errorStatus(e) {
  status(errorText(e), "error");
  if (e.status === 0 || e.status === 503 || e.status >= 500) {
    const b = document.createElement("button");
    b.id = "retry";
    b.textContent = "Retry";
    b.addEventListener("click", () => { status(""); cache.delete(current() && current().position); show(state.node); });
    $("status").append(" ", b);
  }
}

// Goes where `move` (null: a position typed or set up) leads from the node shown: to the
// node there if the game has one, else to a new one, which starts a side line when the
// node already has a continuation. Nothing is deleted.
function push(position, move) {
  const here = state.node;
  if (!here) { state.root = newNode(position, move, null); return show(state.root); }
  let next = here.children.find((c) => (move ? c.move === move : !c.move && c.position === position));
  if (!next) {
    next = newNode(position, move, here);
    here.children.push(next);
  }
  return show(next);
}

function playMove(m) {
  if (state.setup || busy()) return;
  status("");
  return push(m.position, m.move);
}

function jump(node) {
  if (state.setup || busy() || !node || node === state.node) return;
  status("");
  show(node);
}

// Back to the move before; forward along the line shown (its first continuation).
function undo() { stopAnim(); jump(state.node && state.node.parent); }
function redo() { stopAnim(); jump(state.node && state.node.children[0]); }

// Loads a position typed or pasted by the user: validated by the server first.
async function loadPosition(text) {
  stopAnim();
  text = text.trim().replace(/\s+/g, " ");
  if (!text) return;
  setBusy(true);
  try {
    const p = await probe(text);
    status("");
    if (current() && current().position === p.position) { renderAll(); done(current()); return; }
    await push(p.position, null);
  } catch (e) {
    errorStatus(e);
  } finally {
    setBusy(false);
  }
}

// ---------------------------------------------------------------------------------------
// Clicking moves

function onPointClick(p) {
  if (busy()) return;
  if (state.setup) { setupClick(p); return; }
  stopAnim();
  if (!state.probe || !state.node) return;
  const moves = legalMoves();
  const sel = state.sel;
  const choose = (cands) => {
    const plain = cands.find((m) => !m.parsed.caps.length);
    if (plain) { state.sel = null; playMove(plain); return true; }
    if (cands.length) { state.sel = { from: cands[0].parsed.from, to: cands[0].parsed.to, caps: [] }; render(); return true; }
    return false;
  };
  const start = () => {
    // a first click: a placement point, or a stone that can move
    const place = moves.filter((m) => !m.parsed.from && m.parsed.to === p);
    if (choose(place)) return;
    if (moves.some((m) => m.parsed.from === p)) { state.sel = { from: p, to: null, caps: [] }; render(); return; }
    state.sel = null;
    render();
  };
  if (!sel) { start(); return; }
  if (sel.to) {
    // A capture, in any order when the move takes two; the move is played once its
    // stones are all chosen.
    const caps = [...sel.caps, p];
    const next = capturesLeft(moves, { ...sel, caps });
    if (!sel.caps.includes(p) && next.length) {
      const done = next.find((m) => m.parsed.caps.length === caps.length);
      if (done && next.length === 1) { state.sel = null; playMove(done); return; }
      state.sel = { ...sel, caps };
      render();
      return;
    }
    state.sel = null;
    start();
    return;
  }
  // a stone is selected: a destination, another stone, or nothing
  if (p === sel.from) { state.sel = null; render(); return; }
  if (choose(moves.filter((m) => m.parsed.from === sel.from && m.parsed.to === p))) return;
  state.sel = null;
  start();
}

// The capturing moves of the stone selected to where it went that take every stone
// chosen so far.
function capturesLeft(moves, sel) {
  return moves.filter((m) => m.parsed.from === sel.from && m.parsed.to === sel.to && m.parsed.caps.length
    && sel.caps.every((c) => m.parsed.caps.includes(c)));
}

function cancelSelection() {
  if (state.sel) { state.sel = null; render(); }
}

// ---------------------------------------------------------------------------------------
// Best line

function stopAnim() {
  if (state.anim) { state.anim.stop = true; state.anim = null; renderInfo(); }
}

// Moves from `start` as players write them: "1. a1 a7 2. d1", "1... a7 2. d1".
function numberMoves(start, moves) {
  let white = sideOf(start) === "w";
  let n = 1;
  return moves.map((mv, i) => {
    const text = white ? `${n}. ${mv}` : i === 0 ? `${n}... ${mv}` : mv;
    if (!white) n++;
    white = !white;
    return text;
  });
}

async function bestLine() {
  if (state.anim) { stopAnim(); return; }
  const entry = current();
  if (!entry || state.setup) return;
  const anim = { stop: false };
  state.anim = anim;
  renderInfo();
  let line;
  try {
    setBusy(true);
    line = await api("api/mainline", entry.position);
  } catch (e) {
    errorStatus(e);
    if (state.anim === anim) state.anim = null;
    renderInfo();
    return;
  } finally {
    setBusy(false);
  }
  const steps = line.mainline || [];
  if (!steps.length) {
    status(line.result === "draw" ? "A draw: best play goes on for ever, so there is no line to step through." : "The game is over.", "info");
    state.anim = null;
    renderInfo();
    return;
  }
  status(`Best line, ${plies(steps.length)}: ${numberMoves(entry.position, steps.map((x) => x.move)).join(" ")}`, "info");
  for (let i = 0; i < steps.length; i++) {
    if (anim.stop || current() !== entry && i === 0) break;
    await sleep(i === 0 ? 150 : STEP_MS);
    if (anim.stop) break;
    const ok = await push(steps[i].position, steps[i].move);
    if (!ok || anim.stop) break;
  }
  if (state.anim === anim) { state.anim = null; renderInfo(); }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------
// Set-up mode

// Set-up starts from the position shown, with its stones in hand, except from an empty
// board: the hands of a start are the whole game's stones, and the stones put on the
// board would come on top of them; a position set up from nothing is a movement
// position unless hands are typed.
function enterSetup() {
  stopAnim();
  const pos = current() ? parsePosition(current().position) : null;
  const empty = !pos || ORDER.every((q) => pos.board[q] === ".");
  state.setup = pos
    ? { board: { ...pos.board }, side: pos.side, wh: empty ? 0 : pos.wh, bh: empty ? 0 : pos.bh }
    : { board: {}, side: "w", wh: 0, bh: 0 };
  state.setup.taken = { W: 0, B: 0 };
  state.sel = null;
  state.hover = null;
  $("setup-side").value = state.setup.side;
  $("setup-white-hand").value = state.setup.wh;
  $("setup-black-hand").value = state.setup.bh;
  $("setup-panel").hidden = false;
  $("setup-error").hidden = true;
  renderAll();
}

function leaveSetup() {
  state.setup = null;
  $("setup-panel").hidden = true;
  $("setup-error").hidden = true;
  renderAll();
}

// A click cycles the point empty, white, black. A stone put on the board comes out of its
// side's hand while that has stones, and one taken off goes back to the hand it came
// from, so that the stones each side has stay as they were (placing the stones of the
// game's placement phase ends in its movement phase).
function setupClick(p) {
  const s = state.setup;
  const was = s.board[p] || ".";
  const now = was === "W" ? "B" : was === "B" ? "." : "W";
  s.board[p] = now;
  const field = (c) => $(c === "W" ? "setup-white-hand" : "setup-black-hand");
  const hand = (c) => { const v = field(c).value.trim(); return /^\d+$/.test(v) ? parseInt(v, 10) : NaN; };
  if (was !== "." && s.taken[was] > 0 && hand(was) >= 0) { s.taken[was]--; field(was).value = String(hand(was) + 1); }
  if (now !== "." && hand(now) > 0) { s.taken[now]++; field(now).value = String(hand(now) - 1); }
  $("setup-error").hidden = true;
  render();
}

function setupString() {
  const s = state.setup;
  const hand = (id) => {
    const v = $(id).value.trim();
    return /^\d+$/.test(v) ? parseInt(v, 10) : NaN;
  };
  s.side = $("setup-side").value;
  s.wh = hand("setup-white-hand");
  s.bh = hand("setup-black-hand");
  return s;
}

// The string being set up and each side's stones, updated as the user edits.
function setupSummary() {
  const s = state.setup;
  if (!s) return;
  const num = (id) => { const v = $(id).value.trim(); return /^\d+$/.test(v) ? parseInt(v, 10) : 0; };
  const wh = num("setup-white-hand"), bh = num("setup-black-hand");
  const on = (c) => ORDER.filter((q) => s.board[q] === c).length;
  const w = on("W"), b = on("B");
  $("setup-position").textContent = formatPosition(s.board, $("setup-side").value, wh, bh);
  $("setup-counts").textContent = `White ${w + wh} (${w} on board, ${wh} in hand) · Black ${b + bh} (${b} on board, ${bh} in hand)`;
}

function setupError(text) {
  const el = $("setup-error");
  el.textContent = text;
  el.hidden = false;
}

async function setupDone() {
  const s = setupString();
  setupSummary();
  if (Number.isNaN(s.wh) || Number.isNaN(s.bh)) { setupError(`Stones in hand must be whole numbers from 0 to ${BOARD.stones}.`); return; }
  const text = formatPosition(s.board, s.side, s.wh, s.bh);
  setBusy(true);
  try {
    const p = await probe(text);
    leaveSetup();
    status("");
    await push(p.position, null);
  } catch (e) {
    setupError(e.status === 400 ? `Illegal position: ${e.message}` : errorText(e));
  } finally {
    setBusy(false);
  }
}

// ---------------------------------------------------------------------------------------
// Start-up and events

function newGameOptions(info) {
  const sel = $("new-game");
  sel.textContent = "";
  const add = (value, label) => {
    const o = document.createElement("option");
    o.value = value; o.textContent = label;
    sel.appendChild(o);
  };
  add("", "choose…");
  const starts = (info && info.starts) || [];
  const own = `${BOARD.stones}-${BOARD.stones}`;
  const empty = ".".repeat(ORDER.length);
  for (const s of starts) {
    const [w, b] = s.split("-").map((n) => parseInt(n, 10));
    if (w >= 0 && b >= 0) add(`${empty} w ${w} ${b}`, `${s}${s === own ? " (the whole game)" : ""}`);
  }
  // Only starts whose tables are all there: any other would be searched for tens of
  // seconds, or fail.
  if (!starts.length) {
    sel.options[0].textContent = "no complete start in these tables";
    sel.disabled = true;
  }
}

// Starts a game afresh from `text`: the old game's moves leave the history, so Undo
// cannot step back into them.
async function newGame(text) {
  stopAnim();
  setBusy(true);
  try {
    const p = await probe(text);
    status("");
    state.root = newNode(p.position, null, null);
    await show(state.root);
  } catch (e) {
    errorStatus(e);
  } finally {
    setBusy(false);
  }
}

function wire() {
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("best-line").addEventListener("click", bestLine);
  $("setup").addEventListener("click", enterSetup);
  $("setup-cancel").addEventListener("click", leaveSetup);
  $("setup-done").addEventListener("click", setupDone);
  $("setup-clear").addEventListener("click", () => {
    // a fresh start: an empty board and empty hands, as set-up from an empty board
    state.setup.board = {};
    state.setup.taken = { W: 0, B: 0 };
    $("setup-white-hand").value = "0";
    $("setup-black-hand").value = "0";
    $("setup-error").hidden = true;
    render();
  });
  for (const id of ["setup-side", "setup-white-hand", "setup-black-hand"]) {
    $(id).addEventListener("input", () => {
      // typed counts are the player's: later clicks do not give stones back to them
      if (id !== "setup-side" && state.setup) state.setup.taken[id === "setup-white-hand" ? "W" : "B"] = 0;
      $("setup-error").hidden = true;
      setupSummary();
    });
  }
  $("position-form").addEventListener("submit", (e) => { e.preventDefault(); if (state.setup) leaveSetup(); loadPosition($("position-input").value); });
  $("position-copy").addEventListener("click", copyPosition);
  $("link-copy").addEventListener("click", copyLink);
  $("flip").addEventListener("click", flip);
  $("new-game").addEventListener("change", (e) => {
    const v = e.target.value;
    e.target.value = "";
    if (v) { if (state.setup) leaveSetup(); newGame(v); }
  });
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    const typing = t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
    const key = e.key.toLowerCase();
    if (key === "escape") {
      if (typing) { t.blur(); }
      if (state.setup) { leaveSetup(); return; }
      stopAnim();
      cancelSelection();
      return;
    }
    // On the board the arrow keys moved the focus (the point's own handler).
    if (typing || state.setup || e.defaultPrevented) return;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && key === "z" && !e.shiftKey) { e.preventDefault(); undo(); }
    else if (mod && (key === "y" || (key === "z" && e.shiftKey))) { e.preventDefault(); redo(); }
    else if (!mod && !e.altKey && e.key === "ArrowLeft") { e.preventDefault(); undo(); }
    else if (!mod && !e.altKey && e.key === "ArrowRight") { e.preventDefault(); redo(); }
  });
  $("board").addEventListener("mouseleave", () => { if (state.hover) { state.hover = null; render(); } });
}

async function copyPosition() {
  const input = $("position-input");
  const text = current() ? current().position : input.value;
  try {
    await navigator.clipboard.writeText(text);
    status("Position copied.", "info");
  } catch (e) {
    input.value = text;
    input.select();
    const ok = document.execCommand && document.execCommand("copy");
    status(ok ? "Position copied." : "Select the position field and copy it.", "info");
  }
}

// Takes the server's board and rule set: the points, lines, stones and the page's title.
function useBoard(info) {
  const b = info && info.board;
  if (b && Array.isArray(b.points) && b.points.length) {
    BOARD.name = b.name; BOARD.points = b.points; BOARD.edges = b.edges;
    BOARD.columns = b.columns; BOARD.stones = b.stones;
    ORDER = BOARD.points;
  }
  const rules = (info && info.rules) || "standard";
  const name = rules.split(",")[0];
  const title = (GAME_NAMES[name] || rules) + (rules.includes(",") ? ` (${rules.slice(name.length + 1)})` : "");
  $("title").textContent = title;
  document.title = `${title} — solved`;
  document.body.dataset.rules = rules;
  for (const id of ["setup-white-hand", "setup-black-hand"]) $(id).max = String(BOARD.stones);
  $("position-input").placeholder = emptyStart();
}

async function init() {
  wire();
  const fromUrl = new URLSearchParams(location.search).get("position");
  let info = null;
  try {
    info = await api("api/info");
    state.info = info;
    const n = info.tables;
    $("db-info").textContent = `rules ${info.rules}: ${n} table${n === 1 ? "" : "s"}${info.starts && info.starts.length ? `, starts ${info.starts.join(", ")}` : ""}`;
  } catch (e) {
    $("db-info").textContent = "";
  }
  useBoard(info);
  buildBoard();
  newGameOptions(info);
  const start = (fromUrl && fromUrl.trim()) || (info && info.start_position) || emptyStart();
  const params = new URLSearchParams(location.search);
  const game = fromUrl && params.get("game") && params.get("moves") ? await replayGame(params.get("game"), params.get("moves"), start.trim().replace(/\s+/g, " ")) : null;
  const [root, last] = lineOf(game || [{ position: start.trim().replace(/\s+/g, " "), move: null }]);
  state.root = root;
  const ok = await show(last);
  if (!ok && fromUrl && info) {
    // keep the faulty URL's message visible but give the user a board to play on
    const msg = $("status").textContent;
    state.root = newNode(info.start_position || emptyStart(), null, null);
    await show(state.root);
    status(`${msg} (opened the start position instead)`, "error");
  }
}

document.addEventListener("DOMContentLoaded", init);
