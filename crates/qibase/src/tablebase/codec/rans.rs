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
//! the end, so the decoder reads forwards: first the two lanes' 4-byte
//! states (big endian), then one 16-bit word (big endian) whenever a
//! state drops below [`RANS_L`].

use super::CodecProblem;

/// Probabilities are multiples of 1 / 2^PROB_BITS.
pub const PROB_BITS: u32 = 12;
/// Sum of the frequencies of every model.
pub const PROB_SCALE: u32 = 1 << PROB_BITS;
/// Lower bound of the normalised state.
pub const RANS_L: u32 = 1 << 16;

/// One symbol's frequency and cumulative start in a model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sym {
    /// Sum of the frequencies of the symbols before this one.
    pub start: u16,
    /// Frequency (out of [`PROB_SCALE`]).
    pub freq: u16,
}

/// Scale `counts` to frequencies summing to [`PROB_SCALE`], every counted
/// symbol at least 1. All counts zero gives all mass to symbol 0 (a valid
/// model for a context that never occurs).
pub fn normalize(counts: &[u64]) -> Vec<u16> {
    normalize_in_units(counts, 0).expect("at most PROB_SCALE symbols")
}

/// Most coarseness [`normalize_compact_all`] tries: frequencies in multiples
/// of 16, a 256-entry slot table.
pub const MAX_COARSE: u32 = 4;

/// How many more bits a coarser grid may cost. Measured on the full
/// cannon-chess table (`bench-probe`, 5 alternating rounds): at 1.005 cold
/// WDL / full lookups took 921 / 1,783 ns; at 1.01, 789–816 / 1,564–1,662
/// ns for 0.35 % more bytes; 1.02 to 1.05 were no faster within the noise
/// and cost up to 1.9 %.
const COARSE_TOLERANCE: f64 = 1.01;

/// Like [`normalize`] for several models, but with every frequency a
/// multiple of the largest power of two `2^k <= 2^MAX_COARSE` that costs
/// at most 1 % more bits on `counts` than exact frequencies, one grid for
/// all the models, judged by their total cost (they are decoded through
/// one [`ChainedTables`], whose grid is the finest of its models'): a
/// rare, skewed context may lose a few bits rather than make every
/// context's table 16 times larger.
///
/// Why: the decoder's slot table then has `PROB_SCALE >> k` entries
/// (256 bytes to 4 KiB). A random lookup decodes symbols of many contexts
/// of many tiers, and each decoded symbol waits on its table entry; small
/// tables stay in the first-level cache where 4 KiB ones did not.
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
    ///
    /// # Errors
    /// [`CodecProblem::ModelShape`] for no symbol or more than 256,
    /// [`CodecProblem::ModelSum`] for frequencies with another sum.
    pub fn new(freqs: &[u16]) -> Result<Model, CodecProblem> {
        if freqs.is_empty() || freqs.len() > 256 {
            return Err(CodecProblem::ModelShape);
        }
        let sum: u32 = freqs.iter().map(|&f| f as u32).sum();
        if sum != PROB_SCALE {
            return Err(CodecProblem::ModelSum);
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
        let mut slot = vec![0u8; (PROB_SCALE >> shift) as usize].into_boxed_slice();
        let mut start = 0u32;
        for (s, &f) in freqs.iter().enumerate() {
            syms.push(Sym {
                start: start as u16,
                freq: f,
            });
            slot[(start >> shift) as usize..((start + f as u32) >> shift) as usize].fill(s as u8);
            start += f as u32;
        }
        Ok(Model { syms, slot, shift })
    }

    /// Number of symbols.
    fn len(&self) -> usize {
        self.syms.len()
    }
}

/// A chain of models of at most 128 symbols, where each decoded symbol
/// names the model of the next one (the WDL quads: a quad's last two
/// slots are the context of the next quad of its lane), in two flat
/// decode tables.
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
    ///
    /// # Errors
    /// [`CodecProblem::ModelShape`] for more than 128 models or symbols,
    /// or a symbol followed by no model.
    pub fn new(
        models: &[Model],
        next_model: impl Fn(usize) -> usize,
    ) -> Result<ChainedTables, CodecProblem> {
        let symbols = models.iter().map(|m| m.len()).max().unwrap_or(0);
        if symbols > 128 || models.len() > 128 {
            return Err(CodecProblem::ModelShape);
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
                    return Err(CodecProblem::ModelShape);
                }
                t.syms[k * 128 + s] =
                    sym.start as u32 | (sym.freq as u32) << 12 | (next as u32) << 25;
            }
        }
        Ok(t)
    }
}

