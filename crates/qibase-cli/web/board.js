// Draws any qibase board as SVG from the geometry the server sends
// (points with coordinates, lines between them): one renderer for all games.

const NS = "http://www.w3.org/2000/svg";
const UNIT = 90;
const PAD = 48;

function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Outcome symbols, so the colours are never the only cue.
export const SYMBOL = { win: "✓", draw: "=", loss: "✗" };

export class Board {
  constructor(svg, geometry, sides, onClick) {
    this.svg = svg;
    this.geo = geometry;
    this.sides = sides; // [first letter, second letter]
    this.onClick = onClick;
    this.flipped = false;
    const xs = geometry.points.map((p) => p.x);
    const ys = geometry.points.map((p) => p.y);
    this.minX = Math.min(...xs);
    this.maxX = Math.max(...xs);
    this.minY = Math.min(...ys);
    this.maxY = Math.max(...ys);
    const w = (this.maxX - this.minX) * UNIT + 2 * PAD;
    const h = (this.maxY - this.minY) * UNIT + 2 * PAD;
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svg.style.aspectRatio = `${w} / ${h}`;
    // The size as attributes too (CSS scales it): a board of another shape
    // then lays its column out again at once (on a phone the old height
    // was kept).
    svg.setAttribute("width", w);
    svg.setAttribute("height", h);
  }

  xy(i) {
    const p = this.geo.points[i];
    let x = p.x - this.minX;
    let y = p.y - this.minY;
    if (this.flipped) {
      x = this.maxX - this.minX - x;
      y = this.maxY - this.minY - y;
    }
    return [PAD + x * UNIT, PAD + y * UNIT];
  }

  index(name) {
    return this.geo.points.findIndex((p) => p.name === name);
  }

  // board: one char per point; opts: {last:{from,to}, selected, targets:
  // Map(point name -> category, or "plain" for an uncoloured target),
  // preview:{from,to}, anim: {from, to, captured: [{name, c}]} (the move
  // just made: the piece slides in, the captured pieces fade out)}
  draw(board, opts = {}) {
    const svg = this.svg;
    svg.replaceChildren();
    const lines = el("g", { class: "lines" });
    for (const [a, b] of this.geo.lines) {
      const [x1, y1] = this.xy(a);
      const [x2, y2] = this.xy(b);
      lines.append(el("line", { x1, y1, x2, y2 }));
    }
    svg.append(lines);
    const marks = [opts.last, opts.preview].filter(Boolean);
    this.geo.points.forEach((p, i) => {
      const [x, y] = this.xy(i);
      const g = el("g", { class: "point", "data-point": p.name, tabindex: "-1" });
      g.append(el("circle", { class: "dot", cx: x, cy: y, r: 5 }));
      g.append(el("text", { class: "name", x: x + UNIT * 0.3, y: y + UNIT * 0.42 }, p.name));
      for (const m of marks) {
        const kind = m === opts.preview ? "preview" : "last";
        if (m.from === p.name) g.append(el("circle", { class: `${kind}-from`, cx: x, cy: y, r: UNIT * 0.36 }));
        if (m.to === p.name) g.append(el("circle", { class: `${kind}-to`, cx: x, cy: y, r: UNIT * 0.4 }));
      }
      const c = board[i];
      if (c && c !== ".") {
        const side = c === this.sides[0] ? "first" : c === this.sides[1] ? "second" : "neutral";
        const sel = opts.selected === p.name ? " selected" : "";
        const piece = el("g", { class: "piece-g" });
        piece.append(el("circle", { class: `piece ${side}${sel}`, cx: x, cy: y, r: UNIT * 0.3 }));
        piece.append(el("text", { class: `letter ${side}`, x, y: y + 1 }, c));
        const a = opts.anim;
        if (a && a.to === p.name && a.from) {
          const [fx, fy] = this.xy(this.index(a.from));
          piece.classList.add("arrive");
          piece.style.setProperty("--dx", `${fx - x}px`);
          piece.style.setProperty("--dy", `${fy - y}px`);
        }
        g.append(piece);
      }
      for (const cap of (opts.anim && opts.anim.captured) || []) {
        if (cap.name !== p.name) continue;
        const side = cap.c === this.sides[0] ? "first" : cap.c === this.sides[1] ? "second" : "neutral";
        const ghost = el("g", { class: "ghost" });
        ghost.append(el("circle", { class: `piece ${side}`, cx: x, cy: y, r: UNIT * 0.3 }));
        ghost.append(el("text", { class: `letter ${side}`, x, y: y + 1 }, cap.c));
        ghost.append(el("path", { class: "cross", d: `M${x - 22} ${y - 22}L${x + 22} ${y + 22}M${x + 22} ${y - 22}L${x - 22} ${y + 22}` }));
        g.append(ghost);
      }
      const t = opts.targets && opts.targets.get(p.name);
      if (t) {
        g.classList.add("target", t);
        g.append(el("circle", { class: `target-ring ${t}`, cx: x, cy: y, r: UNIT * 0.22 }));
        if (SYMBOL[t]) g.append(el("text", { class: `target-sym ${t}`, x, y: y + 1 }, SYMBOL[t]));
      }
      // On top of everything, so a click anywhere near the point is caught.
      g.append(el("circle", { class: "hit", cx: x, cy: y, r: UNIT * 0.42 }));
      g.addEventListener("click", () => this.onClick(p.name));
      svg.append(g);
    });
  }
}
