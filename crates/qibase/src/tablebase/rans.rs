//! A static-model rANS coder (32-bit state, 16-bit renormalisation,
//! 12-bit probabilities), in the style of Fabian Giesen's `ryg_rans`
//! (`rans_word`): each decoded symbol reads at most one 16-bit word, so
//! the renormalisation is a conditional move, not an unpredictable loop.
//!
//! Why our own: the tablebase needs *static* per-context tables built once
//! per tier, decoding that stops at the wanted symbol, and about 2 ns per
//! symbol; the maintained Rust entropy-coding crates either model
//! adaptively or go through a generic model trait per symbol. The coder is
//! about a hundred lines and tested below on random data, skewed data and
//! damaged streams.
//!
//! Encoding runs backwards over the symbols and the bytes are reversed at
//! the end, so the decoder reads forwards: first the 4-byte state (big
//! endian), then one 16-bit word (big endian) whenever the state drops
//! below [`RANS_L`].

/// Probabilities are multiples of 1 / 2^PROB_BITS.
pub const PROB_BITS: u32 = 12;
/// Sum of the frequencies of every model.
pub const PROB_SCALE: u32 = 1 << PROB_BITS;
/// Lower bound of the normalised state.
pub const RANS_L: u32 = 1 << 16;

/// One symbol's frequency and cumulative start in a model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sym {
    pub start: u16,
    pub freq: u16,
}

/// Scale `counts` to frequencies summing to [`PROB_SCALE`], every counted
/// symbol at least 1. All counts zero gives all mass to symbol 0 (a valid
/// model for a context that never occurs).
pub fn normalize(counts: &[u64]) -> Vec<u16> {
    normalize_in_units(counts, 0).expect("at most PROB_SCALE symbols")
}

/// Most coarseness [`normalize_compact`] tries: frequencies in multiples
/// of 16, a 256-entry slot table.
pub const MAX_COARSE: u32 = 4;

/// How many more bits a coarser grid may cost. Measured on the full
/// cannon-chess table (`bench-probe`, 5 alternating rounds): at 1.005 cold
/// WDL / full lookups took 921 / 1,783 ns; at 1.01, 789–816 / 1,564–1,662
/// ns for 0.35 % more bytes; 1.02 to 1.05 were no faster within the noise
/// and cost up to 1.9 %.
const COARSE_TOLERANCE: f64 = 1.01;

/// Like [`normalize`], but with every frequency a multiple of the largest
/// power of two `2^k <= 2^MAX_COARSE` that costs at most 1 % more bits on
/// `counts` than exact frequencies.
///
/// Why: the decoder's slot table then has `PROB_SCALE >> k` entries
/// (256 bytes to 4 KiB). A random lookup decodes symbols of many contexts
/// of many tiers, and each decoded symbol waits on its table entry; small
/// tables stay in the first-level cache where 4 KiB ones did not.
pub fn normalize_compact(counts: &[u64]) -> Vec<u16> {
    normalize_compact_all(std::slice::from_ref(&counts.to_vec())).remove(0)
}

/// [`normalize_compact`] for several models on one common grid, judged
/// by their total cost (for models decoded through one
/// [`ChainedTables`], whose grid is the finest of its models'): a rare,
/// skewed context may lose a few bits rather than make every context's
/// table 16 times larger.
pub fn normalize_compact_all(counts: &[Vec<u64>]) -> Vec<Vec<u16>> {
    let exact: Vec<Vec<u16>> = counts.iter().map(|c| normalize(c)).collect();
    let total = |fs: &[Vec<u16>]| -> f64 { counts.iter().zip(fs).map(|(c, f)| bits(c, f)).sum() };
    let base = total(&exact);
    let mut best = exact;
    for k in 1..=MAX_COARSE {
        let Some(fs) = counts
            .iter()
            .map(|c| normalize_in_units(c, k))
            .collect::<Option<Vec<_>>>()
        else {
            break;
        };
        if total(&fs) > base * COARSE_TOLERANCE + 64.0 {
            break;
        }
        best = fs;
    }
    best
}

