//! The per-tier static context model and the coding of one block: the
//! format 5 coding (written), and the format 3 and 4 codings (read, for
//! `qibase convert`).
//!
//! Format 5 (module `v5`) cuts a block in parts, codes each part's WDL as
//! quads (below) on two lanes and its remoteness with Rice codes
//! ([`super::rice`]), which need no model: its header holds no
//! remoteness contexts. The rest of this comment describes formats 3
//! and 4.
//!
//! A slot's value is split into a WDL symbol (draw 0, loss 1, win 2) and,
//! for a loss or a win only, a remoteness symbol: `r` if `r < 255`,
//! otherwise the escape symbol 255 followed by `r` as two uniform bytes
//! (high, low). They are coded in two streams per block:
//!
//! * **WDL, format 4:** four slots at a time, as one of 81 *quad* symbols
//!   (slot `4q + k` is digit `k` in base 3), in the context of the previous
//!   quad's last two slots (9 contexts). One decoded symbol gives four
//!   slots: a lookup decodes a quarter of the symbols it did in format 3,
//!   where each slot was a symbol in the context of the two previous slots.
//! * **Remoteness:** in the context of the slot's own class (loss/win), the
//!   class of the previous decisive slot and a bucket of that slot's
//!   remoteness ([`REM_CONTEXTS`] contexts). In format 4 the block's slots
//!   are cut into [`SEGMENT`]-slot segments, each its own rANS stream with
//!   contexts restarted, behind a small table of segment ends: a lookup
//!   decodes the remoteness of its own segment only (format 3: one stream
//!   per block).
//!
//! Contexts restart at every block start, so blocks decode independently.
//! An unused slot (packed 0) is a don't-care: it repeats the previous
//! slot's value (the first used value at a block start), which in these
//! contexts is almost free.

use serde::{Deserialize, Serialize};

use super::rans::{
    normalize_compact, normalize_compact_all, ChainedTables, Decoder, Encoder, Flat3, FlatTables,
    Model,
};
use crate::value::Packed;

mod v5;
pub use v5::PART;

pub const WDL_DRAW: u8 = 0;
pub const WDL_LOSS: u8 = 1;
pub const WDL_WIN: u8 = 2;
pub const WDL_CONTEXTS: usize = 9;
/// Slots per format 4 WDL symbol, and the number of such symbols.
pub const QUAD: usize = 4;
pub const QUAD_SYMBOLS: usize = 81;
/// Slots per format 4 remoteness segment.
pub const SEGMENT: usize = 128;
/// Remoteness symbols: 0..=254 literal, 255 escape.
pub const REM_SYMBOLS: usize = 256;
pub const REM_ESCAPE: usize = 255;
const BUCKETS: usize = 20;
pub const REM_CONTEXTS: usize = 4 * BUCKETS;

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

/// Remoteness bucket of a previous decisive slot: exact up to 11, then
/// 12–15, 16–23, 24–31, 32–47, 48–63, 64–95, 96–127, ≥ 128.
const BUCKET_OF: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut r = 0;
    while r < 128 {
        t[r] = match r {
            0..=11 => r as u8,
            12..=15 => 12,
            16..=23 => 13,
            24..=31 => 14,
            32..=47 => 15,
            48..=63 => 16,
            64..=95 => 17,
            _ => 18,
        };
        r += 1;
    }
    t
};

/// A table, not a chain of comparisons: the format 3 decoder computes it
/// once per slot, in the dependency chain of the next remoteness symbol
/// (format 4 reads it from the decode table's tag).
#[inline]
fn bucket(r: u16) -> usize {
    if r < 128 {
        BUCKET_OF[r as usize] as usize
    } else {
        19
    }
}

#[inline]
fn rem_ctx_of_bucket(wdl: u8, prev_wdl: u8, prev_bucket: usize) -> usize {
    let class = (wdl == WDL_WIN) as usize;
    let prev = (prev_wdl == WDL_WIN) as usize;
    (class * 2 + prev) * BUCKETS + prev_bucket
}

#[inline]
fn rem_ctx(wdl: u8, prev_wdl: u8, prev_r: u16) -> usize {
    rem_ctx_of_bucket(wdl, prev_wdl, bucket(prev_r))
}

