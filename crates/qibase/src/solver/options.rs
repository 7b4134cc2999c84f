//! What a solve is asked to do.

use std::fmt;
use std::path::Path;

use super::observer::SolveObserver;
use crate::exchange::{Exchange, SingleProcess};

/// How to run a solve: where, which subset, within what memory, what it
/// tells as it goes, and which processes share its work.
///
/// Start from [`SolveOptions::new`] and set what differs:
///
/// ```
/// use qibase::solver::SolveOptions;
/// let opts = SolveOptions { max_pieces: Some(3), ..SolveOptions::new("tablebases") };
/// assert_eq!(opts.memory, None);
/// ```
#[derive(Clone, Copy)]
pub struct SolveOptions<'a> {
    /// Where the tablebase files go (`<dir>/<game>/<tier>.qtb`).
    pub dir: &'a Path,
    /// Only the closed subset with at most this many pieces a side.
    pub max_pieces: Option<u32>,
    /// Bytes the solve may hold, about (`None`: as much as it needs).
    /// Tiers that do not fit are solved out of core, with scratch files
    /// in `<dir>/<game>/.spill`; the tables are the same.
    pub memory: Option<u64>,
    /// What the solve reports as it goes, and whether it should stop
    /// (default: nothing, never).
    pub observer: &'a dyn SolveObserver,
    /// The processes that share each tier's work (default: this one
    /// alone). With several ranks, every rank calls
    /// [`solve_game`](super::solve_game) with the same game, subset and
    /// directory (checked first), solves its part of every tier and keeps
    /// only that part, its slice, for the tiers above (which ask the
    /// other ranks for the values they hold); rank 0 merges the parts
    /// into the tier files, which are those of a solve in one process
    /// apart from the recorded timings.
    pub exchange: &'a dyn Exchange,
}

impl<'a> SolveOptions<'a> {
    /// A whole solve into `dir`, in memory, in this process alone, telling
    /// nothing.
    pub fn new(dir: &'a (impl AsRef<Path> + ?Sized)) -> SolveOptions<'a> {
        SolveOptions {
            dir: dir.as_ref(),
            max_pieces: None,
            memory: None,
            observer: &(),
            exchange: &SingleProcess,
        }
    }
}

impl fmt::Debug for SolveOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SolveOptions")
            .field("dir", &self.dir)
            .field("max_pieces", &self.max_pieces)
            .field("memory", &self.memory)
            .field("ranks", &self.exchange.ranks())
            .finish_non_exhaustive()
    }
}