/// Bits to code `counts` with frequencies `f`.
pub fn bits(counts: &[u64], f: &[u16]) -> f64 {
    counts
        .iter()
        .zip(f)
        .filter(|(&c, _)| c > 0)
        .map(|(&c, &x)| c as f64 * (PROB_BITS as f64 - (x as f64).log2()))
        .sum()
}

/// Frequencies in multiples of `2^k`, or `None` if there are more counted
/// symbols than units.
pub fn normalize_in_units(counts: &[u64], k: u32) -> Option<Vec<u16>> {
    let units = PROB_SCALE >> k;
    let total: u64 = counts.iter().sum();
    let mut f = vec![0u32; counts.len()];
    if total == 0 {
        if !f.is_empty() {
            f[0] = PROB_SCALE;
        }
        return Some(f.into_iter().map(|x| x as u16).collect());
    }
    if counts.iter().filter(|&&c| c > 0).count() > units as usize {
        return None;
    }
    for (fi, &c) in f.iter_mut().zip(counts) {
        if c > 0 {
            *fi = ((c as u128 * units as u128 / total as u128) as u32).max(1);
        }
    }
    let mut sum: u32 = f.iter().sum();
    // Fix the rounding on the largest frequencies (where it costs least).
    while sum != units {
        let (k, _) = f
            .iter()
            .enumerate()
            .filter(|(_, &x)| sum < units || x > 1)
            .max_by_key(|(i, &x)| (x, std::cmp::Reverse(*i)))
            .expect("a symbol to adjust");
        if sum < units {
            let d = units - sum;
            f[k] += d;
            sum += d;
        } else {
            let d = (sum - units).min(f[k] - 1).max(1);
            f[k] -= d;
            sum -= d;
        }
    }
    Some(f.into_iter().map(|x| (x << k) as u16).collect())
}

/// A static model for encoding and decoding: starts, frequencies and the
/// slot → symbol table.
#[derive(Clone, Debug)]
pub struct Model {
    syms: Vec<Sym>,
    /// `slot[(x & (PROB_SCALE - 1)) >> shift]` is the symbol whose range
    /// holds x.
    slot: Box<[u8]>,
    /// Every start and frequency is a multiple of `2^shift`.
    shift: u32,
}

impl Model {
    /// From frequencies that sum to [`PROB_SCALE`] (at most 256 symbols).
    pub fn new(freqs: &[u16]) -> Result<Model, String> {
        Self::build(freqs, true)
    }

    /// A model for encoding only (no decode table: decoding with it
    /// panics). Its decoder is elsewhere, e.g. in [`FlatTables`].
    pub fn encoder_only(freqs: &[u16]) -> Result<Model, String> {
        Self::build(freqs, false)
    }

    fn build(freqs: &[u16], decode: bool) -> Result<Model, String> {
        if freqs.is_empty() || freqs.len() > 256 {
            return Err(format!("model with {} symbols", freqs.len()));
        }
        let sum: u32 = freqs.iter().map(|&f| f as u32).sum();
        if sum != PROB_SCALE {
            return Err(format!("model frequencies sum to {sum}, not {PROB_SCALE}"));
        }
        // The coarsest grid all frequencies (hence all starts) lie on.
        let shift = freqs
            .iter()
            .filter(|&&f| f > 0)
            .map(|&f| f.trailing_zeros())
            .min()
            .unwrap_or(0)
            .min(MAX_COARSE);
        let mut syms = Vec::with_capacity(freqs.len());
        let cells = if decode { PROB_SCALE >> shift } else { 0 };
        let mut slot = vec![0u8; cells as usize].into_boxed_slice();
        let mut start = 0u32;
        for (s, &f) in freqs.iter().enumerate() {
            syms.push(Sym {
                start: start as u16,
                freq: f,
            });
            if decode {
                slot[(start >> shift) as usize..((start + f as u32) >> shift) as usize]
                    .fill(s as u8);
            }
            start += f as u32;
        }
        Ok(Model { syms, slot, shift })
    }

    pub fn len(&self) -> usize {
        self.syms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.syms.is_empty()
    }

    pub fn freq(&self, s: usize) -> u16 {
        self.syms.get(s).map_or(0, |x| x.freq)
    }

