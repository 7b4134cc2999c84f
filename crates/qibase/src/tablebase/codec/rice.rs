//! The remoteness stream of one part of a block: Rice codes in 64-slot
//! segments, laid out so that one slot's remoteness is found without
//! decoding the others.
//!
//! Why this and not an entropy coder over a context model (as format 4
//! had): measured on the full tables, Rice codes with a base and a
//! parameter per segment and class cost the same bits as format 4's rANS
//! contexts (cannon-chess 3.50 against 3.54 bits per used slot, two-cannons 4.23
//! against 4.24), and need no decode table at all. Because the unary parts
//! and the low bits are kept apart, the code of slot `t` of a segment sits
//! after exactly `t` one-bits of the unary part and at a bit offset of the
//! low part that the WDL symbols give: a lookup counts bits (popcount)
//! instead of decoding a chain of symbols.
//!
//! The bits of a part's stream, least significant bit of each byte first:
//!
//! * 1 bit `wide`: 0 when every remoteness of the part is below 256
//!   (bases of 8 bits, parameters of 3), 1 otherwise (16 and 4);
//! * per segment of [`SEGMENT`] slots, in slot order:
//!   * per class present in the segment (losses, then wins): its header,
//!     `base` (the class's least remoteness in the segment), `k` (the Rice
//!     parameter) and `s` (1 when every remoteness of the class in the
//!     segment has the parity of `base`: the codes then drop that bit);
//!   * the unary parts: per decisive slot, in slot order, `q` zeros then a
//!     one, where `d = (r - base) >> s` and `q = d >> k` (at most
//!     [`Q_MAX`]);
//!   * the low parts: per decisive slot, in slot order, the `k` low bits
//!     of `d`.
//! * zero bits up to the end of the last byte.
//!
//! A segment's decisive slots and their classes come from its WDL
//! symbols, so nothing else is stored: no lengths, no offsets.

use super::bits::{BitReader, BitWriter};
use super::model::{WDL_DRAW as DRAW, WDL_LOSS as LOSS};
use super::CodecProblem;
use crate::value::{Packed, MAX_REMOTENESS};

/// Slots per segment.
pub const SEGMENT: usize = 64;
/// Largest unary part: the encoder picks `k` so that no code is longer.
pub const Q_MAX: u32 = 16;

/// Field widths of a part's headers (narrow, wide).
#[derive(Clone, Copy)]
struct Widths {
    base: u32,
    k: u32,
}

impl Widths {
    fn of(wide: bool) -> Widths {
        if wide {
            Widths { base: 16, k: 4 }
        } else {
            Widths { base: 8, k: 3 }
        }
    }
}

/// One class's code parameters in one segment.
#[derive(Clone, Copy, Default, Debug)]
struct Params {
    base: u32,
    k: u32,
    s: u32,
}

/// Losses and wins among a segment's WDL symbols.
#[inline]
fn counts(w: &[u8]) -> [u32; 2] {
    let (mut l, mut d) = (0u32, 0u32);
    for &x in w {
        l += (x == LOSS) as u32;
        d += (x == DRAW) as u32;
    }
    [l, w.len() as u32 - l - d]
}

#[inline]
fn class_of(x: u8) -> usize {
    (x != LOSS) as usize
}

/// The remoteness of a win or a loss.
#[inline]
fn remoteness_of(v: Packed) -> u32 {
    v.remoteness().expect("a win or a loss") as u32
}

/// The Rice parameter with the fewest bits for `ds` (the smallest such),
/// every unary part at most [`Q_MAX`].
///
/// The cost of parameter k, f(k) = Σ (d >> k) + n (k + 1), is convex in
/// k: f(k + 1) − f(k) = n − Σ ⌈(d >> k) / 2⌉, and the sum shrinks as k
/// grows. So the first minimum among the allowed k (those from the
/// smallest that keeps every unary part short) is where f stops falling:
/// two or three passes over `ds` instead of one per parameter.
fn best_k(ds: &[u32], k_max: u32) -> u32 {
    let max = ds.iter().copied().max().unwrap_or(0);
    let mut k = 0;
    while k < k_max && max >> k > Q_MAX {
        k += 1;
    }
    if max >> k > Q_MAX {
        // No parameter fits (never for the widths in use): the largest.
        return k_max;
    }
    let cost = |k: u32| -> u64 {
        ds.iter().map(|&d| (d >> k) as u64).sum::<u64>() + ds.len() as u64 * (k as u64 + 1)
    };
    let mut here = cost(k);
    while k < k_max {
        let next = cost(k + 1);
        if next >= here {
            break;
        }
        (k, here) = (k + 1, next);
    }
    k
}

