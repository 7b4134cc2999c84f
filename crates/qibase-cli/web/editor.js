// The position editor: tap a point to cycle its content through the
// family's pieces, choose the side to move (and, for weiming, whether the
// shared piece is locked), clear or reset the board, or paste a position
// string. Every change becomes the page's position (so the value, every
// move's value and the permalink follow); the server judges the position
// and its error is shown in the page's language.

// What a tap cycles through, per family ("." is empty).
const PIECES = { weiming: [".", "X", "O", "S"], "cannon-chess": [".", "X", "O"], cannons: [".", "C", "S"] };

export class Editor {
  constructor(ctl) {
    this.c = ctl;
    this.on = false;
    this.board = "";
    this.side = "";
    this.locked = false;
  }

  family() {
    return this.c.game.variant.family;
  }

  // The position string of the editor's board, in the game's notation
  // (docs/rules.md): weiming's three groups of three points, side, lock;
  // a grid game's ranks from the top, then the side.
  position() {
    const b = this.board;
    if (this.family() === "weiming") {
      return `${b.slice(0, 3)}/${b.slice(3, 6)}/${b.slice(6, 9)} ${this.side} ${this.locked ? "!" : "-"}`;
    }
    const [w, h] = this.c.game.variant.board.split("x").map(Number);
    const ranks = [];
    for (let r = h; r >= 1; r--) ranks.push(b.slice((r - 1) * w, r * w));
    return `${ranks.join("/")} ${this.side}`;
  }

  // Take the board, side and lock of the position shown.
  load() {
    const ply = this.c.curPly();
    const a = this.c.answerOf(ply.pos);
    const g = this.c.game;
    this.board = a ? a.board : this.board || ".".repeat(g.geometry.points.length);
    this.side = a ? a.side_to_move : this.side || g.sides[0];
    this.locked = / !$/.test(ply.pos);
  }

  toggle() {
    this.on = !this.on;
    if (this.on) this.load();
    this.c.changed();
  }

  tap(name) {
    const i = this.c.game.geometry.points.findIndex((p) => p.name === name);
    if (i < 0) return;
    const cycle = PIECES[this.family()];
    const next = cycle[(cycle.indexOf(this.board[i]) + 1) % cycle.length];
    this.board = this.board.slice(0, i) + next + this.board.slice(i + 1);
    this.apply();
  }

  setSide(s) {
    this.side = s;
    this.apply();
  }
  setLocked(l) {
    this.locked = l;
    this.apply();
  }
  clear() {
    this.board = ".".repeat(this.c.game.geometry.points.length);
    this.apply();
  }
  reset() {
    this.c.setPosition(this.c.game.start);
    this.afterAnswer();
  }

  // A pasted or typed position string: the server judges it.
  paste(text) {
    this.c.setPosition(text.trim().replaceAll("_", " "));
    this.afterAnswer();
  }

  apply() {
    this.c.setPosition(this.position());
  }

  // Once the server has valued a pasted position, the editor takes it over.
  async afterAnswer() {
    await this.c.settled;
    if (this.c.answer()) this.load();
    this.c.changed();
  }
}
