//! Writing a tier file: count the context model, encode blocks in
//! parallel, then write header, index and both sections to a temp file,
//! fsync it and rename it into place.

use std::fs;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use super::checksum::checksum32;
use super::header::{
    encode_header, encode_index, index_checksums, BlockEntry, Header, INDEX_CHUNK,
};
use crate::tablebase::codec::model::{Counts, ModelSpec};
use crate::tablebase::codec::TierModel;
use crate::tablebase::{TbError, TierMeta};
use crate::value::Packed;

/// How to encode a tier (the defaults are what `write_tier` uses).
#[derive(Clone, Copy, Debug)]
pub struct WriteOptions {
    /// Slots per block.
    pub block_size: u32,
    /// Write the format of sections over 4 GiB (with 64-bit chunk bases,
    /// format 6) even where format 5's 32-bit offsets would do. Only
    /// tests need it: it is chosen by itself where the sections need it.
    pub wide_offsets: bool,
    /// Record this encoding's time in the header (`stats.write_seconds`);
    /// `false` keeps the one in the given meta, so that `unpack` gives
    /// back the packed file byte for byte.
    pub record_write_time: bool,
}

/// Chosen by measurement, see docs/tablebase-format.md.
pub const DEFAULT_BLOCK_SIZE: u32 = 512;

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            block_size: DEFAULT_BLOCK_SIZE,
            wide_offsets: false,
            record_write_time: true,
        }
    }
}

/// The encoded file, in memory.
pub struct Encoded {
    /// The header as written.
    pub header: Header,
    /// Preamble, header body and header checksum.
    pub head: Vec<u8>,
    /// The block index.
    pub index: Vec<u8>,
    /// Each block's WDL stream.
    pub wdl: Vec<Vec<u8>>,
    /// Each block's remoteness stream.
    pub rem: Vec<Vec<u8>>,
}

impl Encoded {
    /// The file's length.
    pub fn file_len(&self) -> u64 {
        (self.head.len() + self.index.len()) as u64 + self.header.wdl_len + self.header.rem_len
    }
}

/// The blocks of one index chunk span 4 GiB or more, which their 32-bit
/// offsets past the chunk's base cannot address (512 blocks would need
/// 8 MiB a block: no block size a tier file uses comes near).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionTooLarge;

/// Encode a tier (parallel over blocks): format 5, or format 6 where a
/// section passes 4 GiB.
///
/// # Errors
/// [`SectionTooLarge`] if one index chunk's blocks span 4 GiB.
pub fn encode_tier(
    meta: &TierMeta,
    values: &[Packed],
    opts: &WriteOptions,
) -> Result<Encoded, SectionTooLarge> {
    let t0 = Instant::now();
    let bs = opts.block_size.max(1) as usize;
    let spec = count_blocks(values, bs).spec();
    let model = TierModel::new(&spec).expect("a counted model is valid");
    let (wdl, rem): (Vec<Vec<u8>>, Vec<Vec<u8>>) =
        values.par_chunks(bs).map(|b| model.encode(b)).unzip();
    finish_encoding(meta, opts, t0, spec, wdl, rem)
}

/// The model's counts over whole blocks of `values` (in parallel).
fn count_blocks(values: &[Packed], bs: usize) -> Counts {
    values
        .par_chunks(bs)
        .fold(Counts::new, |mut c, b| {
            c.add_block(b);
            c
        })
        .reduce(Counts::new, Counts::merge)
}

/// Checksums, block index and header of the encoded blocks.
fn finish_encoding(
    meta: &TierMeta,
    opts: &WriteOptions,
    t0: Instant,
    spec: ModelSpec,
    wdl: Vec<Vec<u8>>,
    rem: Vec<Vec<u8>>,
) -> Result<Encoded, SectionTooLarge> {
    let blocks: Vec<BlockStreams> = wdl
        .par_iter()
        .zip(&rem)
        .map(|(w, r)| BlockStreams::of(w, r))
        .collect();
    let (header, head, index) = index_and_header(meta, opts, t0, spec, &blocks)?;
    Ok(Encoded {
        head,
        header,
        index,
        wdl,
        rem,
    })
}

/// The lengths and checksums of one block's two streams.
struct BlockStreams {
    wdl_len: u64,
    wdl_checksum: u32,
    rem_len: u64,
    rem_checksum: u32,
}

impl BlockStreams {
    fn of(w: &[u8], r: &[u8]) -> BlockStreams {
        BlockStreams {
            wdl_len: w.len() as u64,
            wdl_checksum: checksum32(w),
            rem_len: r.len() as u64,
            rem_checksum: checksum32(r),
        }
    }
}