/// The stream of one part (`values` used or draws; empty when no slot is
/// a win or a loss). `wdl` holds each slot's WDL symbol.
pub fn encode(values: &[Packed], wdl: &[u8]) -> Vec<u8> {
    if wdl.iter().all(|&x| x == DRAW) {
        return Vec::new();
    }
    let wide = values
        .iter()
        .zip(wdl)
        .any(|(&v, &x)| x != DRAW && remoteness_of(v) > 255);
    let wd = Widths::of(wide);
    let k_max = (1 << wd.k) - 1;
    let mut bw = BitWriter::new();
    bw.put(wide as u64, 1);
    // Per segment: each decisive slot's class and remoteness, read once.
    let mut class = [0u8; SEGMENT];
    let mut rem = [0u32; SEGMENT];
    let mut ds = [0u32; SEGMENT];
    for (seg, ws) in values.chunks(SEGMENT).zip(wdl.chunks(SEGMENT)) {
        let mut n = 0;
        for (&v, &x) in seg.iter().zip(ws) {
            if x != DRAW {
                class[n] = class_of(x) as u8;
                rem[n] = remoteness_of(v);
                n += 1;
            }
        }
        let (class, rem) = (&class[..n], &rem[..n]);
        let mut params = [Params::default(); 2];
        for (c, p) in params.iter_mut().enumerate() {
            let of_class = || {
                rem.iter()
                    .zip(class)
                    .filter(move |&(_, &k)| k as usize == c)
                    .map(|(&r, _)| r)
            };
            let Some(base) = of_class().min() else {
                continue;
            };
            let s = of_class().all(|r| (r - base) % 2 == 0) as u32;
            let mut m = 0;
            for r in of_class() {
                ds[m] = (r - base) >> s;
                m += 1;
            }
            let k = best_k(&ds[..m], k_max);
            *p = Params { base, k, s };
            bw.put(base as u64, wd.base);
            bw.put(k as u64, wd.k);
            bw.put(s as u64, 1);
        }
        let code = |r: u32, c: u8| {
            let p = params[c as usize];
            (p.k, (r - p.base) >> p.s)
        };
        for (&r, &c) in rem.iter().zip(class) {
            let (k, d) = code(r, c);
            let q = d >> k;
            bw.put(1 << q, q + 1);
        }
        for (&r, &c) in rem.iter().zip(class) {
            let (k, d) = code(r, c);
            bw.put((d & ((1 << k) - 1)) as u64, k);
        }
    }
    bw.finish()
}

/// Read the headers of the classes present (`n` losses and wins).
#[inline]
fn headers(r: &mut BitReader, wd: Widths, n: [u32; 2]) -> Result<[Params; 2], CodecProblem> {
    let mut p = [Params::default(); 2];
    for c in 0..2 {
        if n[c] > 0 {
            p[c].base = r.get(wd.base)?;
            p[c].k = r.get(wd.k)?;
            p[c].s = r.get(1)?;
        }
    }
    Ok(p)
}

#[inline]
fn pack(x: u8, p: Params, d: u32) -> Result<Packed, CodecProblem> {
    let r = p.base + (d << p.s);
    if r > MAX_REMOTENESS as u32 {
        return Err(CodecProblem::RemotenessTooLarge);
    }
    Ok(Packed::decisive(x != LOSS, r as u16))
}

