//! Cannons and soldiers: `two-cannons` (两炮十二兵) and `three-cannons`
//! (三炮十五兵), one rule set with board size, material and setup as data.
//!
//! Rules (see `docs/rules.md`): every piece steps one point orthogonally to
//! an adjacent empty point; a cannon may instead jump over an adjacent empty
//! point onto a soldier directly beyond it, capturing it. The cannons win as
//! soon as fewer soldiers remain than the threshold (4 in the presets); a
//! side with no legal move on its turn loses. Two rule readings are
//! switches ([`CannonsRules`]): the threshold, and whether immobile cannons
//! lose only on their own turn (`on-turn`) or at once (`static`).
//!
//! Board: points are numbered `rank * W + file` (a1 = 0, b1 = 1, …), one bit
//! each in a `u64` bitboard.
//!
//! # Files
//!
//! * this file — the position, the move and the game value with its
//!   constructors and accessors;
//! * `params` — the variant keys, the rule switches and building a game
//!   from them;
//! * `setups` — the default start pattern and the plausible setups the
//!   report values;
//! * `moves` — steps and capturing jumps, the end rules, and the un-moves;
//! * `notation` — position and move strings, the diagram;
//! * `tiers` — the tiers (soldier counts);
//! * `numbering` — the dense, symmetry-reduced numbering of each tier.

mod describe;
mod moves;
mod notation;
mod numbering;
mod params;
mod setups;
mod tiers;

pub use params::{CannonsParams, CannonsRules, Immobility, PARAMS};

use super::rules_hash::RulesHasher;
use crate::game::{Notation, Side};
use crate::numbering::PairNumbering;
use moves::Tables;

/// Bump when the rules or the numbering change: tablebases record it.
const RULES_VERSION: u64 = 1;

/// Soldiers needed to go on in the presets: with fewer the cannons have won.
const MIN_SOLDIERS: u32 = 4;

/// A position: cannon and soldier bitboards and the side to move
/// (`Side::First` = cannons).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CannonsPos {
    /// The cannons (bitboard).
    pub cannons: u64,
    /// The soldiers (bitboard).
    pub soldiers: u64,
    /// Who is to move (`First`: the cannons).
    pub side: Side,
}

/// A move: from point, to point. A move of distance two is a cannon's
/// capturing jump; everything else is a one-point step.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CannonsMove {
    /// The point the piece leaves.
    pub from: u8,
    /// The point it arrives on.
    pub to: u8,
}

impl CannonsMove {
    /// True for a capturing jump (the only move that covers two points).
    #[inline]
    pub fn is_capture(&self, width: u32) -> bool {
        let d = (self.from as i32 - self.to as i32).unsigned_abs();
        d == 2 || d == 2 * width
    }
}

/// The cannons-and-soldiers game with its precomputed tables.
pub struct Cannons {
    id: String,
    title: String,
    w: u32,
    h: u32,
    n: u32,
    full: u64,
    n_cannons: u32,
    max_soldiers: u32,
    start: CannonsPos,
    rules: CannonsRules,
    /// `rules_hash`, fixed when the game is built (presets: today's hash).
    hash: u64,
    /// Move tables, boxed so the game value itself stays small.
    t: Box<Tables>,
    /// Slot numbering of (cannons, soldiers) under the board symmetries.
    num: PairNumbering,
}

impl Cannons {
    /// Two Cannons, Twelve Soldiers.
    pub fn two_cannons() -> Self {
        CannonsParams::preset("two-cannons")
            .and_then(|p| p.build().ok())
            .expect("valid preset")
    }

    /// Three Cannons, Fifteen Soldiers (三炮十五兵).
    pub fn three_cannons() -> Self {
        CannonsParams::preset("three-cannons")
            .and_then(|p| p.build().ok())
            .expect("valid preset")
    }

    /// A game on a `w` × `h` board (at most 64 points) with `n_cannons`
    /// cannons, at most `max_soldiers` soldiers and the given start.
    pub fn new(
        id: &str,
        title: &str,
        w: u32,
        h: u32,
        n_cannons: u32,
        max_soldiers: u32,
        start: &str,
    ) -> Self {
        Self::build(id, title, (w, h), n_cannons, max_soldiers, start, true)
    }

    /// [`new`](Self::new); with `tables` false, the numbering keeps its
    /// sizes only ([`PairNumbering::counts_only`]): such a game answers tier
    /// names, sizes and dependencies and nothing that ranks a position (see
    /// [`crate::games::VariantSizes`]).
    pub(crate) fn build(
        id: &str,
        title: &str,
        (w, h): (u32, u32),
        n_cannons: u32,
        max_soldiers: u32,
        start: &str,
        tables: bool,
    ) -> Self {
        let n = w * h;
        assert!(n <= 64 && (1..=26).contains(&w) && h >= 1);
        assert!(n_cannons >= 1 && n_cannons + max_soldiers <= n);
        let full = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut g = Cannons {
            id: id.to_string(),
            title: title.to_string(),
            w,
            h,
            n,
            full,
            n_cannons,
            max_soldiers,
            start: CannonsPos {
                cannons: 0,
                soldiers: 0,
                side: Side::First,
            },
            rules: CannonsRules::PRESET,
            hash: 0,
            t: Box::new(Tables::new(w, h)),
            num: if tables {
                PairNumbering::new(w, h, n_cannons, max_soldiers)
            } else {
                PairNumbering::counts_only(w, h, n_cannons)
            },
        };

        g.start = g.parse_pos(start).expect("valid start position");
        g.hash = g.preset_rules_hash();
        g
    }