    /// Cost of symbol `s` in bits (infinite if it has no frequency).
    pub fn cost(&self, s: usize) -> f64 {
        let f = self.freq(s);
        if f == 0 {
            f64::INFINITY
        } else {
            PROB_BITS as f64 - (f as f64).log2()
        }
    }
}

/// A chain of models of at most 128 symbols, where each decoded symbol
/// names the model of the next one (the format 4 WDL quads: a quad's last
/// two slots are the next quad's context), in two flat decode tables.
///
/// Why: a lookup decodes up to 128 quads one after the other, so the time
/// is the latency of the loop's dependency chain, and the tables of the
/// tiers a random lookup touches must stay in cache. All models share one
/// grid (the finest any of them needs) and sit back to back in one byte
/// table of symbols; a second, small table gives each (model, symbol) its
/// start, frequency and the offset of the next model's tables. No pointer
/// and no context arithmetic is on the chain. (One table of 4-byte
/// entries holding everything was a load shorter but four times larger,
/// and its cache misses cost more than the load saved.)
#[derive(Clone, Debug, Default)]
pub struct ChainedTables {
    /// The common grid: entry `j` of a model covers states
    /// `[j << shift, (j + 1) << shift)`.
    shift: u32,
    /// log2 of the number of grid cells of a model.
    cells_log2: u32,
    /// The symbol of each cell, model after model.
    slots: Vec<u8>,
    /// Per (model, symbol), at `model * 128 + symbol`:
    /// `start | freq << 12 | next model << 25`.
    syms: Vec<u32>,
}

impl ChainedTables {
    /// `next_model(s)`: the model that follows symbol `s` (an index into
    /// `models`).
    pub fn new(
        models: &[Model],
        next_model: impl Fn(usize) -> usize,
    ) -> Result<ChainedTables, String> {
        let symbols = models.iter().map(|m| m.len()).max().unwrap_or(0);
        if symbols > 128 || models.len() > 128 {
            return Err(format!(
                "chained decode table for {} models of {symbols} symbols",
                models.len()
            ));
        }
        let shift = models.iter().map(|m| m.shift).min().unwrap_or(0);
        let cells = (PROB_SCALE >> shift) as usize;
        let mut t = ChainedTables {
            shift,
            cells_log2: cells.trailing_zeros(),
            slots: Vec::with_capacity(models.len() * cells),
            syms: vec![0; models.len() * 128],
        };
        for (k, m) in models.iter().enumerate() {
            for j in 0..cells {
                // The finer grid is exact: each of its cells lies inside
                // one cell of the model's own grid.
                t.slots.push(m.slot[(j << shift) >> m.shift]);
            }
            for (s, sym) in m.syms.iter().enumerate() {
                let next = next_model(s);
                if next >= models.len() {
                    return Err(format!("symbol {s} is followed by model {next}"));
                }
                t.syms[k * 128 + s] =
                    sym.start as u32 | (sym.freq as u32) << 12 | (next as u32) << 25;
            }
        }
        Ok(t)
    }
}

/// The decode tables of many models (the format 4 remoteness contexts)
/// back to back: per model its grid and where its symbol cells begin, one
/// byte table of cells, and per (model, symbol) the start, frequency and
/// a small caller-chosen tag (the remoteness bucket of the symbol, which
/// the next context needs: one table load less on the decoder's chain).
#[derive(Clone, Debug, Default)]
pub struct FlatTables {
    /// Per model: offset of its cells in `slots`, and its grid shift.
    info: Vec<(u32, u32)>,
    slots: Vec<u8>,
    /// At `model * 256 + symbol`: `start | freq << 12 | tag << 25`.
    syms: Vec<u32>,
}

impl FlatTables {
    /// From each model's frequencies (at most 256, summing to
    /// [`PROB_SCALE`]); `tag(s) < 128`.
    pub fn new(freqs: &[Vec<u16>], tag: impl Fn(usize) -> u32) -> Result<FlatTables, String> {
        let mut t = FlatTables {
            info: Vec::with_capacity(freqs.len()),
            slots: Vec::new(),
            syms: vec![0; freqs.len() * 256],
        };
        for (k, f) in freqs.iter().enumerate() {
            let m = Model::new(f)?;
            t.info.push((t.slots.len() as u32, m.shift));
            t.slots.extend_from_slice(&m.slot);
            for (s, sym) in m.syms.iter().enumerate() {
                let g = tag(s);
                debug_assert!(g < 128);
                t.syms[k * 256 + s] = sym.start as u32 | (sym.freq as u32) << 12 | g << 25;
            }
        }
        Ok(t)
    }
}

