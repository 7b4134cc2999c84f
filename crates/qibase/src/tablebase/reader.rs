//! Reading tier files: a memory-mapped, validated [`TierFile`] that decodes
//! whole tiers in parallel, or single slots through the shared block cache.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

use memmap2::Mmap;
use rayon::prelude::*;

use super::cache::{BlockCache, Lookup};
use super::checksum::{checksum32, checksum64};
use super::error::{err, err_kind, TbError, TbErrorKind};
use super::header::{parse_layout, parse_layout_with_old, Header, Layout};
use super::model::{TierModel, WDL_DRAW, WDL_LOSS};
use super::TierMeta;
use crate::game::TierKey;
use crate::prefetch::prefetch_bytes;
use crate::value::{Packed, Wdl};

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

/// Cache keys of different open files never collide.
static NEXT_FILE_ID: AtomicU32 = AtomicU32::new(1);

/// An open, header-checked tier file.
pub struct TierFile {
    path: PathBuf,
    bytes: Bytes,
    layout: Layout,
    model: TierModel,
    id: u64,
    /// The whole tier decoded, after [`TierFile::preload`].
    preloaded: OnceLock<Vec<Packed>>,
    /// One bit per index chunk whose checksum has been checked.
    index_ok: Vec<AtomicU64>,
}

/// Read a file's bytes (mapped when large), as a `TbError` on failure.
fn load(path: &Path) -> Result<Bytes, TbError> {
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
    Ok(if len < MAP_THRESHOLD {
        Bytes::Owned(
            fs::read(path).map_err(|e| {
                err_kind(TbErrorKind::Io, path, format!("cannot read tier file: {e}"))
            })?,
        )
    } else {
        // SAFETY: tier files are only ever replaced by rename, never
        // modified in place, so the mapping stays valid while we hold it.
        Bytes::Map(
            unsafe { Mmap::map(&f) }.map_err(|e| {
                err_kind(TbErrorKind::Io, path, format!("cannot map tier file: {e}"))
            })?,
        )
    })
}

/// Read a format 2 file whole (for `qibase convert`): its metadata, in
/// current terms, and its values. Only the magic is required to match.
pub fn read_v2(path: &Path) -> Result<(TierMeta, Vec<Packed>), TbError> {
    let bytes = load(path)?;
    let (meta, values) = super::v2::read_all(path, bytes.as_slice())?;
    Ok((meta.upgrade(), values))
}

/// The format version of a file (`None` if it is no qibase tier file).
pub fn file_version(path: &Path) -> Result<Option<u32>, TbError> {
    Ok(super::header::version_of(load(path)?.as_slice()))
}

impl TierFile {
    /// Open and check the header and the file length (not the index and
    /// the blocks: each index chunk's checksum is checked when first
    /// needed, each block's checksums whenever it is decoded).
    pub fn open(
        path: &Path,
        game: &str,
        rules_hash: u64,
        tier: TierKey,
    ) -> Result<TierFile, TbError> {
        Self::open_with(path, game, rules_hash, tier, false)
    }

    /// [`TierFile::open`], also accepting a format 3 or 4 file (for `qibase
    /// convert`, which reads it whole and writes it again).
    pub fn open_old(
        path: &Path,
        game: &str,
        rules_hash: u64,
        tier: TierKey,
    ) -> Result<TierFile, TbError> {
        Self::open_with(path, game, rules_hash, tier, true)
    }

