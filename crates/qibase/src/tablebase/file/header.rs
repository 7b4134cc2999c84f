//! The file's layout: the fixed preamble, the postcard-encoded header
//! with its checksum, the block index and the two sections. The byte
//! layout is documented in `docs/tablebase-format.md`; keep the two in
//! step.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::checksum::checksum64;
use crate::tablebase::codec::ModelSpec;
use crate::tablebase::{TbError, TierMeta};

/// First 8 bytes of every tier file.
pub const MAGIC: [u8; 8] = *b"QIBASETB";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 5;
/// The same format for a tier whose WDL or remoteness section passes
/// 4 GiB, which the index's 32-bit offsets cannot address alone: the
/// header body is followed by the full 64-bit offsets of the first block
/// of each index chunk ([`Layout::chunk_bases`]), and each entry's 32-bit
/// offsets are the low bits of its full ones. Written only where needed,
/// so every tier of up to 4 GiB sections keeps format 5's bytes, and a
/// build that predates it refuses such a file with a version error
/// instead of reading wrong offsets.
pub const WIDE_FORMAT_VERSION: u32 = 6;
/// Magic (8) + format version (4) + header body length (4).
pub const PREAMBLE_LEN: usize = 16;
/// Bytes of one block-index entry: WDL offset, WDL checksum, remoteness
/// offset, remoteness checksum (u32 LE each).
pub const INDEX_ENTRY_LEN: usize = 16;
/// Index entries covered by one index checksum. A lookup that first needs
/// a chunk reads and hashes all of it: 512 entries are 8 KiB (format 3's
/// 4096 made a short query hash 64 KiB of index for each block it touched
/// in a new part of a tier).
pub const INDEX_CHUNK: usize = 512;
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
    /// The static WDL context model (quad frequencies).
    pub model: ModelSpec,
    /// Bytes of the WDL section.
    pub wdl_len: u64,
    /// Bytes of the remoteness section.
    pub rem_len: u64,
    /// Checksum of each chunk of [`INDEX_CHUNK`] index entries (the last
    /// chunk may be shorter), checked when a lookup first needs the chunk:
    /// opening a large tier reads none of its index.
    pub index_checksums: Vec<u64>,
}

// For the identity checks of the tools and tests that see the internals.
#[cfg(feature = "internals")]
impl Header {
    /// The header with what it records about the run that wrote it
    /// (seconds, threads, peak memory) zeroed: what two solves of one tier
    /// must agree on.
    pub fn without_run_figures(mut self) -> Header {
        let s = &mut self.meta.stats;
        s.seconds = 0.0;
        s.threads = 0;
        s.peak_rss = 0;
        s.init_seconds = 0.0;
        s.propagate_seconds = 0.0;
        s.write_seconds = 0.0;
        self
    }
}

/// One block's index entry: where its two streams start in their
/// sections, and their checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlockEntry {
    /// Offset of the block's WDL stream in the WDL section.
    pub wdl_offset: u32,
    /// Low 32 bits of the xxh3-64 of the WDL stream.
    pub wdl_checksum: u32,
    /// Offset of the block's remoteness stream in the remoteness section.
    pub rem_offset: u32,
    /// Low 32 bits of the xxh3-64 of the remoteness stream.
    pub rem_checksum: u32,
}

