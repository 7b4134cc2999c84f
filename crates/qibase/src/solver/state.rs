//! A tier's state while it is solved, shared by every mode (in memory,
//! sliced across ranks, out of core): the per-slot state words, the queues
//! of positions decided at each level, and the end of a tier's solve that
//! turns what is still open into draws and counts the values.
//!
//! Per slot the tier keeps one 16-bit *state word*:
//!
//! * `0` ([`Packed::UNDECIDED`]'s word): the slot holds no position
//!   (symmetry reduction), or the initial pass has not reached it yet;
//! * `1 ..= OPEN - 1`: a decided packed value's word ([`Packed::to_bits`]);
//! * `OPEN | lower << 8 | flag | count`: an undecided position with `count`
//!   undecided distinct in-tier children. `NOT_A_LOSS` says that a
//!   lower-tier child is a loss or a draw, so it can never become a loss;
//!   otherwise `lower` is the longest win among its lower-tier children
//!   (all wins), which a loss must outlast, or [`LOWER_UNKNOWN`] if that
//!   does not fit. Keeping it here spares the propagation re-generating a
//!   new loss's moves and reading the lower tier again to find it.
//!
//! Keeping the value and the counter in one word means a parent update is
//! one memory access (one cache miss), not two, and the tier needs 2 bytes
//! a slot instead of 3.

use rayon::prelude::*;

use super::slot::Slot;
use crate::tier_values::{add_counts, TierStats};
use crate::value::{Packed, Value, UNDECIDED};

/// The first open state: decided values stay below it.
pub(super) const OPEN: u16 = 0x8000;
const LOWER_SHIFT: u32 = 8;
const LOWER_UNKNOWN: u16 = 0x7F;
pub(super) const NOT_A_LOSS: u16 = 0x80;
/// The counter's bits (the limit `MAX_IN_TIER_CHILDREN`).
pub(super) const COUNT: u16 = 0x7F;

/// Whether state `s` is undecided (open).
#[inline]
pub(super) fn is_open(s: u16) -> bool {
    s >= OPEN
}

/// The open state with these counts.
#[inline]
pub(super) fn open(count: u16, not_a_loss: bool, lower_max: u16) -> u16 {
    debug_assert!(count <= COUNT);
    let lower = lower_max.min(LOWER_UNKNOWN);
    OPEN | lower << LOWER_SHIFT | if not_a_loss { NOT_A_LOSS } else { 0 } | count
}

/// The longest lower-tier win of an open state that can become a
/// loss, if it was stored.
#[inline]
pub(super) fn lower_max(s: u16) -> Option<u16> {
    let lower = (s >> LOWER_SHIFT) & LOWER_UNKNOWN;
    (lower != LOWER_UNKNOWN).then_some(lower)
}

// The store starts as an array of zeros, which must mean "undecided".
const _: () = assert!(UNDECIDED.to_bits() == 0);

/// Slots handled per rayon task of the initial pass.
pub(crate) const CHUNK: usize = 1 << 12;

/// Pack a decided value, which must stay below the open states.
#[inline]
pub(super) fn pack(v: Value) -> u16 {
    let p = v.pack().to_bits();
    assert!(
        p < OPEN,
        "remoteness {v} too large for the solver's state word"
    );
    p
}

/// Index of the losses and of the wins in a level's pair of queues.
pub(super) const LOSSES: usize = 0;
pub(super) const WINS: usize = 1;

/// Positions found decided, as `(level, index)`, by kind ([`LOSSES`],
/// [`WINS`]): propagation then never reads a child's own slot to learn
/// whether it is a win or a loss.
pub(super) type Found<S> = [Vec<(u16, S)>; 2];

/// A per-level pair of queues: the level's losses and its wins.
pub(super) struct Buckets<S> {
    pub(super) levels: Vec<[Vec<S>; 2]>,
}

impl<S> Default for Buckets<S> {
    fn default() -> Self {
        Buckets { levels: Vec::new() }
    }
}

