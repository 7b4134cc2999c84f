//! The one error type of the tablebase layer: always names the file.

use std::fmt;
use std::path::{Path, PathBuf};

/// A tablebase problem, always naming the file concerned.
/// Its `Display` is one line: `<file>: <what is wrong>`.
#[derive(Debug, Clone)]
pub struct TbError {
    pub path: PathBuf,
    pub what: String,
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.what)
    }
}

impl std::error::Error for TbError {}

pub(crate) fn err(path: &Path, what: impl Into<String>) -> TbError {
    TbError {
        path: path.to_path_buf(),
        what: what.into(),
    }
}
