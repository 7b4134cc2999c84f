//! Reading tier files: a memory-mapped, validated [`TierFile`] that decodes
//! whole tiers in parallel or single positions through a block cache.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use memmap2::Mmap;
use rayon::prelude::*;

use super::codec::Coder;
use super::error::{err, err_kind, TbError, TbErrorKind};
use super::header::{parse_layout, qhash64, Header, Layout};
use super::TierMeta;
use crate::game::TierKey;
use crate::value::Packed;

/// Memory budget of one tier file's block cache.
pub const CACHE_BYTES_PER_TIER: usize = 32 << 20;

enum Bytes {
    Map(Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Files smaller than this are read rather than mapped.
const MAP_THRESHOLD: u64 = 1 << 16;

thread_local! {
    static CODER: RefCell<Coder> = RefCell::new(Coder::new(0));
}

/// One direct-mapped cache slot: block number and its decoded values.
type Slot = Mutex<Option<(usize, Box<[Packed]>)>>;

/// An open, header-checked tier file.
pub struct TierFile {
    path: PathBuf,
    bytes: Bytes,
    layout: Layout,
    cache: Vec<Slot>,
}

impl TierFile {
    /// Open and check the header, the index and the file length (not the
    /// blocks: each block's checksum is checked when it is decoded).
    pub fn open(
        path: &Path,
        game: &str,
        rules_hash: u64,
        tier: TierKey,
    ) -> Result<TierFile, TbError> {
        let f = fs::File::open(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                err_kind(TbErrorKind::NotSolved, path, "no such tier file")
            } else {
                err_kind(TbErrorKind::Io, path, format!("cannot open tier file: {e}"))
            }
        })?;
        let len = f
            .metadata()
            .map_err(|e| err_kind(TbErrorKind::Io, path, format!("cannot read tier file: {e}")))?
            .len();
        let bytes = if len < MAP_THRESHOLD {
            Bytes::Owned(fs::read(path).map_err(|e| {
                err_kind(TbErrorKind::Io, path, format!("cannot read tier file: {e}"))
            })?)
        } else {
            // SAFETY: tier files are only ever replaced by rename, never
            // modified in place, so the mapping stays valid while we hold it.
            Bytes::Map(unsafe { Mmap::map(&f) }.map_err(|e| {
                err_kind(TbErrorKind::Io, path, format!("cannot map tier file: {e}"))
            })?)
        };
        let layout = parse_layout(path, bytes.as_slice())?;
        let m = &layout.header.meta;
        if m.game != game {
            return Err(err_kind(
                TbErrorKind::Foreign,
                path,
                format!("file belongs to game '{}', not '{game}'", m.game),
            ));
        }
        if m.rules_hash != rules_hash {
            return Err(err_kind(
                TbErrorKind::Foreign,
                path,
                format!(
                    "file was made for other rules of {game} (rules hash {:016x}, \
                     this qibase has {rules_hash:016x}): solve again",
                    m.rules_hash
                ),
            ));
        }
        if m.tier != tier {
            return Err(err_kind(
                TbErrorKind::Foreign,
                path,
                format!(
                    "file holds tier {} (key {}), not the tier with key {tier}",
                    m.tier_name, m.tier
                ),
            ));
        }
        let block_bytes = layout.header.block_size as usize * 2;
        let slots = (CACHE_BYTES_PER_TIER / block_bytes.max(1))
            .clamp(1, layout.header.blocks.max(1) as usize);
        Ok(TierFile {
            path: path.to_path_buf(),
            bytes,
            layout,
            cache: (0..slots).map(|_| Mutex::new(None)).collect(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn meta(&self) -> &TierMeta {
        &self.layout.header.meta
    }

    pub fn header(&self) -> &Header {
        &self.layout.header
    }

    /// Size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    pub fn blocks(&self) -> usize {
        self.layout.header.blocks as usize
    }

    /// Bytes of block `b` as stored (compressed).
    pub fn block_bytes(&self, b: usize) -> &[u8] {
        &self.bytes.as_slice()[self.layout.block_range(b)]
    }

    /// Check block `b`'s checksum and decode it into `out` (its exact length).
    pub fn decode_block_with(
        &self,
        coder: &mut Coder,
        b: usize,
        out: &mut [Packed],
    ) -> Result<(), TbError> {
        let data = self.block_bytes(b);
        if qhash64(data) != self.layout.index[b].checksum {
            return Err(err(
                &self.path,
                format!("corrupt block {b} (block checksum mismatch)"),
            ));
        }
        let h = &self.layout.header;
        coder
            .decode(h.encoding, data, &h.symbols, out)
            .map_err(|e| err(&self.path, format!("corrupt block {b} ({e})")))
    }

    /// Decode the whole tier, all blocks in parallel, every checksum checked.
    pub fn read_all(&self) -> Result<Vec<Packed>, TbError> {
        let n = self.meta().positions as usize;
        let bs = self.layout.header.block_size as usize;
        let mut out = vec![0 as Packed; n];
        out.par_chunks_mut(bs).enumerate().try_for_each_init(
            || Coder::new(0),
            |c, (b, chunk)| self.decode_block_with(c, b, chunk),
        )?;
        Ok(out)
    }

    /// The packed value in slot `i`, through the block cache.
    #[inline]
    pub fn get(&self, i: u64) -> Result<Packed, TbError> {
        let h = &self.layout.header;
        if i >= h.meta.positions {
            return Err(err(
                &self.path,
                format!(
                    "index {i} outside the tier's {} positions",
                    h.meta.positions
                ),
            ));
        }
        let bs = h.block_size as u64;
        let b = (i / bs) as usize;
        let off = (i % bs) as usize;
        let slot = &self.cache[b % self.cache.len()];
        let mut g = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((cb, vals)) = g.as_ref() {
            if *cb == b {
                return Ok(vals[off]);
            }
        }
        let len = self.layout.block_len(b);
        let mut buf = match g.take() {
            Some((_, v)) if v.len() == len => v,
            _ => vec![0; len].into_boxed_slice(),
        };
        CODER.with(|c| self.decode_block_with(&mut c.borrow_mut(), b, &mut buf))?;
        let v = buf[off];
        *g = Some((b, buf));
        Ok(v)
    }
}
