//! The per-tier static context model and the coding of one block.
//!
//! A slot's value is split into two symbols, coded in two streams:
//! * **WDL** (draw 0, loss 1, win 2), in the context of the two previous
//!   slots' WDL symbols (9 contexts);
//! * **remoteness**, only for a loss or a win: `r` if `r < 255`, otherwise
//!   the escape symbol 255 followed by `r` as two uniform bytes (high, low).
//!   Its context is the slot's own class (loss/win), the class of the
//!   previous decisive slot and a bucket of that slot's remoteness
//!   ([`REM_CONTEXTS`] contexts).
//!
//! Contexts restart at every block start, so blocks decode independently.
//! An unused slot (packed 0) is a don't-care: it repeats the previous
//! slot's value (the first used value at a block start), which in these
//! contexts is almost free.

use serde::{Deserialize, Serialize};

use super::rans::{normalize, Decoder, Encoder, Flat3, Model};
use crate::value::Packed;

pub const WDL_DRAW: u8 = 0;
pub const WDL_LOSS: u8 = 1;
pub const WDL_WIN: u8 = 2;
pub const WDL_CONTEXTS: usize = 9;
/// Remoteness symbols: 0..=254 literal, 255 escape.
pub const REM_SYMBOLS: usize = 256;
pub const REM_ESCAPE: usize = 255;
const BUCKETS: usize = 20;
pub const REM_CONTEXTS: usize = 4 * BUCKETS;
const NONE: u16 = u16::MAX;

/// WDL symbol of a used packed value.
#[inline]
pub fn wdl_of(p: Packed) -> u8 {
    if p == 1 {
        WDL_DRAW
    } else if p & 1 == 0 {
        WDL_LOSS
    } else {
        WDL_WIN
    }
}

#[inline]
fn pack(wdl: u8, r: u16) -> Packed {
    match wdl {
        WDL_DRAW => 1,
        WDL_LOSS => 2 + 2 * r,
        _ => 3 + 2 * r,
    }
}

#[inline]
fn wdl_ctx(p1: u8, p2: u8) -> usize {
    p1 as usize * 3 + p2 as usize
}

#[inline]
fn bucket(r: u16) -> usize {
    match r {
        0..=11 => r as usize,
        12..=15 => 12,
        16..=23 => 13,
        24..=31 => 14,
        32..=47 => 15,
        48..=63 => 16,
        64..=95 => 17,
        96..=127 => 18,
        _ => 19,
    }
}

#[inline]
fn rem_ctx(wdl: u8, prev_wdl: u8, prev_r: u16) -> usize {
    let class = (wdl == WDL_WIN) as usize;
    let prev = (prev_wdl == WDL_WIN) as usize;
    (class * 2 + prev) * BUCKETS + bucket(prev_r)
}

/// The model as stored in the header: per context, the frequencies
/// (summing to 4096). Remoteness tables are sparse: (symbol, frequency).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct ModelSpec {
    pub wdl: Vec<Vec<u16>>,
    pub rem: Vec<Vec<(u8, u16)>>,
}

/// Context counts of a tier, gathered block by block.
#[derive(Clone)]
pub struct Counts {
    wdl: Vec<[u64; 3]>,
    rem: Vec<Vec<u64>>,
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            wdl: vec![[0; 3]; WDL_CONTEXTS],
            rem: vec![vec![0; REM_SYMBOLS]; REM_CONTEXTS],
        }
    }
}

impl Counts {
    pub fn merge(mut self, o: Counts) -> Counts {
        for (a, b) in self.wdl.iter_mut().zip(&o.wdl) {
            for k in 0..3 {
                a[k] += b[k];
            }
        }
        for (a, b) in self.rem.iter_mut().zip(&o.rem) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        self
    }

    /// Count one block's symbols in their contexts.
    pub fn add_block(&mut self, block: &[Packed]) {
        walk(block, |c| match c {
            Step::Wdl(ctx, s) => self.wdl[ctx][s as usize] += 1,
            Step::Rem(ctx, s, _) => self.rem[ctx][s] += 1,
        });
    }

    pub fn spec(&self) -> ModelSpec {
        ModelSpec {
            wdl: self.wdl.iter().map(|c| normalize(c)).collect(),
            rem: self
                .rem
                .iter()
                .map(|c| {
                    normalize(c)
                        .into_iter()
                        .enumerate()
                        .filter(|(_, f)| *f > 0)
                        .map(|(s, f)| (s as u8, f))
                        .collect()
                })
                .collect(),
        }
    }
}

enum Step {
    Wdl(usize, u8),
    /// context, symbol, escaped remoteness (when symbol is the escape)
    Rem(usize, usize, u16),
}

