//! A whole tier in the compact format: encoding it from its true values,
//! and resolving it back to them.
//!
//! Resolving takes two passes. First every slot whose remoteness is kept
//! (the kept half, or every slot of a tier without halves): the rules,
//! or the better of its best capture and its stored value. Then the other
//! half, by a one-ply search: every move either captures into a lower
//! tier or lands in the kept half, which the first pass has resolved.

use rayon::prelude::*;

use super::encode::{choose_remoteness, choose_symbols, kept_need, needs, Need};
use super::file::{CompactEncoded, CompactFile, CompactHeader};
use crate::game::{TierKey, Tiers};
use crate::tablebase::cache::{BlockCache, Lookup, SLOT_VALUES};
use crate::tablebase::codec::model::{Counts, WDL_DRAW, WDL_WIN};
use crate::tablebase::codec::{TierModel, PART};
use crate::tablebase::{TbError, TierMeta};
use crate::tier_values::TierValues;
use crate::value::{Packed, Value, Wdl};

/// Slots per compact block. Larger blocks cost fewer index bytes and
/// model restarts; a lookup still decodes only its own 256-slot part.
pub const COMPACT_BLOCK_SIZE: u32 = 8192;

/// Where the fast (format 5) file came from: what `unpack` must rebuild.
#[derive(Clone, Debug)]
pub struct FastOrigin {
    /// Its header's tier description and statistics.
    pub meta: TierMeta,
    /// Its slots per block.
    pub block_size: u32,
    /// Its length and xxh3-64.
    pub len: u64,
    /// See [`FastOrigin::len`].
    pub checksum: u64,
}

/// Whether slot `i` of tier `t` keeps its remoteness under `kept`.
#[inline]
fn keeps<G: Tiers>(g: &G, t: TierKey, i: u64, kept: Option<bool>) -> bool {
    match kept {
        None => true,
        Some(h) => g.slot_half(t, i) == Some(h),
    }
}

/// The model counted on the stored symbols of every block.
fn count_model(symbols: &[Vec<u8>]) -> crate::tablebase::codec::ModelSpec {
    symbols
        .par_iter()
        .fold(Counts::new, |mut c, ws| {
            c.add_symbols(ws);
            c
        })
        .reduce(Counts::new, Counts::merge)
        .spec()
}

/// `ws` with the symbols of the slots whose remoteness is not kept made
/// draws (block starting at slot `base`).
fn kept_symbols<G: Tiers>(g: &G, t: TierKey, base: u64, ws: &[u8], kept: Option<bool>) -> Vec<u8> {
    ws.iter()
        .enumerate()
        .map(|(k, &w)| {
            if keeps(g, t, base + k as u64, kept) {
                w
            } else {
                WDL_DRAW
            }
        })
        .collect()
}

