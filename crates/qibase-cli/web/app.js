// The qibase page: explore any position with exact values, or play against
// qibase with the seeds' turn clock. Talks only to /api/v1 (docs/http-api.md).

import { Board, SYMBOL } from "./board.js";
import { drawChart } from "./chart.js";

const $ = (id) => document.getElementById(id);
const FLIP = { win: "loss", loss: "win", draw: "draw" };
const WORD = { win: "win", draw: "draw", loss: "loss" };

const api = (path) => `/api/v1/${path}`;
const urlPos = (p) => p.replaceAll(" ", "_");

// ----- state -----------------------------------------------------------------

const S = {
  games: [],
  game: null, // detail: id, title, start, sides, geometry
  board: null, // Board renderer
  line: [], // plies: {pos, last: {from,to}|null, pass: bool}
  cur: 0,
  answers: new Map(), // "game|pos" -> query answer
  selected: null,
  pv: null, // {moves, step} while stepping through the principal variation
  hover: null, // move object under the mouse
  seq: 0, // request counter: only the newest answer may be shown
  clock: null, // {deadline, warnAt, timer}
  thinking: false,
  gameOverShown: false,
};

const curPly = () => S.line[S.cur];
const key = (pos) => `${S.game.id}|${pos}`;
const answerOf = (pos) => S.answers.get(key(pos));

function status(text, isError = false) {
  const s = $("status");
  s.textContent = text || "";
  s.classList.toggle("error", isError);
}

async function getJSON(url) {
  const r = await fetch(url);
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || `HTTP ${r.status}`);
  return j;
}

async function query(pos) {
  const k = key(pos);
  if (S.answers.has(k)) return S.answers.get(k);
  const a = await getJSON(api(`${encodeURIComponent(S.game.id)}/query?pos=${encodeURIComponent(urlPos(pos))}`));
  S.answers.set(k, a);
  return a;
}

// ----- URL and history ---------------------------------------------------------

function permalink(pos) {
  const u = new URL(location.href);
  u.search = "";
  u.searchParams.set("game", S.game.id);
  u.searchParams.set("pos", urlPos(pos));
  return u.pathname + "?" + u.searchParams.toString().replaceAll("%2F", "/");
}

function pushUrl() {
  history.pushState({ cur: S.cur, game: S.game.id, pos: curPly().pos }, "", permalink(curPly().pos));
}

function replaceUrl() {
  history.replaceState({ cur: S.cur, game: S.game.id, pos: curPly().pos }, "", permalink(curPly().pos));
}

window.addEventListener("popstate", async (ev) => {
  const st = ev.state;
  if (st && S.game && st.game === S.game.id && S.line[st.cur] && S.line[st.cur].pos === st.pos) {
    S.cur = st.cur;
    afterPositionChange(false);
    return;
  }
  await loadFromUrl();
});

// ----- the game ----------------------------------------------------------------

async function selectGame(id, pos) {
  const d = await getJSON(api(`games/${encodeURIComponent(id)}`));
  S.game = d;
  $("game").value = id;
  $("game-title").textContent = d.title;
  document.title = `qibase — ${d.title}`;
  S.board = new Board($("board"), d.geometry, d.sides, onPointClick);
  S.line = [{ pos: pos || d.start, last: null, pass: false }];
  S.cur = 0;
  S.gameOverShown = false;
  if (!d.tablebase) status(`No values for ${d.title}: ${d.source}`, true);
  else status("");
}

async function loadFromUrl() {
  const u = new URL(location.href);
  const id = u.searchParams.get("game") || "weiming";
  const pos = u.searchParams.get("pos");
  try {
    await selectGame(id, pos ? pos.replaceAll("_", " ") : null);
  } catch (e) {
    status(`${e.message}`, true);
    await selectGame("weiming");
  }
  replaceUrl();
  afterPositionChange(false);
}

function sideToMoveIsHuman() {
  const mode = $("mode").value;
  if (mode === "analyse") return true;
  const a = answerOf(curPly().pos);
  if (!a) return true;
  const human = mode === "first" ? S.game.sides[0] : S.game.sides[1];
  return a.side_to_move === human;
}

