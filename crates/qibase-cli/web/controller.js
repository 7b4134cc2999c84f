// The page's state and what changes it. Views listen to its events and
// never change the state themselves:
//   "change" — anything may have changed: render everything;
//   "board"  — only the board's overlay changed (hover, selection);
//   "clock"  — the turn clock ticked (detail: {left, warn} or null).
// Talks to the server only through the Api module.

import { urlPos } from "./api.js";
import { TurnClock } from "./clock.js";
import { Editor } from "./editor.js";
import { lang } from "./i18n.js";
import { Review, splitMoves } from "./review.js";

export class Controller extends EventTarget {
  constructor(api) {
    super();
    this.api = api;
    this.games = [];
    this.game = null; // /games/{id}: id, title, start, sides, geometry, variant
    this.line = []; // plies: {pos, last: move object (from, to, captured) | null, pass, fresh}
    this.cur = 0;
    this.answers = new Map(); // "game|pos" -> query answer
    this.selected = null; // point name
    this.pv = null; // {moves, step} while stepping through the principal variation
    this.hover = null; // move object under the mouse
    this.thinking = false;
    this.status = null; // {key, params} | {error: ApiError}
    this.mode = "analyse";
    this.difficulty = "perfect";
    this.timer = 60;
    this.puzzle = null; // a PuzzleMode while puzzle mode is on
    this.seq = 0; // only the newest position change may update the page
    this.editor = new Editor(this);
    this.review = new Review(this);
    this.settled = Promise.resolve(); // the newest position change's lookup
    this.clock = new TurnClock(
      (tick) => this.emit("clock", tick),
      (token) => this.clockExpired(token),
    );
  }

  emit(type, detail = null) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
  changed() {
    this.emit("change");
  }

  // ----- answers -------------------------------------------------------------

  key(pos) {
    return `${this.game.id}|${pos}`;
  }
  answerOf(pos) {
    return this.answers.get(this.key(pos));
  }
  curPly() {
    return this.line[this.cur];
  }
  answer() {
    return this.game && this.curPly() ? this.answerOf(this.curPly().pos) : undefined;
  }

  // The query answer of pos (cached). `kind` names the request so a newer
  // one of the same kind aborts it (then this resolves to null).
  async query(pos, kind = null) {
    const k = this.key(pos);
    if (this.answers.has(k)) return this.answers.get(k);
    const a = await this.api.query(this.game.id, pos, kind);
    if (a) this.answers.set(k, a);
    return a;
  }

  setStatus(key, params = {}) {
    this.status = key ? { key, params } : null;
  }
  setError(e) {
    this.status = { error: e };
  }

  // ----- URL and history -------------------------------------------------------

  permalink(pos) {
    const u = new URL(location.href);
    u.search = "";
    u.searchParams.set("game", this.game.id);
    const r = this.review.result;
    if (this.puzzle) u.searchParams.set("puzzle", this.puzzle.current.id);
    else if (r) {
      // A reviewed game: its start, its moves and the ply shown.
      u.searchParams.set("pos", urlPos(r.start));
      u.searchParams.set("moves", r.plies.map((p) => p.played.move).join(","));
      u.searchParams.set("ply", String(this.cur));
    } else u.searchParams.set("pos", urlPos(pos));
    u.searchParams.set("lang", lang());
    return u.pathname + "?" + u.searchParams.toString().replaceAll("%2F", "/").replaceAll("%3A", ":");
  }
  historyState() {
    return { cur: this.cur, game: this.game.id, pos: this.curPly().pos, puzzle: this.puzzle?.current.id ?? null };
  }
  pushUrl() {
    history.pushState(this.historyState(), "", this.permalink(this.curPly().pos));
  }
  replaceUrl() {
    history.replaceState(this.historyState(), "", this.permalink(this.curPly().pos));
  }

  async popstate(st) {
    if (
      st &&
      this.game &&
      st.game === this.game.id &&
      (st.puzzle ?? null) === (this.puzzle?.current.id ?? null) &&
      this.line[st.cur] &&
      this.line[st.cur].pos === st.pos
    ) {
      this.cur = st.cur;
      this.afterPositionChange(false);
      return;
    }
    await this.loadFromUrl();
  }

  // ----- the game ----------------------------------------------------------------

