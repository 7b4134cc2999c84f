//! The initial pass by requests, shared by the out-of-core and the sliced
//! modes: [`scan`] a chunk of slots (rule ends, in-tier counters) and turn
//! its lower-tier children into [`Request`]s; each mode answers them its
//! own way (the out-of-core one from the lower tiers' raw files, block by
//! block; the sliced one from the ranks that hold those slots) and folds
//! each answer into its asker's [`Answers`]; then [`Answers::settle`]
//! decides or opens each counted position. The accumulators (best win, a
//! draw, longest win) are all commutative, so no answer needs to arrive in
//! order. [`split_children`] is the step every initial pass starts a
//! position with, the in-memory one included.

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use rayon::prelude::*;

use super::slot::Slot;
use super::state::{self, is_open, pack, Found, CHUNK, COUNT, LOSSES, WINS};
use crate::game::{TierKey, Tiers};
use crate::raw::Request;
use crate::value::{Packed, Value};

/// The number of distinct in-tier children of `p` (a position of tier `t`
/// the rules do not end), with its lower-tier children in `children`.
// Inlined by force: as a call of its own it costs the initial pass a few
// per cent (measured), and the compiler does not inline it by itself.
#[inline(always)]
pub(super) fn split_children<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    p: &G::Pos,
    moves: &mut Vec<G::Move>,
    children: &mut Vec<(TierKey, u64)>,
    kids: &mut Vec<S>,
) -> usize {
    children.clear();
    kids.clear();
    // The counter needs the number of distinct in-tier child slots: when
    // the game knows they are all distinct, the moves count them and only
    // the lower-tier children are ranked.
    if g.in_tier_children_may_share_slots(p) {
        g.child_ranks(p, moves, children);
        for &(ct, r) in children.iter() {
            // The lists are tiny: a scan beats sorting.
            if ct == t && !kids.contains(&S::new(r)) {
                kids.push(S::new(r));
            }
        }
        children.retain(|&(ct, _)| ct != t);
        kids.len()
    } else {
        g.lower_child_ranks(p, moves, children)
    }
}

/// What the first half of the initial pass found in a chunk of slots.
pub(super) struct Scan<S> {
    pub decided: Found<S>,
    pub requests: Vec<Request>,
    pub crowded: u32,
}

/// Rule ends, positions without moves, in-tier counters (kept in the
/// state word as `OPEN | count` until settled) and lower-tier requests
/// of the used slots of `range`, a chunk per task; `lo` is the first slot
/// of `states`, and a request names its lower tier by its place in
/// `tables`. `Err` with the most in-tier children of a position if one
/// has more than the counter holds.
pub(super) fn scan<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    range: std::ops::Range<usize>,
    lo: usize,
    tables: &[TierKey],
    states: &[AtomicU16],
) -> Result<Vec<Scan<S>>, u32> {
    let end = range.end;
    let scan_chunk = |chunk: std::ops::Range<usize>| -> Scan<S> {
        let mut out = Scan {
            decided: [Vec::new(), Vec::new()],
            requests: Vec::new(),
            crowded: 0,
        };
        let (mut slots, mut moves, mut children, mut kids) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::<S>::new());
        g.used_slots(t, chunk.start as u64..chunk.end as u64, &mut slots);
        for (i, p) in slots {
            let at = i as usize - lo;
            let decide = |v: Value, out: &mut Scan<S>| {
                states[at].store(pack(v), Relaxed);
                match v {
                    Value::Loss(r) => out.decided[LOSSES].push((r, S::new(i))),
                    Value::Win(r) => out.decided[WINS].push((r, S::new(i))),
                    Value::Draw => {}
                }
            };
            if let Some(end) = g.rule_end(&p) {
                decide(end.value, &mut out);
                continue;
            }
            let in_tier = split_children(g, t, &p, &mut moves, &mut children, &mut kids);
            if in_tier == 0 && children.is_empty() {
                decide(Value::Loss(0), &mut out);
                continue;
            }
            if in_tier > COUNT as usize {
                out.crowded = out.crowded.max(in_tier.min(u32::MAX as usize) as u32);
                continue;
            }
            states[at].store(state::OPEN | in_tier as u16, Relaxed);
            for &(ct, r) in &children {
                let table = tables
                    .iter()
                    .position(|&k| k == ct)
                    .unwrap_or_else(|| panic!("tier {ct} is not loaded (missing tier dependency)"));
                out.requests.push(((table as u64) << 56 | r, at as u32));
            }
        }
        out
    };
    let scans: Vec<Scan<S>> = range
        .into_par_iter()
        .step_by(CHUNK)
        .map(|c| scan_chunk(c..(c + CHUNK).min(end)))
        .collect();
    match scans.iter().map(|s| s.crowded).max() {
        Some(c) if c != 0 => Err(c),
        _ => Ok(scans),
    }
}