    fn open_with(
        path: &Path,
        game: &str,
        rules_hash: u64,
        tier: TierKey,
        allow_old: bool,
    ) -> Result<TierFile, TbError> {
        let bytes = load(path)?;
        let layout = if allow_old {
            parse_layout_with_old(path, bytes.as_slice())?
        } else {
            parse_layout(path, bytes.as_slice())?
        };
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
        let model = TierModel::new(&layout.header.model, layout.coding)
            .map_err(|e| err(path, format!("corrupt header (bad model: {e})")))?;
        let chunks = layout.header.index_checksums.len();
        Ok(TierFile {
            path: path.to_path_buf(),
            bytes,
            layout,
            model,
            index_ok: (0..chunks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            id: NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed) as u64,
            preloaded: OnceLock::new(),
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

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    pub fn blocks(&self) -> usize {
        self.layout.header.blocks as usize
    }

    /// Check the checksum of index chunk `c` (once per open file).
    fn check_index_chunk(&self, c: usize) -> Result<(), TbError> {
        let (word, bit) = (&self.index_ok[c / 64], 1u64 << (c % 64));
        if word.load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let (chunk, sum) = self.layout.index_chunk(self.bytes.as_slice(), c);
        if checksum64(chunk) != sum {
            return Err(err(
                &self.path,
                format!("corrupt block index (index checksum mismatch in chunk {c})"),
            ));
        }
        word.fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }

    /// Check the index entries block `b` needs (its own and the next).
    #[inline]
    fn check_index(&self, b: usize) -> Result<(), TbError> {
        let chunk = self.layout.index_chunk;
        self.check_index_chunk(b / chunk)?;
        if b + 1 < self.blocks() && (b + 1).is_multiple_of(chunk) {
            self.check_index_chunk((b + 1) / chunk)?;
        }
        Ok(())
    }

    fn bad_index(&self) -> TbError {
        err(&self.path, "corrupt block index (offsets out of order)")
    }

    /// Block `b`'s WDL stream, its checksum checked.
    fn wdl_bytes(&self, b: usize) -> Result<&[u8], TbError> {
        self.check_index(b)?;
        let data = self.wdl_unchecked(b)?;
        self.check_wdl(b, data)
    }

    /// Block `b`'s WDL stream, its checksum not checked yet (the index
    /// chunk is).
    fn wdl_unchecked(&self, b: usize) -> Result<&[u8], TbError> {
        let bytes = self.bytes.as_slice();
        let range = self
            .layout
            .wdl_range(bytes, b)
            .ok_or_else(|| self.bad_index())?;
        Ok(&bytes[range])
    }

    fn check_wdl<'a>(&self, b: usize, data: &'a [u8]) -> Result<&'a [u8], TbError> {
        if checksum32(data) != self.layout.entry(self.bytes.as_slice(), b).wdl_checksum {
            return Err(err(
                &self.path,
                format!("corrupt block {b} (WDL block checksum mismatch)"),
            ));
        }
        Ok(data)
    }

    /// Block `b`'s remoteness stream, its checksum checked.
    fn rem_bytes(&self, b: usize) -> Result<&[u8], TbError> {
        self.check_index(b)?;
        let data = self.rem_unchecked(b)?;
        self.check_rem(b, data)
    }

    fn rem_unchecked(&self, b: usize) -> Result<&[u8], TbError> {
        let bytes = self.bytes.as_slice();
        let range = self
            .layout
            .rem_range(bytes, b)
            .ok_or_else(|| self.bad_index())?;
        Ok(&bytes[range])
    }

    fn check_rem<'a>(&self, b: usize, data: &'a [u8]) -> Result<&'a [u8], TbError> {
        if checksum32(data) != self.layout.entry(self.bytes.as_slice(), b).rem_checksum {
            return Err(err(
                &self.path,
                format!("corrupt block {b} (remoteness block checksum mismatch)"),
            ));
        }
        Ok(data)
    }

    /// Decode the first `out.len()` values of block `b` (all of them when
    /// `out` has the block's length, which also checks the streams' ends).
    pub fn decode_block(&self, b: usize, out: &mut [Packed]) -> Result<(), TbError> {
        let (w, r) = (self.wdl_bytes(b)?, self.rem_bytes(b)?);
        self.model
            .decode_values(w, r, self.layout.block_len(b), out)
            .map_err(|e| err(&self.path, format!("corrupt block {b} ({e})")))
    }

    /// Decode the whole tier, all blocks in parallel, every checksum checked.
    pub fn read_all(&self) -> Result<Vec<Packed>, TbError> {
        if let Some(v) = self.preloaded.get() {
            return Ok(v.clone());
        }
        let n = self.meta().positions as usize;
        let bs = self.layout.header.block_size as usize;
        let mut out = crate::hugemem::zeroed_u16(n);
        out.par_chunks_mut(bs)
            .enumerate()
            .try_for_each(|(b, chunk)| self.decode_block(b, chunk))?;
        Ok(out)
    }

    /// Decode the whole tier into memory for all later probes.
    pub fn preload(&self) -> Result<(), TbError> {
        if self.preloaded.get().is_none() {
            let v = self.read_all()?;
            let _ = self.preloaded.set(v);
        }
        Ok(())
    }

    fn locate(&self, i: u64) -> Result<(usize, usize), TbError> {
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
        Ok(((i / bs) as usize, (i % bs) as usize))
    }

    /// The packed value in slot `i`, through the shared block cache.
    #[inline]
    pub fn get(&self, i: u64) -> Result<Packed, TbError> {
        if let Some(v) = self.preloaded.get() {
            return v
                .get(i as usize)
                .copied()
                .ok_or_else(|| err(&self.path, format!("index {i} outside the tier")));
        }
        let (b, off) = self.locate(i)?;
        let len = self.layout.block_len(b);
        let key = (self.id << 32) | b as u64;
        let cache = BlockCache::global();
        self.prefetch_entry(b);
        cache.prefetch(key);
        match cache.get(key, off, len, |out| self.decode_block(b, out))? {
            Lookup::Hit(v) => Ok(v),
            Lookup::Pass => self.decode_value(b, off),
        }
    }

    /// Start loading block `b`'s index entry (and the next one, which ends
    /// its streams), so that the cache's miss and the index's overlap.
    #[inline]
    fn prefetch_entry(&self, b: usize) {
        let bytes = self.bytes.as_slice();
        let at = self.layout.index_start + b * super::header::INDEX_ENTRY_LEN;
        if let Some(e) = bytes.get(at..at + 2 * super::header::INDEX_ENTRY_LEN) {
            prefetch_bytes(e);
        }
    }

    /// An error unless block `b` exists and has a slot `off`.
    fn check_slot(&self, b: usize, off: usize) -> Result<(), TbError> {
        if b >= self.blocks() || off >= self.layout.block_len(b) {
            return Err(err(
                &self.path,
                format!("slot {off} of block {b} outside the tier"),
            ));
        }
        Ok(())
    }

    /// The packed value of slot `off` of block `b`, decoded from the file
    /// (no cache): the WDL stream up to the slot, and for a win or loss the
    /// remoteness segment of the slot up to it.
    pub fn value_in_block(&self, b: usize, off: usize) -> Result<Packed, TbError> {
        self.check_slot(b, off)?;
        self.decode_value(b, off)
    }

    /// [`value_in_block`](Self::value_in_block) for a slot already known
    /// to exist (the probes' path: [`locate`](Self::locate) checked it).
    fn decode_value(&self, b: usize, off: usize) -> Result<Packed, TbError> {
        self.check_index(b)?;
        let (w, r) = (self.wdl_unchecked(b)?, self.rem_unchecked(b)?);
        // The two streams lie in two sections of the file: ask for both
        // before waiting on either.
        prefetch_bytes(w);
        prefetch_bytes(r);
        let (w, r) = (self.check_wdl(b, w)?, self.check_rem(b, r)?);
        self.model
            .value_at(w, r, self.layout.block_len(b), off)
            .map_err(|e| err(&self.path, format!("corrupt block {b} ({e})")))
    }

    /// The WDL symbol of slot `off` of block `b`, decoded from the file's
    /// WDL stream up to the slot (no cache).
    pub fn wdl_in_block(&self, b: usize, off: usize) -> Result<Wdl, TbError> {
        self.check_slot(b, off)?;
        self.decode_wdl(b, off)
    }

    /// [`wdl_in_block`](Self::wdl_in_block) for a slot already known to
    /// exist.
    fn decode_wdl(&self, b: usize, off: usize) -> Result<Wdl, TbError> {
        let w = self.wdl_bytes(b)?;
        let x = self
            .model
            .wdl_at(w, self.layout.block_len(b), off)
            .map_err(|e| err(&self.path, format!("corrupt block {b} ({e})")))?;
        Ok(match x {
            WDL_DRAW => Wdl::Draw,
            WDL_LOSS => Wdl::Loss,
            _ => Wdl::Win,
        })
    }

    /// Win, draw or loss of slot `i`: decodes only the WDL section unless
    /// the block is cached.
    #[inline]
    pub fn get_wdl(&self, i: u64) -> Result<Wdl, TbError> {
        if let Some(v) = self.preloaded.get() {
            return v
                .get(i as usize)
                .map(|&p| wdl_of_packed(p))
                .ok_or_else(|| err(&self.path, format!("index {i} outside the tier")));
        }
        let (b, off) = self.locate(i)?;
        let len = self.layout.block_len(b);
        let key = (self.id << 32) | b as u64;
        let cache = BlockCache::global();
        self.prefetch_entry(b);
        cache.prefetch(key);
        match cache.get(key, off, len, |out| self.decode_block(b, out))? {
            Lookup::Hit(v) => Ok(wdl_of_packed(v)),
            Lookup::Pass => self.decode_wdl(b, off),
        }
    }
}

fn wdl_of_packed(p: Packed) -> Wdl {
    match p {
        1 => Wdl::Draw,
        p if p & 1 == 0 => Wdl::Loss,
        _ => Wdl::Win,
    }
}
