//! The one error type of the tablebase layer. Every variant names the
//! file, and the variants let callers tell "not solved yet" (which may
//! fall back to solving in memory) from a damaged file, a file made for
//! other rules or by another format version (which must be reported,
//! never papered over) and a failure of the operating system.
//!
//! The errors carry data, not advice: which tier is missing and what
//! makes it, which identity a file failed. Each front end (the command
//! line, the HTTP server, Python) turns that data into its own way out.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::game::TierKey;

/// A tablebase problem, always naming the file concerned. Its `Display`
/// is one line: `<file>: <what is wrong>`.
#[derive(Debug, Clone)]
pub enum TbError {
    /// The tier file does not exist: the tier is not solved (yet).
    NotSolved {
        /// The file that would hold the tier.
        path: PathBuf,
        /// The tablebase directory that was searched.
        dir: PathBuf,
        /// The game id.
        game: String,
        /// What is missing, and what makes it.
        missing: Missing,
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
        mismatch: Mismatch,
        /// Whether the file is a compact one (made by packing the fast
        /// tables, not by a solve).
        compact: bool,
    },
    /// A tier file of another format version.
    Version {
        /// The file.
        path: PathBuf,
        /// The format version the file has.
        found: u32,
        /// The format version this build reads ([`super::FORMAT_VERSION`]).
        expected: u32,
        /// The game the file was opened for (what remakes it).
        game: String,
        /// Whether the file is a compact one (remade by packing, not by a
        /// solve).
        compact: bool,
    },
}

/// What a [`TbError::NotSolved`] misses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// A tier's file, made by solving the closed subset of at most
    /// `max_pieces` pieces a side (`None`: the whole game).
    Tier {
        /// The tier's name.
        name: String,
        /// The smallest subset whose solve makes the tier.
        max_pieces: Option<u32>,
    },
    /// A tier's compact file, made by packing the fast tables.
    Compact {
        /// The tier's name.
        name: String,
    },
    /// A tier key that names no tier of the game.
    NoTier {
        /// The key.
        key: TierKey,
    },
}

impl Missing {
    /// What is missing, in words: `tier 4v3 of cannon-chess`.
    pub fn describe(&self, game: &str) -> String {
        match self {
            Missing::Tier { name, .. } => format!("tier {name} of {game}"),
            Missing::Compact { name } => format!("compact tier {name} of {game}"),
            Missing::NoTier { key } => format!("tier key {key} (no tier of {game})"),
        }
    }
}

/// How a file failed the identity check of
/// [`TierMeta::check`](super::TierMeta::check): what it holds instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// The file belongs to another game.
    Game {
        /// The game of the file.
        found: String,
        /// The game asked for.
        expected: String,
    },
    /// The file was made for other rules of the game.
    Rules {
        /// The game.
        game: String,
        /// The file's rules hash.
        found: u64,
        /// This build's rules hash of the game.
        expected: u64,
    },
    /// The file holds another tier.
    Tier {
        /// The name of the tier in the file.
        found_name: String,
        /// The key of the tier in the file.
        found: TierKey,
        /// The key asked for.
        expected: TierKey,
    },
    /// The file numbers the tier with another slot count (made by a
    /// build that numbers the tier differently).
    Positions {
        /// The tier's name.
        tier: String,
        /// The slot count of the file.
        found: u64,
        /// The tier's slot count in this build.
        expected: u64,
    },
    /// The tier is held in the compact format only, which has no
    /// slot-level file access.
    CompactOnly,
}

/// The last commit whose `qibase convert` reads formats 2 to 4.
pub const LAST_CONVERT_COMMIT: &str = "ee940b0";

impl TbError {
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