/// The symbol sequence of a block, in decoding order, don't-cares filled.
fn walk(block: &[Packed], mut f: impl FnMut(Step)) {
    let mut prev = block.iter().copied().find(|&v| v != 0).unwrap_or(1);
    let (mut p1, mut p2) = (WDL_DRAW, WDL_DRAW);
    let (mut pw, mut pr) = (WDL_LOSS, 0u16);
    for &v in block {
        let v = if v == 0 { prev } else { v };
        prev = v;
        let w = wdl_of(v);
        f(Step::Wdl(wdl_ctx(p1, p2), w));
        p2 = p1;
        p1 = w;
        if w != WDL_DRAW {
            let r = (v - 2) / 2;
            let s = (r as usize).min(REM_ESCAPE);
            f(Step::Rem(rem_ctx(w, pw, pr), s, r));
            pw = w;
            pr = r;
        }
    }
}

/// The model ready for coding (decode tables built).
pub struct TierModel {
    wdl: Vec<Model>,
    /// `wdl` laid out flat for decoding.
    wdl_flat: [Flat3; WDL_CONTEXTS],
    rem: Vec<Model>,
    /// rem symbol → dense index in `rem[ctx]`, per context (`NONE`: absent).
    rem_dense: Vec<[u16; REM_SYMBOLS]>,
    /// dense index → rem symbol, per context.
    rem_sym: Vec<Vec<u8>>,
}

