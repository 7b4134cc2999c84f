//! The one error type of the tablebase layer: always names the file, and
//! says what kind of problem it is, so callers can tell "not solved yet"
//! (which may fall back to solving in memory) from a damaged file or a file
//! made under other rules (which must be reported, never papered over).

use std::fmt;
use std::path::{Path, PathBuf};

/// What kind of tablebase problem an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TbErrorKind {
    /// The tier file does not exist: the tier is not solved (yet).
    NotSolved,
    /// The file is valid but belongs to another game, other rules, another
    /// tier or another format version.
    Foreign,
    /// The file is damaged: bad magic, truncated, checksum mismatch,
    /// undecodable header or block, a value that cannot be.
    Corrupt,
    /// The operating system failed us (cannot open, read, map or write,
    /// a full disk).
    Io,
}

impl TbErrorKind {
    /// Stable machine-readable name (used in JSON error codes).
    pub fn code(self) -> &'static str {
        match self {
            TbErrorKind::NotSolved => "not_solved",
            TbErrorKind::Foreign => "foreign_tablebase",
            TbErrorKind::Corrupt => "corrupt_tablebase",
            TbErrorKind::Io => "io_error",
        }
    }
}

/// A tablebase problem, always naming the file concerned.
/// Its `Display` is one line: `<file>: <what is wrong>`.
#[derive(Debug, Clone)]
pub struct TbError {
    pub kind: TbErrorKind,
    pub path: PathBuf,
    pub what: String,
}

impl TbError {
    pub fn kind(&self) -> TbErrorKind {
        self.kind
    }
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.what)
    }
}

impl std::error::Error for TbError {}

/// A damaged-file error (the most common kind inside the reader).
pub(crate) fn err(path: &Path, what: impl Into<String>) -> TbError {
    err_kind(TbErrorKind::Corrupt, path, what)
}

pub(crate) fn err_kind(kind: TbErrorKind, path: &Path, what: impl Into<String>) -> TbError {
    TbError {
        kind,
        path: path.to_path_buf(),
        what: what.into(),
    }
}
