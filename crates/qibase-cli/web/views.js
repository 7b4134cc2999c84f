// The views: each renders one part of the page from the controller's state,
// in the page's language. They read the state and call the controller's
// methods on user input; they never change the state themselves.

import { Board, SYMBOL } from "./board.js";
import { drawChart } from "./chart.js";
import { t, has } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const FLIP = { win: "loss", loss: "win", draw: "draw" };

// ----- words ---------------------------------------------------------------------

/** A game's title in the page's language: a preset's own name, a
 * variant's family name and its parameters in words. */
export function gameTitle(g) {
  if (has(`game.${g.id}`)) return t(`game.${g.id}`);
  const base = g.id.split(":")[0];
  const name = has(`variant.${base}`) ? t(`variant.${base}`) : g.title;
  return `${name} (${variantWords(g.id)})`;
}

/** A variant's parameters in words (`board=6x5,tiao=any` → "6×5 board, tiao any number"). */
export function variantWords(id) {
  const params = id.includes(":") ? id.slice(id.indexOf(":") + 1).split(",") : [];
  return params
    .map((kv) => {
      const [k, v = ""] = kv.split("=");
      if (has(`param.${k}.${v}`)) return t(`param.${k}.${v}`);
      if (has(`param.${k}`)) return t(`param.${k}`, { v: v.replace("x", "×") });
      return kv;
    })
    .join(t("param.sep"));
}

/** The name of a side letter (X, O, C, S). */
export const sideName = (letter) => (has(`side.${letter}`) ? t(`side.${letter}`) : letter);

/** A value string of the API ("win 7", "loss 3", "draw") in words. */
export function valueText(value) {
  if (!value) return "";
  const [cat, n] = value.split(" ");
  if (cat === "draw") return t("value.draw");
  return t(`value.${cat}`, { n: Number(n) });
}

/** Why a game ended, from the server's English reason. */
export function endReason(reason) {
  const rules = [
    [/captured/, "end.captured_all"],
    [/side to move has no pieces/, "end.no_pieces"],
    [/opponent has no pieces/, "end.opponent_no_pieces"],
    [/down to one piece/, "end.one_each"],
    [/no legal move/, "end.no_legal_move"],
    [/too few soldiers/, "end.too_few_soldiers"],
    [/no cannon can move/, "end.cannons_stuck"],
  ];
  for (const [re, key] of rules) if (re.test(reason)) return t(key);
  return reason;
}

/** An API error in words: the code's message, else the server's own. */
export function errorText(e) {
  const code = e && e.code;
  if (code && has(`error.${code}`)) return t(`error.${code}`, { message: e.message });
  return t("error.other", { message: (e && e.message) || String(e) });
}

export function valueWords(a) {
  const side = sideName(a.side_to_move);
  if (a.end) return t("words.over", { reason: endReason(a.end.reason) });
  if (a.category === "draw") return t("words.draw", { side });
  const n = a.remoteness;
  return a.category === "win" ? t("words.win", { side, n }) : t("words.loss", { side, n });
}

// ----- the page's views -------------------------------------------------------------

export class Views {
  constructor(ctl) {
    this.c = ctl;
    this.board = null;
    this.flipped = false;
    this.animated = null; // the ply whose move was last animated
  }

  newBoard() {
    const g = this.c.game;
    this.board = new Board($("board"), g.geometry, g.sides, (name) => this.c.pointClick(name));
    this.board.flipped = this.flipped;
  }

  flip() {
    this.flipped = !this.flipped;
    if (this.board) this.board.flipped = this.flipped;
    this.renderBoard();
  }

  // The games, each preset with its variants under it (an optgroup per
  // game, named in the page's language).
  renderGameList() {
    const sel = $("game");
    const cur = sel.value;
    sel.replaceChildren();
    const games = [...this.c.games];
    if (this.c.game && !games.some((g) => g.id === this.c.game.id)) games.push(this.c.game);
    const groups = new Map();
    for (const g of games) {
      const preset = g.variant.preset;
      if (!groups.has(preset)) {
        const og = document.createElement("optgroup");
        og.label = has(`game.${preset}`) ? t(`game.${preset}`) : preset;
        og.dataset.game = preset;
        groups.set(preset, og);
        sel.append(og);
      }
      const o = document.createElement("option");
      o.value = g.id;
      const name = g.id === preset ? gameTitle(g) : variantWords(g.id);
      o.textContent = g.tablebase === false ? t("game.not_solved", { title: name }) : name;
      groups.get(preset).append(o);
    }
    sel.value = this.c.game ? this.c.game.id : cur;
  }

