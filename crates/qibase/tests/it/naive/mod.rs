//! Deliberately naive second move generators, one per game family: plain
//! character grids and hand-typed adjacency, no bitboards, no code or
//! tables shared with the engine. The rules tests compare the engine's
//! moves with theirs position by position; the perft test compares
//! counts.

pub mod cannon_chess;
pub mod cannons;
pub mod weiming;

/// A naive generator over positions parsed from (and written back to) the
/// engine's position strings.
pub trait NaiveGame {
    /// A position as plain data.
    type State: Clone;
    /// The state of a position string (assumed valid).
    fn parse(&self, s: &str) -> Self::State;
    /// The position string of a state.
    fn format(&self, st: &Self::State) -> String;
    /// The game is over by rule (the engine's `rule_end`).
    fn is_over(&self, st: &Self::State) -> bool;
    /// Every legal move as (move string, resulting state), in no
    /// particular order.
    fn children(&self, st: &Self::State) -> Vec<(String, Self::State)>;

    /// Move sequences of exactly `depth` plies; ended games are not
    /// expanded (as `qibase::perft`).
    fn perft(&self, st: &Self::State, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.is_over(st) {
            return 0;
        }
        let children = self.children(st);
        if depth == 1 {
            return children.len() as u64;
        }
        children.iter().map(|(_, c)| self.perft(c, depth - 1)).sum()
    }
}

/// The naive perft of `position` in the preset game `id`, or in a preset
/// on another board (`GAME:board=WxH`, the presets' rules); `None` for a
/// game no naive generator covers.
pub fn perft(id: &str, position: &str, depth: u32) -> Option<u64> {
    fn run<N: NaiveGame>(n: N, position: &str, depth: u32) -> u64 {
        n.perft(&n.parse(position), depth)
    }
    let (base, board) = match id.split_once(':') {
        None => (id, None),
        Some((base, params)) => {
            let (w, h) = params.strip_prefix("board=")?.split_once('x')?;
            (base, Some((w.parse().ok()?, h.parse().ok()?)))
        }
    };
    Some(match (base, board) {
        ("weiming", None) => run(weiming::Naive, position, depth),
        ("cannon-chess", board) => {
            let (w, h) = board.unwrap_or((4, 5));
            run(cannon_chess::Naive { w, h }, position, depth)
        }
        ("cannon-chess-4x4", None) => run(cannon_chess::Naive { w: 4, h: 4 }, position, depth),
        // The grid parsed from the position is the board.
        ("two-cannons" | "three-cannons", _) => run(cannons::Naive, position, depth),
        _ => return None,
    })
}
