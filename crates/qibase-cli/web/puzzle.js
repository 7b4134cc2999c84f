// Puzzle mode: a position from the game's puzzle set (/api/v1/{game}/puzzles)
// and the task "find the move that wins / draws". A wrong move shows why:
// the value it leads to and its refutation, played out on the board; the
// player may retry. The right move wins the puzzle: in a win puzzle play
// goes on against qibase's perfect answers until the game ends, in a draw
// puzzle it stops after the saving move. Progress (solved ids, streak)
// stays in localStorage.

import { t } from "./i18n.js";
import { sideName, valueText, errorText } from "./views.js";

const STORE = "qibase.puzzles";
const $ = (id) => document.getElementById(id);
const FRAME_MS = 900;

function loadProgress() {
  try {
    const p = JSON.parse(localStorage.getItem(STORE) || "{}");
    return { solved: p.solved || {}, streak: p.streak || 0, best: p.best || 0 };
  } catch {
    return { solved: {}, streak: 0, best: 0 };
  }
}

function saveProgress(p) {
  try {
    localStorage.setItem(STORE, JSON.stringify(p));
  } catch {
    // progress is not kept; the puzzle still works
  }
}

export class PuzzleMode {
  constructor(ctl, set) {
    this.c = ctl;
    this.set = set;
    this.index = 0;
    this.progress = loadProgress();
    this.phase = "solve"; // solve | wrong | play | done
    this.failed = false; // a wrong try on the current puzzle
    this.solver = null; // side letter of the puzzle's side to move
    this.wrong = null; // {entry, frames, frame}
    this.timer = null;
    this.note = null; // {key, params}
  }

  /** Turn puzzle mode on for the controller's game; `id` picks a puzzle. */
  static async enter(ctl, id = null) {
    let set;
    try {
      set = await ctl.api.puzzles(ctl.game.id);
    } catch (e) {
      ctl.status = e.code === "not_found" ? { key: "puzzle.none", params: {} } : { error: e };
      ctl.changed();
      return null;
    }
    if (!set || !set.puzzles || !set.puzzles.length) return null;
    if (ctl.puzzle) ctl.puzzle.stopFrames();
    const pm = new PuzzleMode(ctl, set);
    ctl.puzzle = pm;
    let i = set.puzzles.findIndex((p) => p.id === id);
    if (i < 0) i = pm.firstUnsolved(0);
    await pm.start(i, id === null);
    return pm;
  }

  get current() {
    return this.set.puzzles[this.index];
  }
  get isDraw() {
    return this.current.value === "draw";
  }

  firstUnsolved(from) {
    const n = this.set.puzzles.length;
    for (let k = 0; k < n; k++) {
      const i = (from + k) % n;
      if (!this.progress.solved[this.set.puzzles[i].id]) return i;
    }
    return from % n;
  }

  // `retry`: the same puzzle again (a wrong try still breaks the streak).
  async start(i, push = true, retry = false) {
    this.stopFrames();
    this.index = i;
    this.phase = "solve";
    if (!retry) this.failed = false;
    this.wrong = null;
    this.note = null;
    const c = this.c;
    c.clock.stop();
    c.status = null;
    c.line = [{ pos: this.current.position, last: null, pass: false }];
    c.cur = 0;
    try {
      const a = await c.query(this.current.position);
      this.solver = a.side_to_move;
    } catch (e) {
      c.setError(e);
    }
    if (push) c.pushUrl();
    else c.replaceUrl();
    c.afterPositionChange(false);
  }

  leave(render = true) {
    this.stopFrames();
    this.c.puzzle = null;
    this.c.status = null;
    if (render) {
      this.c.pushUrl();
      this.c.afterPositionChange(false);
    }
  }

  accepting() {
    return this.phase === "solve" || this.phase === "play";
  }

  /** Whether qibase answers now (only while a won puzzle is played out). */
  wantsReply() {
    return this.phase === "play";
  }

  // The player's move: returns true if puzzle mode handles it (a wrong try).
  intercept(m) {
    const p = this.current;
    if (this.phase === "play") {
      const keeps = m.category === (this.isDraw ? "draw" : "win");
      this.note = keeps ? null : { key: "puzzle.slipped", params: { value: valueText(m.value) } };
      return false;
    }
    if (this.phase !== "solve") return true;
    if (m.move === p.best) {
      this.progress.solved[p.id] = true;
      this.progress.streak = this.failed ? 0 : this.progress.streak + 1;
      this.progress.best = Math.max(this.progress.best, this.progress.streak);
      saveProgress(this.progress);
      this.phase = this.isDraw ? "done" : "play";
      this.note = { key: this.isDraw ? "puzzle.saved" : "puzzle.right", params: { move: m.move } };
      return false;
    }
    const entry = p.wrong.find((w) => w.move === m.move) || { move: m.move, value: m.value, refutation: [] };
    this.failed = true;
    this.progress.streak = 0;
    saveProgress(this.progress);
    this.phase = "wrong";
    this.wrong = { entry, frames: [{ board: m.board, last: m, anim: this.anim(m, this.c.answer().board) }], frame: 0 };
    this.note = null;
    this.c.selected = null;
    this.c.changed();
    this.loadRefutation(m);
    return true;
  }

