//! The command line's words for the library's errors. The library's
//! errors carry data (which tier is missing and what subset makes it,
//! which identity a file failed); this module turns them into the one
//! line the user reads, with the command that gets them out of it. Every
//! command, the report and the HTTP server say it through here.

use std::path::Path;

use qibase::analysis::LookupError;
use qibase::tablebase::{Mismatch, Missing, TbError, LAST_CONVERT_COMMIT};

/// The tablebase directory the commands use when not given `--dir`.
pub const DEFAULT_DIR: &str = "tablebases";

/// The `qibase solve` command that makes the tables of `game` in `dir`:
/// the closed subset of at most `max_pieces` pieces a side, or the whole
/// game.
pub fn solve_command(game: &str, max_pieces: Option<u32>, dir: &Path) -> String {
    let mut cmd = format!("qibase solve {game}");
    if let Some(n) = max_pieces {
        cmd += &format!(" --max-pieces {n}");
    }
    if dir != Path::new(DEFAULT_DIR) {
        cmd += &format!(" --dir {}", dir.display());
    }
    cmd
}

/// A tablebase error's one line, naming the file, with the way out when
/// there is one (the command that makes a missing tier, that remakes a
/// file of another format version or other rules).
pub fn hint(e: &TbError) -> String {
    match e {
        TbError::NotSolved {
            path,
            dir,
            game,
            missing,
        } => {
            let cmd = match missing {
                Missing::Tier { max_pieces, .. } => solve_command(game, *max_pieces, dir),
                Missing::Compact { .. } => format!("qibase pack {game}"),
                Missing::NoTier { .. } => format!("qibase solve {game}"),
            };
            format!(
                "{}: {} is not solved (no such file; `{cmd}` makes it)",
                path.display(),
                missing.describe(game)
            )
        }
        TbError::Foreign {
            mismatch: Mismatch::Rules { .. },
            compact: false,
            ..
        } => format!("{e}: solve again"),
        TbError::Foreign {
            mismatch: Mismatch::Positions { .. },
            compact: false,
            ..
        } => format!("{e}, solve again"),
        TbError::Foreign {
            path,
            mismatch: Mismatch::CompactOnly,
            ..
        } => format!(
            "{}: tier in the compact format: `qibase unpack` it for slot access",
            path.display()
        ),
        TbError::Version {
            game,
            compact: true,
            ..
        } => format!("{e}: pack it again from the fast tables with `qibase pack {game}`"),
        TbError::Version { game, found, .. } => {
            let mut s = format!("{e}: solve it again with `qibase solve {game}`");
            if (2..5).contains(found) {
                s += &format!(
                    ", or convert it with `qibase convert {game}` as of qibase commit \
                     {LAST_CONVERT_COMMIT} (the last that reads formats 2 to 4)"
                );
            }
            s
        }
        TbError::Io { .. } | TbError::Corrupt { .. } | TbError::Foreign { .. } => e.to_string(),
    }
}

/// A failed lookup's one line: a tablebase error as [`hint`] says it.
pub fn lookup_hint(e: &LookupError) -> String {
    match e {
        LookupError::Tablebase(e) => hint(e),
        e => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn not_solved(dir: &str, max_pieces: Option<u32>) -> TbError {
        TbError::NotSolved {
            path: PathBuf::from(dir).join("cannon-chess/2v1.qtb"),
            dir: dir.into(),
            game: "cannon-chess".into(),
            missing: Missing::Tier {
                name: "2v1".into(),
                max_pieces,
            },
        }
    }

    #[test]
    fn a_missing_tier_names_the_solve_that_makes_it() {
        assert_eq!(
            hint(&not_solved(DEFAULT_DIR, None)),
            "tablebases/cannon-chess/2v1.qtb: tier 2v1 of cannon-chess is not solved \
             (no such file; `qibase solve cannon-chess` makes it)"
        );
        assert_eq!(
            hint(&not_solved("tb", Some(3))),
            "tb/cannon-chess/2v1.qtb: tier 2v1 of cannon-chess is not solved \
             (no such file; `qibase solve cannon-chess --max-pieces 3 --dir tb` makes it)"
        );
    }

    #[test]
    fn other_rules_and_versions_say_how_to_remake_the_file() {
        let p = Path::new("f.qtb");
        let rules = Mismatch::Rules {
            game: "weiming".into(),
            found: 1,
            expected: 2,
        };
        let fast = hint(&TbError::Foreign {
            path: p.into(),
            mismatch: rules.clone(),
            compact: false,
        });
        assert!(fast.ends_with("0000000000000002): solve again"), "{fast}");
        let compact = hint(&TbError::Foreign {
            path: p.into(),
            mismatch: rules,
            compact: true,
        });
        assert!(compact.ends_with("0000000000000002)"), "{compact}");
        let old = hint(&TbError::Version {
            path: p.into(),
            found: 4,
            expected: 6,
            game: "weiming".into(),
            compact: false,
        });
        assert_eq!(
            old,
            format!(
                "f.qtb: tablebase format version 4, but this qibase reads versions 5 to 6: \
                 solve it again with `qibase solve weiming`, or convert it with \
                 `qibase convert weiming` as of qibase commit {LAST_CONVERT_COMMIT} \
                 (the last that reads formats 2 to 4)"
            )
        );
        let packed = hint(&TbError::Version {
            path: p.into(),
            found: 1,
            expected: 2,
            game: "weiming".into(),
            compact: true,
        });
        assert!(
            packed.ends_with(
                "reads version 2: pack it again from the fast tables with `qibase pack weiming`"
            ),
            "{packed}"
        );
    }
}
