//! Cannon Chess (炮棋) on a W × H grid: `cannon-chess` (4 files × 5 ranks) and
//! `cannon-chess-4x4` (the 六子冲 board). Rules: `docs/rules.md`.
//!
//! # Representation
//!
//! Points are numbered `rank * W + file` (a1 = 0, b1 = 1, …), so a board of
//! at most 64 points is a `u64` bitboard. A position stores the pieces of the
//! side to move (`me`) and of the other side (`opp`) plus the colour of the
//! side to move, which only matters for display: the rules are symmetric in
//! X and O (nobody has a forward direction), so move generation, end rules,
//! tiers and numbering all work on (mover, other) and ignore colours.
//!
//! # Files
//!
//! * this file — the position, the move and the game value with its
//!   constructors and accessors;
//! * `params` — the variant keys, the rule switches and building a game
//!   from them;
//! * `setups` — the default start pattern and the plausible setups the
//!   report values;
//! * `moves` — move generation (steps, slides, cannon-shots, 挑) and its
//!   inverse, the un-moves;
//! * `notation` — position and move strings, the diagram;
//! * `tiers` — the tiers (piece-count pairs), their order and sizes;
//! * `numbering` — the dense, symmetry-reduced numbering of each tier.

mod describe;
mod moves;
mod notation;
mod numbering;
mod params;
mod setups;
mod tiers;

pub use params::{CannonChessParams, CcRules, Tiao, PARAMS};

use super::grid;
use super::rules_hash::RulesHasher;
use super::SpecError;
use crate::game::Notation;
use crate::numbering::{binom, PairNumbering};
use moves::Tables;

/// Most pieces one side may have in the presets (the material of the real game).
pub const MAX_SIDE: u32 = 6;

/// Most pieces one side may have in any variant (tier keys hold 4 bits a side).
const MAX_PIECES: u32 = 15;

/// Most entries of the per-set class table (Σ C(n, m) over m ≤ pieces; 4
/// bytes each): beyond it the numbering tables alone would not fit.
const MAX_SET_TABLE: u64 = 40_000_000;

/// Bump when the rules or the numbering implemented here change (part of
/// `rules_hash`, so tablebases of an older numbering are refused).
/// 2: symmetry-reduced numbering.
const RULES_VERSION: u64 = 2;

/// A cannon-chess position: the pieces of the side to move, of the other
/// side, and which colour is to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CcPos {
    /// Pieces of the side to move.
    pub me: u64,
    /// Pieces of the other side.
    pub opp: u64,
    /// `true` if X (the first player) is to move.
    pub x_to_move: bool,
}

/// A move: from and to point, and the enemy pieces it captures (filled in by
/// move generation so `apply` is a few bit operations).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CcMove {
    /// The point the piece leaves.
    pub from: u8,
    /// The point it arrives on.
    pub to: u8,
    /// The enemy pieces the move captures (bitboard).
    pub captured: u64,
}

/// The game on one board with one setup; build with [`CannonChess::standard`],
/// [`CannonChess::four_by_four`] or [`CannonChess::new`].
pub struct CannonChess {
    id: String,
    title: String,
    w: u32,
    h: u32,
    n: u32,
    board: u64,
    start: CcPos,
    start_str: String,
    /// Most pieces a side may have (tiers go up to it).
    max_side: u32,
    rules: CcRules,
    /// `rules_hash`, fixed when the game is built (presets: today's hash).
    hash: u64,
    /// Precomputed per-point tables (boxed: keeps the registry enum small).
    tab: Box<Tables>,
    /// Three contiguous points of a file, lowest at bit 0 (1 | 1<<W | 1<<2W).
    file3: u64,
    /// Slot numbering of (mover set, other set) under the board symmetries.
    num: PairNumbering,
}

/// Whether 32-bit builds (boards of at most 32 points) misread cannon
/// shots on a `w` × `h` board: a triple whose far end fell past bit 31 was
/// shifted out, so two pieces at the top of a file (or at the end of the
/// last rank of a 32-point board) counted as three. That happens on boards
/// of three ranks or more with w·h + w ≥ 33, and on 32-point boards.
fn shots_were_misread(w: u32, h: u32) -> bool {
    let n = w * h;
    n <= 32 && ((h >= 3 && n + w >= 33) || n == 32)
}

impl CannonChess {
    /// The seed game: 4 files × 5 ranks, six pieces a side.
    pub fn standard() -> Self {
        CannonChessParams::preset("cannon-chess")
            .and_then(|p| p.build().ok())
            .expect("valid preset")
    }

    /// The variant on the traditional 4 × 4 board of 六子冲.
    pub fn four_by_four() -> Self {
        CannonChessParams::preset("cannon-chess-4x4")
            .and_then(|p| p.build().ok())
            .expect("valid preset")
    }

