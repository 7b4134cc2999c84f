//! A compact tier file's bytes: layout, header, writing and reading.
//!
//! ```text
//! preamble   magic "QIBASECT", version (u32 LE), header length (u32 LE)
//! header     postcard CompactHeader, then its xxh3-64 (u64 LE; covers
//!            the preamble and the header)
//! WDL part   index: per block, offset (u64 LE) and xxh3 low 32 bits
//!            (u32 LE) of its stream; then the blocks' WDL streams
//! rem part   the same for the remoteness streams
//! ```
//!
//! The two parts follow each other so that a reader that needs only WDL
//! values reads one contiguous part of the file. Both indexes are read and
//! checked (against the header's checksums) when the file is opened; each
//! block's checksum when the block is read.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::game::TierKey;
use crate::sys::guarded_map::GuardedMap;
use crate::tablebase::codec::{ModelSpec, TierModel};
use crate::tablebase::file::checksum::{checksum32, checksum64};
use crate::tablebase::{TbError, TierMeta};

/// First 8 bytes of every compact tier file.
pub const COMPACT_MAGIC: [u8; 8] = *b"QIBASECT";
/// The compact format version this build writes and reads.
///
/// 2: a position with no legal move stores its loss exactly (in 1 its
/// slot was free), so that readers cut on the stored value before they
/// generate moves; a reader of 2 would misread 1's files.
pub const COMPACT_VERSION: u32 = 2;
/// Magic, version, header length.
const PREAMBLE_LEN: usize = 16;
/// Offset (u64) and checksum (u32) of one block's stream.
const ENTRY_LEN: usize = 12;
/// Largest header body accepted.
const MAX_HEADER_LEN: usize = 1 << 22;

/// The header of a compact tier file.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CompactHeader {
    /// The packed tier's header in the fast format (game, rules, tier,
    /// slots, solve statistics), written back as it was by `unpack`.
    pub meta: TierMeta,
    /// The fast file's slots per block.
    pub fast_block_size: u32,
    /// The fast file's length and xxh3-64: `unpack` must give back these
    /// very bytes.
    pub fast_len: u64,
    /// See [`CompactHeader::fast_len`].
    pub fast_checksum: u64,
    /// Slots per block of both parts.
    pub block_size: u32,
    /// `ceil(slots / block_size)`.
    pub blocks: u64,
    /// The half of the tier whose remoteness is kept (`Tiers::slot_half`);
    /// `None`: every slot's.
    pub kept_half: Option<bool>,
    /// The WDL part's context model.
    pub model: ModelSpec,
    /// Bytes of the WDL streams and of the remoteness streams.
    pub wdl_len: u64,
    /// See [`CompactHeader::wdl_len`].
    pub rem_len: u64,
    /// xxh3-64 of the WDL index and of the remoteness index.
    pub index_checksums: [u64; 2],
}

/// The encoded streams of a tier, ready to write.
pub struct CompactEncoded {
    /// The header.
    pub header: CompactHeader,
    /// Each block's WDL stream.
    pub wdl: Vec<Vec<u8>>,
    /// Each block's remoteness stream.
    pub rem: Vec<Vec<u8>>,
}

/// The index of a part: each block's offset and checksum.
fn index_of(streams: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(streams.len() * ENTRY_LEN);
    let mut off = 0u64;
    for s in streams {
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&checksum32(s).to_le_bytes());
        off += s.len() as u64;
    }
    out
}

impl CompactEncoded {
    /// The streams with their header (lengths and index checksums filled in).
    pub fn new(mut header: CompactHeader, wdl: Vec<Vec<u8>>, rem: Vec<Vec<u8>>) -> Self {
        header.wdl_len = wdl.iter().map(|s| s.len() as u64).sum();
        header.rem_len = rem.iter().map(|s| s.len() as u64).sum();
        header.index_checksums = [checksum64(&index_of(&wdl)), checksum64(&index_of(&rem))];
        CompactEncoded { header, wdl, rem }
    }

    /// Preamble, header and header checksum.
    fn head(&self) -> Vec<u8> {
        let body = postcard::to_allocvec(&self.header).expect("header serialises");
        let mut out = Vec::with_capacity(PREAMBLE_LEN + body.len() + 8);
        out.extend_from_slice(&COMPACT_MAGIC);
        out.extend_from_slice(&COMPACT_VERSION.to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
        let sum = checksum64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Write the file atomically (temp file, fsync, rename); returns the
    /// bytes of (header, WDL part, remoteness part).
    ///
    /// # Errors
    /// [`TbError::Io`] if it cannot be written; no temporary file is left.
    pub fn write(&self, path: &Path) -> Result<[u64; 3], TbError> {
        let head = self.head();
        let (wi, ri) = (index_of(&self.wdl), index_of(&self.rem));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| TbError::io(parent, "cannot create directory", e))?;
        }
        let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
        tmp_name.push(format!(".{}.tmp", std::process::id()));
        let tmp = path.with_file_name(tmp_name);
        let write = || -> std::io::Result<()> {
            let mut w = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
            w.write_all(&head)?;
            w.write_all(&wi)?;
            for s in &self.wdl {
                w.write_all(s)?;
            }
            w.write_all(&ri)?;
            for s in &self.rem {
                w.write_all(s)?;
            }
            let f = w.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
            drop(f);
            std::fs::rename(&tmp, path)?;
            if let Some(d) = path.parent().and_then(|p| File::open(p).ok()) {
                let _ = d.sync_all();
            }
            Ok(())
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            TbError::io(path, "cannot write compact tier file", e)
        })?;
        Ok([
            head.len() as u64,
            wi.len() as u64 + self.header.wdl_len,
            ri.len() as u64 + self.header.rem_len,
        ])
    }
}

