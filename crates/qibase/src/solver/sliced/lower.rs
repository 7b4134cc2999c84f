//! The slices of finished tiers a rank holds, and the lower-tier values a
//! rank asks of the ranks that hold them.

use std::ops::Range;

use rayon::prelude::*;

use crate::exchange::Exchange;
use crate::game::TierKey;
use crate::raw::Request;
use crate::solver::regions::{owned_slots, region_shift};
use crate::solver::requests::Answers;
use crate::value::Packed;

/// The low 56 bits of a request's key: the slot in its lower tier.
const SLOT_BITS: u64 = (1 << 56) - 1;

/// The slots of a finished tier one rank owns, and their values.
pub(super) struct Slice {
    pub slots: Range<u64>,
    pub values: Vec<Packed>,
}

impl Slice {
    /// The slots of a tier of `n` slots that rank `rank` of `ranks` owns:
    /// those it solved (the regions the tier's solve gave it).
    pub fn owned(n: u64, ranks: usize, rank: usize) -> Range<u64> {
        let n = n as usize;
        let r = owned_slots(n, region_shift(n), ranks, rank);
        r.start as u64..r.end as u64
    }
}

/// The lower tiers of the tier being solved, as this rank's slices.
pub(super) struct SlicedLower<'a> {
    /// Per lower tier: its key, this rank's slice, and the first slot of
    /// every rank's slice with the tier's size last (`ranks + 1` numbers).
    tiers: Vec<(TierKey, &'a Slice, Vec<u64>)>,
}

impl<'a> SlicedLower<'a> {
    pub fn new() -> Self {
        SlicedLower { tiers: Vec::new() }
    }

    /// Add lower tier `t` of `n` slots, of which this rank holds `slice`.
    pub fn add(&mut self, t: TierKey, n: u64, slice: &'a Slice, ranks: usize) {
        let mut starts: Vec<u64> = (0..ranks)
            .map(|k| Slice::owned(n, ranks, k).start)
            .collect();
        starts.push(n);
        self.tiers.push((t, slice, starts));
    }

    /// The lower tiers' keys, in the order requests number them.
    pub fn keys(&self) -> Vec<TierKey> {
        self.tiers.iter().map(|&(k, _, _)| k).collect()
    }

    /// The rank that holds slot `i` of table `table`.
    fn owner(&self, table: usize, i: u64) -> usize {
        // The last rank whose slice starts at or before `i` (slices of
        // ranks that own nothing start where the next one does).
        self.tiers[table].2.partition_point(|&s| s <= i) - 1
    }

    /// The value of slot `i` of table `table`, held by this rank.
    fn word(&self, table: usize, i: u64) -> u16 {
        let (t, slice, _) = &self.tiers[table];
        let word = match i.checked_sub(slice.slots.start) {
            Some(k) if i < slice.slots.end => slice.values[k as usize].to_bits(),
            _ => panic!("slot {i} of tier {t} asked of a rank that does not hold it"),
        };
        assert!(
            word != Packed::UNDECIDED.to_bits(),
            "tier {t} slot {i} has no solved value (missing tier dependency)"
        );
        word
    }
}

/// A request's key as the four 16-bit words of a message.
fn key_words(key: u64) -> [u16; 4] {
    [
        key as u16,
        (key >> 16) as u16,
        (key >> 32) as u16,
        (key >> 48) as u16,
    ]
}

fn words_key(w: &[u16]) -> u64 {
    w[0] as u64 | (w[1] as u64) << 16 | (w[2] as u64) << 32 | (w[3] as u64) << 48
}

/// Answer this rank's `requests` (`(table << 56 | slot, asker)`) from the
/// ranks that hold the asked slots, folding each answer into its asker's
/// `answers`. Collective: two
/// [`Exchange::all_to_all`]s, the requests out and the values back, each
/// rank's replies in the order it was asked, so an answer finds its asker
/// by its place.
pub(super) fn answer_by_ranks(
    ex: &dyn Exchange,
    lower: &SlicedLower,
    requests: Vec<Request>,
    answers: &Answers,
) {
    let ranks = ex.ranks();
    let owners: Vec<u32> = requests
        .par_iter()
        .map(|&(key, _)| lower.owner((key >> 56) as usize, key & SLOT_BITS) as u32)
        .collect();
    let mut counts = vec![0usize; ranks];
    for &d in &owners {
        counts[d as usize] += 1;
    }
    let mut asks: Vec<Vec<u16>> = counts.iter().map(|&c| Vec::with_capacity(4 * c)).collect();
    let mut askers: Vec<Vec<u32>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for (&(key, at), &d) in requests.iter().zip(&owners) {
        asks[d as usize].extend_from_slice(&key_words(key));
        askers[d as usize].push(at);
    }
    drop((requests, owners));
    let lens = |m: &[Vec<u16>]| m.iter().map(|v| vec![v.len() as u32]).collect();
    let asked = ex.all_to_all(lens(&asks), asks, 1);
    let replies: Vec<Vec<u16>> = asked
        .par_iter()
        .map(|(_, words)| {
            words
                .chunks_exact(4)
                .map(|w| {
                    let key = words_key(w);
                    lower.word((key >> 56) as usize, key & SLOT_BITS)
                })
                .collect()
        })
        .collect();
    drop(asked);
    let replies = ex.all_to_all(lens(&replies), replies, 1);
    for ((_, words), askers) in replies.iter().zip(&askers) {
        assert_eq!(
            words.len(),
            askers.len(),
            "a rank answered another number of requests"
        );
        words
            .par_iter()
            .zip(askers.par_iter())
            .for_each(|(&w, &at)| {
                answers.fold(w, at as usize, || {
                    unreachable!("the answering rank checked that the value is solved")
                })
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_has_the_rank_that_solved_it_as_owner() {
        for n in [1u64, 1000, 1 << 16, 5_000_000] {
            for ranks in 1..=5 {
                let slices: Vec<Slice> = (0..ranks)
                    .map(|k| Slice {
                        slots: Slice::owned(n, ranks, k),
                        values: Vec::new(),
                    })
                    .collect();
                let mut lower = SlicedLower::new();
                lower.add(7, n, &slices[0], ranks);
                for i in (0..n).step_by(997).chain([n - 1]) {
                    let d = lower.owner(0, i);
                    assert!(
                        slices[d].slots.contains(&i),
                        "n {n} ranks {ranks} slot {i}: {d}"
                    );
                }
            }
        }
    }

    #[test]
    fn keys_travel_as_four_words() {
        for key in [
            0u64,
            1,
            0xffff,
            0x0123_4567_89ab_cdef,
            3 << 56 | 0x00ff_ffff_ffff,
        ] {
            assert_eq!(words_key(&key_words(key)), key);
        }
    }
}
