//! One block's coding: the block is cut in [`PART`]-slot parts, and each
//! of its two streams is a small table of part ends followed by the
//! parts' streams. A part's WDL symbols are quads on two rANS lanes
//! ([`super::model`]), or one byte when every slot of the part has the
//! same symbol; its remoteness is Rice-coded ([`super::rice`]).
//!
//! Why parts: a lookup decodes only its own part, so the chain of WDL
//! symbols it waits on is half that of a 512-slot block (on the full
//! cannon-chess table, 256-slot blocks made cold full-value lookups 1.35×
//! faster, but their index entries and stream states cost 0.37 more bits
//! per used slot; the part tables and restarts cost 0.075).
//!
//! An unused slot (undecided) is a don't-care: it is coded as a draw, which
//! costs no remoteness bits, and reads back as one.

use super::model::{constant, quad_steps, wdl_of, TierModel, QUAD, WDL_DRAW, WDL_WIN};
use super::rans::{Decoder, Encoder};
use super::{rice, CodecError, CodecProblem};
use crate::value::Packed;

/// Slots per part.
pub const PART: usize = 256;

/// The streams of `parts` joined behind a table of their ends (u16 LE,
/// relative to the first byte after the table; the last part ends at the
/// stream's end).
fn join(parts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 * parts.len() + parts.iter().map(Vec::len).sum::<usize>());
    let mut end = 0usize;
    for p in &parts[..parts.len().saturating_sub(1)] {
        end += p.len();
        let e = u16::try_from(end).expect("a part's streams fit 16-bit offsets");
        out.extend_from_slice(&e.to_le_bytes());
    }
    for p in parts {
        out.extend_from_slice(p);
    }
    out
}

/// A block's stream cut in parts behind the table of their ends.
struct Parts<'a> {
    data: &'a [u8],
    /// End of each part but the last, relative to `data` (u16 LE).
    ends: &'a [u8],
}

impl<'a> Parts<'a> {
    /// Parse the table of `count` parts (`bytes` not empty).
    fn parse(bytes: &'a [u8], count: usize) -> Result<Parts<'a>, CodecProblem> {
        let table = 2 * (count - 1);
        if bytes.len() < table {
            return Err(CodecProblem::PartTable);
        }
        let (ends, data) = bytes.split_at(table);
        let parts = Parts { data, ends };
        let mut last = 0;
        for k in 0..count {
            let e = parts.end(k);
            if e < last || e > data.len() {
                return Err(CodecProblem::PartTable);
            }
            last = e;
        }
        Ok(parts)
    }

    /// Part `k`'s stream of a block's stream of `count` parts, checking
    /// only the two table entries that bound it (a lookup's path: the
    /// whole table is checked by a whole-block decode).
    fn one(bytes: &'a [u8], count: usize, k: usize) -> Result<&'a [u8], CodecProblem> {
        let table = 2 * (count - 1);
        if bytes.len() < table {
            return Err(CodecProblem::PartTable);
        }
        let (ends, data) = bytes.split_at(table);
        let parts = Parts { data, ends };
        let start = if k == 0 { 0 } else { parts.end(k - 1) };
        let end = parts.end(k);
        if start > end || end > data.len() {
            return Err(CodecProblem::PartTable);
        }
        Ok(&data[start..end])
    }

    fn end(&self, k: usize) -> usize {
        match self.ends.get(2 * k..2 * k + 2) {
            Some(b) => u16::from_le_bytes([b[0], b[1]]) as usize,
            None => self.data.len(),
        }
    }

    /// Part `k`'s stream.
    fn get(&self, k: usize) -> &'a [u8] {
        let start = if k == 0 { 0 } else { self.end(k - 1) };
        &self.data[start..self.end(k)]
    }
}

/// Slots in part `k` of a block of `len` slots.
#[inline]
fn part_len(len: usize, k: usize) -> usize {
    PART.min(len - k * PART)
}

impl TierModel {
    /// Encode one block into its WDL stream and its remoteness stream
    /// (empty if the block has no win or loss).
    pub fn encode(&self, block: &[Packed]) -> (Vec<u8>, Vec<u8>) {
        if block.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let filled: Vec<Packed> = block.iter().map(|&v| v.or_draw()).collect();
        let w: Vec<u8> = filled.iter().map(|&v| wdl_of(v)).collect();
        let mut wdl = Vec::new();
        let mut rem = Vec::new();
        for (vals, ws) in filled.chunks(PART).zip(w.chunks(PART)) {
            wdl.push(self.encode_quads(ws));
            rem.push(rice::encode(vals, ws));
        }
        let rem = if rem.iter().all(Vec::is_empty) {
            Vec::new()
        } else {
            join(&rem)
        };
        (join(&wdl), rem)
    }