  renderEditor() {
    const c = this.c;
    const ed = c.editor;
    $("editor").hidden = !ed.on;
    $("edit-btn").setAttribute("aria-pressed", String(ed.on));
    $("edit-btn").classList.toggle("on", ed.on);
    if (!ed.on) return;
    const sides = $("editor-sides");
    sides.replaceChildren();
    for (const s of c.game.sides) {
      const l = document.createElement("label");
      const r = document.createElement("input");
      r.type = "radio";
      r.name = "editor-side";
      r.value = s;
      r.checked = ed.side === s;
      r.addEventListener("change", () => ed.setSide(s));
      l.append(r, ` ${sideName(s)}`);
      sides.append(l);
    }
    $("editor-lock-label").hidden = ed.family() !== "weiming";
    $("editor-lock").checked = ed.locked;
    const field = $("editor-pos");
    if (document.activeElement !== field) field.value = c.curPly().pos;
  }

  renderReview() {
    const r = this.c.review;
    const list = $("review-list");
    list.replaceChildren();
    const sum = $("review-summary");
    sum.classList.toggle("error", !!r.error);
    if (r.error) {
      sum.textContent = errorText(r.error);
      return;
    }
    if (!r.result) {
      sum.textContent = "";
      return;
    }
    const plies = r.result.plies;
    $("review").open = true;
    const box = $("review-moves");
    if (!box.value.trim()) box.value = plies.map((p) => p.played.move).join(" ");
    sum.textContent = t("review.summary", { n: plies.length, k: plies.filter((p) => p.mistake).length });
    for (const p of plies) {
      const li = document.createElement("li");
      li.className = `review-ply ${p.mistake ? "mistake" : ""}`;
      li.dataset.ply = p.ply;
      if (this.c.cur === p.ply) li.classList.add("current");
      const head = document.createElement("button");
      head.type = "button";
      head.className = "review-move";
      const cat = p.played.category;
      head.textContent = `${p.ply}. ${sideName(p.side_to_move)} ${p.played.move} ${SYMBOL[cat]} ${valueText(p.played.value)}`;
      head.addEventListener("click", () => this.c.goToPly(p.ply));
      li.append(head);
      if (p.mistake) {
        const m = document.createElement("div");
        m.className = "review-mark";
        const line = (p.line || []).map((x) => x.move).join(" ");
        m.textContent = t("review.mistake", {
          before: valueText(p.value),
          after: valueText(p.played.value),
          best: p.best.move,
          value: valueText(p.best.value),
          line: line || "—",
        });
        m.addEventListener("click", () => this.c.goToPly(p.ply - 1));
        li.append(m);
      }
      list.append(li);
    }
  }

  // The board alone: the PV step, the hovered move, the selection, or the position itself.
  // (Hovering redraws only this, so the move buttons stay in place and a
  // click on them lands.)
  renderBoard() {
    const c = this.c;
    if (!c.game || !this.board) return;
    const ply = c.curPly();
    const a = c.answerOf(ply.pos);
    const override = c.puzzle && c.puzzle.boardOverride();
    let board = a ? a.board : ply.last ? ply.last.board : null;
    let opts = { last: ply.last };
    if (c.editor.on) {
      // The editor's board, even while the server refuses the position.
      board = c.editor.board;
      opts = {};
    } else if (override) {
      board = override.board;
      opts = { last: override.last, anim: override.anim };
    } else if (c.pv && c.pv.step > 0) {
      const m = c.pv.moves[c.pv.step - 1];
      board = m.board;
      opts = { last: m };
    } else if (c.hover) {
      board = c.hover.board;
      opts = { last: ply.last, preview: c.hover };
    } else if (a && c.selected) {
      const targets = new Map();
      for (const m of a.moves) {
        if (m.from === c.selected) targets.set(m.to, c.puzzle ? "plain" : m.category);
      }
      opts = { last: ply.last, selected: c.selected, targets };
    } else if (ply.fresh && this.animated !== ply && ply.last) {
      // The move just made: slide the piece in, fade the captured ones out.
      this.animated = ply;
      const prev = c.line[c.cur - 1];
      const prevBoard = prev && (c.answerOf(prev.pos)?.board || prev.last?.board);
      const idx = (name) => this.board.index(name);
      const captured = (ply.last.captured || []).map((name) => ({
        name,
        c: prevBoard ? prevBoard[idx(name)] : "?",
      }));
      opts.anim = { from: ply.last.from, to: ply.last.to, captured };
    }
    if (board) this.board.draw(board, opts);
  }

  render() {
    const c = this.c;
    if (!c.game) return;
    const ply = c.curPly();
    const a = c.answerOf(ply.pos);
    const inPuzzle = !!c.puzzle;
    document.body.classList.toggle("puzzle-mode", inPuzzle);
    $("puzzle").hidden = !inPuzzle;
    $("game-title").textContent = gameTitle(c.game);
    document.title = `qibase — ${gameTitle(c.game)}`;
    this.renderBoard();
    const v = $("value");
    const words = $("value-words");
    if (!a) {
      v.textContent = "…";
      v.dataset.category = "";
      v.className = "value";
      words.textContent = "";
    } else {
      v.dataset.category = a.category;
      v.className = `value ${a.category}`;
      v.textContent = `${SYMBOL[a.category]} ${valueText(a.value)}`;
      words.textContent = valueWords(a);
    }
    const parts = [];
    if (a) {
      parts.push(t("turn.to_move", { side: sideName(a.side_to_move) }));
      if (ply.pass) parts.push(t("turn.after_pass"));
      if (c.thinking) parts.push(t("turn.thinking"));
    }
    $("turn").textContent = parts.join("");
    this.renderStatus();
    this.renderEditor();
    this.renderReview();
    this.renderMoves(a);
    this.renderPv(a);
    this.renderBanner(a);
    this.renderChart();
    $("undo").disabled = c.cur === 0;
    $("difficulty-help").textContent = t(`difficulty.help.${c.difficulty}`);
    if (c.puzzle) c.puzzle.render();
  }

