//! Tablebase files: one file per tier, written atomically, read back by the
//! solver (lower tiers) and probed by `query`, `play` and `report`.
//!
//! INTERIM FORMAT (to be replaced by the compressed format of the tablebase
//! issue, behind the same API): magic `QTB0`, u32 LE header length, JSON
//! header, u64 LE FNV-1a checksum of the header, raw u16 LE packed values,
//! u64 LE FNV-1a checksum of the values.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::{Game, TierKey};
use crate::value::{Packed, Value};

/// Statistics of one solved tier, stored in its header.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct TierStats {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Index slots that hold no position (symmetry reduction).
    pub unused: u64,
    pub max_win: u16,
    pub max_loss: u16,
    pub seconds: f64,
    pub threads: usize,
}

/// Everything the header of a tier file says.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TierMeta {
    pub game: String,
    pub rules_hash: u64,
    pub tier: TierKey,
    pub tier_name: String,
    pub positions: u64,
    pub stats: TierStats,
}

/// A tablebase problem, always naming the file concerned.
#[derive(Debug)]
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

fn err(path: &Path, what: impl Into<String>) -> TbError {
    TbError {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

const MAGIC: &[u8; 4] = b"QTB0";

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// `<dir>/<game>/<tier>.qtb`
pub fn tier_path(dir: &Path, game_id: &str, tier_name: &str) -> PathBuf {
    dir.join(game_id).join(format!("{tier_name}.qtb"))
}

/// Write a tier file atomically (temp file, fsync, rename).
pub fn write_tier(path: &Path, meta: &TierMeta, values: &[Packed]) -> Result<(), TbError> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| err(parent, format!("cannot create directory: {e}")))?;
    }
    let header = serde_json::to_vec(meta).expect("header serialises");
    let mut bytes = Vec::with_capacity(24 + header.len() + values.len() * 2);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&fnv1a(&header).to_le_bytes());
    let start = bytes.len();
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let sum = fnv1a(&bytes[start..]);
    bytes.extend_from_slice(&sum.to_le_bytes());
    let tmp = path.with_extension("qtb.tmp");
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        err(path, format!("cannot write tier file: {e}"))
    })
}

fn read_checked(
    path: &Path,
    game: &str,
    rules_hash: u64,
    tier: TierKey,
) -> Result<(TierMeta, Vec<u8>, usize), TbError> {
    let bytes = fs::read(path).map_err(|e| err(path, format!("cannot read tier file: {e}")))?;
    if bytes.len() < 16 || &bytes[..4] != MAGIC {
        return Err(err(path, "not a qibase tablebase file (bad magic)"));
    }
    let hlen = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    if bytes.len() < 8 + hlen + 8 {
        return Err(err(path, "truncated header"));
    }
    let header = &bytes[8..8 + hlen];
    let sum = u64::from_le_bytes(bytes[8 + hlen..16 + hlen].try_into().unwrap());
    if fnv1a(header) != sum {
        return Err(err(path, "header checksum mismatch (corrupt file)"));
    }
    let meta: TierMeta =
        serde_json::from_slice(header).map_err(|e| err(path, format!("bad header: {e}")))?;
    if meta.game != game {
        return Err(err(
            path,
            format!("file is for game '{}', not '{game}'", meta.game),
        ));
    }
    if meta.rules_hash != rules_hash {
        return Err(err(
            path,
            "file was made for other rules (rules hash differs)",
        ));
    }
    if meta.tier != tier {
        return Err(err(path, "file holds another tier"));
    }
    Ok((meta, bytes, 16 + hlen))
}

/// Read and check a tier's header (a present, valid header means a finished tier).
pub fn read_tier_meta(
    path: &Path,
    game: &str,
    rules_hash: u64,
    tier: TierKey,
) -> Result<TierMeta, TbError> {
    let (meta, bytes, start) = read_checked(path, game, rules_hash, tier)?;
    if bytes.len() != start + meta.positions as usize * 2 + 8 {
        return Err(err(path, "truncated or oversized file"));
    }
    Ok(meta)
}

/// Read a whole tier's packed values, verifying every checksum.
pub fn read_tier_values(
    path: &Path,
    game: &str,
    rules_hash: u64,
    tier: TierKey,
) -> Result<Vec<Packed>, TbError> {
    let (meta, bytes, start) = read_checked(path, game, rules_hash, tier)?;
    let n = meta.positions as usize;
    if bytes.len() != start + n * 2 + 8 {
        return Err(err(path, "truncated or oversized file"));
    }
    let body = &bytes[start..start + n * 2];
    let sum = u64::from_le_bytes(bytes[start + n * 2..].try_into().unwrap());
    if fnv1a(body) != sum {
        return Err(err(path, "value checksum mismatch (corrupt file)"));
    }
    Ok(body
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect())
}

/// Read access to a game's solved tiers, loaded on demand.
pub struct Tablebase<'g, G: Game> {
    game: &'g G,
    dir: PathBuf,
    tiers: std::sync::Mutex<std::collections::HashMap<TierKey, std::sync::Arc<Vec<Packed>>>>,
}

impl<'g, G: Game> Tablebase<'g, G> {
    pub fn open(game: &'g G, dir: &Path) -> Tablebase<'g, G> {
        Tablebase {
            game,
            dir: dir.to_path_buf(),
            tiers: Default::default(),
        }
    }

    pub fn game(&self) -> &'g G {
        self.game
    }

    fn tier(&self, t: TierKey) -> Result<std::sync::Arc<Vec<Packed>>, TbError> {
        let mut map = self.tiers.lock().unwrap();
        if let Some(v) = map.get(&t) {
            return Ok(v.clone());
        }
        let path = tier_path(&self.dir, self.game.id(), &self.game.tier_name(t));
        if !path.exists() {
            return Err(err(
                &path,
                format!(
                    "tier {} is not solved (run `qibase solve {}`)",
                    self.game.tier_name(t),
                    self.game.id()
                ),
            ));
        }
        let v = std::sync::Arc::new(read_tier_values(
            &path,
            self.game.id(),
            self.game.rules_hash(),
            t,
        )?);
        map.insert(t, v.clone());
        Ok(v)
    }

    /// The exact value of `p` (side to move's view).
    pub fn probe(&self, p: &G::Pos) -> Result<Value, TbError> {
        let t = self.game.tier_of(p);
        let table = self.tier(t)?;
        let i = self.game.rank(t, p) as usize;
        let path = tier_path(&self.dir, self.game.id(), &self.game.tier_name(t));
        let packed = *table
            .get(i)
            .ok_or_else(|| err(&path, "index out of range"))?;
        Value::unpack(packed)
            .ok_or_else(|| err(&path, "position has no stored value (corrupt table)"))
    }
}
