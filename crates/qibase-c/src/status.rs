//! The status codes of the C API and the library errors they come from.
//! Each failure is a code (what the caller branches on) and a message
//! (what it shows), kept per thread for `qb_last_error`.

use qibase::analysis::LookupError;
use qibase::games::SpecError;
use qibase::tablebase::TbError;
use qibase::{InputKind, ParseError};

/// What an entry point returns: `QB_OK`, or why it failed (the message is
/// then in `qb_last_error()`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum qb_status {
    /// Success.
    QB_OK = 0,
    /// A required pointer argument was NULL.
    QB_ERR_NULL_ARGUMENT = 1,
    /// A string argument is not valid UTF-8, or an argument is out of range
    /// (e.g. an unknown difficulty level).
    QB_ERR_BAD_ARGUMENT = 2,
    /// The output buffer is too small: `*needed` holds the size it needs
    /// (bytes with the terminating NUL, or entries).
    QB_ERR_BUFFER_TOO_SMALL = 3,
    /// The game id or variant string names no game.
    QB_ERR_UNKNOWN_GAME = 4,
    /// The position string does not follow the game's notation.
    QB_ERR_BAD_POSITION = 5,
    /// A well-formed position the rules do not allow (e.g. wrong material).
    QB_ERR_ILLEGAL_POSITION = 6,
    /// The move is malformed, not legal in the position, or the game is over.
    QB_ERR_ILLEGAL_MOVE = 7,
    /// The tablebase directory does not exist.
    QB_ERR_NOT_FOUND = 8,
    /// The tables needed are not there: no table of the game in the
    /// directory (`qb_open`), or the position's tier is not solved.
    QB_ERR_MISSING_TABLE = 9,
    /// A table file is damaged (truncated, bad checksum, bad header).
    QB_ERR_DAMAGED_TABLE = 10,
    /// A valid table file of something else: another game, other rules,
    /// another format version.
    QB_ERR_FOREIGN_TABLE = 11,
    /// The operating system failed (cannot read a file, out of memory).
    QB_ERR_IO = 12,
    /// A bug inside the library (a Rust panic, caught at the boundary).
    QB_ERR_INTERNAL = 13,
}

/// A failure: its code and its one-line message.
pub(crate) struct Failure {
    pub(crate) status: qb_status,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: qb_status, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
}

pub(crate) type Res<T> = Result<T, Failure>;

/// The code of a tablebase error.
pub(crate) fn tb_status(e: &TbError) -> qb_status {
    match e {
        TbError::NotSolved { .. } => qb_status::QB_ERR_MISSING_TABLE,
        TbError::Corrupt { .. } => qb_status::QB_ERR_DAMAGED_TABLE,
        TbError::Foreign { .. } | TbError::Version { .. } => qb_status::QB_ERR_FOREIGN_TABLE,
        TbError::Io { .. } => qb_status::QB_ERR_IO,
    }
}

impl From<TbError> for Failure {
    fn from(e: TbError) -> Self {
        Failure::new(tb_status(&e), e.to_string())
    }
}

impl From<LookupError> for Failure {
    fn from(e: LookupError) -> Self {
        match e {
            LookupError::Tablebase(e) => e.into(),
            LookupError::OutsideSubset { .. } => {
                Failure::new(qb_status::QB_ERR_MISSING_TABLE, e.to_string())
            }
            LookupError::Other(s) => Failure::new(qb_status::QB_ERR_INTERNAL, s),
        }
    }
}

impl From<ParseError> for Failure {
    fn from(e: ParseError) -> Self {
        let status = match (&e, e.kind()) {
            (ParseError::IllegalPosition { .. }, _) => qb_status::QB_ERR_ILLEGAL_POSITION,
            (_, InputKind::Move) => qb_status::QB_ERR_ILLEGAL_MOVE,
            (_, InputKind::Position) => qb_status::QB_ERR_BAD_POSITION,
        };
        Failure::new(status, e.to_string())
    }
}

impl From<SpecError> for Failure {
    fn from(e: SpecError) -> Self {
        Failure::new(qb_status::QB_ERR_UNKNOWN_GAME, e.to_string())
    }
}