    /// The compact format's two streams of one block, coded apart: the
    /// WDL symbols `ws` (draw 0, loss 1, win 2) and the remoteness of
    /// `values` at the slots that `ws_rem` marks as a win or a loss (a
    /// slot whose remoteness is not kept is a draw in `ws_rem`). Either
    /// stream is empty when it has nothing to hold.
    pub fn encode_split(&self, ws: &[u8], values: &[Packed], ws_rem: &[u8]) -> (Vec<u8>, Vec<u8>) {
        if ws.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let wdl: Vec<Vec<u8>> = ws.chunks(PART).map(|w| self.encode_quads(w)).collect();
        (join(&wdl), Self::encode_split_rem(values, ws_rem))
    }

    /// The remoteness stream of [`TierModel::encode_split`] alone (what
    /// `pack` compares when it chooses the half to keep).
    pub fn encode_split_rem(values: &[Packed], ws_rem: &[u8]) -> Vec<u8> {
        let rem: Vec<Vec<u8>> = values
            .chunks(PART)
            .zip(ws_rem.chunks(PART))
            .map(|(v, w)| rice::encode(v, w))
            .collect();
        if rem.iter().all(Vec::is_empty) {
            Vec::new()
        } else {
            join(&rem)
        }
    }

    /// Decode every WDL symbol of a block of `out.len()` slots coded by
    /// [`TierModel::encode_split`], checking each part's end.
    ///
    /// # Errors
    /// A [`CodecError`] if the stream is not one the encoder makes.
    pub fn decode_split_wdl(&self, wdl: &[u8], out: &mut [u8]) -> Result<(), CodecError> {
        let len = out.len();
        if len == 0 {
            return Ok(());
        }
        let parts = Parts::parse(wdl, len.div_ceil(PART))?;
        for (k, o) in out.chunks_mut(PART).enumerate() {
            self.decode_part_wdl(parts.get(k), o.len(), o)
                .map_err(|e| CodecError::from(e).in_part(k))?;
        }
        Ok(())
    }

    /// Decode the kept remoteness of a block coded by
    /// [`TierModel::encode_split`]: `ws_rem` marks the slots that have
    /// one (as the encoder's), whose values are written to `out` (the
    /// others are left as they are). Every part's end is checked.
    ///
    /// # Errors
    /// A [`CodecError`] if the stream is not one the encoder makes for
    /// these symbols.
    pub fn decode_split_rem(
        rem: &[u8],
        ws_rem: &[u8],
        out: &mut [Packed],
    ) -> Result<(), CodecError> {
        let len = ws_rem.len();
        let any = ws_rem.iter().any(|&x| x != WDL_DRAW);
        if rem.is_empty() || !any {
            return match (rem.is_empty(), any) {
                (true, true) => Err(CodecProblem::MissingRemoteness.into()),
                (false, false) => Err(CodecProblem::NeedlessRemoteness.into()),
                _ => Ok(()),
            };
        }
        let parts = Parts::parse(rem, len.div_ceil(PART))?;
        for (k, (w, o)) in ws_rem.chunks(PART).zip(out.chunks_mut(PART)).enumerate() {
            let bytes = parts.get(k);
            let r = if bytes.is_empty() {
                if w.iter().any(|&x| x != WDL_DRAW) {
                    Err(CodecProblem::MissingRemoteness)
                } else {
                    Ok(())
                }
            } else {
                rice::decode(bytes, w, o, true)
            };
            r.map_err(|e| CodecError::from(e).in_part(k))?;
        }
        Ok(())
    }