/// Which coding a tier file uses (its format version).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// Format 3: one WDL symbol per slot, one remoteness stream per block.
    V3,
    /// Format 4: quad WDL symbols, remoteness in segments.
    V4,
    /// Format 5: 256-slot parts, each with quad WDL symbols on two lanes
    /// and Rice-coded remoteness (module `v5`, [`super::rice`]); unused slots
    /// filled as draws.
    V5,
}

impl Coding {
    pub fn for_version(v: u32) -> Option<Coding> {
        match v {
            3 => Some(Coding::V3),
            4 => Some(Coding::V4),
            5 => Some(Coding::V5),
            _ => None,
        }
    }

    /// Symbols of one WDL context's model.
    pub fn wdl_symbols(self) -> usize {
        match self {
            Coding::V3 => 3,
            Coding::V4 | Coding::V5 => QUAD_SYMBOLS,
        }
    }

    fn segment(self) -> usize {
        match self {
            Coding::V3 => usize::MAX,
            Coding::V4 | Coding::V5 => SEGMENT,
        }
    }

    /// Whether the remoteness is coded over the context model (formats 3
    /// and 4) rather than by Rice codes (format 5).
    fn rem_modelled(self) -> bool {
        self != Coding::V5
    }
}

/// The four WDL digits of each quad symbol.
const QUAD_DIGITS: [[u8; 4]; QUAD_SYMBOLS] = {
    let mut t = [[0u8; 4]; QUAD_SYMBOLS];
    let mut q = 0;
    while q < QUAD_SYMBOLS {
        t[q] = [
            (q % 3) as u8,
            (q / 3 % 3) as u8,
            (q / 9 % 3) as u8,
            (q / 27) as u8,
        ];
        q += 1;
    }
    t
};

/// The model as stored in the header: per context, the frequencies
/// (summing to 4096): WDL dense (3 or 81 per context), remoteness sparse
/// (symbol, frequency).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct ModelSpec {
    pub wdl: Vec<Vec<u16>>,
    pub rem: Vec<Vec<(u8, u16)>>,
}

/// Context counts of a tier, gathered block by block.
#[derive(Clone)]
pub struct Counts {
    coding: Coding,
    wdl: Vec<Vec<u64>>,
    rem: Vec<Vec<u64>>,
}

impl Counts {
    pub fn new(coding: Coding) -> Counts {
        Counts {
            coding,
            wdl: vec![vec![0; coding.wdl_symbols()]; WDL_CONTEXTS],
            rem: vec![vec![0; REM_SYMBOLS]; REM_CONTEXTS],
        }
    }

    pub fn merge(mut self, o: Counts) -> Counts {
        for (a, b) in self.wdl.iter_mut().zip(&o.wdl) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
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
        walk(self.coding, block, |c| match c {
            Step::Wdl(ctx, s) => self.wdl[ctx][s] += 1,
            Step::Rem(_, ctx, s, _) => self.rem[ctx][s] += 1,
        });
    }

