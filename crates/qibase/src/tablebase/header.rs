//! Format 5 layout (formats 3 and 4, read for `qibase convert`, have the
//! same layout with other block codings, and format 3 has 4096 index
//! entries per checksum): the fixed preamble, the
//! postcard-encoded header, the block index and the two sections. The byte
//! layout is documented in `docs/tablebase-format.md`; keep the two in step.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::checksum::checksum64;
use super::error::{err, err_kind, TbError, TbErrorKind};
use super::model::{Coding, ModelSpec};
use super::TierMeta;

/// First 8 bytes of every tier file.
pub const MAGIC: [u8; 8] = *b"QIBASETB";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 5;
/// The older versions with the same layout, read only by `qibase convert`
/// (and the development examples).
pub const OLD_LAYOUT_VERSIONS: [u32; 2] = [3, 4];
/// Magic (8) + format version (4) + header body length (4).
pub const PREAMBLE_LEN: usize = 16;
/// Bytes of one block-index entry: WDL offset, WDL checksum, remoteness
/// offset, remoteness checksum (u32 LE each).
pub const INDEX_ENTRY_LEN: usize = 16;
/// Index entries covered by one index checksum (formats 4 and 5). A lookup that
/// first needs a chunk hashes all of it: 512 entries are 8 KiB, where the
/// 4096 of format 3 ([`OLD_INDEX_CHUNK`]) made a short query hash 64 KiB
/// of index for each block it touched in a new part of a tier.
pub const INDEX_CHUNK: usize = 512;
/// Index entries per checksum in format 3.
pub const OLD_INDEX_CHUNK: usize = 4096;
/// Largest header body accepted.
pub const MAX_HEADER_LEN: usize = 1 << 22;

/// The header body (postcard-encoded after the preamble).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Header {
    /// Game, variant, rules hash, tier key and name, slot count, solve stats.
    pub meta: TierMeta,
    /// Slots per block (the last block may be shorter).
    pub block_size: u32,
    /// Number of blocks: `ceil(positions / block_size)`.
    pub blocks: u64,
    /// The static context model (frequency tables) of both sections.
    pub model: ModelSpec,
    /// Bytes of the WDL section.
    pub wdl_len: u64,
    /// Bytes of the remoteness section.
    pub rem_len: u64,
    /// Checksum of each chunk of [`INDEX_CHUNK`] index entries (format 3:
    /// [`OLD_INDEX_CHUNK`]; the last
    /// chunk may be shorter), checked when a lookup first needs the chunk:
    /// opening a large tier reads none of its index.
    pub index_checksums: Vec<u64>,
}

/// One block's index entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlockEntry {
    pub wdl_offset: u32,
    pub wdl_checksum: u32,
    pub rem_offset: u32,
    pub rem_checksum: u32,
}