    /// The value of slot `off` of a block of `len` slots coded by
    /// [`TierModel::encode_split`], whose remoteness is kept: the WDL
    /// symbols of its part up to the end of its Rice segment, masked by
    /// `kept` (slot offsets in the block) as the encoder masked them, then
    /// its Rice code.
    ///
    /// # Errors
    /// A [`CodecError`] if the slot's part does not decode.
    pub fn split_value_at(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        off: usize,
        kept: impl Fn(usize) -> bool,
    ) -> Result<Packed, CodecError> {
        let count = len.div_ceil(PART);
        let k = off / PART;
        let lo = k * PART;
        let plen = part_len(len, k);
        let end = (((off - lo) / rice::SEGMENT + 1) * rice::SEGMENT).min(plen);
        let mut w = [0u8; PART];
        let in_part = |e: CodecProblem| CodecError::from(e).in_part(k);
        let part = Parts::one(wdl, count, k).map_err(in_part)?;
        self.decode_part_wdl(part, plen, &mut w[..end])
            .map_err(in_part)?;
        if w[off - lo] == WDL_DRAW {
            return Ok(Packed::DRAW);
        }
        for (j, x) in w[..end].iter_mut().enumerate() {
            if !kept(lo + j) {
                *x = WDL_DRAW;
            }
        }
        if rem.is_empty() {
            return Err(CodecProblem::MissingRemoteness.into());
        }
        rice::value_at(
            Parts::one(rem, count, k).map_err(in_part)?,
            &w[..end],
            off - lo,
        )
        .map_err(in_part)
    }

    /// The stored values of whole parts of a block of `len` slots coded by
    /// [`TierModel::encode_split`], from part `first` on, into `out`
    /// (whole parts but the block's last): draws; wins and losses at
    /// slots `kept` (slot offsets in the block) with their remoteness;
    /// the others' remoteness is not stored, so they read as a win or a
    /// loss in [`MAX_REMOTENESS`](crate::value::MAX_REMOTENESS) plies, a
    /// placeholder the caller must not read as a remoteness. Every part's
    /// ends are checked. This is what a cache of compact blocks holds.
    ///
    /// # Errors
    /// A [`CodecError`] if a part does not decode.
    pub fn decode_split_parts(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        first: usize,
        kept: impl Fn(usize) -> bool,
        out: &mut [Packed],
    ) -> Result<(), CodecError> {
        let count = len.div_ceil(PART);
        let mut w = [0u8; PART];
        let mut masked = [0u8; PART];
        for (j, o) in out.chunks_mut(PART).enumerate() {
            let k = first + j;
            let in_part = |e: CodecProblem| CodecError::from(e).in_part(k);
            let plen = part_len(len, k);
            if o.len() != plen {
                return Err(in_part(CodecProblem::PartTable));
            }
            let part = Parts::one(wdl, count, k).map_err(in_part)?;
            self.decode_part_wdl(part, plen, &mut w[..plen])
                .map_err(in_part)?;
            let lo = k * PART;
            for (x, (&s, m)) in o.iter_mut().zip(w.iter().zip(masked.iter_mut())) {
                *m = s;
                *x = match s {
                    WDL_DRAW => Packed::DRAW,
                    _ => Packed::decisive(s == WDL_WIN, crate::value::MAX_REMOTENESS),
                };
            }
            for (d, m) in masked[..plen].iter_mut().enumerate() {
                if !kept(lo + d) {
                    *m = WDL_DRAW;
                }
            }
            if masked[..plen].iter().any(|&m| m != WDL_DRAW) {
                if rem.is_empty() {
                    return Err(in_part(CodecProblem::MissingRemoteness));
                }
                let bytes = Parts::one(rem, count, k).map_err(in_part)?;
                rice::decode(bytes, &masked[..plen], o, true).map_err(in_part)?;
            }
        }
        Ok(())
    }

    /// One part's WDL symbols as quads on two lanes, or as the one byte
    /// of a constant part.
    fn encode_quads(&self, ws: &[u8]) -> Vec<u8> {
        if let Some(x) = constant(ws) {
            return vec![x];
        }
        let mut steps = Vec::with_capacity(ws.len().div_ceil(QUAD));
        quad_steps(ws, |c, s| steps.push((c, s)));
        let mut e = Encoder::new();
        for (q, &(c, s)) in steps.iter().enumerate().rev() {
            e.put_lane(q % 2, self.context(c), s);
        }
        e.finish_two()
    }