    pub fn spec(&self) -> ModelSpec {
        if !self.coding.rem_modelled() {
            return ModelSpec {
                wdl: normalize_compact_all(&self.wdl),
                rem: Vec::new(),
            };
        }
        ModelSpec {
            wdl: normalize_compact_all(&self.wdl),
            rem: self
                .rem
                .iter()
                .map(|c| {
                    normalize_compact(c)
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
    /// context, WDL symbol (a slot's in V3, a quad's in V4)
    Wdl(usize, usize),
    /// segment, context, symbol, escaped remoteness (when symbol is the escape)
    Rem(usize, usize, usize, u16),
}

/// The symbol sequence of a block, in decoding order (all WDL symbols,
/// then the remoteness symbols segment by segment), don't-cares filled.
fn walk(coding: Coding, block: &[Packed], mut f: impl FnMut(Step)) {
    let filled = fill(coding, block);
    let (mut p1, mut p2) = (WDL_DRAW, WDL_DRAW);
    match coding {
        Coding::V3 => {
            for &v in &filled {
                let w = wdl_of(v);
                f(Step::Wdl(wdl_ctx(p1, p2), w as usize));
                p2 = p1;
                p1 = w;
            }
        }
        Coding::V5 => {
            for part in filled.chunks(PART) {
                let ws: Vec<u8> = part.iter().map(|&v| wdl_of(v)).collect();
                if v5::constant(&ws).is_none() {
                    v5::quad_steps(&ws, |c, s| f(Step::Wdl(c, s)));
                }
            }
        }
        Coding::V4 => {
            for quad in filled.chunks(QUAD) {
                let mut d = [wdl_of(*quad.last().expect("a quad has slots")); QUAD];
                for (dk, &v) in d.iter_mut().zip(quad) {
                    *dk = wdl_of(v);
                }
                let sym =
                    d[0] as usize + 3 * d[1] as usize + 9 * d[2] as usize + 27 * d[3] as usize;
                f(Step::Wdl(wdl_ctx(p1, p2), sym));
                p1 = d[3];
                p2 = d[2];
            }
        }
    }
    if !coding.rem_modelled() {
        return;
    }
    for (seg, part) in filled.chunks(coding.segment()).enumerate() {
        let (mut pw, mut pr) = (WDL_LOSS, 0u16);
        for &v in part {
            let w = wdl_of(v);
            if w != WDL_DRAW {
                let r = (v - 2) / 2;
                let s = (r as usize).min(REM_ESCAPE);
                f(Step::Rem(seg, rem_ctx(w, pw, pr), s, r));
                pw = w;
                pr = r;
            }
        }
    }
}

/// A block with its don't-cares (unused slots, packed 0) filled: formats
/// 3 and 4 repeat the previous slot's value (the first used value at the
/// block's start), which their remoteness contexts code almost for free;
/// format 5 makes them draws, which cost no remoteness bits at all and,
/// measured, 0.002–0.016 more WDL bits per used slot.
fn fill(coding: Coding, block: &[Packed]) -> Vec<Packed> {
    if coding == Coding::V5 {
        return block.iter().map(|&v| v.max(1)).collect();
    }
    let mut prev = block.iter().copied().find(|&v| v != 0).unwrap_or(1);
    block
        .iter()
        .map(|&v| {
            if v != 0 {
                prev = v;
            }
            prev
        })
        .collect()
}

/// The remoteness that follows an escape symbol: two uniform bytes, high
/// then low.
fn escaped_remoteness(d: &mut Decoder) -> Result<u16, String> {
    let hi = d.get_byte()? as u16;
    let lo = d.get_byte()? as u16;
    let r = (hi << 8) | lo;
    if r > crate::value::MAX_REMOTENESS {
        return Err(format!("remoteness {r} too large"));
    }
    Ok(r)
}

/// Room for the WDL symbols of a block without allocating (blocks of the
/// default size and smaller).
const STACK_SLOTS: usize = 512;

/// The model ready for coding (decode tables built).
pub struct TierModel {
    coding: Coding,
    wdl: Vec<Model>,
    /// `wdl` laid out flat for decoding: format 3 and format 4.
    wdl_flat: [Flat3; WDL_CONTEXTS],
    wdl_chained: ChainedTables,
    /// Over all [`REM_SYMBOLS`] (absent ones without frequency), so a
    /// decoded index is the symbol itself: no second table on the
    /// decoder's dependency chain. Format 4 decodes through `rem_flat`
    /// (these then hold no decode tables).
    rem: Vec<Model>,
    rem_flat: FlatTables,
}

/// A stream cut in pieces behind a table of their ends (u16 LE): format
/// 4's remoteness segments, format 5's parts. The pieces' byte ranges.
struct Segments<'a> {
    data: &'a [u8],
    /// End of each segment but the last, relative to `data`.
    ends: &'a [u8],
}

impl<'a> Segments<'a> {
    /// Parse the table of `count` segments (`rem` not empty).
    fn parse(rem: &'a [u8], count: usize) -> Result<Segments<'a>, String> {
        let table = 2 * (count - 1);
        if rem.len() < table {
            return Err("table of segment ends ends early".into());
        }
        let (ends, data) = rem.split_at(table);
        let seg = Segments { data, ends };
        let mut last = 0;
        for k in 0..count {
            let e = seg.end(k);
            if e < last || e > data.len() {
                return Err("table of segment ends out of order".into());
            }
            last = e;
        }
        Ok(seg)
    }

    fn end(&self, k: usize) -> usize {
        match self.ends.get(2 * k..2 * k + 2) {
            Some(b) => u16::from_le_bytes([b[0], b[1]]) as usize,
            None => self.data.len(),
        }
    }

    fn get(&self, k: usize) -> &'a [u8] {
        let start = if k == 0 { 0 } else { self.end(k - 1) };
        &self.data[start..self.end(k)]
    }
}

impl TierModel {
    pub fn new(spec: &ModelSpec, coding: Coding) -> Result<TierModel, String> {
        let rem_contexts = if coding.rem_modelled() {
            REM_CONTEXTS
        } else {
            0
        };
        if spec.wdl.len() != WDL_CONTEXTS || spec.rem.len() != rem_contexts {
            return Err("model has the wrong number of contexts".into());
        }
        let wdl = spec
            .wdl
            .iter()
            .map(|f| {
                if f.len() != coding.wdl_symbols() {
                    return Err(format!(
                        "WDL model without {} symbols",
                        coding.wdl_symbols()
                    ));
                }
                Model::new(f)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut rem = Vec::with_capacity(REM_CONTEXTS);
        let mut rem_freqs = Vec::with_capacity(REM_CONTEXTS);
        for table in &spec.rem {
            let mut freqs = [0u16; REM_SYMBOLS];
            let mut last = None;
            for &(s, f) in table {
                if last.is_some_and(|l| l >= s) {
                    return Err("remoteness model symbols out of order".into());
                }
                if f == 0 {
                    return Err("remoteness model symbol without frequency".into());
                }
                last = Some(s);
                freqs[s as usize] = f;
            }
            if table.is_empty() {
                // A context that never occurs: any valid model.
                freqs[0] = super::rans::PROB_SCALE as u16;
            }
            rem.push(match coding {
                Coding::V3 => Model::new(&freqs)?,
                Coding::V4 | Coding::V5 => Model::encoder_only(&freqs)?,
            });
            rem_freqs.push(freqs.to_vec());
        }
        let rem_flat = match coding {
            Coding::V3 | Coding::V5 => FlatTables::default(),
            Coding::V4 => FlatTables::new(&rem_freqs, |s| bucket(s as u16) as u32)?,
        };
        let mut wdl_flat = [Flat3::default(); WDL_CONTEXTS];
        if coding == Coding::V3 {
            for (f, m) in wdl_flat.iter_mut().zip(&wdl) {
                *f = Flat3::new(m);
            }
        }
        let wdl_chained = match coding {
            Coding::V3 => ChainedTables::default(),
            Coding::V4 | Coding::V5 => ChainedTables::new(&wdl, |q| {
                let d = QUAD_DIGITS[q];
                wdl_ctx(d[3], d[2])
            })?,
        };
        Ok(TierModel {
            coding,
            wdl,
            wdl_flat,
            wdl_chained,
            rem,
            rem_flat,
        })
    }

    pub fn coding(&self) -> Coding {
        self.coding
    }

    /// Encode one block into its WDL stream and its remoteness stream
    /// (empty if the block has no decisive slot).
    pub fn encode(&self, block: &[Packed]) -> (Vec<u8>, Vec<u8>) {
        if self.coding == Coding::V5 {
            return self.encode_v5(&fill(self.coding, block));
        }
        let mut wdl_steps: Vec<(usize, usize)> = Vec::with_capacity(block.len());
        let mut rem_steps: Vec<(usize, usize, usize, u16)> = Vec::new();
        walk(self.coding, block, |s| match s {
            Step::Wdl(c, w) => wdl_steps.push((c, w)),
            Step::Rem(k, c, s, r) => rem_steps.push((k, c, s, r)),
        });
        let mut e = Encoder::new();
        let wdl = match self.coding {
            _ if block.is_empty() => Vec::new(),
            Coding::V3 => {
                for &(c, w) in wdl_steps.iter().rev() {
                    e.put(&self.wdl[c], w);
                }
                e.finish()
            }
            Coding::V4 | Coding::V5 => {
                // Quad q on lane q % 2 (format 4).
                for (q, &(c, w)) in wdl_steps.iter().enumerate().rev() {
                    e.put_lane(q % 2, &self.wdl[c], w);
                }
                e.finish_two()
            }
        };
        if rem_steps.is_empty() {
            return (wdl, Vec::new());
        }
        let encode_segment = |steps: &[(usize, usize, usize, u16)]| {
            if steps.is_empty() {
                return Vec::new();
            }
            let mut e = Encoder::new();
            for &(_, c, s, r) in steps.iter().rev() {
                if s == REM_ESCAPE {
                    e.put_byte(r as u8);
                    e.put_byte((r >> 8) as u8);
                }
                e.put(&self.rem[c], s);
            }
            e.finish()
        };
        match self.coding {
            Coding::V3 => (wdl, encode_segment(&rem_steps)),
            Coding::V4 | Coding::V5 => {
                let count = block.len().div_ceil(SEGMENT);
                let mut ends = Vec::with_capacity(2 * count);
                let mut data = Vec::new();
                for k in 0..count {
                    let lo = rem_steps.partition_point(|s| s.0 < k);
                    let hi = rem_steps.partition_point(|s| s.0 <= k);
                    data.extend(encode_segment(&rem_steps[lo..hi]));
                    if k + 1 < count {
                        let end = u16::try_from(data.len())
                            .expect("a segment's streams fit 16-bit offsets");
                        ends.extend_from_slice(&end.to_le_bytes());
                    }
                }
                ends.extend(data);
                (wdl, ends)
            }
        }
    }

    /// Decode the WDL symbols of the first `out.len()` slots of a block of
    /// `len` slots; a complete decode also checks the stream's end.
    pub fn decode_wdl(&self, wdl: &[u8], len: usize, out: &mut [u8]) -> Result<(), String> {
        if out.is_empty() {
            return Ok(());
        }
        if self.coding == Coding::V5 {
            return self.decode_wdl_v5(wdl, len, out);
        }
        let mut d = match self.coding {
            Coding::V3 => Decoder::new(wdl)?,
            Coding::V4 | Coding::V5 => Decoder::new_two(wdl)?,
        };
        let (mut p1, mut p2) = (WDL_DRAW, WDL_DRAW);
        match self.coding {
            Coding::V3 => {
                for o in out.iter_mut() {
                    let w = d.get3(&self.wdl_flat[wdl_ctx(p1, p2)]) as u8;
                    *o = w;
                    p2 = p1;
                    p1 = w;
                }
            }
            // Format 5 returned above; one context chain across both lanes.
            Coding::V4 | Coding::V5 => self.decode_quads_on_lanes::<false>(&mut d, out),
        }
        d.check()?;
        if out.len() == len {
            d.finish()?;
        }
        Ok(())
    }

    /// Decode `out.len()` WDL symbols as quads from a two-lane decoder,
    /// quad `q` on lane `q mod 2`. `PER_LANE`: each lane has its own chain
    /// of contexts (format 5), not one chain across both (format 4).
    fn decode_quads_on_lanes<const PER_LANE: bool>(&self, d: &mut Decoder, out: &mut [u8]) {
        let (mut at, mut other) = (wdl_ctx(WDL_DRAW, WDL_DRAW), wdl_ctx(WDL_DRAW, WDL_DRAW));
        let mut quads = out.chunks_exact_mut(QUAD);
        for quad in &mut quads {
            let q = d.get_chained(&self.wdl_chained, &mut at);
            d.swap();
            if PER_LANE {
                std::mem::swap(&mut at, &mut other);
            }
            quad.copy_from_slice(&QUAD_DIGITS[q.min(QUAD_SYMBOLS - 1)]);
        }
        let tail = quads.into_remainder();
        if !tail.is_empty() {
            let q = d.get_chained(&self.wdl_chained, &mut at);
            tail.copy_from_slice(&QUAD_DIGITS[q.min(QUAD_SYMBOLS - 1)][..tail.len()]);
        }
    }

    /// The WDL symbol of slot `off` of a block of `len` slots (format 5:
    /// from the slot's part only).
    pub fn wdl_at(&self, wdl: &[u8], len: usize, off: usize) -> Result<u8, String> {
        if self.coding == Coding::V5 {
            return self.wdl_at_v5(wdl, len, off);
        }
        let mut small = [0u8; STACK_SLOTS];
        let mut big = Vec::new();
        let buf = if off < STACK_SLOTS {
            &mut small[..off + 1]
        } else {
            big.resize(off + 1, 0);
            &mut big[..]
        };
        self.decode_wdl(wdl, len, buf)?;
        Ok(buf[off])
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
        if self.coding == Coding::V3 && !rem.is_empty() {
            return self.decode_values_v3(wdl, rem, len, out);
        }
        if self.coding == Coding::V5 {
            return self.decode_values_v5(wdl, rem, len, out);
        }
        let n = out.len();
        let mut stack = [0u8; STACK_SLOTS];
        let mut heap = Vec::new();
        let w: &mut [u8] = if n <= STACK_SLOTS {
            &mut stack[..n]
        } else {
            heap.resize(n, 0);
            &mut heap
        };
        self.decode_wdl(wdl, len, w)?;
        for (o, &x) in out.iter_mut().zip(w.iter()) {
            *o = if x == WDL_DRAW { 1 } else { 0 };
        }
        let any_decisive = w.iter().any(|&x| x != WDL_DRAW);
        if rem.is_empty() {
            if any_decisive {
                return Err("win or loss in a block without remoteness stream".into());
            }
            return Ok(());
        }
        if n == len && !any_decisive {
            return Err("remoteness stream for a block without wins or losses".into());
        }
        let count = len.div_ceil(SEGMENT);
        let segs = Segments::parse(rem, count)?;
        for k in 0..count {
            let lo = k * SEGMENT;
            if lo >= n {
                break;
            }
            let hi = (lo + SEGMENT).min(n);
            let complete = n == len;
            self.decode_segment(segs.get(k), &w[lo..hi], &mut out[lo..hi], complete)
                .map_err(|e| format!("remoteness segment {k}: {e}"))?;
        }
        Ok(())
    }

    /// The packed value of slot `off` of a block of `len` slots: WDL up to
    /// the slot, remoteness of the slot's own segment up to the slot.
    pub fn value_at(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        off: usize,
    ) -> Result<Packed, String> {
        if self.coding == Coding::V5 {
            return self.value_at_v5(wdl, rem, len, off);
        }
        if self.coding == Coding::V3 || off >= STACK_SLOTS {
            let mut v = vec![0; off + 1];
            self.decode_values(wdl, rem, len, &mut v)?;
            return Ok(v[off]);
        }
        let mut w = [0u8; STACK_SLOTS];
        self.decode_wdl(wdl, len, &mut w[..off + 1])?;
        if w[off] == WDL_DRAW {
            return Ok(1);
        }
        if rem.is_empty() {
            return Err("win or loss in a block without remoteness stream".into());
        }
        let k = off / SEGMENT;
        let segs = Segments::parse(rem, len.div_ceil(SEGMENT))?;
        let lo = k * SEGMENT;
        let mut out = [0 as Packed; SEGMENT];
        self.decode_segment(segs.get(k), &w[lo..=off], &mut out[..off + 1 - lo], false)
            .map_err(|e| format!("remoteness segment {k}: {e}"))?;
        Ok(out[off - lo])
    }

    /// Fill the decisive slots of `out` (WDL symbols `w`, which start the
    /// segment) from the segment's stream; `complete`: `w` is the whole
    /// segment, so the stream must end exactly.
    fn decode_segment(
        &self,
        bytes: &[u8],
        w: &[u8],
        out: &mut [Packed],
        complete: bool,
    ) -> Result<(), String> {
        // The decisive slots, listed without a branch per slot.
        let mut at = [0u8; SEGMENT];
        let mut n = 0;
        for (i, &x) in w.iter().enumerate() {
            at[n] = i as u8;
            n += (x != WDL_DRAW) as usize;
        }
        if n == 0 {
            if complete && !bytes.is_empty() {
                return Err("stream for a segment without wins or losses".into());
            }
            return Ok(());
        }
        let mut d = Decoder::new(bytes)?;
        // The previous decisive slot's class and remoteness bucket.
        let (mut pw, mut pb) = (WDL_LOSS, bucket(0));
        for &i in &at[..n] {
            let i = i as usize;
            let c = rem_ctx_of_bucket(w[i], pw, pb);
            let (s, b) = d.get_flat(&self.rem_flat, c);
            let mut r = s as u16;
            pb = b as usize;
            if s == REM_ESCAPE {
                r = escaped_remoteness(&mut d)?;
                pb = bucket(r);
            }
            out[i] = pack(w[i], r);
            pw = w[i];
        }
        d.check()?;
        if complete {
            d.finish()?;
        }
        Ok(())
    }

    /// Format 3: WDL and remoteness interleaved slot by slot (a block with
    /// a remoteness stream; one without goes the way of format 4).
    fn decode_values_v3(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        out: &mut [Packed],
    ) -> Result<(), String> {
        let mut d = Decoder::new(wdl)?;
        let mut rd = Decoder::new(rem).map_err(|e| format!("remoteness {e}"))?;
        let (mut p1, mut p2) = (WDL_DRAW, WDL_DRAW);
        let (mut pw, mut pr) = (WDL_LOSS, 0u16);
        for o in out.iter_mut() {
            let w = d.get3(&self.wdl_flat[wdl_ctx(p1, p2)]) as u8;
            p2 = p1;
            p1 = w;
            // The remoteness symbol is decoded on every slot and kept only
            // for a decisive one: no jump to mispredict.
            let decisive = w != WDL_DRAW;
            let c = rem_ctx(w, pw, pr);
            let s = rd.get_if(&self.rem[c], decisive);
            let mut r = s as u16;
            if decisive && s == REM_ESCAPE {
                r = escaped_remoteness(&mut rd)?;
            }
            *o = if decisive { pack(w, r) } else { 1 };
            pw = if decisive { w } else { pw };
            pr = if decisive { r } else { pr };
        }
        d.check()?;
        rd.check()?;
        if out.len() == len {
            d.finish()?;
            rd.finish()?;
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
        check_coded(values, bs, Coding::V3);
        check_coded(values, bs, Coding::V4);
        check_coded(values, bs, Coding::V5);
    }

    fn check_coded(values: &[Packed], bs: usize, coding: Coding) {
        let mut counts = Counts::new(coding);
        for b in values.chunks(bs) {
            counts.add_block(b);
        }
        let m = TierModel::new(&counts.spec(), coding).unwrap();
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
            // Single slots, from their own segment.
            for i in (0..b.len()).step_by(1 + b.len() / 97) {
                assert_eq!(m.value_at(&w, &r, b.len(), i).unwrap(), full[i], "slot {i}");
            }
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
    fn constant_parts_round_trip_and_refuse_a_bad_symbol() {
        // Whole parts of one WDL symbol (wins of two remoteness, draws,
        // unused slots that become draws), beside mixed ones.
        let mut v: Vec<Packed> = (0..256).map(|i| if i % 2 == 0 { 5 } else { 7 }).collect();
        v.extend([1; 256]);
        v.extend([0; 300]);
        v.extend((0..300).map(|i| 2 + (i % 5) as Packed));
        v.extend([4; 700]);
        check(&v, 512);
        let m = TierModel::new(&Counts::new(Coding::V5).spec(), Coding::V5).unwrap();
        let (w, r) = m.encode(&[9; 512]);
        assert_eq!(
            w.len(),
            2 + 2,
            "two constant parts: a table and a byte each"
        );
        let mut out = vec![0; 512];
        m.decode_values(&w, &r, 512, &mut out).unwrap();
        assert_eq!(out, vec![9; 512]);
        let mut bad = w.clone();
        bad[2] = 3;
        assert!(m.decode_values(&bad, &r, 512, &mut out).is_err());
        assert!(m.value_at(&bad, &r, 512, 3).is_err());
        assert!(m.wdl_at(&bad, 512, 3).is_err());
    }

    #[test]
    fn damaged_block_streams_are_errors() {
        for coding in [Coding::V3, Coding::V4, Coding::V5] {
            damaged_block_streams_are_errors_in(coding);
        }
    }

    fn damaged_block_streams_are_errors_in(coding: Coding) {
        let v: Vec<Packed> = (0..300).map(|i| 2 + (i % 13) as Packed).collect();
        let mut counts = Counts::new(coding);
        counts.add_block(&v);
        let m = TierModel::new(&counts.spec(), coding).unwrap();
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
        assert!(TierModel::new(&bad, coding).is_err());
        assert!(TierModel::new(&ModelSpec::default(), coding).is_err());
        // A model of the other coding's shape is refused.
        let other = if coding == Coding::V3 {
            Coding::V4
        } else {
            Coding::V3
        };
        assert!(TierModel::new(&counts.spec(), other).is_err());
    }
}
