//! What a compact table must hold for each slot, and the values it stores.
//!
//! A slot's value need not be stored exactly when the reader can find it
//! without the table:
//!
//! * the rules end the game there: the reader sees that from the position
//!   itself, so any value will do ("free");
//! * there is no legal move: a loss in 0, stored exactly although the
//!   reader could see it from the position, because seeing it takes the
//!   position's moves: this way a stored win or draw is a lower bound
//!   the reader may take before it generates any move;
//! * the best capture (a move into a lower tier) already gives the value
//!   (capture-decided): the reader takes the better of the best capture
//!   and the stored value, so any stored value *no better* than the true
//!   one will do ("at most").
//!
//! Among the values a slot allows, the encoder stores the one that codes
//! cheaply: the WDL symbol of the slot before (runs code in few bits) and,
//! for a win or a loss, the remoteness of the last slot of the same class.

use std::ops::Range;

use crate::game::{TierKey, Tiers};
use crate::tablebase::codec::model::{QUAD, QUAD_SYMBOLS, WDL_DRAW, WDL_LOSS, WDL_WIN};
use crate::tablebase::codec::rans::PROB_SCALE;
use crate::tablebase::codec::{ModelSpec, PART};
use crate::tier_values::TierValues;
use crate::value::{Packed, Value, MAX_REMOTENESS};

/// What one slot requires of the stored value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// Anything: an unused slot, a rule end.
    Free,
    /// Any value no better than this one (the best capture gives it).
    AtMost(Value),
    /// This value.
    Exact(Value),
}

/// The needs of the slots `range` of tier `t`, whose true values are
/// `values` (the whole tier), the lower tiers' values in `lower`.
pub(crate) fn needs<G: Tiers>(
    g: &G,
    t: TierKey,
    range: Range<u64>,
    values: &[Packed],
    lower: &TierValues,
) -> Vec<Need> {
    let base = range.start;
    let mut out = vec![Need::Free; (range.end - range.start) as usize];
    let mut used = Vec::new();
    g.used_slots(t, range, &mut used);
    let (mut moves, mut kids) = (Vec::new(), Vec::new());
    for (i, p) in &used {
        let v = Value::unpack(values[*i as usize]).unwrap_or(Value::Draw);
        if g.rule_end(p).is_some() {
            continue;
        }
        kids.clear();
        g.lower_child_ranks(p, &mut moves, &mut kids);
        let need = match kids.iter().map(|&(ct, r)| lower.value(ct, r)).min() {
            // No capture: exact, with no legal move as well (see the
            // module comment).
            None => Need::Exact(v),
            // The best capture: the child worst for the opponent.
            Some(worst) if Value::of_move_to(worst) == v => Need::AtMost(v),
            Some(_) => Need::Exact(v),
        };
        out[(i - base) as usize] = need;
    }
    out
}

/// The need of a slot of the kept half of a tier with halves: a
/// capture-decided win or loss is stored exactly. So a lookup there needs
/// only the WDL of its captures (to tell a stored loss or draw from a
/// better capture), never their full values, each of which could take a
/// one-ply search in turn, whose moves land in kept halves again: without
/// this, lookups grow exponentially with the number of tiers below.
/// (A tier without halves keeps its capture-decided don't-cares: its
/// lookups search captures, which lead to tiers with halves.)
pub(crate) fn kept_need(need: Need) -> Need {
    match need {
        Need::AtMost(v) if v != Value::Draw => Need::Exact(v),
        n => n,
    }
}

/// Rank of a WDL symbol in the value order (loss < draw < win).
#[inline]
fn order(w: u8) -> u8 {
    match w {
        WDL_LOSS => 0,
        WDL_DRAW => 1,
        _ => 2,
    }
}

/// The WDL symbol of a value.
#[inline]
fn symbol(v: Value) -> u8 {
    match v {
        Value::Loss(_) => WDL_LOSS,
        Value::Draw => WDL_DRAW,
        Value::Win(_) => WDL_WIN,
    }
}

/// The symbols a need allows, as a bit set (bit `s` for symbol `s`).
#[inline]
fn allowed_symbols(need: Need) -> u8 {
    match need {
        Need::Free => 0b111,
        Need::Exact(v) => 1 << symbol(v),
        Need::AtMost(v) => {
            let top = order(symbol(v));
            [WDL_LOSS, WDL_DRAW, WDL_WIN]
                .into_iter()
                .filter(|&s| order(s) <= top)
                .fold(0, |m, s| m | 1 << s)
        }
    }
}

