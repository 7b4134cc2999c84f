//! The one error type of the tablebase layer. Every variant names the
//! file, and the variants let callers tell "not solved yet" (which may
//! fall back to solving in memory) from a damaged file, a file made for
//! other rules or by another format version (which must be reported,
//! never papered over) and a failure of the operating system.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A tablebase problem, always naming the file concerned. Its `Display`
/// is one line: `<file>: <what is wrong>`, with the way out when there is
/// one.
#[derive(Debug, Clone)]
pub enum TbError {
    /// The tier file does not exist: the tier is not solved (yet).
    NotSolved {
        /// The file that would hold the tier.
        path: PathBuf,
        /// What is missing, e.g. `tier 4v3 of cannon-chess`.
        tier: String,
        /// The command that makes it, e.g. `qibase solve cannon-chess`.
        command: String,
    },
    /// The operating system failed us: cannot open, read or write the
    /// file, a full disk, not enough memory to preload.
    Io {
        /// The file (or directory) concerned.
        path: PathBuf,
        /// What was being done, e.g. `cannot read tier file`.
        what: String,
        /// The operating system's error (shared, so the error can be
        /// cloned into every answer that needs it).
        source: Arc<std::io::Error>,
    },
    /// The file is damaged: bad magic, truncated, a checksum mismatch, an
    /// undecodable header or block, a value that cannot be.
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// What is wrong, e.g. `corrupt block 3 (WDL block checksum mismatch)`.
        what: String,
    },
    /// A valid file of something else: another game, other rules, another
    /// tier, another slot count.
    Foreign {
        /// The file.
        path: PathBuf,
        /// What it holds instead.
        what: String,
    },
    /// A tier file of another format version.
    Version {
        /// The file.
        path: PathBuf,
        /// The format version the file has.
        found: u32,
        /// The format version this build reads ([`super::FORMAT_VERSION`]).
        expected: u32,
        /// The game the file was opened for (for the command that remakes it).
        game: String,
        /// Whether the file is a compact one (remade by `qibase pack`, not
        /// by a solve).
        compact: bool,
    },
}

/// The last commit whose `qibase convert` reads formats 2 to 4.
pub const LAST_CONVERT_COMMIT: &str = "ee940b0";

