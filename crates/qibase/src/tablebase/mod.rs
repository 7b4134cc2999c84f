//! Tablebase files: one compressed file per tier, written atomically,
//! read back whole by the solver (lower tiers), `verify` and the report,
//! and probed position by position by `query`, `play`, `engine` and the
//! server.
//!
//! The format (version 5, the only one this build reads or writes) is
//! documented in `docs/tablebase-format.md`: a fixed preamble (magic,
//! format version, header length), a postcard header (game, variant,
//! rules hash, tier, slots, block size, the static WDL context model,
//! stats) with its checksum, a block index (two 4-byte offsets and two
//! checksums per block), then the blocks: small, each decodable on its
//! own, each its WDL stream (rANS, four slots per symbol) followed by its
//! remoteness stream (Rice codes, one slot found by counting bits).
//!
//! The public API is flat: [`TierStore`] opens and loads whole tiers,
//! [`Tablebase`] probes positions, [`TierFile`] is one open file,
//! [`write_tier`] writes one, [`BlockCache`] is the decoded-block cache
//! every probe shares, and [`TbError`] says what went wrong and where.
//! Behind it, two private layers:
//!
//! * `file` — the bytes on disk: layout and header, xxh3 checksums,
//!   atomic writing, positional reads of the header, the index chunks
//!   and the blocks;
//! * `codec` — what a block's bytes mean: bit I/O, the rANS coder, the
//!   Rice codes, the WDL context model, the coding of a block in parts;
//!
//! and `cache` (the block cache), `store`, `probe` and `error`. The
//! feature `internals` exposes the two layers' insides as
//! `tablebase::internals` for the development tools and tests.

mod cache;
mod codec;
pub mod compact;
mod error;
mod file;
mod identity;
pub mod lock;
mod probe;
mod store;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::TierKey;
use crate::value::Packed;

pub use crate::tier_values::TierStats;
pub use cache::{budget_bytes, BlockCache};
pub use error::{Mismatch, Missing, TbError, LAST_CONVERT_COMMIT};
pub use file::header::FORMAT_VERSION;
pub use file::reader::TierFile;
pub use file::writer::{
    remove_unfinished_writes, write_tier_batched, write_tier_with, WriteOptions, DEFAULT_BLOCK_SIZE,
};
pub use probe::Tablebase;
pub use store::TierStore;

/// The insides of the file layer and the codec, for the development tools
/// (`qibase-dev`) and the damage tests: not a stable API.
#[cfg(feature = "internals")]
pub mod internals {
    pub use super::cache::{Lookup, ADMIT_ON_MISS, SLOT_VALUES};
    pub use super::codec::{bits, block, model, rans, rice, CodecError, CodecProblem};
    pub use super::file::{checksum, header, writer};

    /// Parse the layout of a whole tier file held in memory, for any game.
    ///
    /// # Errors
    /// As [`header::Layout::parse`].
    pub fn parse_layout(
        path: &std::path::Path,
        bytes: &[u8],
    ) -> Result<header::Layout, super::TbError> {
        header::Layout::parse(path, bytes, bytes.len() as u64, "GAME")
    }
}

/// What the header of a tier file says about the tier (the field order
/// is the header's byte layout).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TierMeta {
    /// The game id (a variant's id included).
    pub game: String,
    /// The canonical variant string (for a preset game just its id).
    pub variant: String,
    /// The game's rules hash (board, material, setup, rule switches).
    pub rules_hash: u64,
    /// The tier's key.
    pub tier: TierKey,
    /// The tier's name (also its file name).
    pub tier_name: String,
    /// Index slots of the tier.
    pub positions: u64,
    /// What the solver measured.
    pub stats: TierStats,
}

/// `<dir>/<game>`, the directory of a game's tables; a variant's `:` is
/// written `@` in its name (`three-cannons@immobility=static`), which every
/// common file system accepts. Preset ids are unchanged.
pub fn game_dir(dir: &Path, game_id: &str) -> PathBuf {
    dir.join(game_id.replace(':', "@"))
}

/// `<dir>/<game>/<tier>.qtb` (the directory as [`game_dir`] names it).
pub fn tier_path(dir: &Path, game_id: &str, tier_name: &str) -> PathBuf {
    game_dir(dir, game_id).join(format!("{tier_name}.qtb"))
}