    /// A file of another game, rules, tier or slot count.
    pub(crate) fn foreign(path: &Path, mismatch: Mismatch, compact: bool) -> TbError {
        TbError::Foreign {
            path: path.to_path_buf(),
            mismatch,
            compact,
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
            TbError::NotSolved { game, missing, .. } => {
                write!(f, "{} is not solved (no such file)", missing.describe(game))
            }
            TbError::Io { what, source, .. } => write!(f, "{what}: {source}"),
            TbError::Corrupt { what, .. } => f.write_str(what),
            TbError::Foreign {
                mismatch, compact, ..
            } => mismatch.fmt_for(*compact, f),
            TbError::Version {
                found,
                expected,
                compact,
                ..
            } => {
                if *compact {
                    f.write_str("compact ")?;
                }
                write!(f, "tablebase format version {found}")?;
                if found > expected {
                    f.write_str(" (a newer qibase)")?;
                }
                if *compact {
                    write!(f, ", but this qibase reads version {expected}")
                } else {
                    write!(f, ", but this qibase reads versions 5 to {expected}")
                }
            }
        }
    }
}

impl Mismatch {
    /// The mismatch in words, for a fast file or a compact one (whose
    /// texts have always differed a little).
    fn fmt_for(&self, compact: bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Game { found, expected } => {
                write!(f, "file belongs to game '{found}', not '{expected}'")
            }
            Mismatch::Rules {
                game,
                found,
                expected,
            } => write!(
                f,
                "file was made for other rules of {game} (rules hash {found:016x}, \
                 this qibase has {expected:016x})"
            ),
            Mismatch::Tier {
                found_name,
                found,
                expected,
            } => {
                let asked = if compact { "" } else { "the tier with " };
                write!(
                    f,
                    "file holds tier {found_name} (key {found}), not {asked}key {expected}"
                )
            }
            Mismatch::Positions {
                tier,
                found,
                expected,
            } => write!(
                f,
                "file has {found} positions but tier {tier} has {expected}: made by another qibase"
            ),
            Mismatch::CompactOnly => f.write_str("tier in the compact format (no slot access)"),
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
    fn each_kind_is_one_line_naming_the_file_and_no_command() {
        let p = Path::new("tb/weiming/all.qtb");
        let errors = [
            TbError::NotSolved {
                path: p.into(),
                dir: "tb".into(),
                game: "weiming".into(),
                missing: Missing::Tier {
                    name: "all".into(),
                    max_pieces: None,
                },
            },
            TbError::io(
                p,
                "cannot read tier file",
                std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            ),
            TbError::corrupt(p, "corrupt block 3 (WDL block checksum mismatch)"),
            TbError::foreign(
                p,
                Mismatch::Game {
                    found: "two-cannons".into(),
                    expected: "weiming".into(),
                },
                false,
            ),
            TbError::Version {
                path: p.into(),
                found: 4,
                expected: 6,
                game: "weiming".into(),
                compact: false,
            },
        ];
        for e in &errors {
            let s = e.to_string();
            assert!(s.starts_with("tb/weiming/all.qtb: "), "{s}");
            assert_eq!(s.lines().count(), 1, "{s}");
            assert!(!s.contains("qibase solve") && !s.contains("--"), "{s}");
            assert_eq!(e.path(), p);
            assert_eq!(e.source().is_some(), matches!(e, TbError::Io { .. }));
        }
        assert_eq!(
            errors[0].to_string(),
            "tb/weiming/all.qtb: tier all of weiming is not solved (no such file)"
        );
        assert_eq!(
            errors[4].to_string(),
            "tb/weiming/all.qtb: tablebase format version 4, but this qibase reads versions 5 to 6"
        );
        let newer = TbError::Version {
            path: p.into(),
            found: 7,
            expected: 6,
            game: "weiming".into(),
            compact: false,
        }
        .to_string();
        assert!(newer.contains("version 7 (a newer qibase)"), "{newer}");
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
                && compact.ends_with("reads version 2"),
            "{compact}"
        );
        assert!(errors[0].is_not_solved() && !errors[2].is_not_solved());
    }

    #[test]
    fn a_tier_mismatch_reads_as_each_format_always_said_it() {
        let m = Mismatch::Tier {
            found_name: "2v1".into(),
            found: 3,
            expected: 7,
        };
        let p = Path::new("f");
        assert_eq!(
            TbError::foreign(p, m.clone(), false).to_string(),
            "f: file holds tier 2v1 (key 3), not the tier with key 7"
        );
        assert_eq!(
            TbError::foreign(p, m, true).to_string(),
            "f: file holds tier 2v1 (key 3), not key 7"
        );
    }
}
