//! Reading tier files: [`TierFile`] checks the header when it opens a
//! file, each chunk of the block index the first time a lookup needs it
//! (kept in memory), and each block's streams whenever it decodes them.
//!
//! The file is memory-mapped, under the guard of
//! [`guarded_map`](crate::sys::guarded_map): a file that shrinks under
//! the process (truncated, or rewritten in place by something other than
//! qibase) makes the next lookup that touches a vanished page a corrupt-
//! file error naming the file, not a SIGBUS that kills a server with all
//! its clients. A cold lookup then costs no system call: positional
//! reads (`pread`), which this reader falls back on when a map cannot be
//! guarded, or uses everywhere with `QIBASE_TB_READ=pread`, make cold
//! lookups 2–3× slower. Files that are replaced the qibase way (write,
//! rename) do not change under an open file either way.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;

use super::checksum::{checksum32, checksum64};
use super::header::{
    decode_index, head_len, stream_ranges, BlockEntry, Layout, INDEX_ENTRY_LEN, PREAMBLE_LEN,
};
use crate::game::TierKey;
use crate::prefetch::{prefetch, prefetch_bytes};
use crate::sys::guarded_map::GuardedMap;
use crate::tablebase::cache::{BlockCache, Lookup};
use crate::tablebase::codec::{CodecError, TierModel};
use crate::tablebase::{TbError, TierMeta};
use crate::value::{Packed, Wdl};

use super::header::INDEX_CHUNK;

/// Cache keys of different open files never collide.
static NEXT_FILE_ID: AtomicU32 = AtomicU32::new(1);

/// A block-cache key prefix no other open tier file (fast or compact)
/// has.
pub(crate) fn next_file_id() -> u64 {
    NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed) as u64
}

/// True if tier files are to be read with positional reads instead of a
/// map (`QIBASE_TB_READ=pread`; `map`, the default, or unset maps them),
/// read once; `None` for another value.
fn positional_reads() -> Option<bool> {
    static PREAD: OnceLock<Option<bool>> = OnceLock::new();
    *PREAD.get_or_init(|| match std::env::var("QIBASE_TB_READ").as_deref() {
        Err(_) | Ok("map") => Some(false),
        Ok("pread") => Some(true),
        Ok(_) => None,
    })
}

/// Blocks decoded together by a whole-tier read: their streams are two
/// reads (one per section), and the batches are decoded in parallel.
const READ_ALL_BATCH: usize = 64;

/// An open, header-checked tier file.
pub struct TierFile {
    path: PathBuf,
    file: File,
    /// The whole file mapped, unless positional reads were asked for or
    /// the map could not be guarded.
    map: Option<GuardedMap>,
    /// The file's length when it was opened (the header's total).
    len: u64,
    layout: Layout,
    model: TierModel,
    id: u64,
    /// The whole tier decoded, after [`TierFile::preload`].
    preloaded: OnceLock<Vec<Packed>>,
    /// Without a map: each index chunk, once read, checked and decoded.
    index: Box<[OnceLock<Box<[BlockEntry]>>]>,
    /// With a map: one bit per index chunk whose checksum has been
    /// checked; the entries are then read in place from the map (decoding
    /// a chunk on its first use would cost a cold lookup an allocation
    /// and 8 KiB of copying: measured 10-15 % of a cold lookup on
    /// two-cannons, whose lookups mostly touch a fresh chunk).
    checked: Box<[AtomicU64]>,
}

/// The two streams of one block, as file ranges.
struct Streams {
    wdl: std::ops::Range<u64>,
    rem: std::ops::Range<u64>,
    entry: BlockEntry,
}

thread_local! {
    /// Each thread's buffer for the streams of the block it decodes: a
    /// lookup allocates nothing.
    static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Run `f` on a buffer of at least `n` bytes (this thread's, unless it is
/// in use further up the stack).
fn with_buffer<T>(n: usize, f: impl FnOnce(&mut [u8]) -> T) -> T {
    BUFFER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < n {
                buf.resize(n, 0);
            }
            f(&mut buf[..n])
        }
        Err(_) => f(&mut vec![0; n]),
    })
}

