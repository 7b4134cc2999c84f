//! The tier's WDL context model: how the WDL symbols of a part are cut in
//! quads and in which context each quad is coded, the frequencies counted
//! over the whole tier (stored in the header), and the decode tables built
//! from them once per open tier.
//!
//! A slot's WDL symbol is draw 0, loss 1, win 2. Slots `4q … 4q+3` of a
//! part form quad `q`, one of [`QUAD_SYMBOLS`] symbols (slot `4q + k` is
//! digit `k` in base 3; past the part's end the last slot is repeated).
//! Quad `q` is coded on rANS lane `q mod 2`, in the context of the last
//! two slots of quad `q − 2`, the previous quad of its own lane (draw,
//! draw for the first quad of each lane): [`WDL_CONTEXTS`] contexts.
//!
//! Why lanes with their own contexts: when quad `q` took its context from
//! quad `q − 1` (format 4), which sat on the other lane, the two lanes'
//! chains of table loads waited on each other (1.17× for the second lane).
//! Here the chains overlap: cold WDL lookups 1.31× and full-value lookups
//! 1.30× faster than one lane with the previous quad's context, for 0.124
//! more bits per used slot (the second state, and the more distant
//! context).

use serde::{Deserialize, Serialize};

use super::rans::{normalize_compact_all, ChainedTables, Model};
use super::CodecProblem;
use crate::value::{Packed, Wdl};

/// WDL symbol of a draw.
pub const WDL_DRAW: u8 = 0;
/// WDL symbol of a loss (of the side to move).
pub const WDL_LOSS: u8 = 1;
/// WDL symbol of a win (of the side to move).
pub const WDL_WIN: u8 = 2;
/// Contexts of the quads: the previous quad's last two slots.
pub const WDL_CONTEXTS: usize = 9;
/// Slots per WDL symbol.
pub const QUAD: usize = 4;
/// WDL symbols: every quad of three slot symbols.
pub const QUAD_SYMBOLS: usize = 81;

/// WDL symbol of a stored value (undecided counts as a draw).
#[inline]
pub fn wdl_of(p: Packed) -> u8 {
    match p.wdl() {
        Some(Wdl::Loss) => WDL_LOSS,
        Some(Wdl::Win) => WDL_WIN,
        Some(Wdl::Draw) | None => WDL_DRAW,
    }
}

/// The context of the quad after one whose last two slots are `p1`
/// (the last) and `p2`.
#[inline]
fn wdl_ctx(p1: u8, p2: u8) -> usize {
    p1 as usize * 3 + p2 as usize
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

/// The WDL symbol of every slot of a part whose slots all have one: its
/// WDL stream is that one byte (an rANS stream has at least 8). Such parts
/// are common (two-cannons: a tier's soldiers often win almost
/// everywhere), and two rANS states would cost them 8 bytes.
pub fn constant(ws: &[u8]) -> Option<u8> {
    let first = *ws.first()?;
    ws.iter().all(|&x| x == first).then_some(first)
}

/// The (context, symbol) of each quad of a part's WDL symbols `ws`, in
/// order (see the module comment).
pub fn quad_steps(ws: &[u8], mut f: impl FnMut(usize, usize)) {
    let mut ctx = [wdl_ctx(WDL_DRAW, WDL_DRAW); 2];
    for (q, quad) in ws.chunks(QUAD).enumerate() {
        let mut d = [*quad.last().expect("a quad has slots"); QUAD];
        d[..quad.len()].copy_from_slice(quad);
        let sym = d[0] as usize + 3 * d[1] as usize + 9 * d[2] as usize + 27 * d[3] as usize;
        f(ctx[q % 2], sym);
        ctx[q % 2] = wdl_ctx(d[3], d[2]);
    }
}

/// The model as stored in the header: per context, the quad frequencies
/// (summing to 4096).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct ModelSpec {
    /// [`WDL_CONTEXTS`] × [`QUAD_SYMBOLS`] frequencies.
    pub wdl: Vec<Vec<u16>>,
    /// Always empty: formats 3 and 4 kept remoteness contexts here, and
    /// the field stays so that the header's bytes keep their layout.
    pub rem: Vec<Vec<(u8, u16)>>,
}

/// Quad counts of a tier per context, gathered block by block.
#[derive(Clone)]
pub struct Counts {
    wdl: Vec<Vec<u64>>,
}

impl Default for Counts {
    fn default() -> Self {
        Counts::new()
    }
}

impl Counts {
    /// No quad counted.
    pub fn new() -> Counts {
        Counts {
            wdl: vec![vec![0; QUAD_SYMBOLS]; WDL_CONTEXTS],
        }
    }

    /// The sum of two counts (for a parallel count).
    pub fn merge(mut self, o: Counts) -> Counts {
        for (a, b) in self.wdl.iter_mut().zip(&o.wdl) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        self
    }

