//! Cannons and soldiers: `two-cannons` (两炮十二兵) and `three-cannons`
//! (三炮十五兵), one rule set with board size, material and setup as data.
//!
//! Rules (see `docs/rules.md`): every piece steps one point orthogonally to
//! an adjacent empty point; a cannon may instead jump over an adjacent empty
//! point onto a soldier directly beyond it, capturing it. The cannons win as
//! soon as fewer than four soldiers remain; a side with no legal move on its
//! turn loses.
//!
//! Board: points are numbered `rank * W + file` (a1 = 0, b1 = 1, …), one bit
//! each in a `u32` bitboard.
//!
//! Tiers and numbering: tier = soldier count k. Inside a tier the index is
//! `((cannon_class · C(N − c, k) + soldier_rank) · 2 + side)` with N points,
//! c cannons, side 0 = cannons to move, 1 = soldiers to move.
//! `cannon_class` numbers the orbits of cannon placements under the board's
//! symmetries (8 on a square board, 4 otherwise), in order of the colex rank
//! of each orbit's smallest member, which is the orbit's representative.
//! `soldier_rank` is the colex rank of the soldier set, compressed to the
//! N − c points the representative leaves free. A position is stored under
//! the symmetry that maps its cannons onto the representative and, among
//! those (the representative's stabiliser), gives the smallest soldier rank.
//! Slots whose soldier set is not minimal under the stabiliser are unused:
//! `rank(unrank(i)) != i` for them. This is the shared layer
//! [`PairNumbering`](crate::numbering::PairNumbering) with A = cannons,
//! B = soldiers.

use std::fmt::Write as _;

use super::grid;
use super::rules_hash::RulesHasher;
use crate::game::{EndReason, Game, GameEnd, Side, TierKey};
use crate::numbering::{binom, GridSymmetry, PairNumbering};
use crate::value::Value;

/// Bump when the rules or the numbering change: tablebases record it.
const RULES_VERSION: u64 = 1;

/// Soldiers needed to go on: with fewer the cannons have won.
const MIN_SOLDIERS: u32 = 4;

/// A position: cannon and soldier bitboards and the side to move
/// (`Side::First` = cannons).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CannonsPos {
    pub cannons: u32,
    pub soldiers: u32,
    pub side: Side,
}

/// A move: from point, to point. A move of distance two is a cannon's
/// capturing jump; everything else is a one-point step.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CannonsMove {
    pub from: u8,
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
    full: u32,
    n_cannons: u32,
    max_soldiers: u32,
    start: CannonsPos,
    /// Move tables, boxed so the game value itself stays small.
    t: Box<Tables>,
    /// Slot numbering of (cannons, soldiers) under the board symmetries.
    num: PairNumbering,
}

/// Precomputed move, symmetry and numbering tables.
struct Tables {
    /// Orthogonal neighbours of each point.
    adj: [u32; 32],
    /// Points two steps away in a straight line (jump landings).
    jump: [u32; 32],
}

impl Cannons {
    /// Two Cannons, Twelve Soldiers.
    pub fn two_cannons() -> Self {
        Self::new(
            "two-cannons",
            "Two Cannons, Twelve Soldiers",
            5,
            5,
            2,
            12,
            "SSSSS/SSSSS/S...S/...../.C.C. C",
        )
    }

    /// Three Cannons, Fifteen Soldiers (三炮十五兵).
    pub fn three_cannons() -> Self {
        Self::new(
            "three-cannons",
            "Three Cannons, Fifteen Soldiers (三炮十五兵)",
            5,
            5,
            3,
            15,
            "SSSSS/SSSSS/SSSSS/...../.CCC. C",
        )
    }