/// Preamble + header body + header checksum, ready to write: format 5,
/// or with `chunk_bases` (not empty) [`WIDE_FORMAT_VERSION`].
pub fn encode_header(h: &Header, chunk_bases: &[[u64; 2]]) -> Vec<u8> {
    let mut body = postcard::to_allocvec(h).expect("header serialises");
    let version = if chunk_bases.is_empty() {
        FORMAT_VERSION
    } else {
        body.extend(postcard::to_allocvec(chunk_bases).expect("bases serialise"));
        WIDE_FORMAT_VERSION
    };
    let mut out = Vec::with_capacity(PREAMBLE_LEN + body.len() + 8);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
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

/// The block index's bytes.
pub fn encode_index(entries: &[BlockEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * INDEX_ENTRY_LEN);
    for e in entries {
        for x in [e.wdl_offset, e.wdl_checksum, e.rem_offset, e.rem_checksum] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

impl BlockEntry {
    /// The entry in the first [`INDEX_ENTRY_LEN`] bytes of `c`.
    #[inline]
    pub fn parse(c: &[u8]) -> BlockEntry {
        BlockEntry {
            wdl_offset: le_u32(c),
            wdl_checksum: le_u32(&c[4..]),
            rem_offset: le_u32(&c[8..]),
            rem_checksum: le_u32(&c[12..]),
        }
    }
}

/// The entries of index bytes (whole entries only).
pub fn decode_index(bytes: &[u8]) -> Vec<BlockEntry> {
    bytes
        .chunks_exact(INDEX_ENTRY_LEN)
        .map(BlockEntry::parse)
        .collect()
}

#[inline]
fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// What the preamble says: the header body's length and the format
/// version (5 or [`WIDE_FORMAT_VERSION`]), the magic checked.
///
/// `start` holds the file's first bytes (up to [`PREAMBLE_LEN`]; fewer
/// only if the file is shorter); `game` is the game the file is opened
/// for (named in a version error's advice).
///
/// # Errors
/// [`TbError::Corrupt`] for a bad magic or a file shorter than the
/// preamble, [`TbError::Version`] for another format version,
/// [`TbError::Corrupt`] for an implausible header length.
pub fn parse_preamble(path: &Path, start: &[u8], game: &str) -> Result<(usize, u32), TbError> {
    let n = start.len().min(8);
    if start[..n] != MAGIC[..n] {
        return Err(TbError::corrupt(
            path,
            "not a qibase tablebase file (bad magic)",
        ));
    }
    if start.len() < PREAMBLE_LEN {
        return Err(TbError::corrupt(
            path,
            format!("truncated file ({} bytes, no complete header)", start.len()),
        ));
    }
    let version = le_u32(&start[8..]);
    if version != FORMAT_VERSION && version != WIDE_FORMAT_VERSION {
        return Err(TbError::Version {
            path: path.to_path_buf(),
            found: version,
            expected: WIDE_FORMAT_VERSION,
            game: game.to_string(),
            compact: false,
        });
    }
    let hlen = le_u32(&start[12..]) as usize;
    if hlen > MAX_HEADER_LEN {
        return Err(TbError::corrupt(
            path,
            format!("corrupt header (header length {hlen} is implausible)"),
        ));
    }
    Ok((hlen, version))
}

/// Bytes from the file's start to the end of the header checksum, for a
/// header body of `hlen` bytes.
pub fn head_len(hlen: usize) -> usize {
    PREAMBLE_LEN + hlen + 8
}

/// A parsed and checked file layout: where everything is.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The decoded header.
    pub header: Header,
    /// Byte offset of the block index in the file.
    pub index_start: u64,
    /// Byte offset of the WDL section (the remoteness section follows it).
    pub data_start: u64,
    /// Format 6 only (empty in format 5): the full offsets (WDL,
    /// remoteness) of the first block of each index chunk in their
    /// sections. An entry's 32-bit offsets are the low bits of its full
    /// ones, which lie less than 4 GiB past its chunk's base.
    pub chunk_bases: Vec<[u64; 2]>,
}

impl Layout {
    /// Parse and check everything but the index and the blocks: magic,
    /// version, header checksum, header fields, and that the file is
    /// exactly as long as the header says. `head` holds at least the
    /// file's first [`head_len`] bytes (all of them if it is shorter);
    /// `file_len` is the file's length.
    ///
    /// # Errors
    /// As [`parse_preamble`]; [`TbError::Corrupt`] for a damaged header or
    /// a file of the wrong length.
    pub fn parse(path: &Path, head: &[u8], file_len: u64, game: &str) -> Result<Layout, TbError> {
        let (hlen, version) = parse_preamble(path, &head[..head.len().min(PREAMBLE_LEN)], game)?;
        let hend = PREAMBLE_LEN + hlen;
        if head.len() < hend + 8 {
            return Err(TbError::corrupt(
                path,
                format!(
                    "truncated file ({file_len} bytes, header needs {})",
                    hend + 8
                ),
            ));
        }
        if checksum64(&head[..hend]) != le_u64(&head[hend..]) {
            return Err(TbError::corrupt(
                path,
                "corrupt header (header checksum mismatch)",
            ));
        }
        let undecodable = |e: postcard::Error| {
            TbError::corrupt(path, format!("corrupt header (cannot decode: {e})"))
        };
        let (header, rest): (Header, &[u8]) =
            postcard::take_from_bytes(&head[PREAMBLE_LEN..hend]).map_err(undecodable)?;
        let chunk_bases: Vec<[u64; 2]> = if version == WIDE_FORMAT_VERSION {
            postcard::from_bytes(rest).map_err(undecodable)?
        } else {
            Vec::new()
        };
        let bad = |what: &str| TbError::corrupt(path, format!("corrupt header ({what})"));
        let m = &header.meta;
        if header.block_size == 0 {
            return Err(bad("block size 0"));
        }
        if header.blocks != m.positions.div_ceil(header.block_size as u64) {
            return Err(bad(&format!(
                "{} blocks for {} positions of {} per block",
                header.blocks, m.positions, header.block_size
            )));
        }
        let chunks = header.blocks.div_ceil(INDEX_CHUNK as u64);
        if version == FORMAT_VERSION {
            if header.wdl_len > u32::MAX as u64 || header.rem_len > u32::MAX as u64 {
                return Err(bad("section longer than 4 GiB"));
            }
        } else {
            let in_order = chunk_bases
                .windows(2)
                .all(|w| w[0][0] <= w[1][0] && w[0][1] <= w[1][1]);
            let inside = chunk_bases
                .last()
                .is_none_or(|b| b[0] <= header.wdl_len && b[1] <= header.rem_len);
            if chunk_bases.len() as u64 != chunks || !in_order || !inside {
                return Err(bad("wrong index chunk offsets"));
            }
        }
        let index_start = (hend + 8) as u64;
        let index_len = header
            .blocks
            .checked_mul(INDEX_ENTRY_LEN as u64)
            .ok_or_else(|| bad("block count overflows"))?;
        let data_start = index_start.saturating_add(index_len);
        let total = data_start
            .saturating_add(header.wdl_len)
            .saturating_add(header.rem_len);
        if file_len < total {
            return Err(TbError::corrupt(
                path,
                format!("truncated file ({file_len} bytes, the header says {total})"),
            ));
        }
        if file_len > total {
            return Err(TbError::corrupt(
                path,
                format!(
                    "oversized file ({file_len} bytes, the header says {total}): trailing garbage"
                ),
            ));
        }
        if header.index_checksums.len() as u64 != chunks {
            return Err(bad("wrong number of index checksums"));
        }
        Ok(Layout {
            header,
            index_start,
            data_start,
            chunk_bases,
        })
    }

    /// Block `b`'s full offsets (WDL, remoteness) in their sections, from
    /// its index entry `e`.
    #[inline]
    pub fn offsets(&self, b: usize, e: &BlockEntry) -> (u64, u64) {
        match self.chunk_bases.get(b / INDEX_CHUNK) {
            None => (e.wdl_offset as u64, e.rem_offset as u64),
            Some(&[w, r]) => (widen(w, e.wdl_offset), widen(r, e.rem_offset)),
        }
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.header.blocks as usize
    }

    /// Number of slots in block `b`.
    pub fn block_len(&self, b: usize) -> usize {
        let bs = self.header.block_size as u64;
        let start = b as u64 * bs;
        (self.header.meta.positions - start).min(bs) as usize
    }

    /// The file offset and byte length of index chunk `c`.
    pub fn index_chunk_span(&self, c: usize) -> (u64, usize) {
        let first = c * INDEX_CHUNK;
        let entries = INDEX_CHUNK.min(self.blocks() - first);
        (
            self.index_start + (first * INDEX_ENTRY_LEN) as u64,
            entries * INDEX_ENTRY_LEN,
        )
    }

    /// Offset of the remoteness section in the file.
    pub fn rem_start(&self) -> u64 {
        self.data_start + self.header.wdl_len
    }

    /// Bytes of the header (preamble, body, checksum) and of the index.
    pub fn overhead(&self) -> (u64, u64) {
        (self.index_start, self.data_start - self.index_start)
    }

    /// Block `b`'s index entry, read from the whole file's bytes (for
    /// tools that hold the file in memory; a [`TierFile`](super::reader::TierFile)
    /// reads its index in checked chunks).
    #[cfg(feature = "internals")]
    pub fn entry(&self, bytes: &[u8], b: usize) -> BlockEntry {
        let at = self.index_start as usize + b * INDEX_ENTRY_LEN;
        BlockEntry::parse(&bytes[at..at + INDEX_ENTRY_LEN])
    }

    /// The byte range of block `b`'s WDL stream in the whole file's bytes
    /// (`None` if the index's offsets are out of order).
    #[cfg(feature = "internals")]
    pub fn wdl_range(&self, bytes: &[u8], b: usize) -> Option<std::ops::Range<usize>> {
        let next = (b + 1 < self.blocks()).then(|| self.entry(bytes, b + 1));
        stream_ranges(self, b, &self.entry(bytes, b), next.as_ref())
            .map(|(w, _)| w.start as usize..w.end as usize)
    }

    /// The byte range of block `b`'s remoteness stream in the whole
    /// file's bytes (`None` if the index's offsets are out of order).
    #[cfg(feature = "internals")]
    pub fn rem_range(&self, bytes: &[u8], b: usize) -> Option<std::ops::Range<usize>> {
        let next = (b + 1 < self.blocks()).then(|| self.entry(bytes, b + 1));
        stream_ranges(self, b, &self.entry(bytes, b), next.as_ref())
            .map(|(_, r)| r.start as usize..r.end as usize)
    }
}

/// The full offset whose low 32 bits are `low`, at or less than 4 GiB
/// past `base`.
#[inline]
fn widen(base: u64, low: u32) -> u64 {
    base + low.wrapping_sub(base as u32) as u64
}

/// The file ranges of block `b`'s two streams, from its index entry and
/// the next block's (`None` for the last block): `None` if the offsets
/// are out of order or outside their sections.
#[inline]
pub fn stream_ranges(
    layout: &Layout,
    b: usize,
    e: &BlockEntry,
    next: Option<&BlockEntry>,
) -> Option<(std::ops::Range<u64>, std::ops::Range<u64>)> {
    let h = &layout.header;
    let (w0, r0) = layout.offsets(b, e);
    let (w1, r1) = match next {
        Some(n) => layout.offsets(b + 1, n),
        None => (h.wdl_len, h.rem_len),
    };
    if w0 > w1 || w1 > h.wdl_len || r0 > r1 || r1 > h.rem_len {
        return None;
    }
    let (ws, rs) = (layout.data_start, layout.rem_start());
    Some((ws + w0..ws + w1, rs + r0..rs + r1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Format 6's entries keep the low 32 bits of offsets past 4 GiB; the
    /// chunk's base gives back the rest, also across a wrap of the low bits
    /// inside the chunk.
    #[test]
    fn wide_offsets_come_back_from_their_low_bits() {
        let four_gib = 1u64 << 32;
        for base in [0, 17, four_gib - 3, four_gib, 3 * four_gib + 12_345] {
            for past in [0, 1, 2, 1000, four_gib - 1] {
                let full = base + past;
                assert_eq!(widen(base, full as u32), full, "base {base} past {past}");
            }
        }
    }
}
