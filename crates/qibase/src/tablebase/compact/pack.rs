//! `pack` and `unpack`: a game's tiers from the fast format to the compact
//! one and back, tier by tier in solve order, each tier resumable.
//!
//! Both hold in memory the true values of the lower tiers that later tiers
//! still need, and check everything they can:
//!
//! * `pack` reads each fast file whole (every block checksum), encodes it,
//!   writes the compact file atomically, then resolves the written file
//!   back and compares every slot with the fast file's values;
//! * `unpack` resolves each compact file (every block checksum), writes
//!   the fast file atomically, and compares its bytes' checksum with the
//!   one of the packed original recorded in the compact header.
//!
//! A tier whose output is already there and matches (the compact header
//! names the fast file's checksum) is not written again.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use xxhash_rust::xxh3::Xxh3;

use super::file::{compact_path, CompactFile};
use super::tier::{encode_tier, FastOrigin, COMPACT_BLOCK_SIZE};
use crate::game::{Game, TierKey, Tiers};
use crate::tablebase::{
    tier_path, write_tier_with, Missing, TbError, TierFile, TierStore, WriteOptions,
};
use crate::tier_values::TierValues;
use crate::tier_walk::TierWalk;
use crate::value::Packed;

/// What `pack` or `unpack` did with one tier.
#[derive(Clone, Debug)]
pub struct TierPacking {
    /// The tier.
    pub tier: TierKey,
    /// Its name.
    pub name: String,
    /// Used slots (slots holding a position).
    pub used: u64,
    /// Bytes of the fast file.
    pub fast_bytes: u64,
    /// Bytes of the compact file's header, WDL part and remoteness part.
    pub compact_bytes: [u64; 3],
    /// The output was already there and matched: not written again.
    pub kept: bool,
    /// Seconds this tier took.
    pub seconds: f64,
}

