// The remoteness history of the game so far: one bar per position, its
// height the remoteness, its colour (and symbol) the result for the first
// player; a ▼ over each ply that worsened the mover's result. Clicking a
// bar goes back to that position.

const NS = "http://www.w3.org/2000/svg";
const RANK = { loss: 0, draw: 1, win: 2 };

function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const FLIP = { win: "loss", loss: "win", draw: "draw" };

// plies: [{answer (query JSON or null), moveCat (category of the move played
// from it, mover's view) or null, firstToMove: bool}], cur: index shown;
// labels: {top, bottom, ply(i, answer)} in the page's language.
export function drawChart(svg, plies, cur, onPick, labels) {
  svg.replaceChildren();
  const n = plies.length;
  const W = Math.max(320, n * 18 + 40);
  const H = 150;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.style.width = `${W}px`;
  const maxR = Math.max(4, ...plies.map((p) => (p.answer && p.answer.remoteness) || 0));
  const mid = H / 2;
  svg.append(el("line", { class: "axis", x1: 20, x2: W - 10, y1: mid, y2: mid }));
  svg.append(el("text", { class: "axis-label", x: 2, y: 14 }, labels.top));
  svg.append(el("text", { class: "axis-label", x: 2, y: H - 4 }, labels.bottom));
  plies.forEach((p, i) => {
    const x = 30 + i * 18;
    const g = el("g", { class: "ply" + (i === cur ? " current" : ""), "data-ply": i });
    const a = p.answer;
    if (a) {
      // Result for the first player.
      const cat = p.firstToMove ? a.category : FLIP[a.category];
      const r = a.remoteness ?? 0;
      // Faster results are stronger: a win in 1 is a tall bar.
      const h = cat === "draw" ? 4 : 10 + ((maxR - r + 1) / (maxR + 1)) * (mid - 26);
      const y = cat === "loss" ? mid : mid - h;
      g.append(el("rect", { class: `bar ${cat}`, x: x - 6, y, width: 12, height: cat === "draw" ? 4 : h }));
      g.append(el("title", {}, labels.ply(i, a)));
    } else {
      g.append(el("rect", { class: "bar unknown", x: x - 6, y: mid - 2, width: 12, height: 4 }));
    }
    if (p.moveCat && a && RANK[p.moveCat] < RANK[a.category]) {
      g.classList.add("worse");
      g.append(el("text", { class: "worse-mark", x, y: 12 }, "▼"));
    }
    g.append(el("rect", { class: "hit", x: x - 9, y: 0, width: 18, height: H }));
    g.addEventListener("click", () => onPick(i));
    svg.append(g);
  });
}