/// `<dir>/<game>/<tier>.qtc`, beside where the fast file would be.
pub fn compact_path(dir: &Path, game_id: &str, tier_name: &str) -> PathBuf {
    crate::tablebase::game_dir(dir, game_id).join(format!("{tier_name}.qtc"))
}

/// An open compact tier file: header and both indexes checked and held,
/// blocks read on demand.
pub struct CompactFile {
    path: PathBuf,
    file: File,
    header: CompactHeader,
    model: TierModel,
    /// Per part (WDL, remoteness): where its streams start in the file,
    /// and each block's (offset, checksum), plus the end.
    parts: [(u64, Vec<(u64, u32)>); 2],
    /// Bytes of header, WDL part, remoteness part.
    sizes: [u64; 3],
    /// The file mapped, when it can be guarded: lookups read the streams
    /// in place (positional reads cost a cold lookup a system call, a
    /// copy and an allocation per block read: measured about 40 % of a
    /// compact lookup).
    map: Option<GuardedMap>,
    /// With a map: per part, one bit per block whose checksum has been
    /// checked. The map is read-only and qibase replaces a table file only
    /// by renaming a new one over it, so the bytes of a checked block stay
    /// as they were (a file shortened under the map is caught by its
    /// guard); checking a whole 8,192-slot stream on every lookup was a
    /// quarter of a cold lookup's time.
    checked: [Box<[AtomicU64]>; 2],
    /// This open file's part of the block cache's keys (shared with the
    /// fast files' numbering, so no two open files share a key).
    id: u64,
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

impl CompactFile {
    /// Open and check a compact tier file of `game` (rules hash
    /// `rules_hash`) holding tier `tier`.
    ///
    /// # Errors
    /// [`TbError::Io`] if it cannot be read; [`TbError::Corrupt`] for bad
    /// magic, a damaged header or index, or a wrong length;
    /// [`TbError::Version`] for another compact format version;
    /// [`TbError::Foreign`] for another game, rules or tier.
    pub fn open(
        path: &Path,
        game: &str,
        rules_hash: u64,
        tier: TierKey,
    ) -> Result<CompactFile, TbError> {
        let file =
            File::open(path).map_err(|e| TbError::io(path, "cannot open compact tier file", e))?;
        let len = file
            .metadata()
            .map_err(|e| TbError::io(path, "cannot read compact tier file", e))?
            .len();
        let corrupt = |what: String| TbError::corrupt(path, what);
        let read = |at: u64, n: u64| -> Result<Vec<u8>, TbError> {
            if at.saturating_add(n) > len {
                return Err(corrupt(format!(
                    "truncated file ({len} bytes, needs at least {})",
                    at.saturating_add(n)
                )));
            }
            let mut buf = vec![0; n as usize];
            file.read_exact_at(&mut buf, at)
                .map_err(|e| TbError::io(path, "cannot read compact tier file", e))?;
            Ok(buf)
        };
        let pre = read(0, (PREAMBLE_LEN as u64).min(len))?;
        if pre.len() < 8 || pre[..8] != COMPACT_MAGIC {
            return Err(corrupt(
                "not a qibase compact tablebase file (bad magic)".into(),
            ));
        }
        if pre.len() < PREAMBLE_LEN {
            return Err(corrupt(format!("truncated file ({len} bytes)")));
        }
        let version = le_u32(&pre[8..]);
        if version != COMPACT_VERSION {
            return Err(TbError::Version {
                path: path.to_path_buf(),
                found: version,
                expected: COMPACT_VERSION,
                game: game.to_string(),
                compact: true,
            });
        }
        let hlen = le_u32(&pre[12..]) as usize;
        if hlen > MAX_HEADER_LEN {
            return Err(corrupt(format!(
                "corrupt header (header length {hlen} is implausible)"
            )));
        }
        let head = read(0, (PREAMBLE_LEN + hlen + 8) as u64)?;
        let hend = PREAMBLE_LEN + hlen;
        if checksum64(&head[..hend]) != le_u64(&head[hend..]) {
            return Err(corrupt("corrupt header (header checksum mismatch)".into()));
        }
        let header: CompactHeader = postcard::from_bytes(&head[PREAMBLE_LEN..hend])
            .map_err(|e| corrupt(format!("corrupt header (cannot decode: {e})")))?;
        header
            .meta
            .check(path, game, rules_hash, tier, None, true)?;
        let bad = |what: &str| corrupt(format!("corrupt header ({what})"));
        if header.block_size == 0
            || header.blocks != header.meta.positions.div_ceil(header.block_size as u64)
        {
            return Err(bad("block count"));
        }
        let model = TierModel::new(&header.model).map_err(|e| bad(&format!("{e:?}")))?;
        let index_len = header
            .blocks
            .checked_mul(ENTRY_LEN as u64)
            .ok_or_else(|| bad("block count overflows"))?;
        let mut at = hend as u64 + 8;
        let mut parts: [(u64, Vec<(u64, u32)>); 2] = [(0, Vec::new()), (0, Vec::new())];
        for (k, (name, data_len)) in [("WDL", header.wdl_len), ("remoteness", header.rem_len)]
            .into_iter()
            .enumerate()
        {
            let idx = read(at, index_len)?;
            if checksum64(&idx) != header.index_checksums[k] {
                return Err(corrupt(format!("corrupt {name} index (checksum mismatch)")));
            }
            let mut entries: Vec<(u64, u32)> = idx
                .chunks_exact(ENTRY_LEN)
                .map(|c| (le_u64(c), le_u32(&c[8..])))
                .collect();
            entries.push((data_len, 0));
            if entries.windows(2).any(|w| w[0].0 > w[1].0) {
                return Err(corrupt(format!(
                    "corrupt {name} index (offsets out of order)"
                )));
            }
            at = at.saturating_add(index_len);
            parts[k] = (at, entries);
            at = at.saturating_add(data_len);
        }
        if len != at {
            return Err(corrupt(format!(
                "{} file ({len} bytes, the header says {at})",
                if len < at { "truncated" } else { "oversized" }
            )));
        }
        let sizes = [
            hend as u64 + 8,
            index_len + header.wdl_len,
            index_len + header.rem_len,
        ];
        let map = GuardedMap::new(&file, len)
            .map_err(|e| TbError::io(path, "cannot map compact tier file", e))?;
        let checked = std::array::from_fn(|_| {
            (0..header.blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect()
        });
        Ok(CompactFile {
            path: path.to_path_buf(),
            file,
            header,
            model,
            parts,
            sizes,
            map,
            checked,
            id: crate::tablebase::file::reader::next_file_id(),
        })
    }

    /// The header.
    pub fn header(&self) -> &CompactHeader {
        &self.header
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes of the header, the WDL part and the remoteness part.
    pub fn sizes(&self) -> [u64; 3] {
        self.sizes
    }

    /// This open file's number among the block cache's keys.
    pub(crate) fn cache_id(&self) -> u64 {
        self.id
    }

    /// The WDL coding model.
    pub(crate) fn model(&self) -> &TierModel {
        &self.model
    }

    /// Slots in block `b`.
    pub(crate) fn block_len(&self, b: usize) -> usize {
        let bs = self.header.block_size as u64;
        (self.header.meta.positions - b as u64 * bs).min(bs) as usize
    }

    /// Block `b`'s stream of part `k` (0 WDL, 1 remoteness), checksum
    /// checked.
    pub(crate) fn stream(&self, k: usize, b: usize) -> Result<Cow<'_, [u8]>, TbError> {
        let (start, entries) = &self.parts[k];
        let (off, sum) = entries[b];
        let n = entries[b + 1].0 - off;
        let at = (start + off) as usize..(start + off + n) as usize;
        let truncated = || self.corrupt(b, "file truncated while open");
        let bit = 1u64 << (b % 64);
        let bytes = match &self.map {
            Some(map) => {
                let bytes = map.bytes().get(at).ok_or_else(truncated)?;
                if self.checked[k][b / 64].load(Ordering::Relaxed) & bit != 0 {
                    return Ok(Cow::Borrowed(bytes));
                }
                Cow::Borrowed(bytes)
            }
            None => {
                let mut buf = vec![0; n as usize];
                self.file
                    .read_exact_at(&mut buf, start + off)
                    .map_err(|e| match e.kind() {
                        std::io::ErrorKind::UnexpectedEof => truncated(),
                        _ => TbError::io(&self.path, "cannot read compact tier file", e),
                    })?;
                Cow::Owned(buf)
            }
        };
        // A page that vanished under the map reads as zeros: the checksum
        // most likely fails, and the map's guard tells for sure.
        if checksum32(&bytes) != sum || self.map.as_ref().is_some_and(GuardedMap::damaged) {
            let part = ["WDL", "remoteness"][k];
            return Err(self.corrupt(b, &format!("{part} block checksum mismatch")));
        }
        if self.map.is_some() {
            self.checked[k][b / 64].fetch_or(bit, Ordering::Relaxed);
        }
        Ok(bytes)
    }

    /// A corrupt-block error naming block `b`.
    pub(crate) fn corrupt(&self, b: usize, what: &str) -> TbError {
        TbError::corrupt(&self.path, format!("corrupt block {b} ({what})"))
    }
}
