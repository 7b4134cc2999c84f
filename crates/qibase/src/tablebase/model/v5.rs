//! The format 5 block coding: a block is cut in [`PART`]-slot parts, and
//! each stream of the block is a small table of part ends followed by the
//! parts' streams. A part's WDL symbols are quads on two rANS lanes, each
//! lane with its own chain of contexts; its remoteness is Rice-coded
//! ([`crate::tablebase::rice`]).
//!
//! Why parts: a lookup decodes only its own part, so the chain of WDL
//! symbols it waits on is half that of a 512-slot block (on the full
//! cannon-chess table, 256-slot blocks made cold full-value lookups 1.35×
//! faster, but their index entries and stream states cost 0.37 more bits
//! per used slot; the part tables and restarts cost 0.075).
//!
//! Why lanes with their own contexts: in format 4 quad `q` took its
//! context from quad `q − 1`, which sat on the other lane, so the two
//! lanes' chains of table loads waited on each other (1.17× for the second
//! lane). Here quad `q` takes its context from quad `q − 2`, the one
//! before it on its own lane, and the chains overlap: cold WDL lookups
//! 1.31× and full-value lookups 1.30× faster than one lane with the
//! previous quad's context, for 0.124 more bits per used slot (the second
//! state, and the more distant context).

use super::super::rans::{Decoder, Encoder};
use super::super::rice;
use super::{wdl_ctx, wdl_of, Segments, TierModel, QUAD, WDL_DRAW, WDL_WIN};
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

/// The WDL symbol of every slot of a part whose slots all have one: its
/// WDL stream is that one byte (an rANS stream has at least 8). Such parts
/// are common (two-cannons: a tier's soldiers often win almost
/// everywhere), and two rANS states would cost them 8 bytes.
pub(super) fn constant(ws: &[u8]) -> Option<u8> {
    let first = *ws.first()?;
    ws.iter().all(|&x| x == first).then_some(first)
}

/// The (context, symbol) of each quad of a part: quad `q` (slots `4q …
/// 4q+3`, the last slot repeated past the part's end) in the context of
/// the last two slots of quad `q − 2` (draw, draw for the first two), the
/// previous quad of its own lane: quad `q` is coded on lane `q mod 2`.
pub(super) fn quad_steps(ws: &[u8], mut f: impl FnMut(usize, usize)) {
    let mut ctx = [wdl_ctx(WDL_DRAW, WDL_DRAW); 2];
    for (q, quad) in ws.chunks(QUAD).enumerate() {
        let mut d = [*quad.last().expect("a quad has slots"); QUAD];
        d[..quad.len()].copy_from_slice(quad);
        let sym = d[0] as usize + 3 * d[1] as usize + 9 * d[2] as usize + 27 * d[3] as usize;
        f(ctx[q % 2], sym);
        ctx[q % 2] = wdl_ctx(d[3], d[2]);
    }
}