/// The header (as a value and as bytes) and the block index of blocks
/// whose streams lie back to back in each section.
fn index_and_header(
    meta: &TierMeta,
    opts: &WriteOptions,
    t0: Instant,
    spec: ModelSpec,
    blocks: &[BlockStreams],
) -> Result<(Header, Vec<u8>, Vec<u8>), SectionTooLarge> {
    let bs = opts.block_size.max(1) as usize;
    let mut entries = Vec::with_capacity(blocks.len());
    let mut bases: Vec<[u64; 2]> = Vec::new();
    let (mut wo, mut ro) = (0u64, 0u64);
    for (b, s) in blocks.iter().enumerate() {
        if b % INDEX_CHUNK == 0 {
            bases.push([wo, ro]);
        }
        let [wb, rb] = bases[b / INDEX_CHUNK];
        // The next block's offsets, too, must lie within 4 GiB of this
        // chunk's base: the reader ends a block's streams with them.
        let (wn, rn) = (wo + s.wdl_len, ro + s.rem_len);
        if wn - wb > u32::MAX as u64 || rn - rb > u32::MAX as u64 {
            return Err(SectionTooLarge);
        }
        entries.push(BlockEntry {
            wdl_offset: wo as u32,
            wdl_checksum: s.wdl_checksum,
            rem_offset: ro as u32,
            rem_checksum: s.rem_checksum,
        });
        (wo, ro) = (wn, rn);
    }
    if !opts.wide_offsets && wo <= u32::MAX as u64 && ro <= u32::MAX as u64 {
        bases.clear();
    }
    let index = encode_index(&entries);
    let mut meta = meta.clone();
    if opts.record_write_time {
        meta.stats.write_seconds = t0.elapsed().as_secs_f64();
    }
    let header = Header {
        meta,
        block_size: bs as u32,
        blocks: blocks.len() as u64,
        model: spec,
        wdl_len: wo,
        rem_len: ro,
        index_checksums: index_checksums(&index),
    };
    let head = encode_header(&header, &bases);
    Ok((header, head, index))
}

/// Write a tier file atomically with explicit options; returns the file
/// size.
///
/// # Errors
/// [`TbError::Io`] if the file cannot be written (and then no file and no
/// temporary file is left), if `values` is not one value per slot of
/// `meta`'s tier, or if one index chunk's blocks span 4 GiB.
pub fn write_tier_with(
    path: &Path,
    meta: &TierMeta,
    values: &[Packed],
    opts: &WriteOptions,
) -> Result<u64, TbError> {
    if values.len() as u64 != meta.positions {
        return Err(TbError::io(
            path,
            "cannot write tier file",
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} values for a tier of {} positions",
                    values.len(),
                    meta.positions
                ),
            ),
        ));
    }
    let enc = encode_tier(meta, values, opts).map_err(|SectionTooLarge| too_large(path))?;
    write_encoded(path, &enc)?;
    Ok(enc.file_len())
}

/// Write a tier file atomically (default options) from values too many to
/// hold: `read(start, out)` fills `out` with the values from slot `start`
/// on, a batch of blocks at a time, twice over (once to count the model,
/// once to encode). The encoded streams go to two part files beside the
/// tier file as they are made, and are copied behind the header and
/// index at the end: what the writer holds is one batch and the index.
/// Returns the file size.
///
/// # Errors
/// As [`write_tier_with`], and `read`'s.
pub fn write_tier_batched(
    path: &Path,
    meta: &TierMeta,
    mut read: impl FnMut(u64, &mut [Packed]) -> Result<(), TbError>,
) -> Result<u64, TbError> {
    const BATCH_BLOCKS: usize = 2048;
    let t0 = Instant::now();
    let opts = WriteOptions::default();
    let n = meta.positions as usize;
    let bs = opts.block_size as usize;
    let batch = bs * BATCH_BLOCKS;
    let mut buf = vec![Packed::UNDECIDED; batch.min(n)];
    let mut visit = |f: &mut dyn FnMut(&[Packed]) -> std::io::Result<()>| -> Result<(), TbError> {
        for start in (0..n).step_by(batch) {
            let len = batch.min(n - start);
            read(start as u64, &mut buf[..len])?;
            f(&buf[..len]).map_err(|e| TbError::io(path, "cannot write tier file", e))?;
        }
        Ok(())
    };
    let mut counts = Counts::new();
    visit(&mut |values| {
        counts = std::mem::take(&mut counts).merge(count_blocks(values, bs));
        Ok(())
    })?;
    let spec = counts.spec();
    let model = TierModel::new(&spec).expect("a counted model is valid");
    let parts = PartFiles::new(path)?;
    let mut blocks: Vec<BlockStreams> = Vec::with_capacity(n.div_ceil(bs));
    {
        let (mut wdl, mut rem) = (
            BufWriter::with_capacity(1 << 20, &parts.wdl),
            BufWriter::with_capacity(1 << 20, &parts.rem),
        );
        visit(&mut |values| {
            let encoded: Vec<(Vec<u8>, Vec<u8>)> =
                values.par_chunks(bs).map(|b| model.encode(b)).collect();
            for (w, r) in &encoded {
                blocks.push(BlockStreams::of(w, r));
                wdl.write_all(w)?;
                rem.write_all(r)?;
            }
            Ok(())
        })?;
        let flush =
            |w: BufWriter<&fs::File>| w.into_inner().map(|_| ()).map_err(|e| e.into_error());
        flush(wdl)
            .and_then(|_| flush(rem))
            .map_err(|e| TbError::io(path, "cannot write tier file", e))?;
    }
    let (header, head, index) = index_and_header(meta, &opts, t0, spec, &blocks)
        .map_err(|SectionTooLarge| too_large(path))?;
    write_atomically(path, |w| {
        w.write_all(&head)?;
        w.write_all(&index)?;
        for part in [&parts.wdl, &parts.rem] {
            let mut f = part;
            f.seek(std::io::SeekFrom::Start(0))?;
            std::io::copy(&mut f, w)?;
        }
        Ok(())
    })?;
    Ok((head.len() + index.len()) as u64 + header.wdl_len + header.rem_len)
}

