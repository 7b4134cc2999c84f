//! Why a solve stopped. The texts speak of the solve, not of a front end's
//! commands or flags: those add their own hints.

use std::path::PathBuf;

use super::limits::LimitError;
use super::plan::human_bytes;
use crate::tablebase::lock::LockError;
use crate::tablebase::TbError;

/// Why a solve stopped.
#[derive(Clone, Debug)]
pub enum SolveError {
    /// The game, or a tier of it, is over one of the solver's limits.
    Limit(LimitError),
    /// A tier file could not be read or written.
    Tablebase(TbError),
    /// The observer asked to stop
    /// ([`should_stop`](super::SolveObserver::should_stop)) before tier
    /// `next` was finished; the tiers finished before it are on disk.
    Stopped {
        /// The name of the tier that was not started.
        next: String,
    },
    /// The memory budget cannot hold one region of a tier's state words
    /// and the buffers that go with it.
    MemoryTooSmall {
        /// The first tier the budget cannot take.
        tier: String,
        /// The budget, in bytes.
        budget: u64,
        /// The smallest budget that would take that tier.
        need: u64,
        /// Slots of one of the tier's regions.
        region_slots: u64,
    },
    /// A memory budget was given to a solve shared by MPI ranks, which
    /// cannot spill yet.
    MemoryWithRanks {
        /// The number of ranks.
        ranks: usize,
    },
    /// A solve without a memory budget found the checkpoint of an
    /// out-of-core solve of tier `tier` in `dir`: hours of work that only a
    /// solve with a budget resumes, and that a solve without one would
    /// leave on the disk.
    CheckpointLeft {
        /// The tier the checkpoint is of.
        tier: String,
        /// The scratch directory holding it.
        dir: PathBuf,
    },
    /// Another process is writing the game's directory (or it cannot be
    /// locked): nothing was solved.
    Locked(LockError),
    /// The ranks of a solve were not all asked for the same solve: the
    /// variant, the subset or the directory differ from rank 0's.
    RanksDisagree {
        /// What rank 0 solves.
        first: String,
        /// What this rank was asked to solve (equal to `first` on the
        /// ranks that agree with rank 0).
        here: String,
    },
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Limit(e) => e.fmt(f),
            SolveError::Tablebase(e) => e.fmt(f),
            SolveError::Locked(e) => e.fmt(f),
            SolveError::Stopped { next } => {
                write!(
                    f,
                    "solve stopped at tier {next}; solving again resumes there"
                )
            }
            SolveError::MemoryTooSmall {
                tier,
                budget,
                need,
                region_slots,
            } => write!(
                f,
                "a memory budget of {} is too small for tier {tier}: it must hold one region of {region_slots} slots and its buffers, at least {}",
                human_bytes(*budget),
                human_bytes(*need)
            ),
            SolveError::MemoryWithRanks { ranks } => write!(
                f,
                "a memory budget cannot be combined with {ranks} MPI ranks yet: run the solve in one process, or without a budget"
            ),
            SolveError::CheckpointLeft { tier, dir } => write!(
                f,
                "{}: an interrupted out-of-core solve left a checkpoint of tier {tier} there; only a solve under a memory budget resumes it (remove the directory to solve without one)",
                dir.display()
            ),
            SolveError::RanksDisagree { first, here } if first == here => write!(
                f,
                "the ranks of this solve disagree: another rank is not solving what rank 0 solves ({first})"
            ),
            SolveError::RanksDisagree { first, here } => write!(
                f,
                "the ranks of this solve disagree: rank 0 solves {first}, this rank {here}"
            ),
        }
    }
}

impl std::error::Error for SolveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SolveError::Limit(e) => Some(e),
            SolveError::Tablebase(e) => Some(e),
            SolveError::Locked(e) => Some(e),
            SolveError::Stopped { .. }
            | SolveError::RanksDisagree { .. }
            | SolveError::MemoryTooSmall { .. }
            | SolveError::MemoryWithRanks { .. }
            | SolveError::CheckpointLeft { .. } => None,
        }
    }
}

impl From<LimitError> for SolveError {
    fn from(e: LimitError) -> Self {
        SolveError::Limit(e)
    }
}

impl From<TbError> for SolveError {
    fn from(e: TbError) -> Self {
        SolveError::Tablebase(e)
    }
}

impl From<LockError> for SolveError {
    fn from(e: LockError) -> Self {
        SolveError::Locked(e)
    }
}