    /// A game on a `w` × `h` board (at most 32 points) with `n_cannons`
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
        let n = w * h;
        assert!(n <= 32 && w <= 26 && h <= 9 && w >= 1 && h >= 1);
        assert!(n_cannons >= 1 && n_cannons + max_soldiers <= n);
        let full = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let pt = |x: i32, y: i32| -> Option<u32> {
            (x >= 0 && y >= 0 && x < w as i32 && y < h as i32).then(|| y as u32 * w + x as u32)
        };
        let mut adj = [0u32; 32];
        let mut jump = [0u32; 32];
        for p in 0..n {
            let (x, y) = ((p % w) as i32, (p / w) as i32);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                if let Some(q) = pt(x + dx, y + dy) {
                    adj[p as usize] |= 1 << q;
                }
                if let Some(q) = pt(x + 2 * dx, y + 2 * dy) {
                    jump[p as usize] |= 1 << q;
                }
            }
        }

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
            t: Box::new(Tables { adj, jump }),
            num: PairNumbering::new(w, h, n_cannons, max_soldiers),
        };

        g.start = g.parse_pos(start).expect("valid start position");
        g
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

    /// Number of orbits of cannon placements under the board symmetries.
    pub fn cannon_classes(&self) -> usize {
        self.num.classes(self.n_cannons) as usize
    }

    /// Number of board symmetries used for the numbering.
    pub fn symmetry_count(&self) -> usize {
        self.num.symmetry().len()
    }

    /// The board's symmetry group (the point maps of `symmetric`).
    pub fn board_symmetry(&self) -> &GridSymmetry {
        self.num.symmetry()
    }

    /// The image of `p` under symmetry `s` (`s < symmetry_count()`).
    pub fn symmetric(&self, s: usize, p: &CannonsPos) -> CannonsPos {
        let sym = self.num.symmetry();
        assert!(s < sym.len(), "symmetry {s} out of range");
        CannonsPos {
            cannons: sym.map(s, p.cannons),
            soldiers: sym.map(s, p.soldiers),
            side: p.side,
        }
    }

    fn point_name(&self, p: u32) -> String {
        grid::square_name(self.w, p)
    }

    /// Parse a point name like `b3`.
    fn parse_point(&self, s: &str) -> Option<u32> {
        grid::parse_square(self.w, self.h, s)
    }

    fn side_name(side: Side) -> &'static str {
        match side {
            Side::First => "cannons",
            Side::Second => "soldiers",
        }
    }
}

impl Game for Cannons {
    type Pos = CannonsPos;
    type Move = CannonsMove;

    fn id(&self) -> &str {
        &self.id
    }

    fn title(&self) -> &str {
        &self.title
    }

    fn board_desc(&self) -> String {
        format!("{} × {} grid, {} points", self.w, self.h, self.n)
    }

    fn material_desc(&self) -> String {
        format!("{} cannons, {} soldiers", self.n_cannons, self.max_soldiers)
    }

    fn rules_hash(&self) -> u64 {
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
        feed(&self.start.cannons.to_le_bytes());
        feed(&self.start.soldiers.to_le_bytes());
        feed(&[matches!(self.start.side, Side::Second) as u8]);
        h.finish()
    }

    fn side_letter(&self, side: Side) -> char {
        match side {
            Side::First => 'C',
            Side::Second => 'S',
        }
    }

    fn start(&self) -> CannonsPos {
        self.start
    }

    fn side_to_move(&self, p: &CannonsPos) -> Side {
        p.side
    }

    fn parse_pos(&self, s: &str) -> Result<CannonsPos, String> {
        let mut parts = s.split_whitespace();
        let board = parts
            .next()
            .ok_or_else(|| "empty position string".to_string())?;
        let side = match parts.next() {
            None => {
                return Err(format!(
                    "missing side to move after the board '{board}' (expected ' C' or ' S')"
                ))
            }
            Some("C") => Side::First,
            Some("S") => Side::Second,
            Some(x) => {
                return Err(format!(
                    "invalid side to move '{x}' (expected C for cannons or S for soldiers)"
                ))
            }
        };
        if let Some(x) = parts.next() {
            return Err(format!("trailing junk '{x}' after the side to move"));
        }
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != self.h as usize {
            return Err(format!(
                "expected {} ranks separated by '/', found {}",
                self.h,
                ranks.len()
            ));
        }
        let (mut cannons, mut soldiers) = (0u32, 0u32);
        for (i, r) in ranks.iter().enumerate() {
            let rank = self.h - i as u32; // 1-based rank number
            let n_chars = r.chars().count();
            if n_chars != self.w as usize {
                return Err(format!(
                    "rank {rank} ('{r}') has {n_chars} points, expected {}",
                    self.w
                ));
            }
            for (file, ch) in r.chars().enumerate() {
                let bit = 1u32 << ((rank - 1) * self.w + file as u32);
                match ch {
                    'C' => cannons |= bit,
                    'S' => soldiers |= bit,
                    '.' => {}
                    _ => {
                        return Err(format!(
                            "unknown character '{ch}' on rank {rank} (expected C, S or .)"
                        ))
                    }
                }
            }
        }
        let c = cannons.count_ones();
        if c != self.n_cannons {
            return Err(format!(
                "wrong number of cannons: {c} (this game has exactly {}; cannons are never captured)",
                self.n_cannons
            ));
        }
        let k = soldiers.count_ones();
        if k > self.max_soldiers {
            return Err(format!(
                "too many soldiers: {k} (at most {})",
                self.max_soldiers
            ));
        }
        Ok(CannonsPos {
            cannons,
            soldiers,
            side,
        })
    }