  async selectGame(id, pos) {
    const d = await this.api.game(id);
    if (!d) return false;
    this.clock.stop();
    this.review.result = null;
    this.editor.on = false;
    this.game = d;
    this.line = [{ pos: pos || d.start, last: null, pass: false }];
    this.cur = 0;
    this.status = d.tablebase ? null : { key: "status.no_values", params: { source: d.source } };
    this.emit("game");
    return true;
  }

  async loadFromUrl() {
    const u = new URL(location.href);
    const id = u.searchParams.get("game") || "weiming";
    const pos = u.searchParams.get("pos");
    const puzzle = u.searchParams.get("puzzle");
    const moves = u.searchParams.get("moves");
    try {
      await this.selectGame(id, pos ? pos.replaceAll("_", " ") : null);
    } catch (e) {
      await this.selectGame("weiming");
      this.setError(e);
    }
    if (puzzle && this.onPuzzleUrl) {
      await this.onPuzzleUrl(puzzle);
      return;
    }
    if (this.puzzle) this.puzzle.leave(false);
    if (moves) {
      await this.review.run(this.line[0].pos, splitMoves(moves));
      const ply = Number(u.searchParams.get("ply"));
      if (Number.isInteger(ply) && ply >= 0 && ply < this.line.length && ply !== this.cur) {
        this.cur = ply;
        this.replaceUrl();
        this.afterPositionChange(false);
      }
      return;
    }
    this.replaceUrl();
    this.afterPositionChange(false);
  }

  // The position editor's (or a pasted) position becomes the page's: a
  // game of one position, its permalink replaced, then valued.
  setPosition(pos) {
    if (this.puzzle) this.puzzle.leave(false);
    this.review.result = null;
    this.line = [{ pos, last: null, pass: false }];
    this.cur = 0;
    this.status = null;
    this.replaceUrl();
    this.settled = this.afterPositionChange(false);
  }

  humanSide() {
    if (this.puzzle) return this.puzzle.solver;
    // Editing or reviewing: the page only shows values, qibase never moves.
    if (this.editor.on || this.review.result) return null;
    if (this.mode === "first") return this.game.sides[0];
    if (this.mode === "second") return this.game.sides[1];
    return null;
  }

  sideToMoveIsHuman() {
    const human = this.humanSide();
    if (!human) return true;
    const a = this.answer();
    return !a || a.side_to_move === human;
  }

  // Go to a new ply from the current one (a move object, or a pass).
  play(pos, last, pass = false) {
    // A move leaves the editor, and the reviewed game (the line is no longer it).
    this.editor.on = false;
    this.review.result = null;
    this.line = this.line.slice(0, this.cur + 1);
    this.line.push({ pos, last, pass, fresh: true });
    this.cur = this.line.length - 1;
    this.pushUrl();
    this.afterPositionChange(true);
  }

  makeMove(m) {
    if (!this.sideToMoveIsHuman() || this.thinking) return;
    if (this.puzzle && this.puzzle.intercept(m)) return;
    this.play(m.position, m, false);
  }

  pointClick(name) {
    if (this.editor.on) return this.editor.tap(name);
    if (this.pv) return;
    const a = this.answer();
    if (!a || a.end || !this.sideToMoveIsHuman() || this.thinking) return;
    if (this.puzzle && !this.puzzle.accepting()) return;
    if (this.selected) {
      const m = a.moves.find((m) => m.from === this.selected && m.to === name);
      if (m) {
        this.selected = null;
        this.makeMove(m);
        return;
      }
    }
    // A piece with legal moves becomes the selection; anything else changes nothing.
    if (a.moves.some((m) => m.from === name)) {
      this.selected = this.selected === name ? null : name;
      this.emit("board");
    }
  }

  setHover(m) {
    if (this.puzzle) return;
    this.hover = m;
    this.emit("board");
  }

  // ----- the clock -------------------------------------------------------------

  startClock() {
    if (this.mode === "analyse" || this.puzzle || !this.humanSide()) return this.clock.stop();
    this.clock.start(Number(this.timer) || 0, this.curPly().pos);
  }

  clockExpired(pos) {
    if (pos !== this.curPly().pos) return;
    const a = this.answer();
    if (a && a.pass && !a.end) {
      this.setStatus("status.time_up", { side: a.side_to_move });
      this.play(a.pass, null, true);
    }
  }

  // ----- qibase's moves ----------------------------------------------------------