/// The error of a tier whose index chunk spans 4 GiB ([`SectionTooLarge`]).
fn too_large(path: &Path) -> TbError {
    TbError::io(
        path,
        "cannot write tier file",
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            "the blocks of one index chunk span 4 GiB (use a smaller block size)",
        ),
    )
}

/// Remove the temporary files that tier writers killed in the middle of a
/// write left in `dir` (`<tier file>.<pid>.tmp` of the atomic write and
/// `<tier file>.<pid>.<section>.part` of [`write_tier_batched`]): a process
/// killed between its last write and its clean-up leaves them, beside a
/// finished tier file or none. Called when a solve starts, so a directory
/// takes one solve at a time (as it must anyway: both would write the same
/// tiers). Returns how many were removed.
///
/// # Errors
/// [`TbError::Io`] if `dir` cannot be listed or a file removed.
pub fn remove_unfinished_writes(dir: &Path) -> Result<usize, TbError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(TbError::io(dir, "cannot list the tablebase directory", e)),
    };
    let mut removed = 0;
    for entry in entries {
        let entry =
            entry.map_err(|e| TbError::io(dir, "cannot list the tablebase directory", e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let leftover =
            name.contains(".qtb.") && (name.ends_with(".tmp") || name.ends_with(".part"));
        if leftover {
            let path = entry.path();
            fs::remove_file(&path)
                .map_err(|e| TbError::io(&path, "cannot remove an unfinished write", e))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// The two part files of [`write_tier_batched`], removed when dropped.
struct PartFiles {
    wdl: fs::File,
    rem: fs::File,
    paths: [std::path::PathBuf; 2],
}

impl PartFiles {
    fn new(path: &Path) -> Result<PartFiles, TbError> {
        let name = |section: &str| {
            let mut s = path.file_name().unwrap_or_default().to_os_string();
            s.push(format!(".{}.{section}.part", std::process::id()));
            path.with_file_name(s)
        };
        let paths = [name("wdl"), name("rem")];
        let open = |p: &Path| {
            fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(p)
                .map_err(|e| TbError::io(p, "cannot write tier file", e))
        };
        Ok(PartFiles {
            wdl: open(&paths[0])?,
            rem: open(&paths[1])?,
            paths,
        })
    }
}

impl Drop for PartFiles {
    fn drop(&mut self) {
        for p in &self.paths {
            let _ = fs::remove_file(p);
        }
    }
}

/// Write an encoded tier atomically: temp file, fsync, rename, fsync dir.
///
/// # Errors
/// [`TbError::Io`] if the directory or the file cannot be written.
pub fn write_encoded(path: &Path, enc: &Encoded) -> Result<(), TbError> {
    write_atomically(path, |w| {
        w.write_all(&enc.head)?;
        w.write_all(&enc.index)?;
        for b in enc.wdl.iter().chain(&enc.rem) {
            w.write_all(b)?;
        }
        Ok(())
    })
}

/// Write `path` through `fill` atomically: a temp file beside it, fsync,
/// rename, fsync of the directory. On failure no file and no temp file
/// is left.
fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<fs::File>) -> std::io::Result<()>,
) -> Result<(), TbError> {
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() {
            fs::create_dir_all(parent)
                .map_err(|e| TbError::io(parent, "cannot create directory", e))?;
        }
    }
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let write = || -> std::io::Result<()> {
        let f = fs::File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, f);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        // Make the rename itself durable (best effort).
        if let Some(parent) = path.parent() {
            let dir = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        TbError::io(path, "cannot write tier file", e)
    })
}