    fn format_pos(&self, p: &CannonsPos) -> String {
        let mut s = String::with_capacity((self.n + self.h + 2) as usize);
        for rank in (0..self.h).rev() {
            for file in 0..self.w {
                let bit = 1u32 << (rank * self.w + file);
                s.push(if p.cannons & bit != 0 {
                    'C'
                } else if p.soldiers & bit != 0 {
                    'S'
                } else {
                    '.'
                });
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(self.side_letter(p.side));
        s
    }

    fn diagram(&self, p: &CannonsPos, last: Option<&CannonsMove>) -> String {
        let occ = self.occupancy(p);
        let mut s = String::new();
        for rank in (0..self.h).rev() {
            let _ = write!(s, "{:>2} ", rank + 1);
            for file in 0..self.w {
                let q = rank * self.w + file;
                let c = occ[q as usize];
                let (l, r) = match last {
                    Some(m) if m.to as u32 == q => ('[', ']'),
                    Some(m) if m.from as u32 == q => ('(', ')'),
                    _ => (' ', ' '),
                };
                s.push(l);
                s.push(c);
                s.push(r);
            }
            s.push('\n');
        }
        s.push_str("   ");
        for file in 0..self.w {
            let _ = write!(s, " {} ", (b'a' + file as u8) as char);
        }
        s.push('\n');
        if let Some(m) = last {
            let _ = writeln!(
                s,
                "last move: {}{}",
                self.format_move(m),
                if m.is_capture(self.w) {
                    " (capture)"
                } else {
                    ""
                }
            );
        }
        let _ = writeln!(
            s,
            "{} to move; {} soldiers left",
            Self::side_name(p.side),
            p.soldiers.count_ones()
        );
        s
    }

    fn format_move(&self, m: &CannonsMove) -> String {
        format!(
            "{}-{}",
            self.point_name(m.from as u32),
            self.point_name(m.to as u32)
        )
    }

    fn point_names(&self) -> Vec<String> {
        (0..self.n).map(|p| self.point_name(p)).collect()
    }

    fn occupancy(&self, p: &CannonsPos) -> Vec<char> {
        grid::occupancy(self.n, &[(p.cannons, 'C'), (p.soldiers, 'S')])
    }

    fn parse_move(&self, p: &CannonsPos, s: &str) -> Result<CannonsMove, String> {
        let s = s.trim();
        let malformed = || {
            format!(
                "malformed move '{s}': expected from-to with points a1..{}, like b1-b2",
                self.point_name(self.n - 1)
            )
        };
        let (a, b) = s.split_once('-').ok_or_else(malformed)?;
        let from = self.parse_point(a).ok_or_else(malformed)?;
        let to = self.parse_point(b).ok_or_else(malformed)?;
        let m = CannonsMove {
            from: from as u8,
            to: to as u8,
        };
        if let Some(e) = self.rule_end(p) {
            return Err(format!(
                "illegal move '{s}': the game is over ({})",
                e.reason.describe()
            ));
        }
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        if moves.contains(&m) {
            return Ok(m);
        }
        let own = if p.side == Side::First {
            p.cannons
        } else {
            p.soldiers
        };
        let why = if own >> from & 1 == 0 {
            format!(
                "no {} on {a}",
                &Self::side_name(p.side)[..Self::side_name(p.side).len() - 1]
            )
        } else if self.t.adj[from as usize] >> to & 1 != 0 {
            format!("{b} is not empty")
        } else if p.side == Side::First && self.t.jump[from as usize] >> to & 1 != 0 {
            "a cannon jumps only over one empty point onto a soldier".to_string()
        } else {
            "pieces move one point orthogonally".to_string()
        };
        Err(format!("illegal move '{s}' in this position: {why}"))
    }

    fn rule_end(&self, p: &CannonsPos) -> Option<GameEnd> {
        if p.soldiers.count_ones() < MIN_SOLDIERS {
            Some(GameEnd {
                value: match p.side {
                    Side::Second => Value::Loss(0),
                    Side::First => Value::Win(0),
                },
                reason: EndReason::SoldiersBelowFour,
            })
        } else {
            None
        }
    }

    #[inline]
    fn moves(&self, p: &CannonsPos, out: &mut Vec<CannonsMove>) {
        let empty = self.full & !(p.cannons | p.soldiers);
        let mut pieces = match p.side {
            Side::First => p.cannons,
            Side::Second => p.soldiers,
        };
        let cannons = p.side == Side::First;
        while pieces != 0 {
            let a = pieces.trailing_zeros();
            pieces &= pieces - 1;
            let mut t = self.t.adj[a as usize] & empty;
            while t != 0 {
                let b = t.trailing_zeros();
                t &= t - 1;
                out.push(CannonsMove {
                    from: a as u8,
                    to: b as u8,
                });
            }
            if cannons {
                let mut j = self.t.jump[a as usize] & p.soldiers;
                while j != 0 {
                    let b = j.trailing_zeros();
                    j &= j - 1;
                    // The jumped point lies halfway, in a row or a column.
                    if empty >> ((a + b) / 2) & 1 != 0 {
                        out.push(CannonsMove {
                            from: a as u8,
                            to: b as u8,
                        });
                    }
                }
            }
        }
    }

    #[inline]
    fn apply(&self, p: &CannonsPos, m: &CannonsMove) -> CannonsPos {
        let from = 1u32 << m.from;
        let to = 1u32 << m.to;
        match p.side {
            Side::First => CannonsPos {
                cannons: p.cannons ^ from ^ to,
                soldiers: p.soldiers & !to,
                side: Side::Second,
            },
            Side::Second => CannonsPos {
                cannons: p.cannons,
                soldiers: p.soldiers ^ from ^ to,
                side: Side::First,
            },
        }
    }

    fn tiers(&self, max_pieces: Option<u32>) -> Vec<TierKey> {
        let top = max_pieces.map_or(self.max_soldiers, |m| m.min(self.max_soldiers));
        (0..=top).collect()
    }

    fn tier_name(&self, t: TierKey) -> String {
        format!("k{t}")
    }

    #[inline]
    fn tier_of(&self, p: &CannonsPos) -> TierKey {
        p.soldiers.count_ones()
    }

    fn tier_max_pieces(&self, t: TierKey) -> u32 {
        t
    }

    fn tier_size(&self, t: TierKey) -> u64 {
        self.num.size(self.n_cannons, t) * 2
    }

    fn tier_positions(&self, t: TierKey) -> u64 {
        binom(self.n, self.n_cannons) * binom(self.n - self.n_cannons, t) * 2
    }

    fn tier_deps(&self, t: TierKey) -> Vec<TierKey> {
        if t >= 1 {
            vec![t - 1]
        } else {
            Vec::new()
        }
    }

    #[inline]
    fn rank(&self, t: TierKey, p: &CannonsPos) -> u64 {
        debug_assert_eq!(t, p.soldiers.count_ones());
        (self.num.rank(p.cannons, p.soldiers) << 1) | (p.side == Side::Second) as u64
    }

    #[inline]
    fn unrank(&self, t: TierKey, i: u64) -> CannonsPos {
        let side = if i & 1 == 0 {
            Side::First
        } else {
            Side::Second
        };
        let (cannons, soldiers) = self.num.unrank(self.n_cannons, t, i >> 1);
        CannonsPos {
            cannons,
            soldiers,
            side,
        }
    }

    fn symmetry_images(&self, p: &CannonsPos, out: &mut Vec<CannonsPos>) {
        for s in 0..self.symmetry_count() {
            out.push(self.symmetric(s, p));
        }
    }

    fn orbit_size(&self, p: &CannonsPos) -> u64 {
        self.num.orbit_size(p.cannons, p.soldiers)
    }

    fn unmoves(&self, p: &CannonsPos, out: &mut Vec<CannonsPos>) {
        // Every predecessor with 4+ soldiers has no rule end; with fewer, all do.
        if p.soldiers.count_ones() < MIN_SOLDIERS {
            return;
        }
        let empty = self.full & !(p.cannons | p.soldiers);
        // The previous mover is the side not to move in p; it stepped one
        // of its pieces from b to a (a non-capturing move), so step it back.
        let prev = p.side.other();
        let mut pieces = match prev {
            Side::First => p.cannons,
            Side::Second => p.soldiers,
        };
        while pieces != 0 {
            let a = pieces.trailing_zeros();
            pieces &= pieces - 1;
            let mut t = self.t.adj[a as usize] & empty;
            while t != 0 {
                let b = t.trailing_zeros();
                t &= t - 1;
                let flip = (1u32 << a) | (1u32 << b);
                out.push(match prev {
                    Side::First => CannonsPos {
                        cannons: p.cannons ^ flip,
                        soldiers: p.soldiers,
                        side: prev,
                    },
                    Side::Second => CannonsPos {
                        cannons: p.cannons,
                        soldiers: p.soldiers ^ flip,
                        side: prev,
                    },
                });
            }
        }
    }

    fn geometry(&self) -> crate::game::Geometry {
        crate::game::Geometry::grid(self.w, self.h, self.point_names())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbit_counts() {
        assert_eq!(Cannons::two_cannons().cannon_classes(), 49);
        assert_eq!(Cannons::three_cannons().cannon_classes(), 319);
    }

    #[test]
    fn symmetries_are_distinct_and_map_the_board() {
        let g = Cannons::two_cannons();
        let p = |c: u32| CannonsPos {
            cannons: c,
            soldiers: 0,
            side: Side::First,
        };
        for s in 0..8 {
            assert_eq!(g.symmetric(s, &p(g.full)), p(g.full));
        }
        let imgs: std::collections::HashSet<u32> =
            (0..8).map(|s| g.symmetric(s, &p(0b110)).cannons).collect();
        assert_eq!(imgs.len(), 8);
    }
}