impl TierFile {
    /// Open `path` and check its header and length (not its index and its
    /// blocks: each index chunk's checksum is checked when first needed,
    /// each block's checksums whenever it is decoded), and that it holds
    /// tier `tier` of `game` under the rules with hash `rules_hash`.
    ///
    /// # Errors
    /// [`TbError::Io`] if the file cannot be opened or read (a missing
    /// file too: [`TierStore`](crate::tablebase::TierStore) reports that as
    /// not solved), [`TbError::Version`] for another format version,
    /// [`TbError::Corrupt`] for a damaged header or a wrong length,
    /// [`TbError::Foreign`] for a file of another game, rules or tier.
    pub fn open(
        path: &Path,
        game: &str,
        rules_hash: u64,
        tier: TierKey,
    ) -> Result<TierFile, TbError> {
        let file = File::open(path).map_err(|e| TbError::io(path, "cannot open tier file", e))?;
        let len = file
            .metadata()
            .map_err(|e| TbError::io(path, "cannot read tier file", e))?
            .len();
        let read_head = |n: usize| -> Result<Vec<u8>, TbError> {
            let mut buf = vec![0; (n as u64).min(len) as usize];
            file.read_exact_at(&mut buf, 0)
                .map_err(|e| TbError::io(path, "cannot read tier file", e))?;
            Ok(buf)
        };
        let start = read_head(PREAMBLE_LEN)?;
        let (hlen, _) = super::header::parse_preamble(path, &start, game)?;
        let layout = Layout::parse(path, &read_head(head_len(hlen))?, len, game)?;
        layout
            .header
            .meta
            .check(path, game, rules_hash, tier, None, false)?;
        let model = TierModel::new(&layout.header.model).map_err(|e| {
            TbError::corrupt(
                path,
                format!("corrupt header (bad model: {})", CodecError::from(e)),
            )
        })?;
        let chunks = layout.header.index_checksums.len();
        let Some(pread) = positional_reads() else {
            return Err(TbError::io(
                path,
                "cannot open tier file",
                std::io::Error::other("QIBASE_TB_READ must be 'map' or 'pread'"),
            ));
        };
        let map = if pread {
            None
        } else {
            GuardedMap::new(&file, len).map_err(|e| TbError::io(path, "cannot map tier file", e))?
        };
        Ok(TierFile {
            path: path.to_path_buf(),
            file,
            map,
            len,
            layout,
            model,
            id: next_file_id(),
            preloaded: OnceLock::new(),
            index: (0..chunks).map(|_| OnceLock::new()).collect(),
            checked: (0..chunks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the header says about the tier.
    pub fn meta(&self) -> &TierMeta {
        &self.layout.header.meta
    }

    /// Size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.len
    }

    /// Slots per block.
    pub fn block_size(&self) -> u32 {
        self.layout.header.block_size
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.layout.blocks()
    }

    /// Bytes of the file's parts: header (preamble, body, checksum),
    /// block index, WDL section, remoteness section.
    pub fn section_bytes(&self) -> [u64; 4] {
        let (head, index) = self.layout.overhead();
        let h = &self.layout.header;
        [head, index, h.wdl_len, h.rem_len]
    }

    /// The decoded header.
    #[cfg(feature = "internals")]
    pub fn header(&self) -> &super::header::Header {
        &self.layout.header
    }

    /// Where everything is in the file.
    #[cfg(feature = "internals")]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The error for a read past the file's end: it is shorter now than
    /// when it was opened. `what` names the bytes.
    #[cold]
    fn truncated(&self, what: String) -> TbError {
        let now = self
            .file
            .metadata()
            .map_or_else(|_| "fewer".to_string(), |m| m.len().to_string());
        TbError::corrupt(
            &self.path,
            format!(
                "truncated file ({what} is past its end: {now} bytes now, {} when it was opened)",
                self.len
            ),
        )
    }

    /// True if the file is no longer whole: a read of the map touched a
    /// vanished page, or (checked only when `stat` is set, on the error
    /// path) the file is shorter than when it was opened. Without `stat`
    /// it is one atomic load, on every block read.
    #[inline]
    fn shrunk(&self, stat: bool) -> bool {
        self.map.as_ref().is_some_and(GuardedMap::damaged) || (stat && self.shorter_now())
    }

    /// The file is shorter now than when it was opened (a system call).
    #[cold]
    fn shorter_now(&self) -> bool {
        self.file.metadata().is_ok_and(|m| m.len() < self.len)
    }

    /// The bytes `range` of the file: a slice of the map, or read into
    /// `buf` (as long as the range) with a positional read. `what` names
    /// them in an error.
    #[inline]
    fn span<'a>(
        &'a self,
        buf: &'a mut [u8],
        range: std::ops::Range<u64>,
        what: impl FnOnce() -> String,
    ) -> Result<&'a [u8], TbError> {
        if let Some(map) = &self.map {
            return map
                .bytes()
                .get(range.start as usize..range.end as usize)
                .ok_or_else(|| self.truncated(format!("{} at bytes {range:?}", what())));
        }
        let buf = &mut buf[..(range.end - range.start) as usize];
        self.file.read_exact_at(buf, range.start).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                self.truncated(format!("{} at bytes {range:?}", what()))
            } else {
                TbError::io(&self.path, format!("cannot read {}", what()), e)
            }
        })?;
        Ok(buf)
    }

    /// A buffer length for reading `n` bytes: none are needed from a map.
    #[inline]
    fn buffer_len(&self, n: u64) -> usize {
        if self.map.is_some() {
            0
        } else {
            n as usize
        }
    }

    /// The error for bytes of block `b` that fail their check (`why`):
    /// a truncated file if it shrank, else a corrupt block.
    #[cold]
    fn bad_bytes(&self, b: usize, why: String) -> TbError {
        if self.shrunk(true) {
            self.truncated(format!("block {b}"))
        } else {
            TbError::corrupt(&self.path, format!("corrupt block {b} ({why})"))
        }
    }

    /// Index chunk `c`, read and checked on first use.
    fn index_chunk(&self, c: usize) -> Result<&[BlockEntry], TbError> {
        let cell = &self.index[c];
        if let Some(entries) = cell.get() {
            return Ok(entries);
        }
        self.load_index_chunk(c)
    }

    #[cold]
    fn load_index_chunk(&self, c: usize) -> Result<&[BlockEntry], TbError> {
        let mut buf = Vec::new();
        let bytes = self.checked_index_chunk(c, &mut buf)?;
        // Two threads may both read it; the first one stored wins.
        let _ = self.index[c].set(decode_index(bytes).into_boxed_slice());
        Ok(self.index[c].get().expect("set above"))
    }

    /// The bytes of index chunk `c` (read into `buf` without a map), its
    /// checksum checked.
    fn checked_index_chunk<'a>(
        &'a self,
        c: usize,
        buf: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], TbError> {
        let (at, n) = self.layout.index_chunk_span(c);
        buf.resize(self.buffer_len(n as u64), 0);
        let bytes = self.span(buf, at..at + n as u64, || format!("block index chunk {c}"))?;
        if checksum64(bytes) != self.layout.header.index_checksums[c] || self.shrunk(false) {
            if self.shrunk(true) {
                return Err(self.truncated(format!("block index chunk {c}")));
            }
            return Err(TbError::corrupt(
                &self.path,
                format!("corrupt block index (index checksum mismatch in chunk {c})"),
            ));
        }
        Ok(bytes)
    }

    /// Check index chunk `c`'s checksum once (the mapped file's path).
    #[inline]
    fn check_index_chunk(&self, c: usize) -> Result<(), TbError> {
        let (word, bit) = (&self.checked[c / 64], 1u64 << (c % 64));
        if word.load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        self.check_index_chunk_now(c)
    }

    #[cold]
    fn check_index_chunk_now(&self, c: usize) -> Result<(), TbError> {
        self.checked_index_chunk(c, &mut Vec::new())?;
        self.checked[c / 64].fetch_or(1u64 << (c % 64), Ordering::Relaxed);
        Ok(())
    }

    /// Block `b`'s index entry and the next one (none after the last
    /// block): in place from the map, or from the decoded chunks.
    #[inline]
    fn entries(&self, b: usize) -> Result<(BlockEntry, Option<BlockEntry>), TbError> {
        let last = b + 1 == self.blocks();
        let crosses = !last && (b + 1).is_multiple_of(INDEX_CHUNK);
        if let Some(map) = &self.map {
            self.check_index_chunk(b / INDEX_CHUNK)?;
            if crosses {
                self.check_index_chunk((b + 1) / INDEX_CHUNK)?;
            }
            // In the file: the layout checked that the index lies in it.
            let at = self.layout.index_start as usize + b * INDEX_ENTRY_LEN;
            let bytes = &map.bytes()[at..];
            let next = (!last).then(|| BlockEntry::parse(&bytes[INDEX_ENTRY_LEN..]));
            return Ok((BlockEntry::parse(bytes), next));
        }
        let chunk = self.index_chunk(b / INDEX_CHUNK)?;
        let next = if last {
            None
        } else if crosses {
            Some(self.index_chunk((b + 1) / INDEX_CHUNK)?[0])
        } else {
            Some(chunk[b % INDEX_CHUNK + 1])
        };
        Ok((chunk[b % INDEX_CHUNK], next))
    }

    /// Block `b`'s index entry and the file ranges of its streams (the
    /// next entry ends them).
    #[inline]
    fn streams(&self, b: usize) -> Result<Streams, TbError> {
        let (entry, next) = self.entries(b)?;
        let (wdl, rem) =
            stream_ranges(&self.layout, b, &entry, next.as_ref()).ok_or_else(|| {
                TbError::corrupt(&self.path, "corrupt block index (offsets out of order)")
            })?;
        Ok(Streams { wdl, rem, entry })
    }

    /// Block `b`'s WDL stream (and, if `with_rem`, its remoteness
    /// stream), from the map or read into `buf` (as long as both, or
    /// empty for a map), checksums checked; returns the two streams (the
    /// second empty unless `with_rem`).
    fn read_streams<'a>(
        &'a self,
        b: usize,
        s: &Streams,
        buf: &'a mut [u8],
        with_rem: bool,
    ) -> Result<(&'a [u8], &'a [u8]), TbError> {
        let wl = if buf.is_empty() {
            0
        } else {
            (s.wdl.end - s.wdl.start) as usize
        };
        let (w, r) = buf.split_at_mut(wl);
        let w = self.span(w, s.wdl.clone(), || format!("block {b}'s WDL stream"))?;
        if !with_rem {
            if checksum32(w) != s.entry.wdl_checksum || self.shrunk(false) {
                return Err(self.bad_bytes(b, "WDL block checksum mismatch".into()));
            }
            return Ok((w, &[]));
        }
        let r = self.span(r, s.rem.clone(), || {
            format!("block {b}'s remoteness stream")
        })?;
        // The two streams lie in two sections of the file: ask for both
        // before waiting on either (measured: cold full-value lookups
        // about 8 % faster than checking one stream before touching the
        // other).
        prefetch_bytes(w);
        prefetch_bytes(r);
        if checksum32(w) != s.entry.wdl_checksum || self.shrunk(false) {
            return Err(self.bad_bytes(b, "WDL block checksum mismatch".into()));
        }
        if checksum32(r) != s.entry.rem_checksum || self.shrunk(false) {
            return Err(self.bad_bytes(b, "remoteness block checksum mismatch".into()));
        }
        Ok((w, r))
    }

    fn bad_block(&self, b: usize, e: CodecError) -> TbError {
        self.bad_bytes(b, e.to_string())
    }

    /// Decode the first `out.len()` values of block `b` (all of them when
    /// `out` has the block's length, which also checks the streams' ends).
    fn decode_block(&self, b: usize, out: &mut [Packed]) -> Result<(), TbError> {
        let s = self.streams(b)?;
        let n = self.buffer_len(s.wdl.end - s.wdl.start + s.rem.end - s.rem.start);
        with_buffer(n, |buf| {
            let (w, r) = self.read_streams(b, &s, buf, true)?;
            self.model
                .decode_values(w, r, self.layout.block_len(b), out)
                .map_err(|e| self.bad_block(b, e))
        })
    }

    /// Decode the whole tier, every checksum checked: blocks in batches,
    /// each batch's streams two reads, the batches in parallel.
    ///
    /// # Errors
    /// [`TbError::Corrupt`] for any damage, [`TbError::Io`] if a read
    /// fails.
    pub fn read_all(&self) -> Result<Vec<Packed>, TbError> {
        if let Some(v) = self.preloaded.get() {
            return Ok(v.clone());
        }
        let n = self.meta().positions as usize;
        let bs = self.layout.header.block_size as usize;
        let mut out = Packed::vec_from_bits(crate::hugemem::zeroed_u16(n));
        out.par_chunks_mut(bs * READ_ALL_BATCH)
            .enumerate()
            .try_for_each(|(k, values)| self.decode_batch(k * READ_ALL_BATCH, values))?;
        Ok(out)
    }

    /// Decode the whole tier in order, a batch of blocks at a time, each
    /// batch handed to `sink` with the slot it starts at: the values of a
    /// tier larger than memory, every checksum checked.
    ///
    /// # Errors
    /// As [`TierFile::read_all`], or `sink`'s.
    pub fn for_each_batch(
        &self,
        mut sink: impl FnMut(u64, &[Packed]) -> Result<(), TbError>,
    ) -> Result<(), TbError> {
        let n = self.meta().positions as usize;
        let bs = self.layout.header.block_size as usize;
        let step = bs * READ_ALL_BATCH;
        let mut values = vec![Packed::from_bits(0); step.min(n)];
        for (k, start) in (0..n).step_by(step).enumerate() {
            let len = step.min(n - start);
            self.decode_batch(k * READ_ALL_BATCH, &mut values[..len])?;
            sink(start as u64, &values[..len])?;
        }
        Ok(())
    }

    /// Decode the values of slots `range` only (the blocks that cover it,
    /// in parallel batches, every checksum checked): a rank's slice of a
    /// tier in a solve shared by ranks.
    ///
    /// # Errors
    /// As [`TierFile::read_all`].
    ///
    /// # Panics
    /// If `range` is not inside the tier.
    pub fn read_range(&self, range: std::ops::Range<u64>) -> Result<Vec<Packed>, TbError> {
        let n = self.meta().positions;
        assert!(
            range.start <= range.end && range.end <= n,
            "slots {range:?} asked of a tier of {n} slots"
        );
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let bs = self.layout.header.block_size as u64;
        let first = range.start / bs;
        let covered = first * bs..(range.end.div_ceil(bs) * bs).min(n);
        let mut out = Packed::vec_from_bits(crate::hugemem::zeroed_u16(
            (covered.end - covered.start) as usize,
        ));
        out.par_chunks_mut(bs as usize * READ_ALL_BATCH)
            .enumerate()
            .try_for_each(|(k, values)| {
                self.decode_batch(first as usize + k * READ_ALL_BATCH, values)
            })?;
        let skip = (range.start - covered.start) as usize;
        out.drain(..skip);
        out.truncate((range.end - range.start) as usize);
        Ok(out)
    }

    /// Decode the blocks from `first` on into `values` (whole blocks).
    fn decode_batch(&self, first: usize, values: &mut [Packed]) -> Result<(), TbError> {
        let bs = self.layout.header.block_size as usize;
        let count = values.len().div_ceil(bs);
        let streams: Vec<Streams> = (first..first + count)
            .map(|b| self.streams(b))
            .collect::<Result<_, _>>()?;
        let (s0, last) = (&streams[0], &streams[count - 1]);
        // The batch's streams lie back to back in each section.
        let mut wbuf = vec![0; self.buffer_len(last.wdl.end - s0.wdl.start)];
        let mut rbuf = vec![0; self.buffer_len(last.rem.end - s0.rem.start)];
        let wdl = self.span(&mut wbuf, s0.wdl.start..last.wdl.end, || {
            format!("the WDL streams of blocks {first}..{}", first + count)
        })?;
        let rem = self.span(&mut rbuf, s0.rem.start..last.rem.end, || {
            format!(
                "the remoteness streams of blocks {first}..{}",
                first + count
            )
        })?;
        for ((i, s), out) in streams.iter().enumerate().zip(values.chunks_mut(bs)) {
            let b = first + i;
            let w =
                &wdl[(s.wdl.start - s0.wdl.start) as usize..(s.wdl.end - s0.wdl.start) as usize];
            let r =
                &rem[(s.rem.start - s0.rem.start) as usize..(s.rem.end - s0.rem.start) as usize];
            if checksum32(w) != s.entry.wdl_checksum || self.shrunk(false) {
                return Err(self.bad_bytes(b, "WDL block checksum mismatch".into()));
            }
            if checksum32(r) != s.entry.rem_checksum {
                return Err(self.bad_bytes(b, "remoteness block checksum mismatch".into()));
            }
            self.model
                .decode_values(w, r, self.layout.block_len(b), out)
                .map_err(|e| self.bad_block(b, e))?;
        }
        Ok(())
    }

    /// Decode the whole tier into memory for all later probes.
    ///
    /// # Errors
    /// As [`TierFile::read_all`].
    pub fn preload(&self) -> Result<(), TbError> {
        if self.preloaded.get().is_none() {
            let v = self.read_all()?;
            let _ = self.preloaded.set(v);
        }
        Ok(())
    }

    /// Bytes held by a preloaded tier (0 if it is not preloaded).
    pub fn preloaded_bytes(&self) -> u64 {
        self.preloaded
            .get()
            .map_or(0, |v| (v.len() * std::mem::size_of::<Packed>()) as u64)
    }

    #[inline]
    fn locate(&self, i: u64) -> Result<(usize, usize), TbError> {
        let positions = self.meta().positions;
        if i >= positions {
            return Err(TbError::corrupt(
                &self.path,
                format!("index {i} outside the tier's {positions} positions"),
            ));
        }
        let bs = self.layout.header.block_size as u64;
        Ok(((i / bs) as usize, (i % bs) as usize))
    }

    /// Start loading what a lookup of block `b` needs first: its set in
    /// the block cache and, if its index chunk is in memory, its entry.
    #[inline]
    fn prefetch_lookup(&self, b: usize, key: u64) {
        BlockCache::global().prefetch(key);
        if let Some(map) = &self.map {
            let at = self.layout.index_start as usize + b * INDEX_ENTRY_LEN;
            if let Some(e) = map.bytes().get(at..at + 2 * INDEX_ENTRY_LEN) {
                prefetch_bytes(e);
            }
        } else if let Some(chunk) = self.index.get(b / INDEX_CHUNK).and_then(OnceLock::get) {
            prefetch(&chunk[b % INDEX_CHUNK]);
        }
    }

    /// Slot `i` as `of` reads a packed value: from the preloaded tier, a
    /// cached block, or else `miss(block, offset)` decoding from the file.
    #[inline]
    fn lookup<T>(
        &self,
        i: u64,
        of: impl Fn(Packed) -> T,
        miss: impl FnOnce(usize, usize) -> Result<T, TbError>,
    ) -> Result<T, TbError> {
        if let Some(v) = self.preloaded.get() {
            return v.get(i as usize).map(|&p| of(p)).ok_or_else(|| {
                TbError::corrupt(&self.path, format!("index {i} outside the tier"))
            });
        }
        let (b, off) = self.locate(i)?;
        let len = self.layout.block_len(b);
        let key = (self.id << 32) | b as u64;
        self.prefetch_lookup(b, key);
        match BlockCache::global().get(key, off, len, |out| self.decode_block(b, out))? {
            Lookup::Hit(v) => Ok(of(v)),
            Lookup::Pass => miss(b, off),
        }
    }

    /// The packed value in slot `i`, through the shared block cache.
    ///
    /// # Errors
    /// [`TbError::Corrupt`] for a slot outside the tier or a damaged
    /// block (a file shortened since it was opened included),
    /// [`TbError::Io`] if a read fails.
    #[inline]
    pub fn get(&self, i: u64) -> Result<Packed, TbError> {
        self.lookup(i, |p| p, |b, off| self.decode_value(b, off))
    }

    /// Win, draw or loss of slot `i`: reads and decodes only the WDL
    /// stream unless the block is cached.
    ///
    /// # Errors
    /// As [`TierFile::get`].
    #[inline]
    pub fn get_wdl(&self, i: u64) -> Result<Wdl, TbError> {
        self.lookup(i, wdl_of_packed, |b, off| self.decode_wdl(b, off))
    }

    /// The packed value of slot `off` of block `b` (which exists), read
    /// from the file without the cache: both streams read and checked,
    /// the WDL stream of the slot's part decoded up to the slot's Rice
    /// segment, and for a win or loss the slot's Rice code.
    fn decode_value(&self, b: usize, off: usize) -> Result<Packed, TbError> {
        let s = self.streams(b)?;
        let n = self.buffer_len(s.wdl.end - s.wdl.start + s.rem.end - s.rem.start);
        with_buffer(n, |buf| {
            let (w, r) = self.read_streams(b, &s, buf, true)?;
            self.model
                .value_at(w, r, self.layout.block_len(b), off)
                .map_err(|e| self.bad_block(b, e))
        })
    }

    /// The WDL of slot `off` of block `b` (which exists), from the WDL
    /// stream alone, without the cache.
    fn decode_wdl(&self, b: usize, off: usize) -> Result<Wdl, TbError> {
        let s = self.streams(b)?;
        let n = self.buffer_len(s.wdl.end - s.wdl.start);
        let x = with_buffer(n, |buf| {
            let (w, _) = self.read_streams(b, &s, buf, false)?;
            self.model
                .wdl_at(w, self.layout.block_len(b), off)
                .map_err(|e| self.bad_block(b, e))
        })?;
        Ok(match x {
            crate::tablebase::codec::model::WDL_DRAW => Wdl::Draw,
            crate::tablebase::codec::model::WDL_LOSS => Wdl::Loss,
            _ => Wdl::Win,
        })
    }

    /// An error unless block `b` exists and has a slot `off`.
    #[cfg(feature = "internals")]
    fn check_slot(&self, b: usize, off: usize) -> Result<(), TbError> {
        if b >= self.blocks() || off >= self.layout.block_len(b) {
            return Err(TbError::corrupt(
                &self.path,
                format!("slot {off} of block {b} outside the tier"),
            ));
        }
        Ok(())
    }

    /// The packed value of slot `off` of block `b`, decoded from the file
    /// without the cache (a measurement's path).
    ///
    /// # Errors
    /// As [`TierFile::get`].
    #[cfg(feature = "internals")]
    pub fn value_in_block(&self, b: usize, off: usize) -> Result<Packed, TbError> {
        self.check_slot(b, off)?;
        self.decode_value(b, off)
    }

    /// The WDL of slot `off` of block `b`, decoded from the file's WDL
    /// stream without the cache (a measurement's path).
    ///
    /// # Errors
    /// As [`TierFile::get`].
    #[cfg(feature = "internals")]
    pub fn wdl_in_block(&self, b: usize, off: usize) -> Result<Wdl, TbError> {
        self.check_slot(b, off)?;
        self.decode_wdl(b, off)
    }
}

/// The WDL of a stored value (a table stores no undecided slot: a slot
/// without a position is stored as a draw).
#[inline]
fn wdl_of_packed(p: Packed) -> Wdl {
    p.wdl().unwrap_or(Wdl::Draw)
}