/// A model of at most three symbols laid out flat for the decoder: the
/// WDL contexts, decoded once per slot on every lookup, so their tables
/// must sit in a few cache lines with no pointer to follow.
#[derive(Clone, Copy, Debug, Default)]
pub struct Flat3 {
    start: [u32; 3],
    freq: [u32; 3],
}

impl Flat3 {
    /// The flat form of `m` (which has at most three symbols; a missing
    /// symbol gets no frequency and starts at the end of the scale).
    pub fn new(m: &Model) -> Flat3 {
        let mut f = Flat3 {
            start: [PROB_SCALE; 3],
            freq: [0; 3],
        };
        for (k, sym) in m.syms.iter().take(3).enumerate() {
            f.start[k] = sym.start as u32;
            f.freq[k] = sym.freq as u32;
        }
        f
    }
}

/// Encoder: push symbols in *reverse* order, then [`Encoder::finish`].
///
/// It has two states ("lanes"); [`Encoder::put`] and friends code with
/// lane 0, [`Encoder::put_lane`] with either. A stream that used lane 1
/// is finished with [`Encoder::finish_two`] and decoded with
/// [`Decoder::new_two`], alternating lanes symbol by symbol: two
/// independent dependency chains, so a decoder waits on each state only
/// every other symbol. The renormalisation words of both lanes share the
/// stream; the decoder reads them in exactly the reverse order.
pub struct Encoder {
    x: u32,
    x1: u32,
    out: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder::new()
    }
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder {
            x: RANS_L,
            x1: RANS_L,
            out: Vec::new(),
        }
    }

    /// Encode a symbol with frequency `freq` starting at `start`.
    #[inline]
    pub fn put_raw(&mut self, start: u32, freq: u32) {
        self.x = Self::code(&mut self.out, self.x, start, freq);
    }

    /// One coding step of state `x`, its renormalisation words pushed to `out`.
    #[inline]
    fn code(out: &mut Vec<u8>, mut x: u32, start: u32, freq: u32) -> u32 {
        debug_assert!(freq > 0 && start + freq <= PROB_SCALE);
        // x < 2^32 <= x_max when freq is the whole scale: never flushes.
        let x_max = (((RANS_L >> PROB_BITS) as u64) << 16) * freq as u64;
        if x as u64 >= x_max {
            // Pushed low byte first: after the final reversal, big endian.
            out.push(x as u8);
            out.push((x >> 8) as u8);
            x >>= 16;
        }
        ((x / freq) << PROB_BITS) + (x % freq) + start
    }

    /// Encode symbol `s` of model `m` with lane `lane` (0 or 1).
    #[inline]
    pub fn put_lane(&mut self, lane: usize, m: &Model, s: usize) {
        let sym = m.syms[s];
        assert!(sym.freq > 0, "symbol {s} has no frequency in its model");
        let (start, freq) = (sym.start as u32, sym.freq as u32);
        if lane == 0 {
            self.x = Self::code(&mut self.out, self.x, start, freq);
        } else {
            self.x1 = Self::code(&mut self.out, self.x1, start, freq);
        }
    }

    /// Encode symbol `s` of model `m` (which must give it a frequency).
    #[inline]
    pub fn put(&mut self, m: &Model, s: usize) {
        let sym = m.syms[s];
        assert!(sym.freq > 0, "symbol {s} has no frequency in its model");
        self.put_raw(sym.start as u32, sym.freq as u32);
    }

    /// A byte with the uniform model (for escaped values).
    #[inline]
    pub fn put_byte(&mut self, b: u8) {
        const F: u32 = PROB_SCALE / 256;
        self.put_raw(b as u32 * F, F);
    }

    /// The stream, ready for [`Decoder::new`] (lane 1 unused).
    pub fn finish(mut self) -> Vec<u8> {
        debug_assert_eq!(self.x1, RANS_L, "lane 1 used: finish_two");
        let x = self.x;
        self.out.extend_from_slice(&x.to_le_bytes());
        self.out.reverse();
        self.out
    }

    /// The two-lane stream, ready for [`Decoder::new_two`]: after the
    /// reversal, lane 0's state then lane 1's, big endian.
    pub fn finish_two(mut self) -> Vec<u8> {
        let (x, x1) = (self.x, self.x1);
        self.out.extend_from_slice(&x1.to_le_bytes());
        self.out.extend_from_slice(&x.to_le_bytes());
        self.out.reverse();
        self.out
    }
}