// Go to a new ply from the current one (a move or a pass).
function play(pos, last, pass) {
  S.line = S.line.slice(0, S.cur + 1);
  S.line.push({ pos, last, pass });
  S.cur = S.line.length - 1;
  pushUrl();
  afterPositionChange(true);
}

function moveParts(mv) {
  const i = mv.indexOf("-");
  return { from: mv.slice(0, i), to: mv.slice(i + 1) };
}

function makeMove(m) {
  if (!sideToMoveIsHuman() || S.thinking) return;
  play(m.position, moveParts(m.move), false);
}

function onPointClick(name) {
  if (S.pv) return;
  const a = answerOf(curPly().pos);
  if (!a || a.end || !sideToMoveIsHuman() || S.thinking) return;
  if (S.selected) {
    const m = a.moves.find((m) => m.move === `${S.selected}-${name}`);
    if (m) {
      S.selected = null;
      makeMove(m);
      return;
    }
  }
  // A piece with legal moves becomes the selection; anything else changes nothing.
  if (a.moves.some((m) => moveParts(m.move).from === name)) {
    S.selected = S.selected === name ? null : name;
    render();
  }
}

// ----- the clock ---------------------------------------------------------------

function stopClock() {
  S.clock = null;
  $("clock").hidden = true;
}

function startClock() {
  const t = Number($("timer").value) || 0;
  if ($("mode").value === "analyse" || t <= 0) return stopClock();
  const now = performance.now();
  // Warn 10 s before the end, or half-way for clocks of 20 s or less (as `qibase play`).
  const before = t > 20 ? 10 : t / 2;
  S.clock = { deadline: now + t * 1000, warnAt: now + (t - before) * 1000, pos: curPly().pos };
  tickClock();
}

function tickClock() {
  const c = S.clock;
  const el = $("clock");
  if (!c) return;
  const now = performance.now();
  const left = Math.max(0, (c.deadline - now) / 1000);
  el.hidden = false;
  el.textContent = `your time: ${Math.ceil(left)} s`;
  el.classList.toggle("warn", now >= c.warnAt);
  if (left <= 0 && c.pos === curPly().pos) {
    stopClock();
    const a = answerOf(curPly().pos);
    if (a && a.pass && !a.end) {
      status(`Time is up: ${a.side_to_move}'s turn passes.`);
      play(a.pass, null, true);
    }
  }
}
setInterval(tickClock, 100);

// ----- qibase's moves ------------------------------------------------------------

async function programMove() {
  const ply = curPly();
  const a = answerOf(ply.pos);
  if (!a || a.end || sideToMoveIsHuman() || S.thinking) return;
  S.thinking = true;
  render();
  const seq = ++S.seq;
  try {
    const level = $("difficulty").value;
    const b = await getJSON(
      api(`${encodeURIComponent(S.game.id)}/bestmove?pos=${encodeURIComponent(urlPos(ply.pos))}&difficulty=${level}`),
    );
    // A newer position (undo, new game, back button) makes this answer stale.
    if (seq !== S.seq || curPly() !== ply) return;
    S.thinking = false;
    if (b.move) play(b.move.position, moveParts(b.move.move), false);
  } catch (e) {
    if (seq === S.seq) status(e.message, true);
  } finally {
    if (seq === S.seq) S.thinking = false;
    render();
  }
}

// ----- after each change of position ----------------------------------------------

async function afterPositionChange(fresh) {
  S.selected = null;
  S.pv = null;
  S.hover = null;
  S.thinking = false;
  stopClock();
  const ply = curPly();
  const seq = ++S.seq;
  render();
  let a;
  try {
    a = await query(ply.pos);
  } catch (e) {
    if (seq === S.seq) {
      status(e.message, true);
      render();
    }
    return;
  }
  // Only the newest request may change the page.
  if (seq !== S.seq || curPly() !== ply) return;
  render();
  if (a.end) return;
  if (sideToMoveIsHuman()) {
    if (fresh || $("mode").value !== "analyse") startClock();
  } else {
    programMove();
  }
  // Fill the history chart in the background (positions reached by the back button).
  fillHistory();
}

async function fillHistory() {
  for (const p of S.line) {
    if (!answerOf(p.pos)) {
      try {
        await query(p.pos);
      } catch {
        return;
      }
    }
  }
  renderChart();
}

// ----- rendering -----------------------------------------------------------------