impl TbError {
    /// The stable machine-readable name of the error's kind (the JSON
    /// error `code`): `not_solved`, `io_error`, `corrupt_tablebase`, or
    /// `foreign_tablebase` (a file of another game, rules, tier or format
    /// version).
    pub fn code(&self) -> &'static str {
        match self {
            TbError::NotSolved { .. } => Self::NOT_SOLVED,
            TbError::Io { .. } => Self::IO_ERROR,
            TbError::Corrupt { .. } => Self::CORRUPT,
            TbError::Foreign { .. } | TbError::Version { .. } => Self::FOREIGN,
        }
    }

    /// The [`code`](Self::code) of [`TbError::NotSolved`] (also used for
    /// a tier outside a subset solved in memory).
    pub const NOT_SOLVED: &'static str = "not_solved";
    /// The [`code`](Self::code) of [`TbError::Io`].
    pub const IO_ERROR: &'static str = "io_error";
    /// The [`code`](Self::code) of [`TbError::Corrupt`].
    pub const CORRUPT: &'static str = "corrupt_tablebase";
    /// The [`code`](Self::code) of [`TbError::Foreign`] and
    /// [`TbError::Version`].
    pub const FOREIGN: &'static str = "foreign_tablebase";

    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TbError::NotSolved { path, .. }
            | TbError::Io { path, .. }
            | TbError::Corrupt { path, .. }
            | TbError::Foreign { path, .. }
            | TbError::Version { path, .. } => path,
        }
    }

    /// Whether the tier is simply not solved (as opposed to a file that
    /// is there but unusable, or an I/O failure).
    pub fn is_not_solved(&self) -> bool {
        matches!(self, TbError::NotSolved { .. })
    }

    /// A damaged-file error.
    pub(crate) fn corrupt(path: &Path, what: impl Into<String>) -> TbError {
        TbError::Corrupt {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }

    /// A file of another game, rules or tier.
    pub(crate) fn foreign(path: &Path, what: impl Into<String>) -> TbError {
        TbError::Foreign {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }

    /// An operating-system failure while doing `what`.
    pub(crate) fn io(path: &Path, what: impl Into<String>, source: std::io::Error) -> TbError {
        TbError::Io {
            path: path.to_path_buf(),
            what: what.into(),
            source: Arc::new(source),
        }
    }
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path().display())?;
        match self {
            TbError::NotSolved { tier, command, .. } => {
                write!(
                    f,
                    "{tier} is not solved (no such file; `{command}` makes it)"
                )
            }
            TbError::Io { what, source, .. } => write!(f, "{what}: {source}"),
            TbError::Corrupt { what, .. } | TbError::Foreign { what, .. } => f.write_str(what),
            TbError::Version {
                found,
                expected,
                game,
                compact: true,
                ..
            } => {
                write!(f, "compact tablebase format version {found}")?;
                if found > expected {
                    f.write_str(" (a newer qibase)")?;
                }
                write!(
                    f,
                    ", but this qibase reads version {expected}: pack it again from the \
                     fast tables with `qibase pack {game}`"
                )
            }
            TbError::Version {
                found,
                expected,
                game,
                ..
            } => {
                write!(f, "tablebase format version {found}")?;
                if found > expected {
                    f.write_str(" (a newer qibase)")?;
                }
                write!(
                    f,
                    ", but this qibase reads versions 5 to {expected}: solve it again \
                     with `qibase solve {game}`"
                )?;
                if (2..5).contains(found) {
                    write!(
                        f,
                        ", or convert it with `qibase convert {game}` as of qibase \
                         commit {LAST_CONVERT_COMMIT} (the last that reads formats 2 to 4)"
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for TbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TbError::Io { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    #[test]
    fn each_kind_is_one_line_naming_the_file() {
        let p = Path::new("tb/weiming/all.qtb");
        let errors = [
            TbError::NotSolved {
                path: p.into(),
                tier: "tier all of weiming".into(),
                command: "qibase solve weiming".into(),
            },
            TbError::io(
                p,
                "cannot read tier file",
                std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            ),
            TbError::corrupt(p, "corrupt block 3 (WDL block checksum mismatch)"),
            TbError::foreign(p, "file belongs to game 'two-cannons', not 'weiming'"),
            TbError::Version {
                path: p.into(),
                found: 4,
                expected: 6,
                game: "weiming".into(),
                compact: false,
            },
        ];
        let codes: Vec<&str> = errors.iter().map(TbError::code).collect();
        assert_eq!(
            codes,
            [
                "not_solved",
                "io_error",
                "corrupt_tablebase",
                "foreign_tablebase",
                "foreign_tablebase"
            ]
        );
        for e in &errors {
            let s = e.to_string();
            assert!(s.starts_with("tb/weiming/all.qtb: "), "{s}");
            assert_eq!(s.lines().count(), 1, "{s}");
            assert_eq!(e.path(), p);
            assert_eq!(e.source().is_some(), matches!(e, TbError::Io { .. }));
        }
        let v = errors[4].to_string();
        assert!(
            v.contains("format version 4")
                && v.contains("`qibase solve weiming`")
                && v.contains("`qibase convert weiming`")
                && v.contains(LAST_CONVERT_COMMIT),
            "{v}"
        );
        let newer = TbError::Version {
            path: p.into(),
            found: 7,
            expected: 6,
            game: "weiming".into(),
            compact: false,
        }
        .to_string();
        assert!(
            newer.contains("newer") && !newer.contains("convert"),
            "{newer}"
        );
        let compact = TbError::Version {
            path: p.into(),
            found: 1,
            expected: 2,
            game: "weiming".into(),
            compact: true,
        }
        .to_string();
        assert!(
            compact.contains("compact tablebase format version 1")
                && compact.contains("reads version 2")
                && compact.contains("`qibase pack weiming`")
                && !compact.contains("solve"),
            "{compact}"
        );
        assert!(errors[0].is_not_solved() && !errors[2].is_not_solved());
    }
}