/// Decoder over one stream.
pub struct Decoder<'a> {
    x: u32,
    /// The other lane's state ([`Decoder::new_two`]; `RANS_L` otherwise).
    x1: u32,
    bytes: &'a [u8],
    pos: usize,
    /// A renormalisation wanted a word past the end (checked by
    /// [`Decoder::check`] and [`Decoder::finish`]).
    overrun: bool,
}

/// A stream that ends early or holds a state that cannot be.
pub const SHORT: &str = "coded stream ends early";

impl<'a> Decoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Result<Decoder<'a>, &'static str> {
        if bytes.len() < 4 {
            return Err(SHORT);
        }
        let x = u32::from_be_bytes(bytes[..4].try_into().unwrap());
        if x < RANS_L {
            return Err("coded stream starts with an impossible state");
        }
        Ok(Decoder {
            x,
            x1: RANS_L,
            bytes,
            pos: 4,
            overrun: false,
        })
    }

    /// A two-lane stream ([`Encoder::finish_two`]): decode with lane 0
    /// first and call [`Decoder::swap`] after every symbol.
    pub fn new_two(bytes: &'a [u8]) -> Result<Decoder<'a>, &'static str> {
        if bytes.len() < 8 {
            return Err(SHORT);
        }
        let x = u32::from_be_bytes(bytes[..4].try_into().unwrap());
        let x1 = u32::from_be_bytes(bytes[4..8].try_into().unwrap());
        if x < RANS_L || x1 < RANS_L {
            return Err("coded stream starts with an impossible state");
        }
        Ok(Decoder {
            x,
            x1,
            bytes,
            pos: 8,
            overrun: false,
        })
    }

    /// Switch lanes (a register exchange; no dependency on either state).
    #[inline(always)]
    pub fn swap(&mut self) {
        std::mem::swap(&mut self.x, &mut self.x1);
    }

    #[inline]
    fn advance(&mut self, start: u32, freq: u32) -> Result<(), &'static str> {
        let mask = PROB_SCALE - 1;
        // Fits: freq <= 2^12 and x >> 12 < 2^20; the slot is >= start.
        let x = freq * (self.x >> PROB_BITS) + (self.x & mask) - start;
        let need = x < RANS_L;
        let word = match self.bytes.get(self.pos..self.pos + 2) {
            Some(w) => u16::from_be_bytes([w[0], w[1]]) as u32,
            None => {
                self.overrun |= need;
                0
            }
        };
        self.x = if need { (x << 16) | word } else { x };
        self.pos += 2 * need as usize;
        Ok(())
    }

    /// [`Decoder::advance`] when `take`, otherwise nothing, without a
    /// branch (the caller decodes a symbol it may not need, which is
    /// cheaper than a mispredicted jump around it).
    #[inline(always)]
    fn advance_if(&mut self, take: bool, start: u32, freq: u32) {
        let mask = PROB_SCALE - 1;
        let x = (freq * (self.x >> PROB_BITS) + (self.x & mask)).wrapping_sub(start);
        let need = x < RANS_L;
        let (word, missing) = match self.bytes.get(self.pos..self.pos + 2) {
            Some(w) => (u16::from_be_bytes([w[0], w[1]]) as u32, false),
            None => (0, true),
        };
        let next = if need { (x << 16) | word } else { x };
        self.overrun |= take & need & missing;
        self.x = if take { next } else { self.x };
        self.pos += 2 * (take & need) as usize;
    }

    /// The symbol of model `m` at the current state, consumed only when
    /// `take` (see [`Decoder::advance_if`]).
    #[inline(always)]
    pub fn get_if(&mut self, m: &Model, take: bool) -> usize {
        let s = m.slot[((self.x & (PROB_SCALE - 1)) >> m.shift) as usize] as usize;
        let sym = m.syms[s];
        self.advance_if(take, sym.start as u32, sym.freq as u32);
        s
    }

    /// An error if the stream has ended early so far.
    #[inline]
    pub fn check(&self) -> Result<(), &'static str> {
        if self.overrun {
            Err(SHORT)
        } else {
            Ok(())
        }
    }

    /// Decode one symbol of model `m`.
    #[inline]
    pub fn get(&mut self, m: &Model) -> Result<usize, &'static str> {
        let s = m.slot[((self.x & (PROB_SCALE - 1)) >> m.shift) as usize] as usize;
        let sym = m.syms[s];
        self.advance(sym.start as u32, sym.freq as u32)?;
        Ok(s)
    }

    /// Decode one symbol of a flat three-symbol model: two comparisons
    /// with the starts (a symbol without frequency shares its start with
    /// the next one, so it is never chosen).
    #[inline(always)]
    pub fn get3(&mut self, m: &Flat3) -> usize {
        let x = self.x & (PROB_SCALE - 1);
        let s = (x >= m.start[1]) as usize + (x >= m.start[2]) as usize;
        // Never fails: `advance` only records an overrun.
        let _ = self.advance(m.start[s], m.freq[s]);
        s
    }

    /// Decode one symbol of model `*model` of `t`, and set `*model` to
    /// the model that follows the symbol.
    #[inline(always)]
    pub fn get_chained(&mut self, t: &ChainedTables, model: &mut usize) -> usize {
        let cell = ((self.x & (PROB_SCALE - 1)) >> t.shift) as usize;
        let s = t.slots[(*model << t.cells_log2) + cell] as usize;
        let e = t.syms[*model * 128 + s];
        let _ = self.advance(e & 0xfff, (e >> 12) & 0x1fff);
        *model = (e >> 25) as usize;
        s
    }

    /// Decode one symbol of model `k` of `t`: the symbol and its tag.
    #[inline(always)]
    pub fn get_flat(&mut self, t: &FlatTables, k: usize) -> (usize, u32) {
        let (at, shift) = t.info[k];
        let s = t.slots[at as usize + ((self.x & (PROB_SCALE - 1)) >> shift) as usize] as usize;
        let e = t.syms[k * 256 + s];
        let _ = self.advance(e & 0xfff, (e >> 12) & 0x1fff);
        (s, e >> 25)
    }

    /// Decode one byte of the uniform model.
    #[inline]
    pub fn get_byte(&mut self) -> Result<u8, &'static str> {
        const F: u32 = PROB_SCALE / 256;
        let b = (self.x & (PROB_SCALE - 1)) / F;
        self.advance(b * F, F)?;
        Ok(b as u8)
    }

    /// After the last symbol: the state is back where the encoder started
    /// and every byte was used (a complete-decode integrity check).
    pub fn finish(&self) -> Result<(), &'static str> {
        self.check()?;
        if self.x != RANS_L || self.x1 != RANS_L || self.pos != self.bytes.len() {
            return Err("coded stream does not end where its block ends");
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

    fn round_trip(symbols: &[usize], alphabet: usize) -> usize {
        let mut counts = vec![0u64; alphabet];
        for &s in symbols {
            counts[s] += 1;
        }
        let f = normalize(&counts);
        assert_eq!(f.iter().map(|&x| x as u32).sum::<u32>(), PROB_SCALE);
        if !symbols.is_empty() {
            for (c, x) in counts.iter().zip(&f) {
                assert_eq!(*c > 0, *x > 0);
            }
        }
        let m = Model::new(&f).unwrap();
        let mut e = Encoder::new();
        for &s in symbols.iter().rev() {
            e.put(&m, s);
            e.put_byte((s * 7) as u8);
        }
        let bytes = e.finish();
        let mut d = Decoder::new(&bytes).unwrap();
        for &s in symbols {
            assert_eq!(d.get_byte().unwrap(), (s * 7) as u8);
            assert_eq!(d.get(&m).unwrap(), s);
        }
        d.finish().unwrap();
        if alphabet <= 3 {
            let flat = Flat3::new(&m);
            let mut d = Decoder::new(&bytes).unwrap();
            for &s in symbols {
                assert_eq!(d.get_byte().unwrap(), (s * 7) as u8);
                assert_eq!(d.get3(&flat), s);
            }
            d.finish().unwrap();
        }
        bytes.len()
    }

    #[test]
    fn two_lanes_round_trip_and_check_both_ends() {
        let mut r = rng(11);
        for n in [0usize, 1, 2, 3, 1000] {
            let symbols: Vec<usize> = (0..n).map(|_| (r() % 5) as usize).collect();
            let m = Model::new(&normalize(&[40, 30, 20, 9, 1])).unwrap();
            let mut e = Encoder::new();
            for (i, &s) in symbols.iter().enumerate().rev() {
                e.put_lane(i % 2, &m, s);
            }
            let bytes = e.finish_two();
            let mut d = Decoder::new_two(&bytes).unwrap();
            for &s in &symbols {
                assert_eq!(d.get(&m).unwrap(), s);
                d.swap();
            }
            d.finish().unwrap();
            // One symbol too few leaves a lane unfinished.
            if n > 0 {
                let mut d = Decoder::new_two(&bytes).unwrap();
                for &s in &symbols[..n - 1] {
                    assert_eq!(d.get(&m).unwrap(), s);
                    d.swap();
                }
                assert!(d.finish().is_err());
            }
        }
        assert!(Decoder::new_two(&[0x80, 0, 0, 0, 0x80, 0, 0]).is_err());
    }

    #[test]
    fn uniform_random_symbols() {
        let mut r = rng(7);
        for alphabet in [1, 2, 3, 4, 200, 256] {
            let s: Vec<usize> = (0..20_000)
                .map(|_| (r() % alphabet as u64) as usize)
                .collect();
            round_trip(&s, alphabet);
        }
        round_trip(&[], 3);
        round_trip(&[2], 3);
        // Symbols without frequency between and after used ones.
        round_trip(&[0, 2, 2, 0], 4);
        round_trip(&[1, 3, 3, 1], 4);
    }

    #[test]
    fn skewed_symbols_compress_near_entropy() {
        let mut r = rng(9);
        // 99 % symbol 0: entropy about 0.08 bits per symbol, plus 8 raw bits.
        let s: Vec<usize> = (0..100_000)
            .map(|_| {
                if r().is_multiple_of(100) {
                    1 + (r() % 2) as usize
                } else {
                    0
                }
            })
            .collect();
        let len = round_trip(&s, 3);
        let bits = len as f64 * 8.0 / s.len() as f64;
        assert!(bits < 8.0 + 0.12, "{bits} bits per symbol");
    }

    #[test]
    fn normalize_keeps_rare_symbols_and_sums() {
        let mut counts = vec![1u64; 256];
        counts[0] = 1 << 40;
        let f = normalize(&counts);
        assert!(f.iter().all(|&x| x >= 1));
        assert_eq!(f.iter().map(|&x| x as u32).sum::<u32>(), PROB_SCALE);
        assert_eq!(normalize(&[0, 0]), vec![PROB_SCALE as u16, 0]);
        assert!(Model::new(&[1, 2]).is_err());
        assert!(Model::new(&[]).is_err());
    }

    #[test]
    fn damaged_streams_are_errors_not_panics() {
        let m = Model::new(&normalize(&[5, 3, 1])).unwrap();
        let mut e = Encoder::new();
        for s in [0, 1, 2, 0, 0, 1].iter().rev() {
            e.put(&m, *s);
        }
        let bytes = e.finish();
        assert!(Decoder::new(&bytes[..3]).is_err());
        assert!(Decoder::new(&[0, 0, 0, 0]).is_err());
        // Decoding past the end of the stream errs instead of reading on.
        let mut d = Decoder::new(&bytes).unwrap();
        for _ in 0..10_000 {
            let _ = d.get(&m);
        }
        assert!(d.check().is_err());
        assert!(d.finish().is_err());
        // Extra bytes are noticed at the end.
        let mut longer = bytes.clone();
        longer.push(0);
        let mut d = Decoder::new(&longer).unwrap();
        for _ in 0..6 {
            d.get(&m).unwrap();
        }
        assert!(d.finish().is_err());
    }
}
