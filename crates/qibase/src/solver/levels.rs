//! The levels of a tier whose state words are held in memory, whole (one
//! process) or as a rank's slice (sliced across ranks): the positions
//! decided at each level, in increasing remoteness, propagated to their
//! parents ([`LevelJob`]), which decides those of later levels.
//!
//! The out-of-core mode runs its own loop around the same [`LevelJob`]:
//! it sends a level's updates to run files and applies them window by
//! window.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::propagate::LevelJob;
use super::slot::Slot;
use super::state::{is_open, pack, Buckets, LOSSES, WINS};
use super::tier_options::{Progress, TierOptions};
use crate::exchange::Exchange;
use crate::game::Tiers;
use crate::value::Value;

/// Run the levels of `job`'s tier, from level 0, with the positions its
/// initial pass queued in `job.found` and its tentative wins in
/// `tentative` (a position whose lower-tier win is this long, if no
/// shorter one is found first). Collective: every rank calls it, and the
/// levels go on while any rank has positions at this level or a later
/// one. `false`: stopped (every rank alike).
pub(super) fn run_levels<G: Tiers, S: Slot>(
    mut job: LevelJob<'_, G, S>,
    mut tentative: Buckets<S>,
    opts: &TierOptions,
    ex: &dyn Exchange,
) -> bool {
    let mut level = 0usize;
    let mut decided = 0u64;
    loop {
        let queued = job.found.lock().unwrap().len().max(tentative.len());
        if level as u64 >= ex.max(queued as u64) {
            return true;
        }
        let mut current = job.found.lock().unwrap().take(level);
        let won = pack(Value::Win(level as u16));
        // The tentative wins of this level still open: in parallel, as on
        // the larger tiers they are tens of millions (each slot is listed
        // once, and the order is kept).
        let tentative_wins: Vec<S> = tentative.take(level)[WINS]
            .par_iter()
            .copied()
            .filter(|i| {
                job.states[i.index() - job.base]
                    .fetch_update(Relaxed, Relaxed, |s| is_open(s).then_some(won))
                    .is_ok()
            })
            .collect();
        current[WINS].extend(tentative_wins);
        job.level = level as u16;
        job.propagate(&current[LOSSES], true, ex);
        job.propagate(&current[WINS], false, ex);
        decided += ex.sum((current[LOSSES].len() + current[WINS].len()) as u64);
        (opts.progress)(Progress::Level(level as u16, decided));
        if ex.max((opts.stop)().into()) != 0 {
            return false;
        }
        level += 1;
    }
}
