//! One tier solved by ranks that each hold a slice of it (see the module
//! above).

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use super::lower::{answer_by_ranks, Slice, SlicedLower};
use crate::game::{TierKey, Tiers};
use crate::solver::exchange::{owned_regions, region_count, Exchange};
use crate::solver::limits::LimitError;
use crate::solver::propagate::{region_shift, LevelJob, Tuning};
use crate::solver::slot::Slot;
use crate::solver::spill::{scan, settle};
use crate::solver::tier::{
    as_atomic_u16, is_open, pack, settle_and_count, Buckets, Progress, CHUNK, LOSSES, WINS,
};
use crate::tier_values::{TierStats, TierValues};
use crate::value::{Packed, Value};

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

/// Solve tier `t` as this rank's part (collective: every rank calls it).
/// `None`: stopped (every rank alike).
pub(super) fn solve_sliced<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &SlicedLower,
    progress: &(dyn Fn(Progress) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    ex: &dyn Exchange,
) -> Result<Option<SlicedTier>, LimitError> {
    if g.tier_size(t) <= u32::MAX as u64 {
        solve_with_slots::<G, u32>(g, t, lower, progress, stop, ex)
    } else {
        solve_with_slots::<G, u64>(g, t, lower, progress, stop, ex)
    }
}

fn solve_with_slots<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    lower: &SlicedLower,
    progress: &(dyn Fn(Progress) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    ex: &dyn Exchange,
) -> Result<Option<SlicedTier>, LimitError> {
    let n = g.tier_size(t) as usize;
    let shift = region_shift(n);
    let regions = region_count(n, shift);
    let own_regions = owned_regions(regions, ex.ranks(), ex.rank());
    let own = Slice::owned(n as u64, ex.ranks(), ex.rank());
    let own = own.start as usize..own.end as usize;
    let mut words = crate::hugemem::zeroed_u16(own.len());
    let tables = lower.keys();
    let mut buckets = Buckets::<S>::default();
    let mut tentative = Buckets::<S>::default();
    let mut saturated: Vec<(u64, u16)> = Vec::new();
    let touches = AtomicU64::new(0);
    let mut stats = TierStats::default();
    let t0 = Instant::now();
    {
        let states = as_atomic_u16(&mut words);

        // 1. The initial pass, a round of own slots at a time; every rank
        // takes part in as many rounds as the one with the most slots.
        let round_len = ROUND_SLOTS.min(own.len());
        let mut best: Vec<AtomicU16> = Vec::new();
        let mut longest: Vec<AtomicU16> = Vec::new();
        best.resize_with(round_len, || AtomicU16::new(u16::MAX));
        longest.resize_with(round_len, || AtomicU16::new(0));
        let rounds = ex.max(own.len().div_ceil(ROUND_SLOTS) as u64) as usize;
        for k in 0..rounds {
            let lo = (own.start + k * ROUND_SLOTS).min(own.end);
            let hi = (lo + ROUND_SLOTS).min(own.end);
            let round = &states[lo - own.start..hi - own.start];
            let scans: Vec<_> = (lo..hi)
                .into_par_iter()
                .step_by(CHUNK)
                .map(|c| scan::<G, S>(g, t, c..(c + CHUNK).min(hi), lo, &tables, round))
                .collect();
            let crowded = scans.iter().map(|s| s.crowded).max().unwrap_or(0);
            let crowded = ex.max(crowded.into()) as u32;
            if crowded != 0 {
                return Err(LimitError::TooManyChildren {
                    tier: Some(g.tier_name(t)),
                    children: crowded,
                });
            }
            let mut requests = Vec::with_capacity(scans.iter().map(|s| s.requests.len()).sum());
            for s in scans {
                buckets.push_all(&s.decided);
                requests.extend_from_slice(&s.requests);
            }
            touches.fetch_add(requests.len() as u64, Relaxed);
            let (best, longest) = (&best[..hi - lo], &longest[..hi - lo]);
            best.iter().for_each(|a| a.store(u16::MAX, Relaxed));
            longest.iter().for_each(|a| a.store(0, Relaxed));
            answer_by_ranks(ex, lower, requests, best, longest);
            let settled: Vec<_> = round
                .par_chunks(CHUNK)
                .zip(best.par_chunks(CHUNK))
                .zip(longest.par_chunks(CHUNK))
                .enumerate()
                .map(|(c, ((s, b), l))| settle::<S>(lo + c * CHUNK, s, b, l))
                .collect();
            for s in settled {
                buckets.push_all(&s.decided);
                tentative.push_all(&[Vec::new(), s.tentative]);
                saturated.extend_from_slice(&s.saturated);
            }
            progress(Progress::Initial((hi - lo) as u64));
            if ex.max(stop().into()) != 0 {
                return Ok(None);
            }
        }
        drop((best, longest));
        saturated.sort_unstable();
        stats.init_seconds = t0.elapsed().as_secs_f64();

        // 2. The levels, as in one process; long lower-tier wins come
        // from the side table, so no lower tier is read.
        let t1 = Instant::now();
        let empty = TierValues::new();
        let mut level = 0usize;
        let mut decided = 0u64;
        while (level as u64) < ex.max(buckets.len().max(tentative.len()) as u64) {
            let mut current = buckets.take(level);
            let won = pack(Value::Win(level as u16));
            for i in tentative.take(level)[WINS].iter().copied() {
                let s = &states[i.index() - own.start];
                if is_open(s.load(Relaxed)) {
                    s.store(won, Relaxed);
                    current[WINS].push(i);
                }
            }
            let found = Mutex::new(&mut buckets);
            let job = LevelJob {
                g,
                t,
                lower: &empty,
                states,
                base: own.start,
                saturated: Some(&saturated[..]),
                level: level as u16,
                found: &found,
                touches: &touches,
                tuning: Tuning::for_ranks(ex.ranks()),
                shift,
                regions,
                owned: own_regions.clone(),
            };
            job.propagate(&current[LOSSES], true, ex);
            job.propagate(&current[WINS], false, ex);
            decided += ex.sum((current[LOSSES].len() + current[WINS].len()) as u64);
            progress(Progress::Level(level as u16, decided));
            if ex.max(stop().into()) != 0 {
                return Ok(None);
            }
            level += 1;
        }
        stats.propagate_seconds = t1.elapsed().as_secs_f64();
    }

    // 3. What is still open is a draw; the counts of every rank's slots.
    let t2 = Instant::now();
    let part = settle_and_count(&mut words);
    stats.wins = ex.sum(part.wins);
    stats.losses = ex.sum(part.losses);
    stats.draws = ex.sum(part.draws);
    stats.unused = ex.sum(part.unused);
    stats.max_win = ex.max(part.max_win.into()) as u16;
    stats.max_loss = ex.max(part.max_loss.into()) as u16;
    stats.propagate_seconds += t2.elapsed().as_secs_f64();
    Ok(Some(SlicedTier {
        slice: Slice {
            slots: own.start as u64..own.end as u64,
            values: Packed::vec_from_bits(words),
        },
        stats,
        touches: touches.into_inner(),
    }))
}
