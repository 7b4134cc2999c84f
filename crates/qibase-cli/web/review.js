// Game review: paste moves (from the start, or from the position shown),
// and the page replays them with the value after each; every move that
// changed the result is marked, with the best move instead and its line.
// The marks come from the server's `annotate` (the same as `qibase
// annotate`), never from the page.

export const splitMoves = (text) => text.split(/[\s,]+/).filter(Boolean);

export class Review {
  constructor(ctl) {
    this.c = ctl;
    this.result = null; // the annotate answer
    this.error = null;
  }

  // Review `moves` from `start`; the game's line becomes the reviewed one.
  async run(start, moves) {
    this.error = null;
    this.result = null;
    const c = this.c;
    try {
      const r = await c.api.annotate(c.game.id, start, moves);
      if (!r) return;
      this.result = r;
    } catch (e) {
      this.error = e;
      c.changed();
      return;
    }
    const line = [{ pos: this.result.start, last: null, pass: false }];
    for (const p of this.result.plies) line.push({ pos: p.played.position, last: p.played, pass: false });
    c.line = line;
    c.cur = line.length - 1;
    c.pushUrl();
    c.afterPositionChange(false);
  }

  clear() {
    this.result = null;
    this.error = null;
    this.c.changed();
  }
}
