// The page's two languages. Strings live in i18n/en.json and i18n/zh.json
// (one file per language, flat "key": "text" with {name} placeholders).
// A count n picks a plural form by the language's own rules
// (Intl.PluralRules): English has "key_one" for n = 1 besides "key";
// Chinese has one form only, so "key" serves every n. A form or key a
// language lacks is never taken from another language's file unless the
// key itself is missing there. The language comes
// from ?lang= in the URL, else the one chosen before (localStorage), else
// the browser's (navigator.languages), else English.

export const LANGS = ["en", "zh"];
const STORE = "qibase.lang";

let dict = {};
let fallback = {};
let current = "en";

function fromBrowser() {
  for (const l of navigator.languages || [navigator.language || ""]) {
    const base = l.toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

/** The language to start with. */
export function initialLang() {
  const u = new URL(location.href).searchParams.get("lang");
  if (LANGS.includes(u)) return u;
  let stored = null;
  try {
    stored = localStorage.getItem(STORE);
  } catch {
    // storage may be off: follow the browser
  }
  if (LANGS.includes(stored)) return stored;
  return fromBrowser();
}

async function load(lang) {
  const r = await fetch(`/assets/i18n/${lang}.json`);
  if (!r.ok) throw new Error(`no strings for '${lang}'`);
  return r.json();
}

/** Load and switch to `lang`; `remember` keeps the choice in localStorage. */
export async function setLang(lang, remember = false) {
  if (!LANGS.includes(lang)) lang = "en";
  if (!Object.keys(fallback).length) fallback = await load("en");
  dict = lang === "en" ? fallback : await load(lang);
  current = lang;
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  if (remember) {
    try {
      localStorage.setItem(STORE, lang);
    } catch {
      // not remembered: still switched
    }
  }
}

export const lang = () => current;

// The plural form of `key` for the count n in dictionary d of language l
// (undefined for the general form).
function form(d, l, key, n) {
  if (typeof n !== "number" || !(key in d)) return undefined;
  const cat = new Intl.PluralRules(l === "zh" ? "zh-CN" : l).select(n);
  return cat === "other" ? undefined : d[`${key}_${cat}`];
}

/** The string of `key` with {placeholders} filled from `params`. */
export function t(key, params = {}) {
  let s;
  if (key in dict) s = form(dict, current, key, params.n) ?? dict[key];
  else s = form(fallback, "en", key, params.n) ?? fallback[key];
  if (s === undefined) return key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

export const has = (key) => key in dict || key in fallback;

/** Fill every element with data-i18n (text), data-i18n-title, data-i18n-aria. */
export function applyStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
}