/// What a win or a loss stored where the truth does not force it costs in
/// the remoteness part (bits): one Rice code, about as long as a typical
/// one.
const REM_PENALTY: f64 = 6.0;

/// The WDL symbol of every slot of a block: the one of the slot before
/// where the need allows it (without a model), or, given the tier's model
/// `spec`, per quad the allowed symbols that cost the fewest bits under
/// the model plus [`REM_PENALTY`] for each needless win or loss at a slot
/// whose remoteness is kept (`kept(k)` for slot `k` of the block).
pub(crate) fn choose_symbols(
    needs: &[Need],
    spec: Option<&ModelSpec>,
    kept: &dyn Fn(usize) -> bool,
) -> Vec<u8> {
    let Some(spec) = spec else {
        let mut prev = WDL_DRAW;
        return needs
            .iter()
            .map(|&n| {
                let s = match n {
                    Need::Exact(v) => symbol(v),
                    Need::AtMost(v) if order(prev) <= order(symbol(v)) => prev,
                    Need::AtMost(v) => symbol(v),
                    Need::Free => prev,
                };
                prev = s;
                s
            })
            .collect();
    };
    let cost: Vec<Vec<f64>> = spec
        .wdl
        .iter()
        .map(|f| {
            f.iter()
                .map(|&x| {
                    if x == 0 {
                        64.0
                    } else {
                        (PROB_SCALE as f64 / x as f64).log2()
                    }
                })
                .collect()
        })
        .collect();
    let mut out = Vec::with_capacity(needs.len());
    for (p, part) in needs.chunks(PART).enumerate() {
        let masks: Vec<u8> = part.iter().map(|&n| allowed_symbols(n)).collect();
        let all = masks.iter().fold(0b111, |m, &x| m & x);
        // A part of one symbol is one byte: take it when the needs allow.
        if all != 0 {
            let s = if all & 1 << WDL_DRAW != 0 {
                WDL_DRAW
            } else {
                all.trailing_zeros() as u8
            };
            out.extend(std::iter::repeat_n(s, part.len()));
            continue;
        }
        let penalty = |k: usize, s: u8| {
            let needless = s != WDL_DRAW && !matches!(part[k], Need::Exact(_));
            if needless && kept(p * PART + k) {
                REM_PENALTY
            } else {
                0.0
            }
        };
        let mut ctx = [0usize; 2]; // (draw, draw)
        for (q, chunk) in masks.chunks(QUAD).enumerate() {
            let base = q * QUAD;
            let mut best = (f64::INFINITY, [WDL_DRAW; QUAD]);
            for (sym, &sym_cost) in cost[ctx[q % 2]].iter().enumerate().take(QUAD_SYMBOLS) {
                let d = [
                    (sym % 3) as u8,
                    (sym / 3 % 3) as u8,
                    (sym / 9 % 3) as u8,
                    (sym / 27) as u8,
                ];
                // A short last quad repeats its last symbol.
                let n = chunk.len();
                if d[n..].iter().any(|&x| x != d[n - 1]) {
                    continue;
                }
                if (0..n).any(|k| chunk[k] & 1 << d[k] == 0) {
                    continue;
                }
                let mut c = sym_cost;
                for (k, &x) in d[..n].iter().enumerate() {
                    c += penalty(base + k, x);
                }
                if c < best.0 {
                    best = (c, d);
                }
            }
            let d = best.1;
            out.extend_from_slice(&d[..chunk.len()]);
            ctx[q % 2] = d[3] as usize * 3 + d[2] as usize;
        }
    }
    out
}

/// For each slot stored as a win or a loss (`ws`), the remoteness to keep
/// (as a packed value; draws elsewhere): the true one where it is forced,
/// otherwise the last one stored in the class, within what the need allows.
pub(crate) fn choose_remoteness(needs: &[Need], ws: &[u8]) -> Vec<Packed> {
    // The last remoteness stored for losses and for wins.
    let mut last: [Option<u16>; 2] = [None, None];
    needs
        .iter()
        .zip(ws)
        .map(|(&need, &s)| {
            if s == WDL_DRAW {
                return Packed::DRAW;
            }
            let win = s == WDL_WIN;
            let class = win as usize;
            let r = match need {
                Need::Exact(v) => v.remoteness().unwrap_or(0),
                // Stored with the true value's class: a win may be stored
                // as slower, a loss as quicker, than it is.
                Need::AtMost(v) if symbol(v) == s => {
                    let r = v.remoteness().unwrap_or(0);
                    match (last[class], win) {
                        (Some(l), true) => l.max(r),
                        (Some(l), false) => l.min(r),
                        (None, _) => r,
                    }
                }
                // A class below the true value's: any remoteness.
                _ => last[class].unwrap_or(0),
            };
            let r = r.min(MAX_REMOTENESS);
            last[class] = Some(r);
            Packed::decisive(win, r)
        })
        .collect()
}