    /// A board of `w` files × `h` ranks (w·h ≤ 64, w, h ≤ 26 and ≥ 1) with the start
    /// position `start` in position-string notation.
    ///
    /// # Errors
    ///
    /// As [`CannonChess::with_rules`].
    pub fn new(id: &str, title: &str, w: u32, h: u32, start: &str) -> Result<Self, SpecError> {
        Self::with_rules(id, title, w, h, start, MAX_SIDE, CcRules::PRESET)
    }

    /// A board with `max_side` pieces a side at most and these rule
    /// switches. A preset's id (no `:`) with the preset rules and six
    /// pieces keeps today's rules hash; any other variant hashes its name.
    ///
    /// # Errors
    ///
    /// [`SpecError::Unsupported`] for a board over 64 points or 26 files,
    /// a piece count outside 1 to 15 or too large a numbering table, and
    /// a start position that does not parse on the board.
    pub fn with_rules(
        id: &str,
        title: &str,
        w: u32,
        h: u32,
        start: &str,
        max_side: u32,
        rules: CcRules,
    ) -> Result<Self, SpecError> {
        Self::build(id, title, w, h, start, max_side, rules, true)
    }

    /// [`with_rules`](Self::with_rules); with `tables` false, the numbering
    /// keeps its sizes only ([`PairNumbering::counts_only`]) and may be of
    /// any size: such a game answers tier names, sizes and dependencies
    /// and nothing that ranks a position (see [`crate::games::VariantSizes`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn build(
        id: &str,
        title: &str,
        w: u32,
        h: u32,
        start: &str,
        max_side: u32,
        rules: CcRules,
        tables: bool,
    ) -> Result<Self, SpecError> {
        let unsupported = |message| Err(SpecError::Unsupported { message });
        if w == 0 || h == 0 || w > 26 || w * h > 64 {
            return unsupported(format!("unsupported board {w} × {h}"));
        }
        if max_side == 0 || max_side > MAX_PIECES {
            return unsupported(format!(
                "{max_side} pieces a side: from 1 to {MAX_PIECES} are supported"
            ));
        }
        let table: u64 = (0..=max_side).map(|m| binom(w * h, m)).sum();
        if tables && table > MAX_SET_TABLE {
            return unsupported(format!(
                "{max_side} pieces a side on {} points need {table} numbering-table entries (at most {MAX_SET_TABLE})",
                w * h
            ));
        }
        let n = w * h;
        let board = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut g = CannonChess {
            id: id.to_string(),
            title: title.to_string(),
            w,
            h,
            n,
            board,
            start: CcPos {
                me: 0,
                opp: 0,
                x_to_move: true,
            },
            start_str: String::new(),
            max_side,
            rules,
            hash: 0,
            tab: Box::new(Tables::new(w, h)),
            // Files shorter than three points never hold a shot.
            file3: if h >= 3 { 1 | 1 << w | 1 << (2 * w) } else { 0 },
            num: if tables {
                PairNumbering::new(w, h, max_side, max_side)
            } else {
                PairNumbering::counts_only(w, h, max_side)
            },
        };
        let sp = g.parse_pos(start).map_err(|error| SpecError::BadSetup {
            game: id.to_string(),
            setup: start.to_string(),
            error,
        })?;
        g.start = sp;
        g.start_str = g.format_pos(&sp);
        g.hash = if rules == CcRules::PRESET && max_side == MAX_SIDE && !id.contains(':') {
            g.preset_rules_hash()
        } else {
            let mut hasher = RulesHasher::new();
            hasher
                .feed(b"cannon-chess/variant")
                .feed(&RULES_VERSION.to_le_bytes())
                .feed(id.as_bytes());
            if shots_were_misread(w, h) {
                // Tables of these boards from 32-bit builds are wrong:
                // they must not load.
                hasher.feed(b"shots past bit 31");
            }
            hasher.finish()
        };
        Ok(g)
    }

    /// The rules hash of the presets, unchanged since the first tablebases
    /// (board, material and start position).
    fn preset_rules_hash(&self) -> u64 {
        let (x, o) = self.colours(&self.start);
        RulesHasher::new()
            .feed(b"cannon-chess")
            .feed(&RULES_VERSION.to_le_bytes())
            .feed(&self.w.to_le_bytes())
            .feed(&self.h.to_le_bytes())
            .feed(&MAX_SIDE.to_le_bytes())
            .feed(&x.count_ones().to_le_bytes())
            .feed(&o.count_ones().to_le_bytes())
            .feed(self.start_str.as_bytes())
            .finish()
    }

    /// Replace the start position (a setup is not a rule: name, hash and
    /// tables stay the same).
    pub fn with_start(mut self, start: CcPos, title: &str) -> Self {
        self.start = start;
        self.title = title.to_string();
        self
    }

    /// The rule switches in force.
    pub fn rules(&self) -> CcRules {
        self.rules
    }

    /// Most pieces a side may have.
    pub fn max_side(&self) -> u32 {
        self.max_side
    }

    /// A bound on the distinct non-capturing moves of a position (what the
    /// solver's counter must hold): four steps per piece, or a lone
    /// piece's slides along its rank and file.
    pub fn max_in_tier_moves(&self) -> u32 {
        (4 * self.max_side).max(self.w + self.h - 2)
    }

    /// Number of files.
    pub fn width(&self) -> u32 {
        self.w
    }

    /// Number of ranks.
    pub fn height(&self) -> u32 {
        self.h
    }

    /// Name of point `p`, e.g. `b3`.
    pub fn square_name(&self, p: u32) -> String {
        grid::square_name(self.w, p)
    }

    /// The point named `s` (`a1` …), if it is on the board.
    pub fn parse_square(&self, s: &str) -> Option<u32> {
        grid::parse_square(self.w, self.h, s)
    }

    /// X's and O's bitboards of a position.
    pub fn colours(&self, p: &CcPos) -> (u64, u64) {
        if p.x_to_move {
            (p.me, p.opp)
        } else {
            (p.opp, p.me)
        }
    }

    /// The position with these X and O bitboards and side to move.
    pub fn from_colours(&self, x: u64, o: u64, x_to_move: bool) -> CcPos {
        if x_to_move {
            CcPos {
                me: x,
                opp: o,
                x_to_move,
            }
        } else {
            CcPos {
                me: o,
                opp: x,
                x_to_move,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rules, Tiers};

    #[test]
    fn presets_keep_their_setup_and_hash() {
        // The rules hashes recorded in every existing tablebase of the presets.
        let g = CannonChess::standard();
        assert_eq!(g.id(), "cannon-chess");
        assert_eq!(g.format_pos(&g.start()), "OOOO/O..O/..../X..X/XXXX X");
        assert_eq!(g.rules_hash(), 0xe46c_7f60_455f_02a2);
        let g = CannonChess::four_by_four();
        assert_eq!(g.id(), "cannon-chess-4x4");
        assert_eq!(g.format_pos(&g.start()), "OOOO/O..O/X..X/XXXX X");
        assert_eq!(g.rules_hash(), 0x6e55_0a4f_9737_16ea);
    }

    #[test]
    fn other_board_sizes() {
        let g = CannonChess::new("t", "t", 16, 2, ".O............../X.XO............ X").unwrap();
        let p = g.start();
        let m = g.parse_move(&p, "a1-b1").unwrap();
        assert_eq!(
            g.format_pos(&g.apply(&p, &m)),
            ".O............../.XX............. O"
        );
        assert_eq!(g.square_name(31), "p2");
        let g = CannonChess::new("t", "t", 3, 3, "O../.../XXO X").unwrap();
        let p = g.start();
        assert_eq!(g.parse_move(&p, "a1-a2").unwrap().captured, 0);
        let g = CannonChess::new("t", "t", 1, 5, "./O/X/./X X").unwrap();
        let m = g.parse_move(&g.start(), "a1-a2").unwrap();
        assert_eq!(g.format_pos(&g.apply(&g.start(), &m)), "././X/X/. O");
        assert!(CannonChess::new("t", "t", 5, 7, "").is_err());
    }

    #[test]
    fn move_points_match_apply() {
        // Captures by cannon-shot and by a lone piece (挑) in random games of
        // both presets and of the any-piece 挑 variant, every move checked.
        use crate::contract::check_move_points_in_play;
        use crate::games::AnyGame;
        for id in ["cannon-chess", "cannon-chess-4x4", "cannon-chess:tiao=any"] {
            let Ok(AnyGame::CannonChess(g)) = AnyGame::from_id(id) else {
                panic!("{id}")
            };
            let (n, caps) = check_move_points_in_play(&g, 200, 80, 7).unwrap();
            assert!(n > 1000 && caps > 50, "{id}: {n} moves, {caps} captures");
        }
        // A double capture: a lone piece stopping between two enemies.
        let g = CannonChess::standard();
        let p = g.parse_pos("..../..../O.O./..../.X.. X").unwrap();
        let m = g.parse_move(&p, "b1-b3").unwrap();
        let mp = g.move_points(&p, &m);
        let names = g.point_names();
        assert_eq!(names[mp.from.unwrap()], "b1");
        assert_eq!(names[mp.to.unwrap()], "b3");
        let caught: Vec<_> = mp.captured.iter().map(|&i| names[i].as_str()).collect();
        assert_eq!(caught, ["a3", "c3"]);
    }
}
