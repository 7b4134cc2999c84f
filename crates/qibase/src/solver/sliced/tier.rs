//! One tier solved by ranks that each hold a slice of it (see the module
//! above).

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use super::lower::{answer_by_ranks, Slice, SlicedLower};
use crate::exchange::Exchange;
use crate::game::{TierKey, Tiers};
use crate::solver::levels::run_levels;
use crate::solver::limits::LimitError;
use crate::solver::propagate::{LevelJob, Tuning};
use crate::solver::regions::{owned_regions, region_count, region_shift};
use crate::solver::requests::{scan, Answers};
use crate::solver::slot::{with_slots, Slot, WithSlots};
use crate::solver::state::{as_atomic_u16, settle_and_count, Queued};
use crate::solver::tier_options::{Progress, TierOptions};
use crate::tier_values::{TierStats, TierValues};
use crate::value::Packed;

/// Own slots scanned per round of the initial pass: their lower-tier
/// requests (a few per slot, 12 bytes each, and their replies) stay in
/// the tens of megabytes.
const ROUND_SLOTS: usize = 1 << 18;

/// A tier as one rank solved it.
pub(super) struct SlicedTier {
    /// This rank's slots and their values.
    pub slice: Slice,
    /// The whole tier's counts (every rank's summed), this rank's times.
    pub stats: TierStats,
    /// This rank's random memory accesses.
    pub touches: u64,
}

/// Solve tier `t` as this rank's part (collective: every rank calls it),
/// telling and asking `opts`' callbacks. The tuning is the cluster's
/// ([`Tuning::for_ranks`]), with regions cut by the tier's size, as the
/// slices are. `None`: stopped (every rank alike).
pub(super) fn solve_sliced<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &SlicedLower,
    opts: &TierOptions,
    ex: &dyn Exchange,
) -> Result<Option<SlicedTier>, LimitError> {
    let opts = opts.tuning(Tuning::for_ranks(ex.ranks()));
    let solve = Sliced {
        g,
        t,
        lower,
        opts: &opts,
        ex,
    };
    with_slots(g.tier_size(t), false, solve)
}

/// The arguments of [`solve_sliced`], solved with either width of slot
/// numbers.
struct Sliced<'a, G> {
    g: &'a G,
    t: TierKey,
    lower: &'a SlicedLower<'a>,
    opts: &'a TierOptions<'a>,
    ex: &'a dyn Exchange,
}

/// What the sliced initial pass leaves for the levels: its queues, and
/// the side table of long lower-tier wins.
type Pass<S> = (Queued<S>, Vec<(u64, u16)>);

impl<G: Tiers> WithSlots for Sliced<'_, G> {
    type Output = Result<Option<SlicedTier>, LimitError>;

    fn run<S: Slot>(self) -> Self::Output {
        let Sliced { g, t, opts, ex, .. } = self;
        let n = g.tier_size(t) as usize;
        let shift = region_shift(n);
        let regions = region_count(n, shift);
        let own = Slice::owned(n as u64, ex.ranks(), ex.rank());
        let own = own.start as usize..own.end as usize;
        let mut words = crate::hugemem::zeroed_u16(own.len());
        let touches = AtomicU64::new(0);
        let t0 = Instant::now();
        let (init_seconds, propagate_seconds) = {
            let states = as_atomic_u16(&mut words);
            // 1. The initial pass, a round of own slots at a time.
            let Some((queued, saturated)) = self.initial_pass::<S>(own.start, states, &touches)?
            else {
                return Ok(None);
            };
            let init_seconds = t0.elapsed().as_secs_f64();

            // 2. The levels, as in one process; long lower-tier wins come
            // from the side table, so no lower tier is read.
            let t1 = Instant::now();
            let empty = TierValues::new();
            let found = Mutex::new(queued.decided);
            let job = LevelJob {
                g,
                t,
                lower: &empty,
                states,
                base: own.start,
                saturated: Some(&saturated[..]),
                level: 0,
                found: &found,
                touches: &touches,
                tuning: opts.tuning,
                shift,
                regions,
                owned: owned_regions(regions, ex.ranks(), ex.rank()),
            };
            if !run_levels(job, queued.tentative, opts, ex) {
                return Ok(None);
            }
            (init_seconds, t1.elapsed().as_secs_f64())
        };

        // 3. What is still open is a draw; the counts of every rank's slots.
        let t2 = Instant::now();
        let part = settle_and_count(&mut words);
        let stats = TierStats {
            wins: ex.sum(part.wins),
            losses: ex.sum(part.losses),
            draws: ex.sum(part.draws),
            unused: ex.sum(part.unused),
            max_win: ex.max(part.max_win.into()) as u16,
            max_loss: ex.max(part.max_loss.into()) as u16,
            init_seconds,
            propagate_seconds: propagate_seconds + t2.elapsed().as_secs_f64(),
            ..TierStats::default()
        };
        Ok(Some(SlicedTier {
            slice: Slice {
                slots: own.start as u64..own.end as u64,
                values: Packed::vec_from_bits(words),
            },
            stats,
            touches: touches.into_inner(),
        }))
    }
}

impl<G: Tiers> Sliced<'_, G> {
    /// The initial pass over this rank's slots (from `first` on, their
    /// state words `states`), a round at a time; every rank takes part in
    /// as many rounds as the one with the most slots; with the side table
    /// of long lower-tier wins. `None`: stopped.
    fn initial_pass<S: Slot>(
        &self,
        first: usize,
        states: &[AtomicU16],
        touches: &AtomicU64,
    ) -> Result<Option<Pass<S>>, LimitError> {
        let (g, t, ex) = (self.g, self.t, self.ex);
        let own = first..first + states.len();
        let tables = self.lower.keys();
        let mut queued = Queued::<S>::default();
        let mut saturated: Vec<(u64, u16)> = Vec::new();
        let answers = Answers::new(ROUND_SLOTS.min(own.len()));
        let rounds = ex.max(own.len().div_ceil(ROUND_SLOTS) as u64) as usize;
        for k in 0..rounds {
            let lo = (own.start + k * ROUND_SLOTS).min(own.end);
            let hi = (lo + ROUND_SLOTS).min(own.end);
            let round = &states[lo - own.start..hi - own.start];
            let scans = scan::<G, S>(g, t, lo..hi, lo, &tables, round);
            let crowded = ex.max(scans.as_ref().err().map_or(0, |&c| c.into())) as u32;
            if crowded != 0 {
                return Err(LimitError::TooManyChildren {
                    tier: Some(g.tier_name(t)),
                    children: crowded,
                });
            }
            let scans = scans.expect("no rank found a crowded position");
            let mut requests = Vec::with_capacity(scans.iter().map(|s| s.requests.len()).sum());
            for s in scans {
                queued.decided.push_all(&s.decided);
                requests.extend_from_slice(&s.requests);
            }
            touches.fetch_add(requests.len() as u64, Relaxed);
            answers.clear(hi - lo);
            answer_by_ranks(ex, self.lower, requests, &answers);
            for s in answers.settle::<S>(lo, round) {
                queued.decided.push_all(&s.decided);
                queued.tentative.push_all(&[Vec::new(), s.tentative]);
                saturated.extend_from_slice(&s.saturated);
            }
            (self.opts.progress)(Progress::Initial((hi - lo) as u64));
            if ex.max((self.opts.stop)().into()) != 0 {
                return Ok(None);
            }
        }
        saturated.sort_unstable();
        Ok(Some((queued, saturated)))
    }
}