/// Encode tier `t` (true values `values`, lower tiers in `lower`), keeping
/// the remoteness of whichever half codes smaller.
///
/// Two passes: the first fills the free slots from their neighbours,
/// counts a model and picks the half to keep; the second picks each
/// quad's free symbols for the fewest bits under that model (and the
/// fewest needless remoteness codes), and the file's model is counted on
/// the result.
pub fn encode_tier<G: Tiers>(
    g: &G,
    t: TierKey,
    values: &[Packed],
    lower: &TierValues,
    origin: &FastOrigin,
    block_size: u32,
) -> CompactEncoded {
    let n = values.len() as u64;
    let bs = block_size.max(1) as u64;
    let blocks = n.div_ceil(bs);
    let block_needs: Vec<Vec<Need>> = (0..blocks)
        .into_par_iter()
        .map(|b| needs(g, t, b * bs..((b + 1) * bs).min(n), values, lower))
        .collect();
    // Pass 1.
    let first: Vec<Vec<u8>> = block_needs
        .par_iter()
        .map(|nd| choose_symbols(nd, None, &|_| true))
        .collect();
    let spec = count_model(&first);
    let candidates: Vec<Option<bool>> = if n > 0 && g.slot_half(t, 0).is_some() {
        vec![Some(false), Some(true)]
    } else {
        vec![None]
    };
    let mut kept = candidates[0];
    if candidates.len() > 1 {
        let size = |kept: Option<bool>| -> usize {
            block_needs
                .par_iter()
                .zip(&first)
                .enumerate()
                .map(|(b, (nd, ws))| {
                    let vals = choose_remoteness(nd, ws);
                    let ws_rem = kept_symbols(g, t, b as u64 * bs, ws, kept);
                    TierModel::encode_split_rem(&vals, &ws_rem).len()
                })
                .sum()
        };
        let sizes: Vec<usize> = candidates.iter().map(|&c| size(c)).collect();
        kept = candidates[(sizes[1] < sizes[0]) as usize];
    }
    drop(first);
    // Pass 2.
    let second: Vec<(Vec<u8>, Vec<Packed>)> = block_needs
        .par_iter()
        .enumerate()
        .map(|(b, nd)| {
            let base = b as u64 * bs;
            let nd: Vec<Need> = nd
                .iter()
                .enumerate()
                .map(|(k, &n)| {
                    if kept.is_some() && keeps(g, t, base + k as u64, kept) {
                        kept_need(n)
                    } else {
                        n
                    }
                })
                .collect();
            let ws = choose_symbols(&nd, Some(&spec), &|k| keeps(g, t, base + k as u64, kept));
            let vals = choose_remoteness(&nd, &ws);
            (ws, vals)
        })
        .collect();
    drop(block_needs);
    let symbols: Vec<Vec<u8>> = second.iter().map(|(ws, _)| ws.clone()).collect();
    let spec = count_model(&symbols);
    drop(symbols);
    let model = TierModel::new(&spec).expect("a counted model is valid");
    let (wdl, rem): (Vec<Vec<u8>>, Vec<Vec<u8>>) = second
        .par_iter()
        .enumerate()
        .map(|(b, (ws, vals))| {
            let ws_rem = kept_symbols(g, t, b as u64 * bs, ws, kept);
            model.encode_split(ws, vals, &ws_rem)
        })
        .unzip();
    let kept_half = kept;
    let header = CompactHeader {
        meta: origin.meta.clone(),
        fast_block_size: origin.block_size,
        fast_len: origin.len,
        fast_checksum: origin.checksum,
        block_size: bs as u32,
        blocks,
        kept_half,
        model: spec,
        wdl_len: 0,
        rem_len: 0,
        index_checksums: [0, 0],
    };
    CompactEncoded::new(header, wdl, rem)
}

/// The miss on which a compact window is decoded whole and cached. Later
/// than the fast format's third: one lookup of the searched side reads
/// each child's slot two or three times (its WDL bound, then its value),
/// so on the third miss most windows were decoded whole for a single use,
/// and cold searched lookups ran at 0.07 M/s instead of 0.10 (cannon-chess,
/// 200k uniform probes); on the eighth they run as fast as with no cache,
/// and repeated lookups 2.5x faster.
const ADMIT_ON_MISS: u8 = 8;

impl CompactFile {
    /// Whether slot `i` keeps its remoteness in this file.
    pub(crate) fn keeps<G: Tiers>(&self, g: &G, i: u64) -> bool {
        keeps(g, self.header().meta.tier, i, self.header().kept_half)
    }

    /// A corrupt-file error naming slot `i`'s block.
    pub(crate) fn corrupt_slot(&self, i: u64, what: &str) -> TbError {
        self.corrupt((i / self.header().block_size as u64) as usize, what)
    }

    /// Where slot `i` is: its block and its offset there.
    fn locate(&self, i: u64) -> Result<(usize, usize), TbError> {
        let h = self.header();
        if i >= h.meta.positions {
            return Err(TbError::corrupt(
                self.path(),
                format!("slot {i} out of range ({} slots)", h.meta.positions),
            ));
        }
        let bs = h.block_size as u64;
        Ok(((i / bs) as usize, (i % bs) as usize))
    }