/// Encoder over two states ("lanes"): push symbols in *reverse* order
/// with [`Encoder::put_lane`], then [`Encoder::finish_two`]; the
/// [`Decoder`] alternates lanes symbol by symbol: two independent
/// dependency chains, so it waits on each state only every other symbol.
/// The renormalisation words of both lanes share the stream; the decoder
/// reads them in exactly the reverse order.
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
    /// Both lanes at the start state, no bytes yet.
    pub fn new() -> Encoder {
        Encoder {
            x: RANS_L,
            x1: RANS_L,
            out: Vec::new(),
        }
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

    /// Encode symbol `s` of model `m` (which must give it a frequency)
    /// with lane `lane` (0 or 1).
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

    /// The stream, ready for [`Decoder::new_two`]: after the reversal,
    /// lane 0's state then lane 1's, big endian, then the words.
    pub fn finish_two(mut self) -> Vec<u8> {
        let (x, x1) = (self.x, self.x1);
        self.out.extend_from_slice(&x1.to_le_bytes());
        self.out.extend_from_slice(&x.to_le_bytes());
        self.out.reverse();
        self.out
    }
}

/// Decoder over one two-lane stream.
pub struct Decoder<'a> {
    /// The state of the lane that decodes next.
    x: u32,
    /// The other lane's state.
    x1: u32,
    bytes: &'a [u8],
    pos: usize,
    /// A renormalisation wanted a word past the end (checked by
    /// [`Decoder::check`] and [`Decoder::finish`]).
    overrun: bool,
}

