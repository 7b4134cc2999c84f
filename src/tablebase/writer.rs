//! Writing a tier file: encode blocks in parallel, then write header, index
//! and blocks to a temp file, fsync it and rename it into place.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;

use rayon::prelude::*;

use super::codec::{build_symbols, value_codes, Coder};
use super::error::{err, err_kind, TbError, TbErrorKind};
use super::header::{encode_header, encode_index, qhash64, BlockEntry, Encoding, Header};
use super::TierMeta;
use crate::value::Packed;

/// How to encode a tier (the defaults are what `write_tier` uses).
#[derive(Clone, Copy, Debug)]
pub struct WriteOptions {
    pub encoding: Encoding,
    /// Positions per block.
    pub block_size: u32,
    /// zstd compression level (SymbolsZstd only).
    pub level: i32,
}

/// Chosen by measurement, see docs/tablebase-format.md.
pub const DEFAULT_BLOCK_SIZE: u32 = 1 << 16;
pub const DEFAULT_LEVEL: i32 = 19;

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            encoding: Encoding::SymbolsZstd,
            block_size: DEFAULT_BLOCK_SIZE,
            level: DEFAULT_LEVEL,
        }
    }
}

/// The encoded file, in memory: header bytes, index bytes, block bytes.
pub struct Encoded {
    pub header: Header,
    pub head: Vec<u8>,
    pub index: Vec<u8>,
    pub blocks: Vec<Vec<u8>>,
}

impl Encoded {
    pub fn len(&self) -> u64 {
        (self.head.len() + self.index.len()) as u64 + self.header.data_len
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Encode a tier (parallel over blocks).
pub fn encode_tier(meta: &TierMeta, values: &[Packed], opts: &WriteOptions) -> Encoded {
    let bs = opts.block_size.max(1) as usize;
    let symbols = match opts.encoding {
        Encoding::Raw16 => Vec::new(),
        Encoding::SymbolsZstd => build_symbols(values),
    };
    let codes = value_codes(&symbols);
    let blocks: Vec<Vec<u8>> = values
        .par_chunks(bs)
        .map_init(
            || Coder::new(opts.level),
            |c, b| c.encode(opts.encoding, b, &symbols, &codes),
        )
        .collect();
    let mut entries = Vec::with_capacity(blocks.len());
    let mut offset = 0u64;
    let sums: Vec<u64> = blocks.par_iter().map(|b| qhash64(b)).collect();
    for (b, sum) in blocks.iter().zip(sums) {
        entries.push(BlockEntry {
            offset,
            checksum: sum,
        });
        offset += b.len() as u64;
    }
    let index = encode_index(&entries);
    let header = Header {
        meta: meta.clone(),
        encoding: opts.encoding,
        block_size: bs as u32,
        blocks: blocks.len() as u64,
        symbols,
        data_len: offset,
        index_checksum: qhash64(&index),
    };
    Encoded {
        head: encode_header(&header),
        header,
        index,
        blocks,
    }
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
    let enc = encode_tier(meta, values, opts);
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
        for b in &enc.blocks {
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
    match write() {
        Ok(()) => Ok(enc.len()),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(err_kind(
                TbErrorKind::Io,
                path,
                format!("cannot write tier file: {e}"),
            ))
        }
    }
}