/// The answers to the lower-tier requests of a round of slots, folded
/// per asking slot: `best`, the shortest win through a lower-tier loss
/// (`u16::MAX`: none); `longest`, the longest lower-tier win, with
/// [`DRAW_SEEN`] set if a child is a draw. Both are commutative, so the
/// answers may come in any order.
pub(crate) struct Answers {
    best: Vec<AtomicU16>,
    longest: Vec<AtomicU16>,
}

impl Answers {
    /// Room for `len` asking slots.
    pub(crate) fn new(len: usize) -> Answers {
        let mut best: Vec<AtomicU16> = Vec::new();
        let mut longest: Vec<AtomicU16> = Vec::new();
        best.resize_with(len, || AtomicU16::new(u16::MAX));
        longest.resize_with(len, || AtomicU16::new(0));
        Answers { best, longest }
    }

    /// No answers yet for the first `len` slots (a new round).
    pub(crate) fn clear(&self, len: usize) {
        self.best[..len]
            .iter()
            .for_each(|a| a.store(u16::MAX, Relaxed));
        self.longest[..len].iter().for_each(|a| a.store(0, Relaxed));
    }

    /// Fold the value `word` of a child of the slot at `at`: `false`
    /// (nothing folded) if it holds no value.
    #[inline]
    pub(crate) fn fold_known(&self, word: u16, at: usize) -> bool {
        fold_known(word, at, &self.best, &self.longest)
    }

    /// The value of the slot at `at` as its answered children make it,
    /// when they are all its children.
    pub(crate) fn value(&self, at: usize) -> Value {
        value_of_children(self.best[at].load(Relaxed), self.longest[at].load(Relaxed))
    }

    /// Fold the value `word` of a lower-tier child of the slot at `at`;
    /// `which` names the child (tier, slot) for the panic of an unsolved
    /// one.
    #[inline]
    pub(super) fn fold(&self, word: u16, at: usize, which: impl Fn() -> (TierKey, u64)) {
        if !self.fold_known(word, at) {
            let (t, i) = which();
            panic!("tier {t} slot {i} has no solved value (missing tier dependency)")
        }
    }

    /// [`settle`] the counted positions of `states`, whose first slot is
    /// `first`, from their answers: a chunk per task.
    pub(super) fn settle<S: Slot>(&self, first: usize, states: &[AtomicU16]) -> Vec<Settled<S>> {
        states
            .par_chunks(CHUNK)
            .zip(self.best.par_chunks(CHUNK))
            .zip(self.longest.par_chunks(CHUNK))
            .enumerate()
            .map(|(c, ((s, b), l))| settle(first + c * CHUNK, s, b, l))
            .collect()
    }
}

/// Fold the value `word` of a lower-tier child of the slot at `at` into
/// the accumulators `best` and `longest` (see [`Answers`]): `false`
/// (nothing folded) if it holds no value.
#[inline]
fn fold_known(word: u16, at: usize, best: &[AtomicU16], longest: &[AtomicU16]) -> bool {
    match Packed::from_bits(word).value() {
        Some(Value::Loss(r)) => {
            best[at].fetch_min(r + 1, Relaxed);
        }
        Some(Value::Draw) => {
            longest[at].fetch_or(DRAW_SEEN, Relaxed);
        }
        Some(Value::Win(r)) => {
            let _ = longest[at].fetch_update(Relaxed, Relaxed, |old| {
                (old & !DRAW_SEEN < r).then_some(old & DRAW_SEEN | r)
            });
        }
        None => return false,
    }
    true
}

