// The turn clock of play mode: counts down one turn, warns near the end
// (10 s before, or half-way for clocks of 20 s or less, as `qibase play`)
// and calls onExpire once when it runs out.

export class TurnClock {
  constructor(onTick, onExpire) {
    this.onTick = onTick; // ({left, warn}) or null when stopped
    this.onExpire = onExpire;
    this.state = null;
    this.timer = null;
  }

  start(seconds, token) {
    this.stop();
    if (!(seconds > 0)) return;
    const now = performance.now();
    const before = seconds > 20 ? 10 : seconds / 2;
    this.state = { deadline: now + seconds * 1000, warnAt: now + (seconds - before) * 1000, token };
    this.timer = setInterval(() => this.tick(), 100);
    this.tick();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const was = this.state;
    this.state = null;
    if (was) this.onTick(null);
  }

  get running() {
    return this.state !== null;
  }

  tick() {
    const c = this.state;
    if (!c) return;
    const now = performance.now();
    const left = Math.max(0, (c.deadline - now) / 1000);
    this.onTick({ left: Math.ceil(left), warn: now >= c.warnAt });
    if (left <= 0) {
      this.stop();
      this.onExpire(c.token);
    }
  }
}