/// Fill the decisive slots of `out` from `bytes`, `wdl` holding the WDL
/// symbols of every slot of whole segments (`out` as long); draws are left
/// as they are. `complete`: `wdl` is the whole part, so the stream must
/// end exactly.
///
/// # Errors
/// A [`CodecProblem`] if the stream is not one that [`encode`] makes for
/// these WDL symbols.
pub fn decode(
    bytes: &[u8],
    wdl: &[u8],
    out: &mut [Packed],
    complete: bool,
) -> Result<(), CodecProblem> {
    if bytes.is_empty() {
        if wdl.iter().any(|&x| x != DRAW) {
            return Err(CodecProblem::MissingRemoteness);
        }
        return Ok(());
    }
    let mut r = BitReader::new(bytes);
    let wd = Widths::of(r.get(1)? == 1);
    let mut qs = [0u32; SEGMENT];
    for (ws, os) in wdl.chunks(SEGMENT).zip(out.chunks_mut(SEGMENT)) {
        let n = counts(ws);
        let p = headers(&mut r, wd, n)?;
        let total = (n[0] + n[1]) as usize;
        for q in &mut qs[..total] {
            *q = r.unary(Q_MAX)?;
        }
        let mut t = 0;
        for (o, &x) in os.iter_mut().zip(ws) {
            if x != DRAW {
                let pc = p[class_of(x)];
                let d = qs[t] << pc.k | r.get(pc.k)?;
                *o = pack(x, pc, d)?;
                t += 1;
            }
        }
    }
    if complete {
        if wdl.iter().all(|&x| x == DRAW) {
            return Err(CodecProblem::NeedlessRemoteness);
        }
        if r.position().div_ceil(8) != bytes.len() || r.window() != 0 {
            return Err(CodecProblem::StreamLong);
        }
    }
    Ok(())
}

/// The packed value of decisive slot `off`, `wdl` holding the WDL symbols
/// from the part's start to at least the end of `off`'s segment (or the
/// part).
///
/// # Errors
/// A [`CodecProblem`] if the stream ends early or holds an impossible code.
pub fn value_at(bytes: &[u8], wdl: &[u8], off: usize) -> Result<Packed, CodecProblem> {
    if bytes.is_empty() {
        return Err(CodecProblem::MissingRemoteness);
    }
    let mut r = BitReader::new(bytes);
    let wd = Widths::of(r.get(1)? == 1);
    let j = off / SEGMENT;
    for ws in wdl[..j * SEGMENT].chunks(SEGMENT) {
        let n = counts(ws);
        // Headers: only the parameters matter, to skip the low parts.
        let mut low = 0usize;
        for &count in &n {
            if count > 0 {
                r.skip(wd.base as usize)?;
                low += count as usize * r.get(wd.k)? as usize;
                r.skip(1)?;
            }
        }
        r.skip_ones(n[0] + n[1])?;
        r.skip(low)?;
    }
    let lo = j * SEGMENT;
    let seg = &wdl[lo..(lo + SEGMENT).min(wdl.len())];
    let n = counts(seg);
    let p = headers(&mut r, wd, n)?;
    let before = counts(&seg[..off - lo]);
    let x = wdl[off];
    if x == DRAW {
        return Ok(Packed::DRAW);
    }
    let pc = p[class_of(x)];
    let t = before[0] + before[1];
    // The slot's unary part, then past the rest of the segment's.
    r.skip_ones(t)?;
    let q = r.unary(Q_MAX)?;
    r.skip_ones(n[0] + n[1] - t - 1)?;
    r.skip(before[0] as usize * p[0].k as usize + before[1] as usize * p[1].k as usize)?;
    let d = q << pc.k | r.get(pc.k)?;
    pack(x, pc, d)
}

#[cfg(test)]
mod tests {
    use super::super::model::wdl_of as wdl;
    use super::*;
    use crate::value::Value;

    /// A win (`win`) or a loss in `r`.
    fn decisive(win: bool, r: u64) -> Packed {
        let r = r as u16;
        if win { Value::Win(r) } else { Value::Loss(r) }.pack()
    }

    fn round_trip(values: &[Packed]) {
        let w: Vec<u8> = values.iter().map(|&v| wdl(v)).collect();
        let bytes = encode(values, &w);
        let mut out: Vec<Packed> = w
            .iter()
            .map(|&x| {
                if x == DRAW {
                    Packed::DRAW
                } else {
                    Packed::UNDECIDED
                }
            })
            .collect();
        decode(&bytes, &w, &mut out, true).unwrap();
        assert_eq!(out, values);
        for (i, &v) in values.iter().enumerate() {
            if v != Packed::DRAW {
                let end = ((i / SEGMENT + 1) * SEGMENT).min(w.len());
                assert_eq!(value_at(&bytes, &w[..end], i), Ok(v), "slot {i}");
            }
        }
    }

