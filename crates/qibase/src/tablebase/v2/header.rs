//! Format 2 (read only, for `qibase convert`): the fixed preamble, the
//! postcard-encoded header, the block index and the qhash64 checksum.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::super::error::{err, TbError};
use super::TierMeta2 as TierMeta;
use crate::value::Packed;

/// First 8 bytes of every tier file.
pub const MAGIC: [u8; 8] = *b"QIBASETB";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 2;
/// Magic (8) + format version (4) + header body length (4).
pub const PREAMBLE_LEN: usize = 16;
/// Bytes of one block-index entry: data offset (u64 LE) + checksum (u64 LE).
pub const INDEX_ENTRY_LEN: usize = 16;
/// Largest header body accepted (the symbol table dominates: ≤ 65 535 × 3 bytes).
pub const MAX_HEADER_LEN: usize = 1 << 20;

/// How the blocks are coded.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Each block: the packed u16 values, little endian, uncompressed.
    Raw16,
    /// Each block: the values mapped to frequency-ranked symbols, one byte
    /// each (255 = escape, followed by the packed u16 LE), then compressed as
    /// one zstd frame.
    SymbolsZstd,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Raw16 => "raw16",
            Encoding::SymbolsZstd => "symbols+zstd",
        }
    }
}

/// The header body (postcard-encoded after the preamble).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Header {
    /// Game id, rules hash, tier key and name, position count, solve stats.
    pub meta: TierMeta,
    pub encoding: Encoding,
    /// Positions per block (the last block may be shorter).
    pub block_size: u32,
    /// Number of blocks: `ceil(positions / block_size)`.
    pub blocks: u64,
    /// Symbol table: symbol `s` stands for packed value `symbols[s]`
    /// (most frequent first). Empty for `Raw16`.
    pub symbols: Vec<Packed>,
    /// Total bytes of the block data section.
    pub data_len: u64,
    /// Checksum of the block index bytes.
    pub index_checksum: u64,
}

/// One block-index entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEntry {
    /// Offset of the block's bytes from the start of the data section.
    pub offset: u64,
    /// Checksum of the block's (compressed) bytes.
    pub checksum: u64,
}

/// qhash64: a word-at-a-time 64-bit checksum (not cryptographic).
/// Each 8-byte little-endian word `w` (the tail zero-padded) updates
/// `h = rotl((h ^ w) * K1, 31)`, starting from `h = K0 ^ len * K2`; the result
/// is `fmix64(h)` (MurmurHash3's finaliser). Every step is a bijection of `h`,
/// so any change confined to one word always changes the checksum.
pub fn qhash64(bytes: &[u8]) -> u64 {
    const K0: u64 = 0x9E37_79B9_7F4A_7C15;
    const K1: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const K2: u64 = 0x1656_67B1_9E37_79F9;
    let mut h = K0 ^ (bytes.len() as u64).wrapping_mul(K2);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap());
        h = (h ^ w).wrapping_mul(K1).rotate_left(31);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 8];
        b[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(b)).wrapping_mul(K1).rotate_left(31);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
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
    pub index: Vec<BlockEntry>,
    /// Byte offset of the data section in the file.
    pub data_start: usize,
}

/// Parse and check everything except the block data: magic, version,
/// header checksum, header fields, index checksum and the file length.
/// Cheap: reads the header and the index only.
pub fn parse_layout(path: &Path, bytes: &[u8]) -> Result<Layout, TbError> {
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
    if bytes[..8] != MAGIC {
        return Err(err(path, "not a qibase tablebase file (bad magic)"));
    }
    if le_u32(&bytes[8..]) != FORMAT_VERSION {
        return Err(err(path, "not a format 2 tier file"));
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
    if qhash64(&bytes[..hend]) != le_u64(&bytes[hend..]) {
        return Err(err(path, "corrupt header (header checksum mismatch)"));
    }
    let header: Header = postcard::from_bytes(&bytes[PREAMBLE_LEN..hend])
        .map_err(|e| err(path, format!("corrupt header (cannot decode: {e})")))?;
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
    let index_start = hend + 8;
    let index_len = (header.blocks as usize)
        .checked_mul(INDEX_ENTRY_LEN)
        .ok_or_else(|| err(path, "corrupt header (block count overflows)"))?;
    let data_start = index_start + index_len;
    let total = (data_start as u64).saturating_add(header.data_len);
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
    let index_bytes = &bytes[index_start..data_start];
    if qhash64(index_bytes) != header.index_checksum {
        return Err(err(path, "corrupt block index (index checksum mismatch)"));
    }
    let mut index = Vec::with_capacity(header.blocks as usize);
    let mut prev = 0u64;
    for c in index_bytes.chunks_exact(INDEX_ENTRY_LEN) {
        let e = BlockEntry {
            offset: le_u64(c),
            checksum: le_u64(&c[8..]),
        };
        if e.offset < prev || e.offset > header.data_len {
            return Err(err(path, "corrupt block index (offsets out of order)"));
        }
        prev = e.offset;
        index.push(e);
    }
    if header.encoding == Encoding::SymbolsZstd && header.symbols.len() > 255 + 65_535 {
        return Err(err(path, "corrupt header (symbol table too long)"));
    }
    Ok(Layout {
        header,
        index,
        data_start,
    })
}

impl Layout {
    /// The byte range of block `b` inside the file.
    pub fn block_range(&self, b: usize) -> std::ops::Range<usize> {
        let start = self.index[b].offset as usize;
        let end = self
            .index
            .get(b + 1)
            .map(|e| e.offset)
            .unwrap_or(self.header.data_len) as usize;
        self.data_start + start..self.data_start + end
    }

    /// Number of positions in block `b`.
    pub fn block_len(&self, b: usize) -> usize {
        let bs = self.header.block_size as u64;
        let start = b as u64 * bs;
        (self.header.meta.positions - start).min(bs) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qhash_detects_every_single_byte_flip() {
        let data: Vec<u8> = (0..100u32).map(|i| (i * 37 % 251) as u8).collect();
        let h = qhash64(&data);
        for i in 0..data.len() {
            for bit in 0..8 {
                let mut d = data.clone();
                d[i] ^= 1 << bit;
                assert_ne!(qhash64(&d), h, "flip at {i}/{bit}");
            }
        }
        assert_ne!(qhash64(&data[..99]), h);
        assert_ne!(qhash64(b""), qhash64(b"\0"));
    }
}