  renderStatus() {
    const s = $("status");
    const st = this.c.status;
    if (!st) {
      s.textContent = "";
      s.classList.remove("error");
    } else if (st.error) {
      s.textContent = errorText(st.error);
      s.classList.add("error");
    } else {
      s.textContent = t(st.key, st.params);
      s.classList.toggle("error", st.key === "status.no_values");
    }
  }

  renderClock(tick) {
    const el = $("clock");
    if (!tick) {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    el.textContent = t("clock.left", { s: tick.left });
    el.classList.toggle("warn", tick.warn);
  }

  renderMoves(a) {
    const box = $("moves");
    box.replaceChildren();
    if (!a) return;
    if (a.moves.length === 0) {
      box.textContent = a.end ? t("moves.none") : "";
      return;
    }
    const mover = sideName(a.side_to_move);
    for (const cat of ["win", "draw", "loss"]) {
      const ms = a.moves.filter((m) => m.category === cat);
      if (!ms.length) continue;
      const group = document.createElement("div");
      group.className = `group ${cat}`;
      const h = document.createElement("h3");
      h.textContent = `${SYMBOL[cat]} ${t(`moves.${cat}`, { side: mover, count: ms.length })}`;
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
        b.querySelector(".val").textContent = m.end
          ? t("moves.ends", { value: valueText(m.value) })
          : valueText(m.value);
        b.addEventListener("mouseenter", () => this.c.setHover(m));
        b.addEventListener("mouseleave", () => {
          if (this.c.hover === m) this.c.setHover(null);
        });
        b.addEventListener("click", () => {
          this.c.hover = null;
          this.c.makeMove(m);
        });
        li.append(b);
        ul.append(li);
      }
      group.append(ul);
      box.append(group);
    }
  }

  renderPv(a) {
    const c = this.c;
    const ol = $("pv");
    ol.replaceChildren();
    const moves = a && a.pv ? a.pv : [];
    moves.forEach((m, i) => {
      const li = document.createElement("li");
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = `${i + 1}.`;
      li.append(n, m.move);
      li.title = t("pv.title", { value: valueText(m.value) });
      li.dataset.step = i + 1;
      if (c.pv && c.pv.step === i + 1) li.className = "current";
      li.addEventListener("click", () => c.pvGo(moves, i + 1));
      ol.append(li);
    });
    $("pv-prev").disabled = !c.pv || c.pv.step <= 0;
    $("pv-next").disabled = !moves.length || (c.pv && c.pv.step >= moves.length);
    $("pv-exit").hidden = !c.pv;
  }

  renderBanner(a) {
    const c = this.c;
    const b = $("banner");
    if (!a || !a.end) {
      b.hidden = true;
      return;
    }
    const toMove = a.side_to_move;
    const [first, second] = c.game.sides;
    const other = toMove === first ? second : first;
    const winner = a.end.category === "win" ? toMove : a.end.category === "loss" ? other : null;
    const human = c.humanSide();
    let who;
    if (!winner) who = t("banner.draw");
    else if (human) who = t(winner === human ? "banner.you_win" : "banner.qibase_wins", { side: sideName(winner) });
    else who = t("banner.wins", { side: sideName(winner) });
    b.textContent = `${who} ${t("banner.why", { side: sideName(toMove), reason: endReason(a.end.reason) })}`;
    b.className = `banner ${winner === human || !human ? "good" : "bad"}`;
    b.hidden = false;
  }

  renderChart() {
    const c = this.c;
    const plies = c.line.map((p, i) => {
      const a = c.answerOf(p.pos);
      const next = c.line[i + 1] && c.answerOf(c.line[i + 1].pos);
      return {
        answer: a,
        // The mover's result after its ply is the negation of the next position's.
        moveCat: i < c.cur && next ? FLIP[next.category] : null,
        firstToMove: a ? a.side_to_move === c.game.sides[0] : true,
      };
    });
    drawChart($("chart"), plies, c.cur, (i) => c.goToPly(i), {
      top: t("chart.first_wins"),
      bottom: t("chart.first_loses"),
      ply: (i, a) => t("chart.ply", { i, position: a.position, value: valueText(a.value), side: sideName(a.side_to_move) }),
    });
  }
}