  anim(m, before) {
    const idx = (name) => this.c.game.geometry.points.findIndex((q) => q.name === name);
    return { from: m.from, to: m.to, captured: (m.captured || []).map((name) => ({ name, c: before[idx(name)] })) };
  }

  // The positions of the refutation line, one request per ply, then play them out.
  async loadRefutation(m) {
    const w = this.wrong;
    let pos = m.position;
    let before = m.board;
    try {
      let list = await this.c.api.moves(this.c.game.id, pos);
      for (const r of w.entry.refutation) {
        if (this.wrong !== w) return;
        const mv = list.moves.find((x) => x.move === r);
        if (!mv) break;
        w.frames.push({ board: mv.board, last: mv, anim: this.anim(mv, before) });
        before = mv.board;
        pos = mv.position;
        if (mv.end) break;
        list = await this.c.api.moves(this.c.game.id, pos);
      }
    } catch (e) {
      this.note = { text: errorText(e) };
    }
    if (this.wrong === w) this.playFrames();
  }

  playFrames() {
    this.stopFrames();
    const w = this.wrong;
    if (!w) return;
    w.frame = 0;
    this.c.emit("board");
    this.render();
    this.timer = setInterval(() => {
      if (w.frame + 1 >= w.frames.length) {
        this.stopFrames();
        return;
      }
      w.frame += 1;
      this.c.emit("board");
      this.render();
    }, FRAME_MS);
  }

  stopFrames() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  showFrame(k) {
    if (!this.wrong) return;
    this.stopFrames();
    this.wrong.frame = Math.max(0, Math.min(k, this.wrong.frames.length - 1));
    this.c.emit("board");
    this.render();
  }

  /** What the board shows instead of the current position (the refutation). */
  boardOverride() {
    if (this.phase !== "wrong" || !this.wrong) return null;
    return this.wrong.frames[this.wrong.frame];
  }

  retry() {
    this.start(this.index, false, true);
  }

  next() {
    this.start(this.firstUnsolved(this.index + 1));
  }

  positionShown(a) {
    if (this.phase === "play" && a.end) {
      this.phase = "done";
      const won = a.end.category === "win" ? a.side_to_move === this.solver : a.end.category === "loss" && a.side_to_move !== this.solver;
      this.note = { key: won ? "puzzle.won" : "puzzle.over", params: {} };
      this.render();
    }
  }

  render() {
    const p = this.current;
    const n = this.set.puzzles.length;
    const solvedCount = this.set.puzzles.filter((q) => this.progress.solved[q.id]).length;
    $("puzzle-head").textContent = t("puzzle.head", { k: this.index + 1, n, grade: p.difficulty?.grade ?? "?" });
    const side = sideName(this.solver || "");
    const [cat, plies] = p.value.split(" ");
    $("puzzle-task").textContent =
      cat === "draw" ? t("puzzle.task_draw", { side }) : t("puzzle.task_win", { side, n: Number(plies) });
    $("puzzle-progress").textContent = t("puzzle.progress", {
      solved: solvedCount,
      n,
      streak: this.progress.streak,
      best: this.progress.best,
    });
    const box = $("puzzle-result");
    box.replaceChildren();
    box.className = "puzzle-result";
    if (this.solved()) box.classList.add("solved");
    if (this.phase === "wrong" && this.wrong) {
      const w = this.wrong.entry;
      box.classList.add("wrong");
      const msg = document.createElement("p");
      msg.id = "puzzle-why";
      msg.textContent = t("puzzle.wrong", { move: w.move, value: valueText(w.value) });
      box.append(msg);
      if (w.refutation.length) {
        const h = document.createElement("p");
        h.textContent = t("puzzle.refutation");
        const ol = document.createElement("ol");
        ol.id = "puzzle-refutation";
        ol.className = "pv";
        w.refutation.forEach((mv, i) => {
          const li = document.createElement("li");
          li.dataset.step = i + 1;
          const num = document.createElement("span");
          num.className = "n";
          num.textContent = `${i + 1}.`;
          li.append(num, mv);
          if (this.wrong.frame === i + 1) li.className = "current";
          li.addEventListener("click", () => this.showFrame(i + 1));
          ol.append(li);
        });
        box.append(h, ol);
      }
    } else if (this.note) {
      const msg = document.createElement("p");
      msg.id = "puzzle-note";
      msg.textContent = this.note.text || t(this.note.key, this.note.params);
      box.append(msg);
    }
    $("puzzle-retry").hidden = this.phase === "solve";
    $("puzzle-replay").hidden = this.phase !== "wrong";
  }

  solved() {
    return this.phase === "play" || this.phase === "done";
  }
}