impl<S: Slot> Buckets<S> {
    /// Queue `found`. Called under a lock shared by every thread, so it
    /// moves runs of one level at a time (a region's wins are all of one
    /// level) rather than item by item.
    pub(super) fn push_all(&mut self, found: &Found<S>) {
        for (kind, items) in found.iter().enumerate() {
            for run in items.chunk_by(|a, b| a.0 == b.0) {
                let l = run[0].0 as usize;
                if self.levels.len() <= l {
                    self.levels.resize_with(l + 1, Default::default);
                }
                self.levels[l][kind].extend(run.iter().map(|&(_, i)| i));
            }
        }
    }

    pub(super) fn take(&mut self, level: usize) -> [Vec<S>; 2] {
        self.levels
            .get_mut(level)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub(super) fn len(&self) -> usize {
        self.levels.len()
    }
}

/// What an initial pass queues for the levels: the positions it decided
/// and its tentative wins (a position whose lower-tier win is this long,
/// if no shorter one is found first), by level.
pub(super) struct Queued<S> {
    pub decided: Buckets<S>,
    pub tentative: Buckets<S>,
}

impl<S> Default for Queued<S> {
    fn default() -> Self {
        Queued {
            decided: Buckets::default(),
            tentative: Buckets::default(),
        }
    }
}

pub(super) use crate::sys::words::as_atomic_u16;

/// The end of a tier's solve over its state `words` (the whole tier, a
/// window or a rank's slice): what is still open is a draw; and the counts
/// of wins, losses, draws and unused slots with the longest win and loss
/// (in parallel: on the largest tiers this is a pass over gigabytes).
pub(super) fn settle_and_count(words: &mut [u16]) -> TierStats {
    words
        .par_chunks_mut(1 << 16)
        .map(|chunk| {
            let mut part = TierStats::default();
            for s in chunk.iter_mut() {
                if *s == UNDECIDED.to_bits() {
                    part.unused += 1;
                    continue;
                }
                if is_open(*s) {
                    *s = Packed::DRAW.to_bits();
                }
                match Packed::from_bits(*s).value() {
                    Some(Value::Win(r)) => {
                        part.wins += 1;
                        part.max_win = part.max_win.max(r);
                    }
                    Some(Value::Loss(r)) => {
                        part.losses += 1;
                        part.max_loss = part.max_loss.max(r);
                    }
                    Some(Value::Draw) => part.draws += 1,
                    None => unreachable!("a decided slot holds a value"),
                }
            }
            part
        })
        .reduce(TierStats::default, add_counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::MAX_REMOTENESS;

    #[test]
    fn open_states_never_collide_with_values() {
        // Every value the solver can store stays below the open states, and
        // the largest open state still fits.
        let largest = (OPEN - 4) / 2;
        assert!(largest < MAX_REMOTENESS);
        for v in [Value::Draw, Value::Loss(largest), Value::Win(largest)] {
            assert!(!is_open(pack(v)));
            assert_ne!(pack(v), UNDECIDED.to_bits());
        }
        assert!(is_open(OPEN));
        assert!(is_open(open(COUNT, true, u16::MAX)));
        // A decrement changes the count alone, and the stored lower-tier
        // win reads back (saturated: unknown).
        for lower in [0, 1, 126, 127, 500] {
            for not_a_loss in [false, true] {
                let s = open(5, not_a_loss, lower);
                assert!(is_open(s));
                assert_eq!(s - 1, open(4, not_a_loss, lower));
                assert_eq!((s & NOT_A_LOSS != 0), not_a_loss);
                assert_eq!(s & COUNT, 5);
                assert_eq!(lower_max(s), (lower < 127).then_some(lower));
            }
        }
    }

    #[test]
    #[should_panic(expected = "too large")]
    fn too_remote_a_value_is_refused() {
        pack(Value::Win((OPEN - 2) / 2));
    }
}
