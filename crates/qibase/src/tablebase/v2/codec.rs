//! Format 2 block coding (kept to read old files for `qibase convert`):
//! the per-tier symbol table and the coding of one block.
//!
//! `SymbolsZstd`: every packed value of the tier is replaced by its rank in
//! the tier's value frequency table (most frequent value = symbol 0), one
//! byte per position; the 255 most frequent values get bytes 0..=254 and
//! byte 255 escapes a rarer value, written after it as u16 LE. Unused slots
//! (packed 0) repeat the previous value of the block, which only lengthens
//! runs. The byte stream is compressed as one zstd frame per block.

use rayon::prelude::*;

use super::header::Encoding;
use crate::value::Packed;

/// Byte that escapes a value outside the 255 most frequent.
pub const ESCAPE: u8 = 255;
/// `codes[v]` of a value with no symbol.
const NO_CODE: u16 = u16::MAX;

/// The tier's symbol table: distinct used values (packed != 0), most
/// frequent first, ties by smaller packed value (deterministic).
pub fn build_symbols(values: &[Packed]) -> Vec<Packed> {
    let hist = values
        .par_chunks(1 << 20)
        .fold(
            || vec![0u64; 1 << 16],
            |mut h, c| {
                for &v in c {
                    h[v as usize] += 1;
                }
                h
            },
        )
        .reduce(
            || vec![0u64; 1 << 16],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    let mut used: Vec<(u64, Packed)> = hist
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, &c)| c > 0)
        .map(|(v, &c)| (c, v as Packed))
        .collect();
    used.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    used.into_iter().map(|(_, v)| v).collect()
}

/// Value → symbol lookup for the encoder.
pub fn value_codes(symbols: &[Packed]) -> Vec<u16> {
    let mut codes = vec![NO_CODE; 1 << 16];
    for (s, &v) in symbols.iter().enumerate() {
        codes[v as usize] = s as u16;
    }
    codes
}