function valueWords(a) {
  const side = a.side_to_move;
  if (a.end) {
    return `Game over: ${a.end.reason}.`;
  }
  if (a.category === "draw") return `${side} to move: a draw with perfect play.`;
  const n = a.remoteness;
  const plies = `${n} ${n === 1 ? "ply" : "plies"}`;
  return a.category === "win"
    ? `${side} to move wins in ${plies} with perfect play.`
    : `${side} to move loses in ${plies} with perfect play (the longest resistance).`;
}

// The board alone: the PV step, the hovered move, or the position itself.
// (Hovering redraws only this, so the move buttons stay in place and a
// click on them lands.)
function renderBoard() {
  if (!S.game) return;
  const ply = curPly();
  const a = answerOf(ply.pos);
  let board = a ? a.board : null;
  let opts = { last: ply.last };
  if (S.pv && S.pv.step > 0) {
    const m = S.pv.moves[S.pv.step - 1];
    board = m.board;
    opts = { last: moveParts(m.move) };
  } else if (S.hover) {
    board = S.hover.board;
    opts = { last: ply.last, preview: moveParts(S.hover.move) };
  } else if (a && S.selected) {
    const targets = new Map();
    for (const m of a.moves) {
      const { from, to } = moveParts(m.move);
      if (from === S.selected) targets.set(to, m.category);
    }
    opts = { last: ply.last, selected: S.selected, targets };
  }
  if (board) S.board.draw(board, opts);
}

function render() {
  if (!S.game) return;
  const ply = curPly();
  const a = answerOf(ply.pos);
  renderBoard();
  const v = $("value");
  const words = $("value-words");
  if (!a) {
    v.textContent = "…";
    v.dataset.category = "";
    words.textContent = "";
  } else {
    v.dataset.category = a.category;
    v.className = `value ${a.category}`;
    v.textContent = `${SYMBOL[a.category]} ${a.value}`;
    words.textContent = valueWords(a);
  }
  const turn = $("turn");
  turn.textContent = a ? `${a.side_to_move} to move${ply.pass ? " (after a pass)" : ""}${S.thinking ? " — qibase is thinking…" : ""}` : "";
  renderMoves(a);
  renderPv(a);
  renderBanner(a);
  renderChart();
  $("undo").disabled = S.cur === 0;
}

function renderMoves(a) {
  const box = $("moves");
  box.replaceChildren();
  if (!a) return;
  if (a.moves.length === 0) {
    box.textContent = a.end ? "No moves: the game is over." : "";
    return;
  }
  const mover = a.side_to_move;
  for (const cat of ["win", "draw", "loss"]) {
    const ms = a.moves.filter((m) => m.category === cat);
    if (!ms.length) continue;
    const group = document.createElement("div");
    group.className = `group ${cat}`;
    const h = document.createElement("h3");
    h.textContent = `${SYMBOL[cat]} ${cat === "win" ? "Winning" : cat === "draw" ? "Drawing" : "Losing"} moves for ${mover} (${ms.length})`;
    group.append(h);
    const ul = document.createElement("ul");
    for (const m of ms) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = `move ${cat}`;
      b.dataset.move = m.move;
      b.dataset.category = cat;
      b.innerHTML = `<span class="sym">${SYMBOL[cat]}</span><span class="mv"></span><span class="val"></span>`;
      b.querySelector(".mv").textContent = m.move;
      b.querySelector(".val").textContent = m.end ? `${m.value} (ends)` : m.value;
      b.addEventListener("mouseenter", () => {
        S.hover = m;
        renderBoard();
      });
      b.addEventListener("mouseleave", () => {
        if (S.hover === m) S.hover = null;
        renderBoard();
      });
      b.addEventListener("click", () => {
        S.hover = null;
        makeMove(m);
      });
      li.append(b);
      ul.append(li);
    }
    group.append(ul);
    box.append(group);
  }
}