/// Preamble + header body + header checksum, ready to write.
pub fn encode_header(h: &Header) -> Vec<u8> {
    let body = postcard::to_allocvec(h).expect("header serialises");
    let mut out = Vec::with_capacity(PREAMBLE_LEN + body.len() + 8);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    let sum = checksum64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The checksums of the index chunks.
pub fn index_checksums(index: &[u8]) -> Vec<u64> {
    index
        .chunks(INDEX_CHUNK * INDEX_ENTRY_LEN)
        .map(checksum64)
        .collect()
}

pub fn encode_index(entries: &[BlockEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * INDEX_ENTRY_LEN);
    for e in entries {
        for x in [e.wdl_offset, e.wdl_checksum, e.rem_offset, e.rem_checksum] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().unwrap())
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

/// A parsed and checked file layout: where everything is.
#[derive(Debug, Clone)]
pub struct Layout {
    pub header: Header,
    /// Byte offset of the block index in the file (entries are read from
    /// the mapped file when needed: opening a tier parses no index).
    pub index_start: usize,
    /// Byte offset of the WDL section (the remoteness section follows it).
    pub data_start: usize,
    /// How the blocks are coded (the file's format version).
    pub coding: Coding,
    /// Index entries per index checksum.
    pub index_chunk: usize,
}

/// The format version field of a file that starts with the magic.
pub fn version_of(bytes: &[u8]) -> Option<u32> {
    (bytes.len() >= 12 && bytes[..8] == MAGIC).then(|| le_u32(&bytes[8..]))
}

/// Parse and check everything except the index and the block data: magic,
/// version, header checksum, header fields and the file length. Cheap:
/// reads the header only. Only the current version is accepted; an older
/// one is a `Foreign` error naming `qibase convert`.
pub fn parse_layout(path: &Path, bytes: &[u8]) -> Result<Layout, TbError> {
    parse_layout_of(path, bytes, false)
}

/// [`parse_layout`], also accepting formats 3 and 4 (for `qibase convert`).
pub fn parse_layout_with_old(path: &Path, bytes: &[u8]) -> Result<Layout, TbError> {
    parse_layout_of(path, bytes, true)
}

/// The one-line refusal of an older format.
fn old_format(path: &Path, version: u32, game: &str) -> TbError {
    err_kind(
        TbErrorKind::Foreign,
        path,
        format!(
            "tablebase format version {version} (an older qibase); this qibase reads version \
             {FORMAT_VERSION}: `qibase convert {game}` rewrites it without solving again"
        ),
    )
}

fn parse_layout_of(path: &Path, bytes: &[u8], allow_old: bool) -> Result<Layout, TbError> {
    let n = bytes.len().min(8);
    if bytes[..n] != MAGIC[..n] {
        return Err(err(path, "not a qibase tablebase file (bad magic)"));
    }
    if bytes.len() < PREAMBLE_LEN {
        return Err(err(
            path,
            format!("truncated file ({} bytes, no complete header)", bytes.len()),
        ));
    }
    let version = le_u32(&bytes[8..]);
    if version == super::v2::header::FORMAT_VERSION {
        let game = super::v2::header::parse_layout(path, bytes)
            .map(|l| l.header.meta.game)
            .unwrap_or_else(|_| "GAME".into());
        return Err(old_format(path, version, &game));
    }
    if version != FORMAT_VERSION && !OLD_LAYOUT_VERSIONS.contains(&version) {
        return Err(err_kind(
            TbErrorKind::Foreign,
            path,
            format!(
                "tablebase format version {version}, but this qibase reads version \
                 {FORMAT_VERSION} (solve again with this qibase)"
            ),
        ));
    }
    let hlen = le_u32(&bytes[12..]) as usize;
    if hlen > MAX_HEADER_LEN {
        return Err(err(
            path,
            format!("corrupt header (header length {hlen} is implausible)"),
        ));
    }
    let hend = PREAMBLE_LEN + hlen;
    if bytes.len() < hend + 8 {
        return Err(err(
            path,
            format!(
                "truncated file ({} bytes, header needs {})",
                bytes.len(),
                hend + 8
            ),
        ));
    }
    if checksum64(&bytes[..hend]) != le_u64(&bytes[hend..]) {
        return Err(err(path, "corrupt header (header checksum mismatch)"));
    }
    let header: Header = postcard::from_bytes(&bytes[PREAMBLE_LEN..hend])
        .map_err(|e| err(path, format!("corrupt header (cannot decode: {e})")))?;
    if OLD_LAYOUT_VERSIONS.contains(&version) && !allow_old {
        return Err(old_format(path, version, &header.meta.game));
    }
    let coding = Coding::for_version(version).expect("a version with a coding");
    let m = &header.meta;
    if header.block_size == 0 {
        return Err(err(path, "corrupt header (block size 0)"));
    }
    let want_blocks = m.positions.div_ceil(header.block_size as u64);
    if header.blocks != want_blocks {
        return Err(err(
            path,
            format!(
                "corrupt header ({} blocks for {} positions of {} per block)",
                header.blocks, m.positions, header.block_size
            ),
        ));
    }
    if header.wdl_len > u32::MAX as u64 || header.rem_len > u32::MAX as u64 {
        return Err(err(path, "corrupt header (section longer than 4 GiB)"));
    }
    let index_start = hend + 8;
    let index_len = (header.blocks as usize)
        .checked_mul(INDEX_ENTRY_LEN)
        .ok_or_else(|| err(path, "corrupt header (block count overflows)"))?;
    let data_start = index_start + index_len;
    let total = (data_start as u64)
        .saturating_add(header.wdl_len)
        .saturating_add(header.rem_len);
    if (bytes.len() as u64) < total {
        return Err(err(
            path,
            format!(
                "truncated file ({} bytes, the header says {total})",
                bytes.len()
            ),
        ));
    }
    if (bytes.len() as u64) > total {
        return Err(err(
            path,
            format!(
                "oversized file ({} bytes, the header says {total}): trailing garbage",
                bytes.len()
            ),
        ));
    }
    let index_chunk = match coding {
        Coding::V3 => OLD_INDEX_CHUNK,
        Coding::V4 | Coding::V5 => INDEX_CHUNK,
    };
    if header.index_checksums.len() != (header.blocks as usize).div_ceil(index_chunk) {
        return Err(err(
            path,
            "corrupt header (wrong number of index checksums)",
        ));
    }
    Ok(Layout {
        header,
        index_start,
        data_start,
        coding,
        index_chunk,
    })
}

impl Layout {
    /// Block `b`'s index entry, read from the file's bytes.
    pub fn entry(&self, bytes: &[u8], b: usize) -> BlockEntry {
        let c = &bytes[self.index_start + b * INDEX_ENTRY_LEN..][..INDEX_ENTRY_LEN];
        BlockEntry {
            wdl_offset: le_u32(c),
            wdl_checksum: le_u32(&c[4..]),
            rem_offset: le_u32(&c[8..]),
            rem_checksum: le_u32(&c[12..]),
        }
    }

    /// The byte range of block `b`'s WDL stream inside the file (`None`
    /// if the index's offsets are out of order).
    pub fn wdl_range(&self, bytes: &[u8], b: usize) -> Option<std::ops::Range<usize>> {
        let start = self.entry(bytes, b).wdl_offset as u64;
        let end = if b + 1 < self.header.blocks as usize {
            self.entry(bytes, b + 1).wdl_offset as u64
        } else {
            self.header.wdl_len
        };
        (start <= end && end <= self.header.wdl_len)
            .then(|| self.data_start + start as usize..self.data_start + end as usize)
    }

    /// The byte range of block `b`'s remoteness stream inside the file.
    pub fn rem_range(&self, bytes: &[u8], b: usize) -> Option<std::ops::Range<usize>> {
        let base = self.data_start + self.header.wdl_len as usize;
        let start = self.entry(bytes, b).rem_offset as u64;
        let end = if b + 1 < self.header.blocks as usize {
            self.entry(bytes, b + 1).rem_offset as u64
        } else {
            self.header.rem_len
        };
        (start <= end && end <= self.header.rem_len)
            .then(|| base + start as usize..base + end as usize)
    }

    /// The bytes of index chunk `c` and their expected checksum.
    pub fn index_chunk<'a>(&self, bytes: &'a [u8], c: usize) -> (&'a [u8], u64) {
        let start = self.index_start + c * self.index_chunk * INDEX_ENTRY_LEN;
        let end = (start + self.index_chunk * INDEX_ENTRY_LEN).min(self.data_start);
        (&bytes[start..end], self.header.index_checksums[c])
    }

    /// Number of slots in block `b`.
    pub fn block_len(&self, b: usize) -> usize {
        let bs = self.header.block_size as u64;
        let start = b as u64 * bs;
        (self.header.meta.positions - start).min(bs) as usize
    }

    /// Bytes of the header (preamble, body, checksum) and of the index.
    pub fn overhead(&self) -> (u64, u64) {
        (
            self.index_start as u64,
            (self.data_start - self.index_start) as u64,
        )
    }
}
