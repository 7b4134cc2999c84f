//! What a solve is asked to do.

use std::path::PathBuf;

/// How to run a solve.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Where the tablebase files go (`<dir>/<game>/<tier>.qtb`).
    pub dir: PathBuf,
    /// Only the closed subset with at most this many pieces a side.
    pub max_pieces: Option<u32>,
    /// Bytes the solve may hold, about (`None`: as much as it needs).
    /// Tiers that do not fit are solved out of core, with scratch files
    /// in `<dir>/<game>/.spill`; the tables are the same.
    pub memory: Option<u64>,
}