    /// The same board and material under other rule switches, with its own
    /// name and title; the name (the canonical variant name) enters the
    /// rules hash unless the switches are the presets'.
    pub fn with_rules(mut self, rules: CannonsRules, id: &str, title: &str) -> Self {
        self.rules = rules;
        self.id = id.to_string();
        self.title = title.to_string();
        self.hash = if rules == CannonsRules::PRESET && !id.contains(':') {
            self.preset_rules_hash()
        } else {
            RulesHasher::new()
                .feed(b"qibase/cannons-and-soldiers/variant")
                .feed(&RULES_VERSION.to_le_bytes())
                .feed(id.as_bytes())
                .finish()
        };
        self
    }

    /// Replace the start position (a setup is not a rule: name, hash and
    /// tables stay the same).
    pub fn with_start(mut self, start: CannonsPos) -> Self {
        self.start = start;
        self
    }

    /// The rules hash of the presets, unchanged since the first tablebases
    /// (board, material, threshold 4 and start position).
    fn preset_rules_hash(&self) -> u64 {
        let mut h = RulesHasher::new();
        let mut feed = |bytes: &[u8]| {
            h.feed(bytes);
        };
        feed(b"qibase/cannons-and-soldiers");
        feed(&RULES_VERSION.to_le_bytes());
        feed(&self.w.to_le_bytes());
        feed(&self.h.to_le_bytes());
        feed(&self.n_cannons.to_le_bytes());
        feed(&self.max_soldiers.to_le_bytes());
        feed(&MIN_SOLDIERS.to_le_bytes());
        // As 32-bit sets, as when boards were 32-bit: the presets' 25
        // points fit, and their tables keep loading.
        feed(&(self.start.cannons as u32).to_le_bytes());
        feed(&(self.start.soldiers as u32).to_le_bytes());
        feed(&[matches!(self.start.side, Side::Second) as u8]);
        h.finish()
    }

    /// The rule switches in force.
    pub fn rules(&self) -> CannonsRules {
        self.rules
    }

    /// A bound on the distinct non-capturing moves of a position (what the
    /// solver's counter must hold): four steps per piece of the side to move.
    pub fn max_in_tier_moves(&self) -> u32 {
        4 * self.n_cannons.max(self.max_soldiers)
    }

    /// Board width (files).
    pub fn width(&self) -> u32 {
        self.w
    }

    /// Board height (ranks).
    pub fn height(&self) -> u32 {
        self.h
    }

    /// Number of cannons (never changes).
    pub fn cannon_count(&self) -> u32 {
        self.n_cannons
    }

    /// Largest soldier count (the start's).
    pub fn max_soldiers(&self) -> u32 {
        self.max_soldiers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rules, Tiers};

    #[test]
    fn presets_keep_their_setup_and_hash() {
        // The rules hashes recorded in every existing tablebase of the presets.
        let two = Cannons::two_cannons();
        assert_eq!(
            two.format_pos(&two.start()),
            "SSSSS/SSSSS/S...S/...../.C.C. C"
        );
        assert_eq!(two.id(), "two-cannons");
        assert_eq!(two.rules_hash(), 0xd68b_05db_63a5_1684);
        let three = Cannons::three_cannons();
        assert_eq!(
            three.format_pos(&three.start()),
            "SSSSS/SSSSS/SSSSS/...../.CCC. C"
        );
        assert_eq!(three.id(), "three-cannons");
        assert_eq!(three.rules_hash(), 0x822d_f589_4c22_55a2);
    }

    #[test]
    fn move_points_match_apply() {
        use crate::contract::check_move_points_in_play;
        for g in [Cannons::two_cannons(), Cannons::three_cannons()] {
            let (n, caps) = check_move_points_in_play(&g, 200, 120, 11).unwrap();
            assert!(
                n > 1000 && caps > 50,
                "{}: {n} moves, {caps} captures",
                g.id()
            );
        }
        // A jump lands on the soldier it takes.
        let g = Cannons::two_cannons();
        let p = g.parse_pos("SSSSS/SSSSS/S...S/...../.C.C. C").unwrap();
        let m = g.parse_move(&p, "b1-b2").unwrap();
        assert!(g.move_points(&p, &m).captured.is_empty());
        let p = g.parse_pos("SSSSS/SSSSS/.S..S/...../.C.C. C").unwrap();
        let m = g.parse_move(&p, "b1-b3").unwrap();
        let mp = g.move_points(&p, &m);
        assert_eq!(mp.captured, vec![mp.to.unwrap()]);
        assert_eq!(g.point_names()[mp.to.unwrap()], "b3");
    }
}