impl TierModel {
    pub fn new(spec: &ModelSpec) -> Result<TierModel, String> {
        if spec.wdl.len() != WDL_CONTEXTS || spec.rem.len() != REM_CONTEXTS {
            return Err("model has the wrong number of contexts".into());
        }
        let wdl = spec
            .wdl
            .iter()
            .map(|f| {
                if f.len() != 3 {
                    return Err("WDL model without 3 symbols".to_string());
                }
                Model::new(f)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut rem = Vec::with_capacity(REM_CONTEXTS);
        let mut rem_dense = Vec::with_capacity(REM_CONTEXTS);
        let mut rem_sym = Vec::with_capacity(REM_CONTEXTS);
        for table in &spec.rem {
            let mut dense = [NONE; REM_SYMBOLS];
            let mut syms = Vec::with_capacity(table.len());
            let mut freqs = Vec::with_capacity(table.len());
            for &(s, f) in table {
                if syms.last().is_some_and(|&l| l >= s) {
                    return Err("remoteness model symbols out of order".into());
                }
                dense[s as usize] = syms.len() as u16;
                syms.push(s);
                freqs.push(f);
            }
            if table.is_empty() {
                // A context that never occurs: any valid model.
                syms.push(0);
                freqs.push(super::rans::PROB_SCALE as u16);
                dense[0] = 0;
            }
            rem.push(Model::new(&freqs)?);
            rem_dense.push(dense);
            rem_sym.push(syms);
        }
        let mut wdl_flat = [Flat3::default(); WDL_CONTEXTS];
        for (f, m) in wdl_flat.iter_mut().zip(&wdl) {
            *f = Flat3::new(m);
        }
        Ok(TierModel {
            wdl,
            wdl_flat,
            rem,
            rem_dense,
            rem_sym,
        })
    }

    /// Encode one block into its WDL stream and its remoteness stream
    /// (empty if the block has no decisive slot).
    pub fn encode(&self, block: &[Packed]) -> (Vec<u8>, Vec<u8>) {
        let mut wdl_steps: Vec<(usize, u8)> = Vec::with_capacity(block.len());
        let mut rem_steps: Vec<(usize, usize, u16)> = Vec::new();
        walk(block, |s| match s {
            Step::Wdl(c, w) => wdl_steps.push((c, w)),
            Step::Rem(c, s, r) => rem_steps.push((c, s, r)),
        });
        let mut e = Encoder::new();
        for &(c, w) in wdl_steps.iter().rev() {
            e.put(&self.wdl[c], w as usize);
        }
        let wdl = if block.is_empty() {
            Vec::new()
        } else {
            e.finish()
        };
        if rem_steps.is_empty() {
            return (wdl, Vec::new());
        }
        let mut e = Encoder::new();
        for &(c, s, r) in rem_steps.iter().rev() {
            if s == REM_ESCAPE {
                e.put_byte(r as u8);
                e.put_byte((r >> 8) as u8);
            }
            let d = self.rem_dense[c][s];
            assert!(
                d != NONE,
                "remoteness symbol {s} not in its context's model"
            );
            e.put(&self.rem[c], d as usize);
        }
        (wdl, e.finish())
    }

    /// Decode the WDL symbols of the first `out.len()` slots of a block of
    /// `len` slots; a complete decode also checks the stream's end.
    pub fn decode_wdl(&self, wdl: &[u8], len: usize, out: &mut [u8]) -> Result<(), String> {
        if out.is_empty() {
            return Ok(());
        }
        let mut d = Decoder::new(wdl)?;
        let (mut p1, mut p2) = (WDL_DRAW, WDL_DRAW);
        for o in out.iter_mut() {
            let w = d.get3(&self.wdl_flat[wdl_ctx(p1, p2)]) as u8;
            *o = w;
            p2 = p1;
            p1 = w;
        }
        d.check()?;
        if out.len() == len {
            d.finish()?;
        }
        Ok(())
    }

    /// Decode the packed values of the first `out.len()` slots of a block of
    /// `len` slots; a complete decode also checks both streams' ends.
    pub fn decode_values(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        out: &mut [Packed],
    ) -> Result<(), String> {
        if out.is_empty() {
            return Ok(());
        }
        let mut d = Decoder::new(wdl)?;
        // A block without wins or losses has an empty remoteness stream.
        let mut rd = if rem.is_empty() {
            None
        } else {
            Some(Decoder::new(rem).map_err(|e| format!("remoteness {e}"))?)
        };
        let (mut p1, mut p2) = (WDL_DRAW, WDL_DRAW);
        let (mut pw, mut pr) = (WDL_LOSS, 0u16);
        for o in out.iter_mut() {
            let w = d.get3(&self.wdl_flat[wdl_ctx(p1, p2)]) as u8;
            p2 = p1;
            p1 = w;
            if w == WDL_DRAW {
                *o = 1;
                continue;
            }
            let Some(r_dec) = rd.as_mut() else {
                return Err("win or loss in a block without remoteness stream".into());
            };
            let c = rem_ctx(w, pw, pr);
            let s = self.rem_sym[c][r_dec.get(&self.rem[c])?] as usize;
            let r = if s == REM_ESCAPE {
                let hi = r_dec.get_byte()? as u16;
                let lo = r_dec.get_byte()? as u16;
                let r = (hi << 8) | lo;
                if r > crate::value::MAX_REMOTENESS {
                    return Err(format!("remoteness {r} too large"));
                }
                r
            } else {
                s as u16
            };
            *o = pack(w, r);
            pw = w;
            pr = r;
        }
        d.check()?;
        if let Some(r) = &rd {
            r.check()?;
        }
        if out.len() == len {
            d.finish()?;
            if let Some(r) = &rd {
                r.finish()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed | 1;
        move || {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            s.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    fn check(values: &[Packed], bs: usize) {
        let mut counts = Counts::default();
        for b in values.chunks(bs) {
            counts.add_block(b);
        }
        let m = TierModel::new(&counts.spec()).unwrap();
        for b in values.chunks(bs) {
            let (w, r) = m.encode(b);
            let mut full = vec![0; b.len()];
            m.decode_values(&w, &r, b.len(), &mut full).unwrap();
            let mut wdl = vec![9; b.len()];
            m.decode_wdl(&w, b.len(), &mut wdl).unwrap();
            for i in 0..b.len() {
                if b[i] != 0 {
                    assert_eq!(full[i], b[i], "slot {i}");
                    assert_eq!(wdl[i], wdl_of(b[i]));
                } else {
                    assert_ne!(full[i], 0);
                }
                assert_eq!(wdl_of(full[i]), wdl[i]);
            }
            // Stopping early gives the same prefix.
            let k = b.len() / 2;
            let mut part = vec![0; k];
            m.decode_values(&w, &r, b.len(), &mut part).unwrap();
            assert_eq!(part[..], full[..k]);
        }
    }

    #[test]
    fn random_values_round_trip() {
        let mut r = rng(3);
        let v: Vec<Packed> = (0..40_000)
            .map(|_| match r() % 10 {
                0 => 0,
                1 => 1,
                _ => 2 + (r() % 2000) as Packed,
            })
            .collect();
        for bs in [1, 7, 256, 4096] {
            check(&v, bs);
        }
        // Escaped remoteness up to the largest value.
        let big = [
            crate::value::Value::Win(crate::value::MAX_REMOTENESS).pack(),
            crate::value::Value::Loss(300).pack(),
            1,
            0,
            5,
        ];
        check(&big, 3);
        check(&[], 4);
        check(&[0, 0, 0], 4);
        check(&[1, 1, 0, 1], 4);
    }

    #[test]
    fn skewed_values_round_trip() {
        let mut r = rng(5);
        let mut v = Vec::new();
        let mut cur: Packed = 1;
        for _ in 0..100_000 {
            if r().is_multiple_of(50) {
                cur = 1 + (r() % 60) as Packed;
            }
            v.push(if r().is_multiple_of(7) { 0 } else { cur });
        }
        check(&v, 512);
    }

    #[test]
    fn damaged_block_streams_are_errors() {
        let v: Vec<Packed> = (0..300).map(|i| 2 + (i % 13) as Packed).collect();
        let mut counts = Counts::default();
        counts.add_block(&v);
        let m = TierModel::new(&counts.spec()).unwrap();
        let (w, r) = m.encode(&v);
        let mut out = vec![0; v.len()];
        assert!(m
            .decode_values(&w, &r[..r.len() - 1], v.len(), &mut out)
            .is_err());
        assert!(m.decode_values(&w, &[], v.len(), &mut out).is_err());
        assert!(m.decode_values(&w[..2], &r, v.len(), &mut out).is_err());
        let mut longer = r.clone();
        longer.push(7);
        assert!(m.decode_values(&w, &longer, v.len(), &mut out).is_err());
        let bad = ModelSpec {
            wdl: vec![vec![1, 2, 3]; WDL_CONTEXTS],
            rem: vec![vec![]; REM_CONTEXTS],
        };
        assert!(TierModel::new(&bad).is_err());
        assert!(TierModel::new(&ModelSpec::default()).is_err());
    }
}