    /// Slot `i`'s stored value from the process's block cache, which holds
    /// a compact block in windows of [`SLOT_VALUES`] slots as
    /// [`TierModel::decode_split_parts`] gives them: `None` when the window
    /// is not cached (yet: it is decoded whole and kept on its
    /// [`ADMIT_ON_MISS`]th miss, so a principal variation, a search or a
    /// server soon finds its blocks there while uniform cold lookups pay
    /// almost nothing for it).
    fn cached<G: Tiers>(&self, g: &G, i: u64) -> Result<Option<Packed>, TbError> {
        let bs = self.header().block_size as usize;
        let window = i / SLOT_VALUES as u64;
        // Keys hold a window number in 32 bits; a block size that is not
        // a whole number of windows (no file qibase writes) is not cached.
        if !bs.is_multiple_of(SLOT_VALUES) || window >> 32 != 0 {
            return Ok(None);
        }
        let (b, off) = self.locate(i)?;
        let start = off / SLOT_VALUES * SLOT_VALUES;
        let len = (self.block_len(b) - start).min(SLOT_VALUES);
        let key = (self.cache_id() << 32) | window;
        let decode = |out: &mut [Packed]| -> Result<(), TbError> {
            let wdl = self.stream(0, b)?;
            let rem = self.stream(1, b)?;
            let base = b as u64 * bs as u64;
            self.model()
                .decode_split_parts(
                    &wdl,
                    &rem,
                    self.block_len(b),
                    start / PART,
                    |k| self.keeps(g, base + k as u64),
                    out,
                )
                .map_err(|e| self.corrupt(b, &e.to_string()))
        };
        Ok(
            match BlockCache::global().get_admitting(
                key,
                off - start,
                len,
                ADMIT_ON_MISS,
                decode,
            )? {
                Lookup::Hit(v) => Some(v),
                Lookup::Pass => None,
            },
        )
    }

    /// The stored WDL symbol of slot `i` (what the file holds, before the
    /// reader settles what it leaves out).
    pub(crate) fn wdl_at<G: Tiers>(&self, g: &G, i: u64) -> Result<Wdl, TbError> {
        if let Some(v) = self.cached(g, i)? {
            return v
                .wdl()
                .ok_or_else(|| self.corrupt_slot(i, "an undecided cached slot"));
        }
        let (b, off) = self.locate(i)?;
        let wdl = self.stream(0, b)?;
        let w = self
            .model()
            .wdl_at(&wdl, self.block_len(b), off)
            .map_err(|e| self.corrupt(b, &e.to_string()))?;
        Ok(match w {
            WDL_WIN => Wdl::Win,
            WDL_DRAW => Wdl::Draw,
            _ => Wdl::Loss,
        })
    }

    /// The stored value of slot `i`, whose remoteness is kept.
    pub(crate) fn value_at<G: Tiers>(&self, g: &G, i: u64) -> Result<Packed, TbError> {
        debug_assert!(self.keeps(g, i), "slot {i}'s remoteness is not kept");
        if let Some(v) = self.cached(g, i)? {
            return Ok(v);
        }
        let (b, off) = self.locate(i)?;
        let wdl = self.stream(0, b)?;
        let rem = self.stream(1, b)?;
        let base = i - off as u64;
        self.model()
            .split_value_at(&wdl, &rem, self.block_len(b), off, |k| {
                self.keeps(g, base + k as u64)
            })
            .map_err(|e| self.corrupt(b, &e.to_string()))
    }

    /// Block `b`'s stored values: draws, wins and losses with their kept
    /// remoteness, and [`Packed::UNDECIDED`] for a win or a loss whose
    /// remoteness is not kept.
    pub(crate) fn stored_block<G: Tiers>(&self, g: &G, b: usize) -> Result<Vec<Packed>, TbError> {
        let len = self.block_len(b);
        let t = self.header().meta.tier;
        let kept = self.header().kept_half;
        let base = b as u64 * self.header().block_size as u64;
        let wdl = self.stream(0, b)?;
        let rem = self.stream(1, b)?;
        let mut ws = vec![0u8; len];
        self.model()
            .decode_split_wdl(&wdl, &mut ws)
            .map_err(|e| self.corrupt(b, &e.to_string()))?;
        let mut out: Vec<Packed> = ws
            .iter()
            .map(|&w| {
                if w == WDL_DRAW {
                    Packed::DRAW
                } else {
                    Packed::UNDECIDED
                }
            })
            .collect();
        let ws_rem: Vec<u8> = ws
            .iter()
            .enumerate()
            .map(|(k, &w)| {
                if keeps(g, t, base + k as u64, kept) {
                    w
                } else {
                    WDL_DRAW
                }
            })
            .collect();
        TierModel::decode_split_rem(&rem, &ws_rem, &mut out)
            .map_err(|e| self.corrupt(b, &e.to_string()))?;
        // The decoder fills the class from the symbols it was given.
        debug_assert!(out
            .iter()
            .zip(&ws_rem)
            .all(|(v, &w)| w == WDL_DRAW
                || (v.wdl() == Some(crate::value::Wdl::Win)) == (w == WDL_WIN)));
        Ok(out)
    }

