// The API module: every call to /api/v1 (docs/http-api.md). A request of a
// kind ("query", "bestmove", …) aborts the previous one of that kind still
// in flight, so a stale answer never reaches the page.

export const urlPos = (p) => p.replaceAll(" ", "_");

/** An error answer of the API ({error, code}) or a network failure (code "network"). */
export class ApiError extends Error {
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export class Api {
  constructor(base = "/api/v1") {
    this.base = base;
    this.inflight = new Map(); // kind -> AbortController
  }

  // GET a path; with a kind, abort the previous request of that kind.
  // Resolves to the JSON, null if aborted by a newer request; rejects with ApiError.
  async get(path, kind = null) {
    let ctl = null;
    if (kind) {
      this.inflight.get(kind)?.abort();
      ctl = new AbortController();
      this.inflight.set(kind, ctl);
    }
    let r;
    try {
      r = await fetch(`${this.base}/${path}`, { signal: ctl?.signal });
    } catch (e) {
      if (e.name === "AbortError") return null;
      throw new ApiError(String(e.message || e), "network", 0);
    }
    let j;
    try {
      j = await r.json();
    } catch (e) {
      if (e.name === "AbortError") return null;
      throw new ApiError(`HTTP ${r.status}`, "network", r.status);
    } finally {
      if (kind && this.inflight.get(kind) === ctl) this.inflight.delete(kind);
    }
    if (!r.ok) throw new ApiError(j.error || `HTTP ${r.status}`, j.code || "internal", r.status);
    return j;
  }

  abort(kind) {
    this.inflight.get(kind)?.abort();
    this.inflight.delete(kind);
  }

  games() {
    return this.get("games");
  }
  game(id) {
    return this.get(`games/${encodeURIComponent(id)}`, "game");
  }
  query(id, pos, kind = null) {
    return this.get(`${encodeURIComponent(id)}/query?pos=${encodeURIComponent(urlPos(pos))}`, kind);
  }
  moves(id, pos, move) {
    const m = move ? `&move=${encodeURIComponent(move)}` : "";
    return this.get(`${encodeURIComponent(id)}/moves?pos=${encodeURIComponent(urlPos(pos))}${m}`);
  }
  bestmove(id, pos, difficulty) {
    return this.get(
      `${encodeURIComponent(id)}/bestmove?pos=${encodeURIComponent(urlPos(pos))}&difficulty=${encodeURIComponent(difficulty)}`,
      "bestmove",
    );
  }
  annotate(id, start, moves) {
    const m = moves.map(encodeURIComponent).join(",");
    return this.get(`${encodeURIComponent(id)}/annotate?pos=${encodeURIComponent(urlPos(start))}&moves=${m}`, "annotate");
  }
  puzzles(id) {
    return this.get(`${encodeURIComponent(id)}/puzzles`, "puzzles");
  }
}