/// Map one block of values to the symbol byte stream (appended to `out`).
pub fn symbolize(block: &[Packed], symbols: &[Packed], codes: &[u16], out: &mut Vec<u8>) {
    let mut prev = symbols.first().copied().unwrap_or(1);
    for &v in block {
        let v = if v == 0 { prev } else { v };
        prev = v;
        let c = codes[v as usize];
        if c < ESCAPE as u16 {
            out.push(c as u8);
        } else {
            out.push(ESCAPE);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Inverse of [`symbolize`]: fills `out` exactly, or says what is wrong.
pub fn desymbolize(bytes: &[u8], symbols: &[Packed], out: &mut [Packed]) -> Result<(), String> {
    if bytes.len() == out.len() {
        // No escapes possible: one byte per value.
        let mut table = [0 as Packed; 256];
        table[..symbols.len().min(255)].copy_from_slice(&symbols[..symbols.len().min(255)]);
        for (o, &b) in out.iter_mut().zip(bytes) {
            *o = table[b as usize];
            if *o == 0 {
                return Err(format!("symbol {b} outside the symbol table"));
            }
        }
        return Ok(());
    }
    let mut i = 0;
    for o in out.iter_mut() {
        let b = *bytes.get(i).ok_or("block stream ends early")?;
        i += 1;
        *o = if b == ESCAPE {
            let lo = *bytes.get(i).ok_or("block stream ends inside an escape")?;
            let hi = *bytes
                .get(i + 1)
                .ok_or("block stream ends inside an escape")?;
            i += 2;
            u16::from_le_bytes([lo, hi])
        } else {
            *symbols
                .get(b as usize)
                .ok_or_else(|| format!("symbol {b} outside the symbol table"))?
        };
        if *o == 0 {
            return Err("escaped value 0 in block stream".into());
        }
    }
    if i != bytes.len() {
        return Err("block stream longer than the block".into());
    }
    Ok(())
}

/// Per-thread coding state (zstd contexts are reused across blocks).
pub struct Coder {
    comp: Option<zstd::bulk::Compressor<'static>>,
    dec: Option<zstd::bulk::Decompressor<'static>>,
    buf: Vec<u8>,
    level: i32,
}

impl Coder {
    pub fn new(level: i32) -> Coder {
        Coder {
            comp: None,
            dec: None,
            buf: Vec::new(),
            level,
        }
    }

    /// Encode one block.
    pub fn encode(
        &mut self,
        enc: Encoding,
        block: &[Packed],
        symbols: &[Packed],
        codes: &[u16],
    ) -> Vec<u8> {
        match enc {
            Encoding::Raw16 => block.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Encoding::SymbolsZstd => {
                self.buf.clear();
                symbolize(block, symbols, codes, &mut self.buf);
                let level = self.level;
                let comp = self.comp.get_or_insert_with(|| {
                    zstd::bulk::Compressor::new(level).expect("zstd compressor")
                });
                comp.compress(&self.buf).expect("zstd compresses")
            }
        }
    }

    /// Decode one block into `out` (exactly the block's positions).
    pub fn decode(
        &mut self,
        enc: Encoding,
        bytes: &[u8],
        symbols: &[Packed],
        out: &mut [Packed],
    ) -> Result<(), String> {
        match enc {
            Encoding::Raw16 => {
                if bytes.len() != out.len() * 2 {
                    return Err(format!(
                        "block has {} bytes, expected {}",
                        bytes.len(),
                        out.len() * 2
                    ));
                }
                for (o, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                    *o = u16::from_le_bytes([c[0], c[1]]);
                }
                Ok(())
            }
            Encoding::SymbolsZstd => {
                let dec = match &mut self.dec {
                    Some(d) => d,
                    None => self.dec.insert(
                        zstd::bulk::Decompressor::new()
                            .map_err(|e| format!("zstd decompressor: {e}"))?,
                    ),
                };
                self.buf.clear();
                self.buf.reserve(out.len() * 3);
                dec.decompress_to_buffer(bytes, &mut self.buf)
                    .map_err(|e| format!("cannot decompress block: {e}"))?;
                desymbolize(&self.buf, symbols, out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: deterministic test data without a dependency.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed | 1;
        move || {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            s.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    fn round_trip(values: &[Packed], enc: Encoding, block_size: usize) {
        let symbols = build_symbols(values);
        let codes = value_codes(&symbols);
        let mut c = Coder::new(3);
        for block in values.chunks(block_size) {
            let bytes = c.encode(enc, block, &symbols, &codes);
            let mut out = vec![0; block.len()];
            c.decode(enc, &bytes, &symbols, &mut out).unwrap();
            for (i, (&a, &b)) in block.iter().zip(&out).enumerate() {
                if a != 0 {
                    assert_eq!(a, b, "slot {i}");
                } else if enc == Encoding::SymbolsZstd {
                    assert_ne!(b, 0, "unused slot decodes to some value");
                }
            }
        }
    }

    fn all_encodings(values: &[Packed]) {
        for enc in [Encoding::Raw16, Encoding::SymbolsZstd] {
            for bs in [1, 7, 4096, 1 << 16] {
                round_trip(values, enc, bs);
            }
        }
    }

    #[test]
    fn random_values_round_trip() {
        let mut r = rng(1);
        let v: Vec<Packed> = (0..50_000).map(|_| 1 + (r() % 65_535) as Packed).collect();
        let s = build_symbols(&v);
        assert!(s.len() > 255, "exercises escapes");
        all_encodings(&v);
    }

    #[test]
    fn skewed_values_round_trip() {
        let mut r = rng(2);
        let v: Vec<Packed> = (0..100_000)
            .map(|_| {
                let x = r();
                match x % 100 {
                    0..=59 => 1,
                    60..=79 => 3 + 2 * ((x >> 8) % 4) as Packed,
                    80..=98 => 2 + 2 * ((x >> 8) % 60) as Packed,
                    _ => 3 + 2 * ((x >> 8) % 400) as Packed,
                }
            })
            .collect();
        let s = build_symbols(&v);
        assert_eq!(s[0], 1, "most frequent first");
        all_encodings(&v);
    }

    #[test]
    fn unused_slots_round_trip() {
        let mut r = rng(3);
        let v: Vec<Packed> = (0..60_000)
            .map(|_| {
                let x = r();
                if !x.is_multiple_of(4) {
                    0
                } else {
                    2 + (x >> 16) as Packed % 700
                }
            })
            .collect();
        all_encodings(&v);
        all_encodings(&[0, 0, 0, 0]);
        all_encodings(&[]);
        all_encodings(&[5]);
    }

    #[test]
    fn corrupt_streams_are_errors() {
        let symbols = vec![1, 3, 2];
        let mut out = vec![0; 4];
        assert!(desymbolize(&[0, 1, 2], &symbols, &mut out).is_err());
        assert!(desymbolize(&[0, 1, 2, 9], &symbols, &mut out).is_err());
        assert!(desymbolize(&[0, 1, 2, ESCAPE, 0], &symbols, &mut out).is_err());
        assert!(desymbolize(&[0, 1, 2, ESCAPE, 0, 0], &symbols, &mut out).is_err());
        assert!(desymbolize(&[0, 1, 2, 0, 0, 0], &symbols, &mut out).is_err());
        let mut c = Coder::new(3);
        assert!(c
            .decode(Encoding::SymbolsZstd, b"garbage!", &symbols, &mut out)
            .is_err());
    }
}
