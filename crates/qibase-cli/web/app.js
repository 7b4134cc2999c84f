// The qibase page: explore any position with exact values, play against
// qibase with the turn clock, solve puzzles, read the rules — in English or
// Simplified Chinese. This file only wires the parts together:
//   api.js        — every request to /api/v1 (stale ones aborted);
//   controller.js — the state and its changes, announced as events;
//   clock.js      — the turn clock;
//   views.js      — rendering, in the page's language;
//   puzzle.js     — puzzle mode;  rules.js — the rules dialog;
//   editor.js     — the position editor; review.js — game review;
//   i18n.js       — the language and the strings of i18n/*.json.

import { Api } from "./api.js";
import { Controller } from "./controller.js";
import { applyStatic, initialLang, lang, setLang } from "./i18n.js";
import { PuzzleMode } from "./puzzle.js";
import { splitMoves } from "./review.js";
import { renderRules } from "./rules.js";
import { Views, errorText } from "./views.js";

const $ = (id) => document.getElementById(id);
const SEEN = "qibase.seen";

const ctl = new Controller(new Api());
const views = new Views(ctl);

ctl.addEventListener("change", () => views.render());
ctl.addEventListener("board", () => views.renderBoard());
ctl.addEventListener("clock", (ev) => views.renderClock(ev.detail));
ctl.addEventListener("game", () => {
  views.newBoard();
  views.renderGameList();
  if ($("rules-dialog").open) openRules($("rules-body").dataset.tab || "full");
});
ctl.onPuzzleUrl = (id) => PuzzleMode.enter(ctl, id);

window.addEventListener("popstate", (ev) => ctl.popstate(ev.state));

// ----- the rules dialog ------------------------------------------------------------

async function openRules(tab) {
  const d = $("rules-dialog");
  try {
    await renderRules(ctl.game, tab);
  } catch (e) {
    ctl.setError(e);
    ctl.changed();
    return;
  }
  if (!d.open) d.showModal();
}

function firstVisit() {
  try {
    if (localStorage.getItem(SEEN)) return false;
    localStorage.setItem(SEEN, "1");
    return true;
  } catch {
    return false;
  }
}

// ----- language ----------------------------------------------------------------------

async function switchLang(l) {
  await setLang(l, true);
  $("lang").value = lang();
  applyStatic();
  views.renderGameList();
  ctl.replaceUrl(); // the position stays; the permalink gets the language
  views.render();
  if ($("rules-dialog").open) await renderRules(ctl.game, $("rules-body").dataset.tab || "full");
}

// ----- start ---------------------------------------------------------------------------

async function init() {
  await setLang(initialLang());
  $("lang").value = lang();
  applyStatic();
  ctl.games = await ctl.api.games();
  $("game").addEventListener("change", (ev) => ctl.changeGame(ev.target.value));
  $("lang").addEventListener("change", (ev) => switchLang(ev.target.value));
  $("flip").addEventListener("click", () => views.flip());
  $("undo").addEventListener("click", () => ctl.undo());
  $("new-game").addEventListener("click", () => ctl.newGame());
  // Each control hands all three settings over (a script or the browser may
  // have changed the others without an event).
  const sync = () => {
    ctl.mode = $("mode").value;
    ctl.difficulty = $("difficulty").value;
    ctl.timer = Number($("timer").value) || 0;
  };
  $("mode").addEventListener("change", (ev) => {
    sync();
    ctl.setMode(ev.target.value);
  });
  $("difficulty").addEventListener("change", (ev) => {
    sync();
    ctl.setDifficulty(ev.target.value);
  });
  $("timer").addEventListener("change", (ev) => {
    sync();
    ctl.setTimer(Number(ev.target.value) || 0);
  });
  $("pv-next").addEventListener("click", () => ctl.pvNext());
  $("pv-prev").addEventListener("click", () => ctl.pvPrev());
  $("pv-exit").addEventListener("click", () => ctl.pvExit());
  $("rules-btn").addEventListener("click", () => openRules("quick"));
  $("rules-close").addEventListener("click", () => $("rules-dialog").close());
  for (const b of document.querySelectorAll("#rules-dialog [data-tab]")) {
    b.addEventListener("click", () => openRules(b.dataset.tab));
  }
  $("puzzle-btn").addEventListener("click", () => PuzzleMode.enter(ctl));
  $("edit-btn").addEventListener("click", () => ctl.editor.toggle());
  $("editor-done").addEventListener("click", () => ctl.editor.toggle());
  $("editor-clear").addEventListener("click", () => ctl.editor.clear());
  $("editor-reset").addEventListener("click", () => ctl.editor.reset());
  $("editor-lock").addEventListener("change", (ev) => ctl.editor.setLocked(ev.target.checked));
  $("editor-pos").addEventListener("change", (ev) => ctl.editor.paste(ev.target.value));
  const review = (start) => {
    const moves = splitMoves($("review-moves").value);
    if (moves.length) ctl.review.run(start, moves);
  };
  $("review-start").addEventListener("click", () => review(ctl.game.start));
  $("review-here").addEventListener("click", () => review(ctl.curPly().pos));
  $("puzzle-retry").addEventListener("click", () => ctl.puzzle?.retry());
  $("puzzle-replay").addEventListener("click", () => ctl.puzzle?.playFrames());
  $("puzzle-next").addEventListener("click", () => ctl.puzzle?.next());
  $("puzzle-exit").addEventListener("click", () => ctl.puzzle?.leave());
  // The mode, level and clock may have been kept by the browser across a reload.
  sync();
  await ctl.loadFromUrl();
  if (firstVisit()) openRules("quick");
}

init().catch((e) => {
  const s = $("status");
  s.textContent = errorText(e);
  s.classList.add("error");
});