/// Length and xxh3-64 of a whole file.
fn file_checksum(path: &Path) -> Result<(u64, u64), TbError> {
    let mut f =
        std::fs::File::open(path).map_err(|e| TbError::io(path, "cannot open tier file", e))?;
    let mut h = Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = f
            .read(&mut buf)
            .map_err(|e| TbError::io(path, "cannot read tier file", e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        len += n as u64;
    }
    Ok((len, h.digest()))
}

/// The walk through the tiers of `g` in solve order that have a file
/// under `has`, or the error `missing` makes for the first tier missing
/// (none at all, or a tier one of them reads).
fn plan<G: Tiers>(
    g: &G,
    has: impl Fn(TierKey) -> bool,
    missing: impl Fn(TierKey) -> TbError,
) -> Result<TierWalk, TbError> {
    let all = g.tiers(None);
    let tiers: Vec<TierKey> = all.iter().copied().filter(|&t| has(t)).collect();
    if tiers.is_empty() {
        return Err(missing(all[0]));
    }
    if let Some(d) = tiers
        .iter()
        .flat_map(|&t| g.tier_deps(t))
        .find(|&d| !has(d))
    {
        return Err(missing(d));
    }
    Ok(TierWalk::new(tiers, |t| g.tier_deps(t)))
}

/// Pack every tier of `g` found in `src` (fast format) into `out`
/// (compact format), calling `done` after each tier.
///
/// # Errors
/// [`TbError::NotSolved`] if `src` holds no tier of `g` or lacks a tier
/// another one depends on; the errors of reading the fast files and of
/// writing the compact ones; [`TbError::Corrupt`] naming the written file
/// if it does not resolve back to the fast file's values (it is removed).
pub fn pack<G: Game>(
    g: &G,
    src: &Path,
    out: &Path,
    done: &mut dyn FnMut(&TierPacking),
) -> Result<Vec<TierPacking>, TbError> {
    let store = TierStore::new(g, src);
    let walk = plan(
        g,
        |t| store.has_file(t),
        |t| {
            store.open(t).err().unwrap_or_else(|| {
                TbError::corrupt(&store.path(t), "tier file vanished while packing")
            })
        },
    )?;
    let mut held: HashMap<TierKey, Vec<Packed>> = HashMap::new();
    let mut report = Vec::new();
    for (k, &t) in walk.tiers().iter().enumerate() {
        let t0 = Instant::now();
        let fast = store.open(t)?;
        let (fast_len, fast_sum) = file_checksum(fast.path())?;
        let dest = compact_path(out, g.id(), &g.tier_name(t));
        let used = fast.meta().positions - fast.meta().stats.unused;
        let existing = CompactFile::open(&dest, g.id(), g.rules_hash(), t)
            .ok()
            .filter(|c| c.header().fast_checksum == fast_sum && c.header().fast_len == fast_len);
        let values = fast.read_all()?;
        let (sizes, kept) = match existing {
            Some(c) => (c.sizes(), true),
            None => {
                let mut lower = TierValues::new();
                for d in g.tier_deps(t) {
                    lower.add(d, &held[&d]);
                }
                let origin = FastOrigin {
                    meta: fast.meta().clone(),
                    block_size: fast.block_size(),
                    len: fast_len,
                    checksum: fast_sum,
                };
                let enc = encode_tier(g, t, &values, &lower, &origin, COMPACT_BLOCK_SIZE);
                let sizes = enc.write(&dest)?;
                let check = CompactFile::open(&dest, g.id(), g.rules_hash(), t)
                    .and_then(|c| c.resolve(g, &lower));
                let same = check.as_ref().is_ok_and(|back| *back == values);
                if !same {
                    let _ = std::fs::remove_file(&dest);
                    return Err(check.err().unwrap_or_else(|| {
                        TbError::corrupt(
                            &dest,
                            "the packed tier does not resolve to the fast file's values (removed)",
                        )
                    }));
                }
                (sizes, false)
            }
        };
        held.insert(t, values);
        walk.keep_read_from(&mut held, k + 1);
        let r = TierPacking {
            tier: t,
            name: g.tier_name(t),
            used,
            fast_bytes: fast_len,
            compact_bytes: sizes,
            kept,
            seconds: t0.elapsed().as_secs_f64(),
        };
        done(&r);
        report.push(r);
    }
    Ok(report)
}

/// Unpack every tier of `g` found in `src` (compact format) into `out`
/// (fast format), calling `done` after each tier.
///
/// # Errors
/// [`TbError::NotSolved`] if `src` holds no compact tier of `g` or lacks
/// one another one depends on; the errors of reading the compact files
/// and writing the fast ones; [`TbError::Corrupt`] if an unpacked file is
/// not the packed original byte for byte (it is removed).
pub fn unpack<G: Game>(
    g: &G,
    src: &Path,
    out: &Path,
    done: &mut dyn FnMut(&TierPacking),
) -> Result<Vec<TierPacking>, TbError> {
    let path_of = |t: TierKey| compact_path(src, g.id(), &g.tier_name(t));
    let walk = plan(
        g,
        |t| path_of(t).exists(),
        |t| TbError::NotSolved {
            path: path_of(t),
            dir: src.to_path_buf(),
            game: g.id().to_string(),
            missing: Missing::Compact {
                name: g.tier_name(t),
            },
        },
    )?;
    let mut held: HashMap<TierKey, Vec<Packed>> = HashMap::new();
    let mut report = Vec::new();
    for (k, &t) in walk.tiers().iter().enumerate() {
        let t0 = Instant::now();
        let c = TierStore::new(g, src).open_compact(t)?;
        let h = c.header().clone();
        let dest: PathBuf = tier_path(out, g.id(), &g.tier_name(t));
        let matches =
            dest.exists() && file_checksum(&dest).is_ok_and(|x| x == (h.fast_len, h.fast_checksum));
        let values = if matches {
            TierFile::open(&dest, g.id(), g.rules_hash(), t)?.read_all()?
        } else {
            let mut lower = TierValues::new();
            for d in g.tier_deps(t) {
                lower.add(d, &held[&d]);
            }
            let values = c.resolve(g, &lower)?;
            let opts = WriteOptions {
                block_size: h.fast_block_size,
                record_write_time: false,
                ..WriteOptions::default()
            };
            write_tier_with(&dest, &h.meta, &values, &opts)?;
            if file_checksum(&dest)? != (h.fast_len, h.fast_checksum) {
                let _ = std::fs::remove_file(&dest);
                return Err(TbError::corrupt(
                    c.path(),
                    "unpacks to a file that is not the packed original (removed)",
                ));
            }
            values
        };
        let used = h.meta.positions - h.meta.stats.unused;
        held.insert(t, values);
        walk.keep_read_from(&mut held, k + 1);
        let r = TierPacking {
            tier: t,
            name: g.tier_name(t),
            used,
            fast_bytes: h.fast_len,
            compact_bytes: c.sizes(),
            kept: matches,
            seconds: t0.elapsed().as_secs_f64(),
        };
        done(&r);
        report.push(r);
    }
    Ok(report)
}