    /// Test data from the crate's one seeded generator.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut r = crate::rng::Rng::new(seed);
        move || r.next_u64()
    }

    #[test]
    fn random_blocks_round_trip() {
        let mut next = rng(7);
        for len in [1usize, 2, 63, 64, 65, 127, 128, 300, 512, 1000] {
            for spread in [1u64, 2, 9, 40, 250, 700, MAX_REMOTENESS as u64 + 1] {
                let values: Vec<Packed> = (0..len)
                    .map(|_| match next() % 4 {
                        0 => Packed::DRAW,
                        1 => decisive(false, next() % spread),
                        _ => decisive(true, (10 + next() % spread).min(MAX_REMOTENESS as u64)),
                    })
                    .collect();
                round_trip(&values);
            }
        }
    }

    /// The parameter by one cost evaluation per k, the first cheapest:
    /// what `best_k`'s walk down the convex cost must find.
    fn best_k_exhaustive(ds: &[u32], k_max: u32) -> u32 {
        let mut best = (u64::MAX, k_max);
        for k in 0..=k_max {
            if ds.iter().any(|&d| d >> k > Q_MAX) {
                continue;
            }
            let bits: u64 = ds.iter().map(|&d| (d >> k) as u64 + 1 + k as u64).sum();
            if bits < best.0 {
                best = (bits, k);
            }
        }
        best.1
    }

    #[test]
    fn best_k_is_the_first_cheapest_parameter() {
        let mut next = rng(5);
        for round in 0..20_000u64 {
            let len = 1 + (next() % 64) as usize;
            // Narrow (k ≤ 7, d < 256) and wide (k ≤ 15, d < 65536) parts,
            // spreads from constant to the whole range, with outliers.
            let (k_max, limit) = if round.is_multiple_of(2) {
                (7, 256)
            } else {
                (15, 65_536)
            };
            let spread = 1 + next() % limit;
            let ds: Vec<u32> = (0..len)
                .map(|_| {
                    let d = next() % spread;
                    (if next().is_multiple_of(16) {
                        next() % limit
                    } else {
                        d
                    }) as u32
                })
                .collect();
            assert_eq!(best_k(&ds, k_max), best_k_exhaustive(&ds, k_max), "{ds:?}");
        }
        assert_eq!(best_k(&[], 7), 0);
        assert_eq!(best_k(&[1000], 3), 3, "no parameter fits: the largest");
    }

    #[test]
    fn one_value_classes_and_parity() {
        round_trip(&[Value::Loss(1).pack(); 64]);
        let [d, w] = [false, true].map(|win| move |r| decisive(win, r));
        round_trip(&[
            w(1),
            w(3),
            w(5),
            w(7),
            Packed::DRAW,
            Packed::DRAW,
            d(0),
            w(0),
        ]);
        let all_draw = [Packed::DRAW; 70];
        let w = vec![DRAW; 70];
        assert!(encode(&all_draw, &w).is_empty());
        let mut out = vec![Packed::DRAW; 70];
        decode(&[], &w, &mut out, true).unwrap();
    }

    #[test]
    fn damage_is_an_error_not_a_panic() {
        let mut next = rng(11);
        let values: Vec<Packed> = (0..512)
            .map(|_| {
                if next().is_multiple_of(3) {
                    Packed::DRAW
                } else {
                    let r = next() % 60;
                    decisive(r % 2 == 1, r / 2)
                }
            })
            .collect();
        let w: Vec<u8> = values.iter().map(|&v| wdl(v)).collect();
        let bytes = encode(&values, &w);
        // Every truncation is refused by a complete decode.
        for cut in 0..bytes.len() {
            let mut out = vec![Packed::UNDECIDED; 512];
            assert!(
                decode(&bytes[..cut], &w, &mut out, true).is_err(),
                "cut {cut}"
            );
        }
        // Bit flips: never a panic; a complete decode either errs or gives
        // other values.
        for bit in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            let mut out = vec![Packed::UNDECIDED; 512];
            let _ = decode(&b, &w, &mut out, true);
            for i in (0..512).step_by(37) {
                if w[i] != DRAW {
                    let _ = value_at(&b, &w, i);
                }
            }
        }
    }
}