    /// Decode the first `out.len()` WDL symbols of a part of `len` slots;
    /// a complete decode also checks the stream's end.
    fn decode_part_wdl(
        &self,
        bytes: &[u8],
        len: usize,
        out: &mut [u8],
    ) -> Result<(), CodecProblem> {
        if out.is_empty() {
            return Ok(());
        }
        if let [x] = *bytes {
            if x > WDL_WIN {
                return Err(CodecProblem::ConstantSymbol);
            }
            out.fill(x);
            return Ok(());
        }
        let mut d = Decoder::new_two(bytes)?;
        self.decode_quads(&mut d, out);
        d.check()?;
        if out.len() == len {
            d.finish()?;
        }
        Ok(())
    }

    /// The WDL symbols of the first `out.len()` slots of a block of `len`
    /// slots (draw 0, loss 1, win 2); decoding every slot also checks
    /// the stream's end.
    ///
    /// # Errors
    /// A [`CodecError`] if the stream is not one [`TierModel::encode`]
    /// makes.
    #[cfg(any(test, feature = "internals"))]
    pub fn decode_wdl(&self, wdl: &[u8], len: usize, out: &mut [u8]) -> Result<(), CodecError> {
        if out.is_empty() {
            return Ok(());
        }
        let parts = Parts::parse(wdl, len.div_ceil(PART))?;
        for (k, o) in out.chunks_mut(PART).enumerate() {
            self.decode_part_wdl(parts.get(k), part_len(len, k), o)
                .map_err(|e| CodecError::from(e).in_part(k))?;
        }
        Ok(())
    }

    /// The WDL symbol of slot `off` of a block of `len` slots: its part
    /// only.
    ///
    /// # Errors
    /// A [`CodecError`] if the slot's part does not decode.
    pub fn wdl_at(&self, wdl: &[u8], len: usize, off: usize) -> Result<u8, CodecError> {
        let k = off / PART;
        let lo = k * PART;
        let mut w = [0u8; PART];
        let in_part = |e: CodecProblem| CodecError::from(e).in_part(k);
        let part = Parts::one(wdl, len.div_ceil(PART), k).map_err(in_part)?;
        self.decode_part_wdl(part, part_len(len, k), &mut w[..=off - lo])
            .map_err(in_part)?;
        Ok(w[off - lo])
    }

    /// The packed value of slot `off` of a block of `len` slots: the WDL
    /// symbols of its part up to the end of its Rice segment, then its
    /// Rice code.
    ///
    /// # Errors
    /// A [`CodecError`] if the slot's part does not decode.
    pub fn value_at(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        off: usize,
    ) -> Result<Packed, CodecError> {
        let count = len.div_ceil(PART);
        let k = off / PART;
        let lo = k * PART;
        let plen = part_len(len, k);
        let end = (((off - lo) / rice::SEGMENT + 1) * rice::SEGMENT).min(plen);
        let mut w = [0u8; PART];
        let in_part = |e: CodecProblem| CodecError::from(e).in_part(k);
        let part = Parts::one(wdl, count, k).map_err(in_part)?;
        self.decode_part_wdl(part, plen, &mut w[..end])
            .map_err(in_part)?;
        if w[off - lo] == WDL_DRAW {
            return Ok(Packed::DRAW);
        }
        if rem.is_empty() {
            return Err(CodecProblem::MissingRemoteness.into());
        }
        rice::value_at(
            Parts::one(rem, count, k).map_err(in_part)?,
            &w[..end],
            off - lo,
        )
        .map_err(in_part)
    }