/// [`choose_symbols`] without a model, then [`choose_remoteness`].
#[cfg(test)]
pub(crate) fn fill(needs: &[Need]) -> (Vec<u8>, Vec<Packed>) {
    let ws = choose_symbols(needs, None, &|_| true);
    let vals = choose_remoteness(needs, &ws);
    (ws, vals)
}

/// Whether a stored value `stored` (WDL symbol and, for a win or a loss,
/// its remoteness) meets `need`; for the tests and the encoder's checks.
#[cfg(test)]
pub(crate) fn allowed(need: Need, stored: Packed) -> bool {
    let v = Value::unpack(stored).expect("a stored value");
    match need {
        Need::Free => true,
        Need::AtMost(t) => v <= t,
        Need::Exact(t) => v == t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_filled_value_meets_its_need_and_runs_are_kept() {
        use Value::*;
        let needs = [
            Need::Exact(Win(5)),
            Need::Free,
            Need::AtMost(Draw),
            Need::AtMost(Win(3)),
            Need::AtMost(Win(9)),
            Need::Exact(Loss(4)),
            Need::AtMost(Loss(2)),
            Need::AtMost(Loss(8)),
            Need::Free,
            Need::AtMost(Win(1)),
            Need::Exact(Draw),
            Need::AtMost(Loss(0)),
        ];
        let (ws, vals) = fill(&needs);
        for (k, (&n, &v)) in needs.iter().zip(&vals).enumerate() {
            assert!(allowed(n, v), "slot {k}: {n:?} stored as {:?}", v.value());
            assert_eq!(ws[k], crate::tablebase::codec::model::wdl_of(v));
        }
        // The free slot after a win stays a win, with the same remoteness;
        // a capture-decided draw after it becomes a draw; a capture win in
        // 3 after a draw stays a draw; a quicker capture loss follows the
        // loss before it.
        assert_eq!(vals[1], Packed::of(Win(5)));
        assert_eq!(vals[2], Packed::DRAW);
        assert_eq!(vals[3], Packed::DRAW);
        assert_eq!(vals[6], Packed::of(Loss(2)));
        assert_eq!(vals[7], Packed::of(Loss(2)));
        assert_eq!(vals[8], Packed::of(Loss(2)));
        assert_eq!(vals[9], Packed::of(Loss(2)));
        assert_eq!(vals[11], Packed::of(Loss(0)));
    }

    /// Every position with no legal move (and no rule end) of small
    /// subsets needs its value exactly: readers cut on a stored win or
    /// draw before they generate moves, which is only sound if such a
    /// position never stores more than its loss.
    fn no_move_positions_are_exact<G: Tiers>(g: &G, max_pieces: u32) -> usize {
        let solved = crate::solver::solve_in_memory(g, Some(max_pieces));
        let mut found = 0;
        for t in g.tiers(Some(max_pieces)) {
            let mut lower = TierValues::new();
            for d in g.tier_deps(t) {
                lower.add(d, &solved[&d]);
            }
            let n = g.tier_size(t);
            let nd = needs(g, t, 0..n, &solved[&t], &lower);
            let (mut used, mut moves) = (Vec::new(), Vec::new());
            g.used_slots(t, 0..n, &mut used);
            for (i, p) in &used {
                moves.clear();
                g.moves(p, &mut moves);
                if g.rule_end(p).is_none() && moves.is_empty() {
                    let v = Value::unpack(solved[&t][*i as usize]).unwrap();
                    assert_eq!(nd[*i as usize], Need::Exact(v), "slot {i} of tier {t}");
                    assert_eq!(v, Value::Loss(0));
                    found += 1;
                }
            }
        }
        found
    }

    #[test]
    fn positions_without_a_move_store_their_loss() {
        let two = crate::games::cannons::Cannons::two_cannons();
        let chess = crate::games::cannon_chess::CannonChess::four_by_four();
        let found = no_move_positions_are_exact(&two, 5) + no_move_positions_are_exact(&chess, 4);
        assert!(found > 0, "the subsets hold no position without a move");
    }
}