    /// Count the quads of one block's parts in their contexts (parts of
    /// one WDL symbol are stored as that byte: they count nothing).
    pub fn add_block(&mut self, block: &[Packed]) {
        let mut ws = Vec::with_capacity(super::PART);
        for part in block.chunks(super::PART) {
            ws.clear();
            ws.extend(part.iter().map(|&v| wdl_of(v)));
            if constant(&ws).is_none() {
                quad_steps(&ws, |c, s| self.wdl[c][s] += 1);
            }
        }
    }

    /// Count the quads of one block given as WDL symbols (the compact
    /// format's stored symbols), part by part as [`Counts::add_block`].
    pub fn add_symbols(&mut self, ws: &[u8]) {
        for part in ws.chunks(super::PART) {
            if constant(part).is_none() {
                quad_steps(part, |c, s| self.wdl[c][s] += 1);
            }
        }
    }

    /// The frequencies to store (see [`normalize_compact_all`]).
    pub fn spec(&self) -> ModelSpec {
        ModelSpec {
            wdl: normalize_compact_all(&self.wdl),
            rem: Vec::new(),
        }
    }
}

/// The model ready for coding: a [`Model`] per context for the encoder,
/// and the contexts chained in flat decode tables for the decoder.
pub struct TierModel {
    wdl: Vec<Model>,
    chained: ChainedTables,
}

impl TierModel {
    /// Build the coding tables of a stored model.
    ///
    /// # Errors
    /// [`CodecProblem::ModelShape`] or [`CodecProblem::ModelSum`] if the
    /// spec is not [`WDL_CONTEXTS`] valid models of [`QUAD_SYMBOLS`]
    /// symbols and no remoteness context.
    pub fn new(spec: &ModelSpec) -> Result<TierModel, CodecProblem> {
        if spec.wdl.len() != WDL_CONTEXTS || !spec.rem.is_empty() {
            return Err(CodecProblem::ModelShape);
        }
        let wdl = spec
            .wdl
            .iter()
            .map(|f| {
                if f.len() != QUAD_SYMBOLS {
                    return Err(CodecProblem::ModelShape);
                }
                Model::new(f)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let chained = ChainedTables::new(&wdl, |q| {
            let d = QUAD_DIGITS[q];
            wdl_ctx(d[3], d[2])
        })?;
        Ok(TierModel { wdl, chained })
    }

    /// The encoder's model of context `c`.
    pub(super) fn context(&self, c: usize) -> &Model {
        &self.wdl[c]
    }

    /// Decode `out.len()` WDL symbols as quads from a two-lane decoder,
    /// quad `q` on lane `q mod 2`, each lane with its own chain of
    /// contexts (so the two chains of table loads run side by side).
    pub(super) fn decode_quads(&self, d: &mut super::rans::Decoder, out: &mut [u8]) {
        let start = wdl_ctx(WDL_DRAW, WDL_DRAW);
        let (mut at, mut other) = (start, start);
        let mut quads = out.chunks_exact_mut(QUAD);
        for quad in &mut quads {
            let q = d.get_chained(&self.chained, &mut at);
            d.swap();
            std::mem::swap(&mut at, &mut other);
            quad.copy_from_slice(&QUAD_DIGITS[q.min(QUAD_SYMBOLS - 1)]);
        }
        let tail = quads.into_remainder();
        if !tail.is_empty() {
            let q = d.get_chained(&self.chained, &mut at);
            tail.copy_from_slice(&QUAD_DIGITS[q.min(QUAD_SYMBOLS - 1)][..tail.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quads_take_the_context_of_their_own_lane() {
        // Quads 0 and 1 start both lanes (draw, draw); quad 2 follows
        // quad 0 (last slots win, loss), quad 3 follows quad 1.
        let ws = [0, 0, 1, 2, 2, 2, 2, 2, 0, 0, 0, 0, 1];
        let mut steps = Vec::new();
        quad_steps(&ws, |c, s| steps.push((c, s)));
        assert_eq!(
            steps,
            [
                (0, 9 + 2 * 27),
                (0, 80),
                (wdl_ctx(WDL_WIN, WDL_LOSS), 0),
                (wdl_ctx(WDL_WIN, WDL_WIN), 1 + 3 + 9 + 27),
            ]
        );
        assert_eq!(constant(&[2, 2, 2]), Some(2));
        assert_eq!(constant(&[2, 0]), None);
        assert_eq!(constant(&[]), None);
    }

    #[test]
    fn models_of_the_wrong_shape_are_refused() {
        let good = Counts::new().spec();
        assert!(TierModel::new(&good).is_ok());
        let bad = ModelSpec {
            wdl: vec![vec![1, 2, 3]; WDL_CONTEXTS],
            rem: Vec::new(),
        };
        assert_eq!(TierModel::new(&bad).err(), Some(CodecProblem::ModelShape));
        assert!(TierModel::new(&ModelSpec::default()).is_err());
        let with_rem = ModelSpec {
            rem: vec![vec![(0, 4096)]],
            ..good.clone()
        };
        assert!(TierModel::new(&with_rem).is_err());
        let mut off = good;
        off.wdl[3][0] += 1;
        assert_eq!(TierModel::new(&off).err(), Some(CodecProblem::ModelSum));
    }
}