    /// Decode the packed values of the first `out.len()` slots of a block
    /// of `len` slots; decoding every slot checks every stream's end.
    ///
    /// # Errors
    /// A [`CodecError`] if the streams are not ones [`TierModel::encode`]
    /// makes.
    pub fn decode_values(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        out: &mut [Packed],
    ) -> Result<(), CodecError> {
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let count = len.div_ceil(PART);
        let parts = Parts::parse(wdl, count)?;
        let rparts = if rem.is_empty() {
            None
        } else {
            Some(Parts::parse(rem, count)?)
        };
        let complete = n == len;
        let mut any_decisive = false;
        let mut w = [0u8; PART];
        let mut v = [Packed::UNDECIDED; PART];
        for (k, o) in out.chunks_mut(PART).enumerate() {
            let in_part = |e: CodecProblem| CodecError::from(e).in_part(k);
            let plen = part_len(len, k);
            // Whole Rice segments: their codes are found by their classes.
            let end = (o.len().div_ceil(rice::SEGMENT) * rice::SEGMENT).min(plen);
            self.decode_part_wdl(parts.get(k), plen, &mut w[..end])
                .map_err(in_part)?;
            for (x, &s) in v.iter_mut().zip(&w[..end]) {
                *x = if s == WDL_DRAW {
                    Packed::DRAW
                } else {
                    Packed::UNDECIDED
                };
            }
            let decisive = w[..end].iter().any(|&s| s != WDL_DRAW);
            any_decisive |= decisive;
            match &rparts {
                Some(r) => {
                    rice::decode(r.get(k), &w[..end], &mut v[..end], complete).map_err(in_part)?
                }
                None if decisive => return Err(in_part(CodecProblem::MissingRemoteness)),
                None => {}
            }
            o.copy_from_slice(&v[..o.len()]);
        }
        if complete && rparts.is_some() && !any_decisive {
            return Err(CodecProblem::NeedlessRemoteness.into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::Counts;
    use super::*;

    /// Test data from the crate's one seeded generator.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut r = crate::rng::Rng::new(seed);
        move || r.next_u64()
    }

    /// Raw 16-bit words as packed values (random test data).
    fn words(bits: impl IntoIterator<Item = u16>) -> Vec<Packed> {
        bits.into_iter().map(Packed::from_bits).collect()
    }

    fn model_of(values: &[Packed], bs: usize) -> TierModel {
        let mut counts = Counts::new();
        for b in values.chunks(bs) {
            counts.add_block(b);
        }
        TierModel::new(&counts.spec()).unwrap()
    }

    /// Every block of `values` round-trips whole, in part and slot by slot.
    fn check(values: &[Packed], bs: usize) {
        let m = model_of(values, bs);
        for b in values.chunks(bs) {
            let (w, r) = m.encode(b);
            let mut full = vec![Packed::UNDECIDED; b.len()];
            m.decode_values(&w, &r, b.len(), &mut full).unwrap();
            let mut wdl = vec![9; b.len()];
            m.decode_wdl(&w, b.len(), &mut wdl).unwrap();
            for i in 0..b.len() {
                if b[i] != Packed::UNDECIDED {
                    assert_eq!(full[i], b[i], "slot {i}");
                } else {
                    assert_eq!(full[i], Packed::DRAW, "an unused slot reads as a draw");
                }
                assert_eq!(wdl_of(full[i]), wdl[i]);
            }
            // Stopping early gives the same prefix.
            let k = b.len() / 2;
            let mut part = vec![Packed::UNDECIDED; k];
            m.decode_values(&w, &r, b.len(), &mut part).unwrap();
            assert_eq!(part[..], full[..k]);
            // Single slots, from their own part.
            for i in (0..b.len()).step_by(1 + b.len() / 97) {
                assert_eq!(m.value_at(&w, &r, b.len(), i).unwrap(), full[i], "slot {i}");
                assert_eq!(m.wdl_at(&w, b.len(), i).unwrap(), wdl[i], "slot {i}");
            }
        }
    }

    #[test]
    fn random_values_round_trip() {
        let mut r = rng(3);
        let v = words((0..40_000).map(|_| match r() % 10 {
            0 => 0,
            1 => 1,
            _ => 2 + (r() % 2000) as u16,
        }));
        for bs in [1, 7, 256, 4096] {
            check(&v, bs);
        }
        // Remoteness up to the largest value.
        let big = [
            crate::value::Value::Win(crate::value::MAX_REMOTENESS).pack(),
            crate::value::Value::Loss(300).pack(),
            Packed::DRAW,
            Packed::UNDECIDED,
            crate::value::Value::Win(1).pack(),
        ];
        check(&big, 3);
        check(&[], 4);
        check(&words([0, 0, 0]), 4);
        check(&words([1, 1, 0, 1]), 4);
    }

    #[test]
    fn skewed_values_round_trip() {
        let mut r = rng(5);
        let mut v = Vec::new();
        let mut cur = 1;
        for _ in 0..100_000 {
            if r().is_multiple_of(50) {
                cur = 1 + (r() % 60) as u16;
            }
            v.push(if r().is_multiple_of(7) { 0 } else { cur });
        }
        check(&words(v), 512);
    }

    #[test]
    fn constant_parts_round_trip_and_refuse_a_bad_symbol() {
        // Whole parts of one WDL symbol (wins of two remoteness, draws,
        // unused slots that become draws), beside mixed ones.
        let mut v: Vec<u16> = (0..256).map(|i| if i % 2 == 0 { 5 } else { 7 }).collect();
        v.extend([1; 256]);
        v.extend([0; 300]);
        v.extend((0..300).map(|i| 2 + (i % 5) as u16));
        v.extend([4; 700]);
        check(&words(v), 512);
        let m = TierModel::new(&Counts::new().spec()).unwrap();
        let (w, r) = m.encode(&words([9; 512]));
        assert_eq!(
            w.len(),
            2 + 2,
            "two constant parts: a table and a byte each"
        );
        let mut out = vec![Packed::UNDECIDED; 512];
        m.decode_values(&w, &r, 512, &mut out).unwrap();
        assert_eq!(out, words([9; 512]));
        let mut bad = w.clone();
        bad[2] = 3;
        let e = m.decode_values(&bad, &r, 512, &mut out).unwrap_err();
        assert_eq!((e.problem, e.part), (CodecProblem::ConstantSymbol, Some(0)));
        assert!(m.value_at(&bad, &r, 512, 3).is_err());
        assert!(m.wdl_at(&bad, 512, 3).is_err());
    }

    #[test]
    fn damaged_block_streams_are_errors() {
        let v = words((0..300).map(|i| 2 + (i % 13) as u16));
        let m = model_of(&v, 512);
        let (w, r) = m.encode(&v);
        let mut out = vec![Packed::UNDECIDED; v.len()];
        assert!(m
            .decode_values(&w, &r[..r.len() - 1], v.len(), &mut out)
            .is_err());
        assert!(m.decode_values(&w, &[], v.len(), &mut out).is_err());
        assert!(m.decode_values(&w[..2], &r, v.len(), &mut out).is_err());
        let mut longer = r.clone();
        longer.push(7);
        assert!(m.decode_values(&w, &longer, v.len(), &mut out).is_err());
        // A remoteness stream for a block of draws.
        let draws = [Packed::DRAW; 300];
        let (dw, dr) = m.encode(&draws);
        assert!(dr.is_empty());
        let e = m.decode_values(&dw, &r, 300, &mut out).unwrap_err();
        assert_eq!(e.problem, CodecProblem::NeedlessRemoteness);
    }

    #[test]
    fn split_parts_agree_with_single_slots() {
        // A block of 1,100 slots (four whole parts and a short one) whose
        // remoteness is kept at every third slot only.
        let mut r = rng(11);
        let v = words((0..1100).map(|_| match r() % 4 {
            0 => 1,
            _ => 2 + (r() % 90) as u16,
        }));
        let m = model_of(&v, 4096);
        let kept = |k: usize| k.is_multiple_of(3);
        let ws: Vec<u8> = v.iter().map(|&p| wdl_of(p)).collect();
        let ws_rem: Vec<u8> = ws
            .iter()
            .enumerate()
            .map(|(k, &w)| if kept(k) { w } else { WDL_DRAW })
            .collect();
        let (w, rem) = m.encode_split(&ws, &v, &ws_rem);
        for first in [0, 2, 4] {
            let mut out = vec![Packed::UNDECIDED; v.len() - first * PART];
            m.decode_split_parts(&w, &rem, v.len(), first, kept, &mut out)
                .unwrap();
            for (j, &got) in out.iter().enumerate() {
                let k = first * PART + j;
                assert_eq!(wdl_of(got), ws[k], "slot {k}");
                if kept(k) {
                    let one = m.split_value_at(&w, &rem, v.len(), k, kept).unwrap();
                    assert_eq!((got, one), (v[k], v[k]), "slot {k}");
                }
            }
        }
        // A window that does not end on a part boundary but the block's
        // end, and a damaged remoteness stream.
        let mut out = vec![Packed::UNDECIDED; 300];
        assert!(m
            .decode_split_parts(&w, &rem, v.len(), 0, kept, &mut out)
            .is_err());
        let mut out = vec![Packed::UNDECIDED; v.len()];
        assert!(m
            .decode_split_parts(&w, &rem[..rem.len() - 1], v.len(), 0, kept, &mut out)
            .is_err());
    }
}