/// Write a tier file atomically (temp file, fsync, rename) in the default
/// encoding. Unused slots ([`Packed::UNDECIDED`]) are "don't care": they read back as
/// draws.
///
/// # Errors
/// As [`write_tier_with`].
pub fn write_tier(path: &Path, meta: &TierMeta, values: &[Packed]) -> Result<(), TbError> {
    write_tier_with(path, meta, values, &WriteOptions::default()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn meta(n: u64) -> TierMeta {
        TierMeta {
            game: "test".into(),
            variant: "test".into(),
            rules_hash: 42,
            tier: 7,
            tier_name: "t7".into(),
            positions: n,
            stats: TierStats::default(),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("qibase-tbunit-{name}-{}", std::process::id()))
    }

    #[test]
    fn file_round_trip_and_cached_probes() {
        let dir = scratch("round-trip");
        let path = tier_path(&dir, "test", "t7");
        let n = 200_003u64;
        // Raw words: unused, draws, and wins and losses up to 148 plies.
        let values: Vec<Packed> = (0..n)
            .map(|i| match i % 11 {
                0 => Packed::UNDECIDED,
                1..=5 => Packed::DRAW,
                k => Packed::from_bits((2 + (i * k) % 300) as u16),
            })
            .collect();
        for opts in [
            WriteOptions::default(),
            WriteOptions {
                block_size: 1000,
                ..WriteOptions::default()
            },
            WriteOptions {
                block_size: 1,
                ..WriteOptions::default()
            },
            WriteOptions {
                block_size: 100_000,
                ..WriteOptions::default()
            },
            // Format 6 (the layout of sections over 4 GiB), with one and
            // with many index chunks.
            WriteOptions {
                wide_offsets: true,
                ..WriteOptions::default()
            },
            WriteOptions {
                block_size: 1,
                wide_offsets: true,
                ..WriteOptions::default()
            },
        ] {
            let len = write_tier_with(&path, &meta(n), &values, &opts).unwrap();
            assert_eq!(len, std::fs::metadata(&path).unwrap().len());
            let version = std::fs::read(&path).unwrap()[8];
            assert_eq!(version, if opts.wide_offsets { 6 } else { 5 });
            let f = TierFile::open(&path, "test", 42, 7).unwrap();
            assert_eq!(f.file_len(), len);
            assert_eq!(f.section_bytes().iter().sum::<u64>(), len);
            // Everything comes back, the encoding time recorded on top.
            let mut read = f.meta().clone();
            assert!(read.stats.write_seconds > 0.0);
            read.stats.write_seconds = 0.0;
            assert_eq!(read, meta(n));
            let back = f.read_all().unwrap();
            // Blocks larger than a cache slot decode on every probe: sample fewer.
            let step = if opts.block_size > 4096 { 997 } else { 7 };
            for i in (0..n as usize).rev().step_by(step) {
                if values[i] != Packed::UNDECIDED {
                    assert_eq!(back[i], values[i]);
                    // First miss, second miss, then admitted and a hit.
                    for _ in 0..3 {
                        assert_eq!(f.get(i as u64).unwrap(), values[i]);
                    }
                    let v = Value::unpack(values[i]).unwrap();
                    assert_eq!(f.get_wdl(i as u64).unwrap(), v.wdl());
                } else {
                    assert_eq!(back[i], Packed::DRAW, "an unused slot reads back as a draw");
                }
            }
            assert!(f.get(n).is_err());
            for (game, hash, tier) in [("other", 42, 7), ("test", 43, 7), ("test", 42, 8)] {
                let e = TierFile::open(&path, game, hash, tier).err().unwrap();
                assert!(matches!(e, TbError::Foreign { .. }), "{e}");
            }
        }
        // Empty tier, wrong length refused, no temp file left behind.
        write_tier(&path, &meta(0), &[]).unwrap();
        let f = TierFile::open(&path, "test", 42, 7).unwrap();
        assert!(f.read_all().unwrap().is_empty());
        assert!(write_tier(&path, &meta(5), &[Packed::DRAW; 2]).is_err());
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 1, "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file cut short under an open `TierFile` (as `truncate` would):
    /// lookups of blocks now past the end, and whole-tier reads, are
    /// corrupt-file errors naming the file; cached blocks still answer.
    #[test]
    fn a_file_truncated_while_open_is_an_error_not_a_crash() {
        let dir = scratch("truncated");
        let path = tier_path(&dir, "test", "t7");
        let n = 300_000u64;
        let values: Vec<Packed> = (0..n)
            .map(|i| Packed::from_bits(2 + (i % 97) as u16))
            .collect();
        write_tier(&path, &meta(n), &values).unwrap();
        let f = TierFile::open(&path, "test", 42, 7).unwrap();
        // The first block's index chunk read, the block cached.
        for _ in 0..3 {
            assert_eq!(f.get(0).unwrap(), values[0]);
        }
        // Cut in the middle of the WDL section.
        let [head, index, wdl, _] = f.section_bytes();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(head + index + wdl / 2)
            .unwrap();
        assert_eq!(f.get(1).unwrap(), values[1], "a cached block still answers");
        let last = n - 1;
        for e in [
            f.get(last).unwrap_err(),
            f.get_wdl(last).unwrap_err(),
            f.read_all().unwrap_err(),
        ] {
            assert!(matches!(e, TbError::Corrupt { .. }), "{e}");
            let s = e.to_string();
            assert!(s.starts_with(&path.display().to_string()), "{s}");
            assert!(s.contains("truncated"), "{s}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