impl<'a> Decoder<'a> {
    /// A stream of [`Encoder::finish_two`]: decode with lane 0 first and
    /// call [`Decoder::swap`] after every symbol.
    ///
    /// # Errors
    /// [`CodecProblem::StreamShort`] for fewer than 8 bytes,
    /// [`CodecProblem::ImpossibleState`] for a state no encoder leaves.
    pub fn new_two(bytes: &'a [u8]) -> Result<Decoder<'a>, CodecProblem> {
        if bytes.len() < 8 {
            return Err(CodecProblem::StreamShort);
        }
        let x = u32::from_be_bytes(bytes[..4].try_into().expect("4 bytes"));
        let x1 = u32::from_be_bytes(bytes[4..8].try_into().expect("4 bytes"));
        if x < RANS_L || x1 < RANS_L {
            return Err(CodecProblem::ImpossibleState);
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

    /// Consume the symbol `[start, start + freq)` from the current lane.
    /// Never fails: a word wanted past the end only records an overrun.
    #[inline]
    fn advance(&mut self, start: u32, freq: u32) {
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
    }

    /// An error if the stream has ended early so far.
    ///
    /// # Errors
    /// [`CodecProblem::StreamShort`].
    #[inline]
    pub fn check(&self) -> Result<(), CodecProblem> {
        if self.overrun {
            Err(CodecProblem::StreamShort)
        } else {
            Ok(())
        }
    }

    /// Decode one symbol of model `m` from the current lane.
    #[cfg(test)]
    pub fn get(&mut self, m: &Model) -> usize {
        let s = m.slot[((self.x & (PROB_SCALE - 1)) >> m.shift) as usize] as usize;
        let sym = m.syms[s];
        self.advance(sym.start as u32, sym.freq as u32);
        s
    }

    /// Decode one symbol of model `*model` of `t` from the current lane,
    /// and set `*model` to the model that follows the symbol.
    #[inline(always)]
    pub fn get_chained(&mut self, t: &ChainedTables, model: &mut usize) -> usize {
        let cell = ((self.x & (PROB_SCALE - 1)) >> t.shift) as usize;
        let s = t.slots[(*model << t.cells_log2) + cell] as usize;
        let e = t.syms[*model * 128 + s];
        self.advance(e & 0xfff, (e >> 12) & 0x1fff);
        *model = (e >> 25) as usize;
        s
    }

    /// After the last symbol: both states are back where the encoder
    /// started and every byte was used (a complete-decode integrity check).
    ///
    /// # Errors
    /// [`CodecProblem::StreamShort`] after an overrun, else
    /// [`CodecProblem::StreamLong`] if the stream does not end here.
    pub fn finish(&self) -> Result<(), CodecProblem> {
        self.check()?;
        if self.x != RANS_L || self.x1 != RANS_L || self.pos != self.bytes.len() {
            return Err(CodecProblem::StreamLong);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test data from the crate's one seeded generator.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut r = crate::rng::Rng::new(seed);
        move || r.next_u64()
    }

    /// Code `symbols` alternately on both lanes, decode them back and
    /// check the end; returns the stream's length.
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
        for (i, &s) in symbols.iter().enumerate().rev() {
            e.put_lane(i % 2, &m, s);
        }
        let bytes = e.finish_two();
        let mut d = Decoder::new_two(&bytes).unwrap();
        for &s in symbols {
            assert_eq!(d.get(&m), s);
            d.swap();
        }
        d.finish().unwrap();
        // One symbol too few leaves a lane unfinished (unless the symbol
        // has all the frequency: it does not change the state).
        if let (Some((_, first)), true) = (symbols.split_last(), f.iter().all(|&x| x < 4096)) {
            let mut d = Decoder::new_two(&bytes).unwrap();
            for &s in first {
                assert_eq!(d.get(&m), s);
                d.swap();
            }
            assert!(d.finish().is_err());
        }
        bytes.len()
    }

    #[test]
    fn two_lanes_round_trip_and_check_both_ends() {
        let mut r = rng(11);
        for n in [0usize, 1, 2, 3, 1000] {
            let symbols: Vec<usize> = (0..n).map(|_| (r() % 5) as usize).collect();
            round_trip(&symbols, 5);
        }
        assert_eq!(
            Decoder::new_two(&[0x80, 0, 0, 0, 0x80, 0, 0]).err(),
            Some(CodecProblem::StreamShort)
        );
        assert_eq!(
            Decoder::new_two(&[0x80, 0, 0, 0, 0, 0, 0, 0]).err(),
            Some(CodecProblem::ImpossibleState)
        );
    }

    #[test]
    fn uniform_random_symbols() {
        let mut r = rng(7);
        for alphabet in [1, 2, 3, 4, 81, 200, 256] {
            let s: Vec<usize> = (0..20_000)
                .map(|_| (r() % alphabet as u64) as usize)
                .collect();
            round_trip(&s, alphabet);
        }
        round_trip(&[2], 3);
        // Symbols without frequency between and after used ones.
        round_trip(&[0, 2, 2, 0], 4);
        round_trip(&[1, 3, 3, 1], 4);
    }

    #[test]
    fn skewed_symbols_compress_near_entropy() {
        let mut r = rng(9);
        // 99 % symbol 0: entropy about 0.08 bits per symbol.
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
        assert!(bits < 0.12, "{bits} bits per symbol");
    }

    #[test]
    fn normalize_keeps_rare_symbols_and_sums() {
        let mut counts = vec![1u64; 256];
        counts[0] = 1 << 40;
        let f = normalize(&counts);
        assert!(f.iter().all(|&x| x >= 1));
        assert_eq!(f.iter().map(|&x| x as u32).sum::<u32>(), PROB_SCALE);
        assert_eq!(normalize(&[0, 0]), vec![PROB_SCALE as u16, 0]);
        assert_eq!(Model::new(&[1, 2]).err(), Some(CodecProblem::ModelSum));
        assert_eq!(Model::new(&[]).err(), Some(CodecProblem::ModelShape));
    }

    #[test]
    fn compact_frequencies_lie_on_one_grid_and_cost_little() {
        let counts = vec![vec![900u64, 60, 40], vec![10, 10, 1_000_000]];
        let fs = normalize_compact_all(&counts);
        let exact: f64 = counts.iter().map(|c| bits(c, &normalize(c))).sum();
        let compact: f64 = counts.iter().zip(&fs).map(|(c, f)| bits(c, f)).sum();
        assert!(compact <= exact * COARSE_TOLERANCE + 64.0);
        for f in &fs {
            assert_eq!(f.iter().map(|&x| x as u32).sum::<u32>(), PROB_SCALE);
            Model::new(f).unwrap();
        }
    }

    #[test]
    fn damaged_streams_are_errors_not_panics() {
        let m = Model::new(&normalize(&[5, 3, 1])).unwrap();
        let mut e = Encoder::new();
        let symbols = [0, 1, 2, 0, 0, 1];
        for (i, s) in symbols.iter().enumerate().rev() {
            e.put_lane(i % 2, &m, *s);
        }
        let bytes = e.finish_two();
        assert!(Decoder::new_two(&bytes[..7]).is_err());
        // Decoding past the end of the stream errs instead of reading on.
        let mut d = Decoder::new_two(&bytes).unwrap();
        for _ in 0..10_000 {
            d.get(&m);
            d.swap();
        }
        assert_eq!(d.check(), Err(CodecProblem::StreamShort));
        assert!(d.finish().is_err());
        // Extra bytes are noticed at the end.
        let mut longer = bytes.clone();
        longer.push(0);
        let mut d = Decoder::new_two(&longer).unwrap();
        for _ in symbols {
            d.get(&m);
            d.swap();
        }
        assert_eq!(d.finish(), Err(CodecProblem::StreamLong));
    }
}