function renderPv(a) {
  const ol = $("pv");
  ol.replaceChildren();
  const moves = a && a.pv ? a.pv : [];
  moves.forEach((m, i) => {
    const li = document.createElement("li");
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = `${i + 1}.`;
    li.append(n, m.move);
    li.title = `${m.value} for the mover`;
    li.dataset.step = i + 1;
    if (S.pv && S.pv.step === i + 1) li.className = "current";
    li.addEventListener("click", () => {
      S.pv = { moves, step: i + 1 };
      render();
    });
    ol.append(li);
  });
  $("pv-prev").disabled = !S.pv || S.pv.step <= 0;
  $("pv-next").disabled = !moves.length || (S.pv && S.pv.step >= moves.length);
  $("pv-exit").hidden = !S.pv;
}

function renderBanner(a) {
  const b = $("banner");
  if (!a || !a.end) {
    b.hidden = true;
    return;
  }
  const toMove = a.side_to_move;
  const [first, second] = S.game.sides;
  const other = toMove === first ? second : first;
  const winner = a.end.category === "win" ? toMove : a.end.category === "loss" ? other : null;
  const mode = $("mode").value;
  const human = mode === "first" ? first : mode === "second" ? second : null;
  let who;
  if (!winner) who = "A draw.";
  else if (human) who = winner === human ? `You win as ${winner}!` : `qibase wins as ${winner}.`;
  else who = `${winner} wins.`;
  b.textContent = `${who} Why: ${toMove} to move, and ${a.end.reason}.`;
  b.className = `banner ${winner === human || !human ? "good" : "bad"}`;
  b.hidden = false;
}

function renderChart() {
  const plies = S.line.map((p, i) => {
    const a = answerOf(p.pos);
    const next = S.line[i + 1] && answerOf(S.line[i + 1].pos);
    return {
      answer: a,
      // The mover's result after its ply is the negation of the next position's.
      moveCat: i < S.cur && next ? FLIP[next.category] : null,
      firstToMove: a ? a.side_to_move === S.game.sides[0] : true,
    };
  });
  drawChart($("chart"), plies, S.cur, (i) => {
    if (i === S.cur) return;
    S.cur = i;
    pushUrl();
    afterPositionChange(false);
  });
}

// ----- controls ------------------------------------------------------------------

function undo() {
  if (S.cur === 0) return;
  const mode = $("mode").value;
  if (mode === "analyse") {
    S.cur -= 1;
  } else {
    // Back to the position before the person's last turn (taking back qibase's reply too).
    const human = mode === "first" ? S.game.sides[0] : S.game.sides[1];
    let k = S.cur - 1;
    while (k > 0 && answerOf(S.line[k].pos)?.side_to_move !== human) k--;
    S.cur = k;
  }
  S.line = S.line.slice(0, S.cur + 1);
  pushUrl();
  afterPositionChange(false);
}

function newGame() {
  S.line = [{ pos: S.game.start, last: null, pass: false }];
  S.cur = 0;
  pushUrl();
  afterPositionChange(false);
}

async function init() {
  S.games = await getJSON(api("games"));
  const sel = $("game");
  for (const g of S.games) {
    const o = document.createElement("option");
    o.value = g.id;
    o.textContent = g.tablebase ? g.title : `${g.title} (not solved)`;
    sel.append(o);
  }
  sel.addEventListener("change", async () => {
    await selectGame(sel.value);
    pushUrl();
    afterPositionChange(false);
  });
  $("flip").addEventListener("click", () => {
    S.board.flipped = !S.board.flipped;
    render();
  });
  $("undo").addEventListener("click", undo);
  $("new-game").addEventListener("click", newGame);
  $("mode").addEventListener("change", () => afterPositionChange(false));
  $("difficulty").addEventListener("change", () => {
    if (!sideToMoveIsHuman()) afterPositionChange(false);
  });
  $("timer").addEventListener("change", () => {
    if (sideToMoveIsHuman()) startClock();
  });
  $("pv-next").addEventListener("click", () => {
    const a = answerOf(curPly().pos);
    if (!a || !a.pv) return;
    const step = S.pv ? S.pv.step + 1 : 1;
    S.pv = { moves: a.pv, step: Math.min(step, a.pv.length) };
    render();
  });
  $("pv-prev").addEventListener("click", () => {
    if (!S.pv) return;
    S.pv.step = Math.max(0, S.pv.step - 1);
    render();
  });
  $("pv-exit").addEventListener("click", () => {
    S.pv = null;
    render();
  });
  await loadFromUrl();
}

init().catch((e) => status(e.message, true));