    /// Every true value of the tier (unused slots read as draws, as in the
    /// fast format), from the stored values and the lower tiers' true
    /// values in `lower`.
    ///
    /// # Errors
    /// A damaged block ([`TbError::Corrupt`]), or a slot whose moves lead to
    /// values the lower tiers lack.
    pub fn resolve<G: Tiers>(&self, g: &G, lower: &TierValues) -> Result<Vec<Packed>, TbError> {
        let h = self.header();
        let t = h.meta.tier;
        let kept = h.kept_half;
        let bs = h.block_size as u64;
        let n = h.meta.positions;
        // Pass 1: the kept slots; the others marked undecided.
        let firsts: Vec<Vec<Packed>> = (0..h.blocks as usize)
            .into_par_iter()
            .map(|b| -> Result<Vec<Packed>, TbError> {
                let mut stored = self.stored_block(g, b)?;
                let base = b as u64 * bs;
                let mut out = vec![Packed::DRAW; stored.len()];
                let mut used = Vec::new();
                g.used_slots(t, base..base + stored.len() as u64, &mut used);
                let (mut moves, mut kids) = (Vec::new(), Vec::new());
                for (i, p) in &used {
                    let k = (i - base) as usize;
                    if !keeps(g, t, *i, kept) {
                        out[k] = Packed::UNDECIDED;
                        continue;
                    }
                    let v = if let Some(end) = g.rule_end(p) {
                        end.value
                    } else {
                        kids.clear();
                        let in_tier = g.lower_child_ranks(p, &mut moves, &mut kids);
                        let mut best: Option<Value> = None;
                        for &(ct, r) in kids.iter() {
                            let c = lower.get(ct, r).ok_or_else(|| {
                                self.corrupt(b, "a capture leads to a slot the lower tiers lack")
                            })?;
                            let v = Value::of_move_to(c);
                            best = Some(best.map_or(v, |x| x.max(v)));
                        }
                        if kids.is_empty() && in_tier == 0 {
                            Value::Loss(0)
                        } else {
                            let s = std::mem::replace(&mut stored[k], Packed::DRAW);
                            let s = Value::unpack(s).ok_or_else(|| {
                                self.corrupt(b, "a kept win or loss without its remoteness")
                            })?;
                            best.map_or(s, |c| c.max(s))
                        }
                    };
                    out[k] = Packed::of(v);
                }
                Ok(out)
            })
            .collect::<Result<_, _>>()?;
        let mut values: Vec<Packed> = Vec::with_capacity(n as usize);
        for f in firsts {
            values.extend(f);
        }
        if kept.is_none() {
            return Ok(values);
        }
        // Pass 2: the other half, one ply deep into the kept half.
        let seconds: Vec<Vec<(u32, Packed)>> = (0..h.blocks as usize)
            .into_par_iter()
            .map(|b| -> Result<Vec<(u32, Packed)>, TbError> {
                let base = b as u64 * bs;
                let end = (base + bs).min(n);
                let mut out = Vec::new();
                let mut used = Vec::new();
                g.used_slots(t, base..end, &mut used);
                let (mut moves, mut kids) = (Vec::new(), Vec::new());
                let no_value = || self.corrupt(b, "a move leads to a slot with no value");
                for (i, p) in &used {
                    if keeps(g, t, *i, kept) {
                        continue;
                    }
                    // The children by the game's own child ranks, which
                    // share work between them: applying and ranking each
                    // move cost about a tenth of a whole `pack` (measured
                    // on cannon-chess). A position with no move is lost.
                    let v = if let Some(end) = g.rule_end(p) {
                        end.value
                    } else {
                        kids.clear();
                        g.child_ranks(p, &mut moves, &mut kids);
                        let mut best = Value::Loss(0);
                        for (k, &(ct, r)) in kids.iter().enumerate() {
                            let c = if ct == t {
                                Value::unpack(*values.get(r as usize).ok_or_else(no_value)?)
                            } else {
                                lower.get(ct, r)
                            }
                            .ok_or_else(no_value)?;
                            let v = Value::of_move_to(c);
                            best = if k == 0 { v } else { best.max(v) };
                        }
                        best
                    };
                    out.push(((i - base) as u32, Packed::of(v)));
                }
                Ok(out)
            })
            .collect::<Result<_, _>>()?;
        for (b, s) in seconds.into_iter().enumerate() {
            let base = b * bs as usize;
            for (k, v) in s {
                values[base + k as usize] = v;
            }
        }
        Ok(values)
    }
}
