//! Writing a tier file: count the context model, encode blocks in
//! parallel, then write header, index and both sections to a temp file,
//! fsync it and rename it into place.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use super::checksum::checksum32;
use super::error::{err, err_kind, TbError, TbErrorKind};
use super::header::{encode_header, encode_index, index_checksums, BlockEntry, Header};
use super::model::{Coding, Counts, TierModel};
use super::TierMeta;
use crate::value::Packed;

/// How to encode a tier (the defaults are what `write_tier` uses).
#[derive(Clone, Copy, Debug)]
pub struct WriteOptions {
    /// Slots per block.
    pub block_size: u32,
}

/// Chosen by measurement, see docs/tablebase-format.md.
pub const DEFAULT_BLOCK_SIZE: u32 = 512;

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            block_size: DEFAULT_BLOCK_SIZE,
        }
    }
}

/// The encoded file, in memory.
pub struct Encoded {
    pub header: Header,
    pub head: Vec<u8>,
    pub index: Vec<u8>,
    pub wdl: Vec<Vec<u8>>,
    pub rem: Vec<Vec<u8>>,
}

impl Encoded {
    pub fn len(&self) -> u64 {
        (self.head.len() + self.index.len()) as u64 + self.header.wdl_len + self.header.rem_len
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Encode a tier (parallel over blocks). Fails only if a section would
/// exceed the 4 GiB that 4-byte offsets address.
pub fn encode_tier(
    meta: &TierMeta,
    values: &[Packed],
    opts: &WriteOptions,
) -> Result<Encoded, String> {
    let t0 = Instant::now();
    let bs = opts.block_size.max(1) as usize;
    let counts = values
        .par_chunks(bs)
        .fold(
            || Counts::new(Coding::V5),
            |mut c, b| {
                c.add_block(b);
                c
            },
        )
        .reduce(|| Counts::new(Coding::V5), Counts::merge);
    let spec = counts.spec();
    let model = TierModel::new(&spec, Coding::V5).expect("a counted model is valid");
    let (wdl, rem): (Vec<Vec<u8>>, Vec<Vec<u8>>) =
        values.par_chunks(bs).map(|b| model.encode(b)).unzip();
    let sums: Vec<(u32, u32)> = wdl
        .par_iter()
        .zip(&rem)
        .map(|(w, r)| (checksum32(w), checksum32(r)))
        .collect();
    let mut entries = Vec::with_capacity(wdl.len());
    let (mut wo, mut ro) = (0u64, 0u64);
    for ((w, r), (ws, rs)) in wdl.iter().zip(&rem).zip(sums) {
        if wo > u32::MAX as u64 || ro > u32::MAX as u64 {
            return Err("a section of the tier is larger than 4 GiB".into());
        }
        entries.push(BlockEntry {
            wdl_offset: wo as u32,
            wdl_checksum: ws,
            rem_offset: ro as u32,
            rem_checksum: rs,
        });
        wo += w.len() as u64;
        ro += r.len() as u64;
    }
    if wo > u32::MAX as u64 || ro > u32::MAX as u64 {
        return Err("a section of the tier is larger than 4 GiB".into());
    }
    let index = encode_index(&entries);
    let mut meta = meta.clone();
    meta.stats.write_seconds = t0.elapsed().as_secs_f64();
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
        head: encode_header(&header),
        header,
        index,
        wdl,
        rem,
    })
}

/// Write a tier file atomically with explicit options; returns the file size.
pub fn write_tier_with(
    path: &Path,
    meta: &TierMeta,
    values: &[Packed],
    opts: &WriteOptions,
) -> Result<u64, TbError> {
    if values.len() as u64 != meta.positions {
        return Err(err(
            path,
            format!(
                "refusing to write {} values for a tier of {} positions",
                values.len(),
                meta.positions
            ),
        ));
    }
    let enc = encode_tier(meta, values, opts).map_err(|e| err_kind(TbErrorKind::Io, path, e))?;
    write_encoded(path, &enc)?;
    Ok(enc.len())
}

/// Write an encoded tier atomically: temp file, fsync, rename, fsync dir.
pub fn write_encoded(path: &Path, enc: &Encoded) -> Result<(), TbError> {
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() {
            fs::create_dir_all(parent).map_err(|e| {
                err_kind(
                    TbErrorKind::Io,
                    parent,
                    format!("cannot create directory: {e}"),
                )
            })?;
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
        err_kind(
            TbErrorKind::Io,
            path,
            format!("cannot write tier file: {e}"),
        )
    })
}
