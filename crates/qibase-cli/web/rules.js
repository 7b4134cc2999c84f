// The rules on the page: a quick start and the full rules of the current
// game and variant, in the page's language, from rules/en.json and
// rules/zh.json. A text item is a string, or {text, when} (shown only when
// every key of `when` has that value in the game's variant), or {demo,
// caption, when}: a small board before and after a capture, the move
// animated (click it to replay).

import { Board } from "./board.js";
import { lang, t } from "./i18n.js";
import { gameTitle } from "./views.js";

const cache = new Map();
const SIDES = { "cannon-chess": ["X", "O"], cannons: ["C", "S"], weiming: ["X", "O"] };

async function texts(l) {
  if (!cache.has(l)) {
    const r = await fetch(`/assets/rules/${l}.json`);
    if (!r.ok) throw new Error(`no rules for '${l}'`);
    cache.set(l, await r.json());
  }
  return cache.get(l);
}

// The variant's values to fill in and to match `when` against.
function facts(game) {
  const v = { ...(game.variant || { family: "weiming" }) };
  if (v.board) {
    const [w, h] = v.board.split("x").map(Number);
    Object.assign(v, { w, h, points: w * h });
  }
  return v;
}

const applies = (item, f) => !item.when || Object.entries(item.when).every(([k, val]) => f[k] === val);
const fill = (s, f) => s.replace(/\{(\w+)\}/g, (m, k) => (k in f ? String(f[k]) : m));

// A w × h grid named like the games' (a1 bottom left), before and after a move.
function demo(spec, family) {
  const names = [];
  const points = [];
  for (let r = 0; r < spec.h; r++) {
    for (let c = 0; c < spec.w; c++) {
      const name = `${String.fromCharCode(97 + c)}${r + 1}`;
      names.push(name);
      points.push({ name, x: c, y: spec.h - 1 - r });
    }
  }
  const lines = [];
  for (let r = 0; r < spec.h; r++) {
    for (let c = 0; c < spec.w; c++) {
      const i = r * spec.w + c;
      if (c + 1 < spec.w) lines.push([i, i + 1]);
      if (r + 1 < spec.h) lines.push([i, i + spec.w]);
    }
  }
  // Rows are given top first, as in position strings.
  const before = [];
  for (let r = 0; r < spec.h; r++) before.push(...spec.rows[spec.h - 1 - r]);
  const after = [...before];
  const idx = (n) => names.indexOf(n);
  const piece = before[idx(spec.from)];
  for (const c of spec.captured) after[idx(c)] = ".";
  after[idx(spec.from)] = ".";
  after[idx(spec.to)] = piece;
  const box = document.createElement("figure");
  box.className = "demo";
  const geo = { points, lines };
  const sides = SIDES[family] || ["X", "O"];
  const mk = (cls) => {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", `demo-board ${cls}`);
    return svg;
  };
  const s1 = mk("before");
  const s2 = mk("after");
  const arrow = document.createElement("span");
  arrow.className = "demo-arrow";
  arrow.textContent = "→";
  box.append(s1, arrow, s2);
  const b1 = new Board(s1, geo, sides, () => {});
  const b2 = new Board(s2, geo, sides, () => {});
  const mv = { from: spec.from, to: spec.to };
  const play = () => {
    b1.draw(before.join(""), { preview: mv });
    b2.draw(after.join(""), {
      last: mv,
      anim: { from: spec.from, to: spec.to, captured: spec.captured.map((name) => ({ name, c: before[idx(name)] })) },
    });
  };
  play();
  box.addEventListener("click", play);
  box.title = t("rules.replay");
  return box;
}

function renderItems(parent, items, f) {
  for (const item of items) {
    if (typeof item === "string") {
      const p = document.createElement("p");
      p.textContent = fill(item, f);
      parent.append(p);
    } else if (applies(item, f)) {
      if (item.demo) {
        const fig = demo(item.demo, f.family);
        const cap = document.createElement("figcaption");
        cap.textContent = fill(item.caption || "", f);
        fig.append(cap);
        parent.append(fig);
      } else {
        const p = document.createElement("p");
        p.textContent = fill(item.text, f);
        parent.append(p);
      }
    }
  }
}

/** Fill the rules dialog for `game`; `tab` is "quick" or "full". */
export async function renderRules(game, tab) {
  const all = await texts(lang());
  const f = facts(game);
  const fam = all[f.family] || all.weiming;
  document.getElementById("rules-title").textContent = t("rules.title", { game: gameTitle(game) });
  const body = document.getElementById("rules-body");
  body.replaceChildren();
  body.dataset.tab = tab;
  for (const b of document.querySelectorAll("#rules-dialog [data-tab]")) {
    b.setAttribute("aria-selected", String(b.dataset.tab === tab));
  }
  if (tab === "quick") {
    const ul = document.createElement("ul");
    ul.className = "quick";
    for (const item of fam.quick) {
      if (typeof item !== "string" && !applies(item, f)) continue;
      const li = document.createElement("li");
      li.textContent = fill(typeof item === "string" ? item : item.text, f);
      ul.append(li);
    }
    body.append(ul);
    return;
  }
  for (const sec of [...fam.sections, ...all.common.sections]) {
    const h = document.createElement("h3");
    h.textContent = sec.h;
    body.append(h);
    renderItems(body, sec.p, f);
  }
}