impl TierModel {
    /// Encode one block (don't-cares already filled as draws).
    pub(super) fn encode_v5(&self, filled: &[Packed]) -> (Vec<u8>, Vec<u8>) {
        if filled.is_empty() {
            return (Vec::new(), Vec::new());
        }
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
            e.put_lane(q % 2, &self.wdl[c], s);
        }
        e.finish_two()
    }

    /// Decode the first `out.len()` WDL symbols of a part of `len` slots;
    /// a complete decode also checks the stream's end.
    fn decode_quads(&self, bytes: &[u8], len: usize, out: &mut [u8]) -> Result<(), String> {
        if out.is_empty() {
            return Ok(());
        }
        if let [x] = *bytes {
            if x > WDL_WIN {
                return Err("constant part of an unknown WDL symbol".into());
            }
            out.fill(x);
            return Ok(());
        }
        let mut d = Decoder::new_two(bytes)?;
        // Each lane's context chain is its own (see `quad_steps`), so the
        // two chains of table loads run side by side.
        self.decode_quads_on_lanes::<true>(&mut d, out);
        d.check()?;
        if out.len() == len {
            d.finish()?;
        }
        Ok(())
    }

    /// The WDL symbols of the first `out.len()` slots of a block of `len`.
    pub(super) fn decode_wdl_v5(
        &self,
        wdl: &[u8],
        len: usize,
        out: &mut [u8],
    ) -> Result<(), String> {
        if out.is_empty() {
            return Ok(());
        }
        let parts = Segments::parse(wdl, len.div_ceil(PART))?;
        for (k, o) in out.chunks_mut(PART).enumerate() {
            let plen = PART.min(len - k * PART);
            self.decode_quads(parts.get(k), plen, o)
                .map_err(|e| format!("part {k}: {e}"))?;
        }
        Ok(())
    }

    /// The WDL symbol of slot `off` of a block of `len`: its part only.
    pub(super) fn wdl_at_v5(&self, wdl: &[u8], len: usize, off: usize) -> Result<u8, String> {
        let parts = Segments::parse(wdl, len.div_ceil(PART))?;
        let k = off / PART;
        let mut w = [0u8; PART];
        let lo = k * PART;
        self.decode_quads(parts.get(k), PART.min(len - lo), &mut w[..=off - lo])
            .map_err(|e| format!("part {k}: {e}"))?;
        Ok(w[off - lo])
    }

    /// The packed value of slot `off` of a block of `len`: the WDL symbols
    /// of its part up to the end of its Rice segment, then its Rice code.
    pub(super) fn value_at_v5(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        off: usize,
    ) -> Result<Packed, String> {
        let count = len.div_ceil(PART);
        let parts = Segments::parse(wdl, count)?;
        let k = off / PART;
        let lo = k * PART;
        let plen = PART.min(len - lo);
        let end = ((off - lo) / rice::SEGMENT + 1) * rice::SEGMENT;
        let end = end.min(plen);
        let mut w = [0u8; PART];
        self.decode_quads(parts.get(k), plen, &mut w[..end])
            .map_err(|e| format!("part {k}: {e}"))?;
        if w[off - lo] == WDL_DRAW {
            return Ok(1);
        }
        if rem.is_empty() {
            return Err("win or loss in a block without remoteness stream".into());
        }
        let rparts = Segments::parse(rem, count)?;
        rice::value_at(rparts.get(k), &w[..end], off - lo).map_err(|e| format!("part {k}: {e}"))
    }

    /// Decode the packed values of the first `out.len()` slots of a block
    /// of `len` slots; a complete decode checks every stream's end.
    pub(super) fn decode_values_v5(
        &self,
        wdl: &[u8],
        rem: &[u8],
        len: usize,
        out: &mut [Packed],
    ) -> Result<(), String> {
        let n = out.len();
        if n == 0 {
            return Ok(());
        }
        let count = len.div_ceil(PART);
        let parts = Segments::parse(wdl, count)?;
        let rparts = if rem.is_empty() {
            None
        } else {
            Some(Segments::parse(rem, count)?)
        };
        let complete = n == len;
        let mut any_decisive = false;
        let mut w = [0u8; PART];
        let mut v = [0 as Packed; PART];
        for (k, o) in out.chunks_mut(PART).enumerate() {
            let lo = k * PART;
            let plen = PART.min(len - lo);
            // Whole Rice segments: their codes are found by their classes.
            let end = (o.len().div_ceil(rice::SEGMENT) * rice::SEGMENT).min(plen);
            self.decode_quads(parts.get(k), plen, &mut w[..end])
                .map_err(|e| format!("part {k}: {e}"))?;
            for (x, &s) in v.iter_mut().zip(&w[..end]) {
                *x = (s == WDL_DRAW) as Packed;
            }
            let decisive = w[..end].iter().any(|&s| s != WDL_DRAW);
            any_decisive |= decisive;
            match &rparts {
                Some(r) => rice::decode(r.get(k), &w[..end], &mut v[..end], complete)
                    .map_err(|e| format!("part {k}: {e}"))?,
                None if decisive => {
                    return Err("win or loss in a block without remoteness stream".into())
                }
                None => {}
            }
            o.copy_from_slice(&v[..o.len()]);
        }
        if complete && rparts.is_some() && !any_decisive {
            return Err("remoteness stream for a block without wins or losses".into());
        }
        Ok(())
    }
}
