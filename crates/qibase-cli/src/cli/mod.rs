//! The `qibase` command line: one module per command family.

use std::fmt;

pub mod annotate;
pub mod app;
pub mod engine;
pub mod estimate;
pub mod pack;
pub mod play;
pub mod progress;
pub mod puzzles;
pub mod query;
pub mod ranks;
pub mod report;
pub mod rules;
pub mod serve;
pub mod solve;
pub mod verify;

/// A command failure: one line for stderr and the exit code.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub code: i32,
}

impl CliError {
    /// Bad input from the user (malformed position or move, unknown game): exit 2.
    pub fn input(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: 2,
        }
    }
    /// A failure while doing the work (missing/corrupt tablebase, I/O): exit 1.
    pub fn failure(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A malformed or illegal position or move is bad input.
impl From<qibase::ParseError> for CliError {
    fn from(e: qibase::ParseError) -> Self {
        CliError::input(e.to_string())
    }
}

/// An unknown game or a bad variant key or value is bad input.
impl From<qibase::games::SpecError> for CliError {
    fn from(e: qibase::games::SpecError) -> Self {
        CliError::input(e.to_string())
    }
}

/// An unknown difficulty level is bad input.
impl From<qibase::ai::UnknownDifficulty> for CliError {
    fn from(e: qibase::ai::UnknownDifficulty) -> Self {
        CliError::input(e.to_string())
    }
}

/// A game over the solver's limits is bad input; a tier file that cannot
/// be read or written is a tablebase problem (below); a stopped solve (the
/// CLI never asks to stop) a failure.
impl From<qibase::solver::SolveError> for CliError {
    fn from(e: qibase::solver::SolveError) -> Self {
        match e {
            // The library names no flag: the way to resume is the CLI's.
            qibase::solver::SolveError::CheckpointLeft { tier, dir } => CliError::input(format!(
                "{}: an interrupted out-of-core solve left a checkpoint of tier {tier} there; resume it with the same --memory, or remove the directory to solve without a budget",
                dir.display()
            )),
            qibase::solver::SolveError::Limit(e) => CliError::input(e.to_string()),
            qibase::solver::SolveError::Tablebase(e) => e.into(),
            qibase::solver::SolveError::Locked(e) => e.into(),
            e @ qibase::solver::SolveError::Stopped { .. } => CliError::failure(e.to_string()),
            e @ (qibase::solver::SolveError::RanksDisagree { .. }
            | qibase::solver::SolveError::MemoryTooSmall { .. }
            | qibase::solver::SolveError::MemoryWithRanks { .. }) => CliError::input(e.to_string()),
        }
    }
}

impl From<qibase::tablebase::TbError> for CliError {
    /// Every tablebase problem is a failure while working (exit 1), its
    /// one line naming the file: a tier not solved (with the command that
    /// solves it), an I/O failure, a damaged file, a file of another game,
    /// rules or format version.
    fn from(e: qibase::tablebase::TbError) -> Self {
        CliError::failure(crate::hint::hint(&e))
    }
}

/// Another process writing the directory: exit 2, the line naming the
/// directory and the other process. A directory that cannot be locked
/// (read-only, missing permissions) is a failure while working (exit 1).
impl From<qibase::tablebase::lock::LockError> for CliError {
    fn from(e: qibase::tablebase::lock::LockError) -> Self {
        use qibase::tablebase::lock::LockError;
        match &e {
            LockError::Locked { .. } => CliError::input(format!(
                "{e}; wait for it to finish, or stop it, and run this again"
            )),
            LockError::Io { .. } => CliError::failure(e.to_string()),
        }
    }
}

/// Take the lock of `dir`, the directory a command writes
/// (`qibase::tablebase::lock`): one writer per directory.
pub fn lock_dir(dir: &std::path::Path) -> Result<qibase::tablebase::lock::DirLock, CliError> {
    qibase::tablebase::lock::DirLock::acquire(dir).map_err(CliError::from)
}

/// A failed lookup is a failure while working (exit 1), said as
/// [`crate::hint::lookup_hint`] says it.
impl From<qibase::analysis::LookupError> for CliError {
    fn from(e: qibase::analysis::LookupError) -> Self {
        CliError::failure(crate::hint::lookup_hint(&e))
    }
}

pub type CliResult = Result<(), CliError>;

/// Look a game up by id, as a CLI input error if unknown.
pub fn game_by_id(id: &str) -> Result<qibase::games::AnyGame, CliError> {
    qibase::games::AnyGame::from_id(id).map_err(CliError::from)
}