/// The bit of an accumulator of longest wins that says a child is a draw.
const DRAW_SEEN: u16 = 0x8000;

/// The value of a position from the accumulators `best` and `longest` of
/// all its children (see [`Answers`]): a win one ply longer than the
/// shortest loss among them, else a draw if one is a draw, else a loss
/// one ply longer than the longest win.
fn value_of_children(best: u16, longest: u16) -> Value {
    if best != u16::MAX {
        Value::Win(best)
    } else if longest & DRAW_SEEN != 0 {
        Value::Draw
    } else {
        Value::Loss((longest & !DRAW_SEEN) + 1)
    }
}

/// What settling a chunk of scanned slots found.
pub(super) struct Settled<S> {
    pub decided: Found<S>,
    pub tentative: Vec<(u16, S)>,
    pub saturated: Vec<(u64, u16)>,
}

/// The second half of the initial pass over a chunk whose first slot is
/// `first`: decide or open each counted position from its answers, as the
/// in-memory pass does once it has read the lower-tier values.
fn settle<S: Slot>(
    first: usize,
    states: &[AtomicU16],
    best: &[AtomicU16],
    longest: &[AtomicU16],
) -> Settled<S> {
    let mut out = Settled {
        decided: [Vec::new(), Vec::new()],
        tentative: Vec::new(),
        saturated: Vec::new(),
    };
    for (k, s) in states.iter().enumerate() {
        let word = s.load(Relaxed);
        if !is_open(word) {
            continue;
        }
        let i = S::new((first + k) as u64);
        let count = word & COUNT;
        let b = best[k].load(Relaxed);
        let best_win = (b != u16::MAX).then_some(b);
        let l = longest[k].load(Relaxed);
        let (has_draw, lower_max) = (l & DRAW_SEEN != 0, l & !DRAW_SEEN);
        if count == 0 {
            let v = value_of_children(b, l);
            s.store(pack(v), Relaxed);
            match v {
                Value::Loss(r) => out.decided[LOSSES].push((r, i)),
                Value::Win(r) => out.decided[WINS].push((r, i)),
                Value::Draw => {}
            }
            continue;
        }
        let not_a_loss = best_win.is_some() || has_draw;
        let open = state::open(count, not_a_loss, lower_max);
        if !not_a_loss && state::lower_max(open).is_none() {
            out.saturated.push((i.get(), lower_max));
        }
        s.store(open, Relaxed);
        if let Some(b) = best_win {
            out.tentative.push((b, i));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open state whose longest lower-tier win does not fit its state
    /// word keeps it in the side table; one that fits does not.
    #[test]
    fn long_lower_wins_go_to_the_side_table() {
        let states: Vec<AtomicU16> = [2u16, 3, 1]
            .iter()
            .map(|&c| AtomicU16::new(state::OPEN | c))
            .collect();
        let best: Vec<AtomicU16> = (0..3).map(|_| AtomicU16::new(u16::MAX)).collect();
        let longest: Vec<AtomicU16> = [200u16, 40, 300 | DRAW_SEEN]
            .iter()
            .map(|&l| AtomicU16::new(l))
            .collect();
        let s = settle::<u32>(10, &states, &best, &longest);
        // Slot 10: 200 plies, no draw: kept aside. Slot 11: 40 fits the
        // word. Slot 12: a draw child, so never a loss: nothing to keep.
        assert_eq!(s.saturated, vec![(10, 200)]);
        assert_eq!(
            state::lower_max(states[1].load(Relaxed)),
            Some(40),
            "fits the word"
        );
        assert!(state::lower_max(states[0].load(Relaxed)).is_none());
    }
}
