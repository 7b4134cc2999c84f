//! How one tier is solved, in every mode: what its solve tells the caller
//! ([`Progress`]), when it gives up (a stop callback) and how its work is
//! cut up ([`Tuning`]).

use super::propagate::Tuning;

/// Progress events of a tier's solve.
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    /// This many more slots went through the initial pass.
    Initial(u64),
    /// Level `.0` is done; `.1` positions have been propagated so far.
    Level(u16, u64),
}

/// How to solve one tier ([`solve_tier`](super::solve_tier)). The default
/// tells nothing, never stops and cuts the work up for one process.
///
/// ```
/// use qibase::solver::{Progress, TierOptions};
/// let told = |e: Progress| eprintln!("{e:?}");
/// let opts = TierOptions::default().progress(&told).stop(&|| false);
/// # let _ = opts;
/// ```
#[derive(Clone, Copy)]
pub struct TierOptions<'a> {
    pub(super) progress: &'a (dyn Fn(Progress) + Sync),
    pub(super) stop: &'a (dyn Fn() -> bool + Sync),
    pub(super) tuning: Tuning,
}

fn no_progress(_: Progress) {}

fn never() -> bool {
    false
}

impl Default for TierOptions<'_> {
    fn default() -> Self {
        TierOptions {
            progress: &no_progress,
            stop: &never,
            tuning: Tuning::default(),
        }
    }
}

impl<'a> TierOptions<'a> {
    /// Tell `progress` how far the initial pass and the levels have got
    /// (called from the solving threads, a batch of thousands of slots at
    /// a time).
    pub fn progress(self, progress: &'a (dyn Fn(Progress) + Sync)) -> Self {
        TierOptions { progress, ..self }
    }

    /// Ask `stop` between chunks of the initial pass and between levels,
    /// and give up the tier as soon as it says `true`: a caller's
    /// cancellation answered in seconds even on the largest tiers.
    pub fn stop(self, stop: &'a (dyn Fn() -> bool + Sync)) -> Self {
        TierOptions { stop, ..self }
    }

    /// Cut the work up by `tuning` (speed and memory only, never the
    /// table).
    pub(super) fn tuning(self, tuning: Tuning) -> Self {
        TierOptions { tuning, ..self }
    }
}

impl std::fmt::Debug for TierOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TierOptions")
            .field("tuning", &self.tuning)
            .finish_non_exhaustive()
    }
}
