//! What a solve tells its caller while it runs.

use super::report::TierReport;
use super::tier_options::Progress;
use crate::tablebase::TbError;

/// What a solve tells its caller while it runs. The library prints
/// nothing: the command line turns these calls into progress bars, a
/// Python binding into callbacks. Every method has an empty default, and
/// `()` observes nothing.
///
/// Calls come from the solving threads (hence `Sync`); the per-slot ones
/// ([`initial`](Self::initial), [`level`](Self::level)) come in batches of
/// thousands of slots, so a cheap atomic counter is fast enough.
pub trait SolveObserver: Sync {
    /// Tier `name` (`slots` index slots) starts solving.
    fn tier_started(&self, name: &str, slots: u64) {
        let _ = (name, slots);
    }
    /// Tier `name`, solved out of core, resumes from the checkpoint an
    /// interrupted solve left, at level `level` (its initial pass and the
    /// levels before are done).
    fn tier_resumed(&self, name: &str, level: u64) {
        let _ = (name, level);
    }
    /// The initial pass decided or counted `slots` more slots.
    fn initial(&self, slots: u64) {
        let _ = slots;
    }
    /// Propagation reached remoteness `level`; `decided` positions so far.
    fn level(&self, level: u16, decided: u64) {
        let _ = (level, decided);
    }
    /// The tier is solved in memory (its file is being written).
    fn tier_solved(&self, report: &TierReport) {
        let _ = report;
    }
    /// The tier's file exists but cannot be used (damaged, other rules),
    /// so the tier is solved again.
    fn resolving(&self, name: &str, why: &TbError) {
        let _ = (name, why);
    }
    /// Asked by [`solve_game`](super::solve_game) before each tier it
    /// would solve, and while it solves one, between chunks of the initial
    /// pass and between levels (so it must be cheap, and callable from any
    /// thread): `true` stops the solve with
    /// [`SolveError::Stopped`](super::SolveError::Stopped) (a caller's
    /// cancellation, e.g. Ctrl-C in the Python binding). The tier being
    /// solved is given up (a tier solved out of core leaves a checkpoint
    /// when stopped between levels), and the file of the tier before it is
    /// written first, so every finished tier stays on disk and a later
    /// solve resumes at the tier that was stopped. Default: never stop.
    fn should_stop(&self) -> bool {
        false
    }
}

/// Observes nothing.
impl SolveObserver for () {}

/// Pass a tier solver's progress event on to `observer`.
pub(super) fn tell(observer: &dyn SolveObserver, e: Progress) {
    match e {
        Progress::Initial(k) => observer.initial(k),
        Progress::Level(l, done) => observer.level(l, done),
    }
}