  async programMove() {
    const ply = this.curPly();
    const a = this.answerOf(ply.pos);
    if (!a || a.end || this.sideToMoveIsHuman() || this.thinking) return;
    if (this.puzzle && !this.puzzle.wantsReply()) return;
    this.thinking = true;
    this.changed();
    const seq = this.seq;
    try {
      const level = this.puzzle ? "perfect" : this.difficulty;
      const b = await this.api.bestmove(this.game.id, ply.pos, level);
      // A newer position (undo, new game, back button) makes this answer stale.
      if (!b || seq !== this.seq || this.curPly() !== ply) return;
      this.thinking = false;
      if (b.move) this.play(b.move.position, b.move, false);
    } catch (e) {
      if (seq === this.seq) this.setError(e);
    } finally {
      if (seq === this.seq) {
        this.thinking = false;
        this.changed();
      }
    }
  }

  // ----- after each change of position ---------------------------------------------

  async afterPositionChange(fresh) {
    this.selected = null;
    this.pv = null;
    this.hover = null;
    this.thinking = false;
    this.api.abort("bestmove");
    this.clock.stop();
    const ply = this.curPly();
    const seq = ++this.seq;
    this.changed();
    let a;
    try {
      a = await this.query(ply.pos, "query");
    } catch (e) {
      if (seq === this.seq) {
        this.setError(e);
        this.changed();
      }
      return;
    }
    // Only the newest request may change the page.
    if (!a || seq !== this.seq || this.curPly() !== ply) return;
    this.changed();
    if (this.puzzle) this.puzzle.positionShown(a, fresh);
    if (a.end) return;
    if (this.sideToMoveIsHuman()) {
      if (fresh || this.mode !== "analyse") this.startClock();
    } else {
      this.programMove();
    }
    this.fillHistory();
  }

  // Fill the history chart in the background (positions reached by the back button).
  async fillHistory() {
    for (const p of this.line) {
      if (!this.answerOf(p.pos)) {
        try {
          await this.query(p.pos);
        } catch {
          return;
        }
      }
    }
    this.changed();
  }

  // ----- controls ------------------------------------------------------------------

  goToPly(i) {
    if (i === this.cur) return;
    this.cur = i;
    this.pushUrl();
    this.afterPositionChange(false);
  }

  undo() {
    if (this.cur === 0) return;
    const human = this.humanSide();
    if (!human) {
      this.cur -= 1;
    } else {
      // Back to the position before the person's last turn (taking back qibase's reply too).
      let k = this.cur - 1;
      while (k > 0 && this.answerOf(this.line[k].pos)?.side_to_move !== human) k--;
      this.cur = k;
    }
    this.line = this.line.slice(0, this.cur + 1);
    this.pushUrl();
    this.afterPositionChange(false);
  }

  newGame() {
    if (this.puzzle) this.puzzle.leave(false);
    this.review.result = null;
    this.line = [{ pos: this.game.start, last: null, pass: false }];
    this.cur = 0;
    this.status = null;
    this.pushUrl();
    this.afterPositionChange(false);
  }

  async changeGame(id) {
    if (this.puzzle) this.puzzle.leave(false);
    try {
      if (!(await this.selectGame(id))) return;
    } catch (e) {
      this.setError(e);
      this.changed();
      return;
    }
    this.pushUrl();
    this.afterPositionChange(false);
  }

  setMode(mode) {
    this.mode = mode;
    this.afterPositionChange(false);
  }
  setDifficulty(level) {
    this.difficulty = level;
    this.changed();
    if (!this.sideToMoveIsHuman()) this.afterPositionChange(false);
  }
  setTimer(seconds) {
    this.timer = seconds;
    if (this.sideToMoveIsHuman() && this.answer() && !this.answer().end) this.startClock();
  }

  pvNext() {
    const a = this.answer();
    if (!a || !a.pv || this.puzzle) return;
    const step = this.pv ? this.pv.step + 1 : 1;
    this.pv = { moves: a.pv, step: Math.min(step, a.pv.length) };
    this.changed();
  }
  pvPrev() {
    if (!this.pv) return;
    this.pv.step = Math.max(0, this.pv.step - 1);
    this.changed();
  }
  pvGo(moves, step) {
    this.pv = { moves, step };
    this.changed();
  }
  pvExit() {
    this.pv = null;
    this.changed();
  }
}
