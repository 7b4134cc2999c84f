//! Writing a tier file: count the context model, encode blocks in
//! parallel, then write header, index and both sections to a temp file,
//! fsync it and rename it into place.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use super::checksum::checksum32;
use super::header::{
    encode_header, encode_index, index_checksums, BlockEntry, Header, INDEX_CHUNK,
};
use crate::tablebase::codec::model::Counts;
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
    let whole = |f: &mut dyn FnMut(&[Packed])| -> Result<(), std::convert::Infallible> {
        f(values);
        Ok(())
    };
    match encode_in_batches(meta, opts, whole) {
        Ok(enc) => enc,
        Err(never) => match never {},
    }
}

/// [`encode_tier`] of values that `visit` hands over in order, in batches
/// of whole blocks (the last may end short), once to count the model and
/// once to encode: a tier need not be in memory to be written. The
/// encoded streams are (about an eighth of the values).
fn encode_in_batches<E>(
    meta: &TierMeta,
    opts: &WriteOptions,
    mut visit: impl FnMut(&mut dyn FnMut(&[Packed])) -> Result<(), E>,
) -> Result<Result<Encoded, SectionTooLarge>, E> {
    let t0 = Instant::now();
    let bs = opts.block_size.max(1) as usize;
    let mut counts = Counts::new();
    visit(&mut |values| {
        let part = values
            .par_chunks(bs)
            .fold(Counts::new, |mut c, b| {
                c.add_block(b);
                c
            })
            .reduce(Counts::new, Counts::merge);
        counts = std::mem::take(&mut counts).merge(part);
    })?;
    let spec = counts.spec();
    let model = TierModel::new(&spec).expect("a counted model is valid");
    let (mut wdl, mut rem): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (Vec::new(), Vec::new());
    visit(&mut |values| {
        let (w, r): (Vec<Vec<u8>>, Vec<Vec<u8>>) =
            values.par_chunks(bs).map(|b| model.encode(b)).unzip();
        if wdl.is_empty() {
            (wdl, rem) = (w, r);
        } else {
            wdl.extend(w);
            rem.extend(r);
        }
    })?;
    Ok(finish_encoding(meta, opts, t0, spec, wdl, rem))
}

/// Checksums, block index and header of the encoded blocks.
fn finish_encoding(
    meta: &TierMeta,
    opts: &WriteOptions,
    t0: Instant,
    spec: crate::tablebase::codec::model::ModelSpec,
    wdl: Vec<Vec<u8>>,
    rem: Vec<Vec<u8>>,
) -> Result<Encoded, SectionTooLarge> {
    let bs = opts.block_size.max(1) as usize;
    let sums: Vec<(u32, u32)> = wdl
        .par_iter()
        .zip(&rem)
        .map(|(w, r)| (checksum32(w), checksum32(r)))
        .collect();
    let mut entries = Vec::with_capacity(wdl.len());
    let mut bases: Vec<[u64; 2]> = Vec::new();
    let (mut wo, mut ro) = (0u64, 0u64);
    for (b, ((w, r), (ws, rs))) in wdl.iter().zip(&rem).zip(sums).enumerate() {
        if b % INDEX_CHUNK == 0 {
            bases.push([wo, ro]);
        }
        let [wb, rb] = bases[b / INDEX_CHUNK];
        // The next block's offsets, too, must lie within 4 GiB of this
        // chunk's base: the reader ends a block's streams with them.
        let (wn, rn) = (wo + w.len() as u64, ro + r.len() as u64);
        if wn - wb > u32::MAX as u64 || rn - rb > u32::MAX as u64 {
            return Err(SectionTooLarge);
        }
        entries.push(BlockEntry {
            wdl_offset: wo as u32,
            wdl_checksum: ws,
            rem_offset: ro as u32,
            rem_checksum: rs,
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
        blocks: wdl.len() as u64,
        model: spec,
        wdl_len: wo,
        rem_len: ro,
        index_checksums: index_checksums(&index),
    };
    Ok(Encoded {
        head: encode_header(&header, &bases),
        header,
        index,
        wdl,
        rem,
    })
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
    let enc = encode_tier(meta, values, opts).map_err(|SectionTooLarge| {
        TbError::io(
            path,
            "cannot write tier file",
            std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                "the blocks of one index chunk span 4 GiB (use a smaller block size)",
            ),
        )
    })?;
    write_encoded(path, &enc)?;
    Ok(enc.file_len())
}

/// Write a tier file atomically (default options) from values too many to
/// hold: `read(start, out)` fills `out` with the values from slot `start`
/// on, a batch of blocks at a time, twice over. Returns the file size.
///
/// # Errors
/// As [`write_tier_with`], and `read`'s.
pub fn write_tier_batched(
    path: &Path,
    meta: &TierMeta,
    mut read: impl FnMut(u64, &mut [Packed]) -> Result<(), TbError>,
) -> Result<u64, TbError> {
    const BATCH_BLOCKS: usize = 2048;
    let opts = WriteOptions::default();
    let n = meta.positions as usize;
    let batch = opts.block_size as usize * BATCH_BLOCKS;
    let mut buf = vec![Packed::UNDECIDED; batch.min(n)];
    let visit = |f: &mut dyn FnMut(&[Packed])| -> Result<(), TbError> {
        for start in (0..n).step_by(batch) {
            let len = batch.min(n - start);
            read(start as u64, &mut buf[..len])?;
            f(&buf[..len]);
        }
        Ok(())
    };
    let enc = encode_in_batches(meta, &opts, visit)?.map_err(|SectionTooLarge| {
        TbError::io(
            path,
            "cannot write tier file",
            std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                "the blocks of one index chunk span 4 GiB (use a smaller block size)",
            ),
        )
    })?;
    write_encoded(path, &enc)?;
    Ok(enc.file_len())
}

/// Write an encoded tier atomically: temp file, fsync, rename, fsync dir.
///
/// # Errors
/// [`TbError::Io`] if the directory or the file cannot be written.
pub fn write_encoded(path: &Path, enc: &Encoded) -> Result<(), TbError> {
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
        w.write_all(&enc.head)?;
        w.write_all(&enc.index)?;
        for b in enc.wdl.iter().chain(&enc.rem) {
            w.write_all(b)?;
        }
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
