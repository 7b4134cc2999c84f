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
use std::ops::Range;

use super::grid;
use super::rules_hash::RulesHasher;
use super::variant::{self, ParamDoc};
use crate::game::{self, EndReason, GameEnd, Notation, Rules, Side, TierKey, Tiers};
use crate::numbering::{binom, GridSymmetry, PairNumbering};
use crate::value::Value;

/// Bump when the rules or the numbering change: tablebases record it.
const RULES_VERSION: u64 = 1;

/// Soldiers needed to go on in the presets: with fewer the cannons have won.
const MIN_SOLDIERS: u32 = 4;

/// When immobile cannons lose.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Immobility {
    /// Only on their own turn (the common rule: no legal move, you lose);
    /// with the soldiers to move the game goes on. qibase's default.
    OnTurn,
    /// As soon as no cannon can move, whoever is to move (sanpao15's
    /// reading): with the soldiers to move such a position is already
    /// their win.
    Static,
}

/// The rule switches of the family (the presets use [`CannonsRules::PRESET`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CannonsRules {
    /// With fewer soldiers than this the cannons have won.
    pub threshold: u32,
    pub immobility: Immobility,
}

impl CannonsRules {
    pub const PRESET: CannonsRules = CannonsRules {
        threshold: MIN_SOLDIERS,
        immobility: Immobility::OnTurn,
    };
}

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
    rules: CannonsRules,
    /// `rules_hash`, fixed when the game is built (presets: today's hash).
    hash: u64,
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
        assert!(n <= 32 && (1..=26).contains(&w) && h >= 1);
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
            rules: CannonsRules::PRESET,
            hash: 0,
            t: Box::new(Tables { adj, jump }),
            num: PairNumbering::new(w, h, n_cannons, max_soldiers),
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
        feed(&self.start.cannons.to_le_bytes());
        feed(&self.start.soldiers.to_le_bytes());
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

    /// True if no cannon can move. A jump needs an empty neighbour too, so
    /// this is: no cannon has an empty neighbour.
    #[inline]
    pub fn cannons_immobile(&self, p: &CannonsPos) -> bool {
        let empty = self.full & !(p.cannons | p.soldiers);
        let mut c = p.cannons;
        while c != 0 {
            let a = c.trailing_zeros();
            c &= c - 1;
            if self.t.adj[a as usize] & empty != 0 {
                return false;
            }
        }
        true
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

    /// The points a piece on `a` can step to: the adjacent empty points.
    #[inline(always)]
    fn steps(&self, a: u32, empty: u32) -> u32 {
        self.t.adj[a as usize] & empty
    }

    /// The points a cannon on `a` can jump to, capturing: a soldier two
    /// points away in a row or a column, with the point between empty.
    #[inline(always)]
    fn jumps(&self, a: u32, soldiers: u32, empty: u32) -> u32 {
        let mut targets = 0;
        let mut j = self.t.jump[a as usize] & soldiers;
        while j != 0 {
            let b = j.trailing_zeros();
            j &= j - 1;
            // The jumped point lies halfway.
            if empty >> ((a + b) / 2) & 1 != 0 {
                targets |= 1 << b;
            }
        }
        targets
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

impl Rules for Cannons {
    type Pos = CannonsPos;

    type Move = CannonsMove;

    fn start(&self) -> CannonsPos {
        self.start
    }

    fn side_to_move(&self, p: &CannonsPos) -> Side {
        p.side
    }

    fn rule_end(&self, p: &CannonsPos) -> Option<GameEnd> {
        // The soldier count is judged first, right after the capture.
        if p.soldiers.count_ones() < self.rules.threshold {
            return Some(GameEnd {
                value: match p.side {
                    Side::Second => Value::Loss(0),
                    Side::First => Value::Win(0),
                },
                reason: EndReason::TooFewPieces {
                    side: Side::Second,
                    threshold: self.rules.threshold,
                },
            });
        }
        // The static reading: immobile cannons have lost whoever is to move.
        // (With the cannons to move this is also the common rule.)
        if self.rules.immobility == Immobility::Static
            && p.side == Side::Second
            && self.cannons_immobile(p)
        {
            return Some(GameEnd {
                value: Value::Win(0),
                reason: EndReason::Immobile { side: Side::First },
            });
        }
        None
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
            // Steps first, then jumps (the order moves are listed in).
            let jumps = if cannons {
                self.jumps(a, p.soldiers, empty)
            } else {
                0
            };
            for mut targets in [self.steps(a, empty), jumps] {
                while targets != 0 {
                    let b = targets.trailing_zeros();
                    targets &= targets - 1;
                    out.push(CannonsMove {
                        from: a as u8,
                        to: b as u8,
                    });
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

    fn pass(&self, p: &CannonsPos) -> CannonsPos {
        CannonsPos {
            side: p.side.other(),
            ..*p
        }
    }
}

impl Notation for Cannons {
    fn title(&self) -> &str {
        &self.title
    }

    fn board_desc(&self) -> String {
        format!("{} × {} grid, {} points", self.w, self.h, self.n)
    }

    fn material_desc(&self) -> String {
        format!("{} cannons, {} soldiers", self.n_cannons, self.max_soldiers)
    }

    fn side_letter(&self, side: Side) -> char {
        match side {
            Side::First => 'C',
            Side::Second => 'S',
        }
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
                self.describe_end(e.reason)
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

    fn geometry(&self) -> crate::game::Geometry {
        crate::game::Geometry::grid(self.w, self.h, self.point_names())
    }

    fn describe_end(&self, reason: EndReason) -> String {
        match reason {
            EndReason::TooFewPieces { .. } => "too few soldiers remain".into(),
            EndReason::Immobile { .. } => "no cannon can move".into(),
            r => r.to_string(),
        }
    }
}

impl Tiers for Cannons {
    fn id(&self) -> &str {
        &self.id
    }

    fn rules_hash(&self) -> u64 {
        self.hash
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

    fn used_slots(&self, t: TierKey, range: Range<u64>, out: &mut Vec<(u64, CannonsPos)>) {
        // Slot 2j + side holds pair j with that side to move: enumerate the
        // used pairs the range touches, and keep the slots inside it.
        let pairs = range.start >> 1..range.end.div_ceil(2);
        self.num
            .for_each_used(self.n_cannons, t, pairs, |j, cannons, soldiers| {
                for (bit, side) in [(0, Side::First), (1, Side::Second)] {
                    let i = j << 1 | bit;
                    if range.contains(&i) {
                        out.push((
                            i,
                            CannonsPos {
                                cannons,
                                soldiers,
                                side,
                            },
                        ));
                    }
                }
            });
    }

    fn child_ranks(
        &self,
        p: &CannonsPos,
        moves: &mut Vec<CannonsMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) {
        if p.side == Side::First {
            // Cannon moves change the cannon set: rank each child in full.
            return game::child_ranks_by_moves(self, p, moves, out);
        }
        // Soldier steps leave the cannons, and with them their class and
        // symmetry, where they are: found once for all the children.
        let k = p.soldiers.count_ones();
        let fixed = self.num.fix_a(p.cannons, k);
        moves.clear();
        self.moves(p, moves);
        for m in moves.iter() {
            let c = self.apply(p, m);
            debug_assert_eq!(c.cannons, p.cannons);
            out.push((k, self.num.rank_fixed(&fixed, c.soldiers) << 1));
        }
    }

    fn lower_child_ranks(
        &self,
        p: &CannonsPos,
        _moves: &mut Vec<CannonsMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) -> usize {
        // Steps stay in the tier: counted, not listed. Only the cannons'
        // jumps capture.
        let empty = self.full & !(p.cannons | p.soldiers);
        let mut in_tier = 0;
        let mut pieces = match p.side {
            Side::First => p.cannons,
            Side::Second => p.soldiers,
        };
        while pieces != 0 {
            let a = pieces.trailing_zeros();
            pieces &= pieces - 1;
            in_tier += self.steps(a, empty).count_ones() as usize;
            if p.side == Side::First {
                let mut jumps = self.jumps(a, p.soldiers, empty);
                while jumps != 0 {
                    let b = jumps.trailing_zeros();
                    jumps &= jumps - 1;
                    let m = CannonsMove {
                        from: a as u8,
                        to: b as u8,
                    };
                    let c = self.apply(p, &m);
                    let ct = self.tier_of(&c);
                    out.push((ct, self.rank(ct, &c)));
                }
            }
        }
        in_tier
    }

    fn in_tier_children_may_share_slots(&self, p: &CannonsPos) -> bool {
        // A step moves one piece of the side to move; the other side's
        // pieces stay.
        match p.side {
            Side::First => self.num.moves_may_share_slots(p.soldiers, p.cannons),
            Side::Second => self.num.moves_may_share_slots(p.cannons, p.soldiers),
        }
    }

    fn unmove_ranks(
        &self,
        t: TierKey,
        p: &CannonsPos,
        parents: &mut Vec<CannonsPos>,
        out: &mut Vec<u64>,
    ) {
        if p.side == Side::Second {
            // The cannons moved last: each parent has other cannons.
            return game::unmove_ranks_by_unmoves(self, t, p, parents, out);
        }
        // The soldiers moved last: every parent has p's cannons.
        let fixed = self.num.fix_a(p.cannons, t);
        parents.clear();
        self.unmoves(p, parents);
        out.extend(
            parents
                .iter()
                .map(|q| self.num.rank_fixed(&fixed, q.soldiers) << 1 | 1),
        );
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
        // Predecessors have p's soldier count (un-moves never un-capture):
        // below the threshold every one of them has a rule end.
        if p.soldiers.count_ones() < self.rules.threshold {
            return;
        }
        // Under the static reading a predecessor with the soldiers to move
        // and immobile cannons has ended; it is not a predecessor.
        let drop_immobile = self.rules.immobility == Immobility::Static && p.side == Side::First;
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
                let q = match prev {
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
                };
                if drop_immobile && self.cannons_immobile(&q) {
                    continue;
                }
                out.push(q);
            }
        }
    }
}

/// What the report values besides the game itself (see `qibase report`):
/// other readings of the disputed rules and other plausible setups.
impl Cannons {
    /// The family's disputed rule readings, as `key=value` switches that
    /// turn a preset's reading into another one (the report values the
    /// start under each).
    pub const RULE_SWITCHES: &'static [&'static str] = &["immobility=static", "threshold=5"];

    /// Plausible start positions on this board and material, as (label,
    /// board part of a position), the rules' own setup first (the report
    /// values each; every position is solved, so no new tables are
    /// needed). Empty when none is known.
    pub fn plausible_setups(&self) -> Vec<(String, String)> {
        // Readings of the seeds' setups on the 5 × 5 board: where the
        // soldiers that do not fill whole ranks stand, and where the cannons.
        let setups: &[(&str, &str)] = match (self.w, self.h, self.n_cannons, self.max_soldiers) {
            (5, 5, 2, 12) => &[
                (
                    "qibase: a3 e3, cannons b1 d1",
                    "SSSSS/SSSSS/S...S/...../.C.C.",
                ),
                ("b3 d3, cannons b1 d1", "SSSSS/SSSSS/.S.S./...../.C.C."),
                ("a3 e3, cannons a1 e1", "SSSSS/SSSSS/S...S/...../C...C"),
                ("b3 d3, cannons a1 e1", "SSSSS/SSSSS/.S.S./...../C...C"),
            ],
            (5, 5, 3, 15) => &[
                ("seed: cannons b1 c1 d1", "SSSSS/SSSSS/SSSSS/...../.CCC."),
                ("cannons a1 c1 e1", "SSSSS/SSSSS/SSSSS/...../C.C.C"),
                ("cannons b1 d1 c2", "SSSSS/SSSSS/SSSSS/..C../.C.C."),
            ],
            _ => &[],
        };
        setups
            .iter()
            .map(|&(l, b)| (l.to_string(), b.to_string()))
            .collect()
    }
}

/// The parameters of the family, documented for `--help` and errors.
pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "board",
        values: "WxH",
        help: "W files by H ranks, at most 32 points (presets: 5x5)",
    },
    ParamDoc {
        key: "cannons",
        values: "N",
        help: "number of cannons (presets: 2, 3); they are never captured",
    },
    ParamDoc {
        key: "soldiers",
        values: "N",
        help: "soldiers at the start, the most a position holds (presets: 12, 15)",
    },
    ParamDoc {
        key: "threshold",
        values: "N",
        help: "the cannons win as soon as fewer soldiers than N remain (presets: 4)",
    },
    ParamDoc {
        key: "immobility",
        values: "on-turn|static",
        help: "on-turn (default): immobile cannons lose on their own turn; static (sanpao15): \
               the game ends as soon as no cannon can move, whoever is to move",
    },
    ParamDoc {
        key: "setup",
        values: "RANKS",
        help: "start board, ranks from the top separated by '/', C S . (cannons move first); \
               default: soldiers fill the ranks from the top, a partial rank from both ends \
               inward, cannons centred on rank 1",
    },
];

/// A preset of the family with parameters applied: builds the game.
#[derive(Clone, Debug, PartialEq)]
pub struct CannonsParams {
    preset: &'static str,
    title: &'static str,
    pub width: u32,
    pub height: u32,
    pub cannons: u32,
    pub soldiers: u32,
    pub rules: CannonsRules,
    /// An explicit start position (board part, optional side); `None`: the
    /// default pattern.
    pub setup: Option<String>,
}

impl CannonsParams {
    /// The parameters of preset `id`, if it is one of this family.
    pub fn preset(id: &str) -> Option<CannonsParams> {
        let (preset, title, cannons, soldiers) = match id {
            "two-cannons" => ("two-cannons", "Two Cannons, Twelve Soldiers", 2, 12),
            "three-cannons" => (
                "three-cannons",
                "Three Cannons, Fifteen Soldiers (三炮十五兵)",
                3,
                15,
            ),
            _ => return None,
        };
        Some(CannonsParams {
            preset,
            title,
            width: 5,
            height: 5,
            cannons,
            soldiers,
            rules: CannonsRules::PRESET,
            setup: None,
        })
    }

    /// Set one parameter (values are checked here; combinations in `build`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "board" => (self.width, self.height) = variant::parse_board(value)?,
            "cannons" => self.cannons = variant::parse_count(key, value, 1, 31)?,
            "soldiers" => self.soldiers = variant::parse_count(key, value, 0, 31)?,
            "threshold" => self.rules.threshold = variant::parse_count(key, value, 0, 31)?,
            "immobility" => {
                self.rules.immobility =
                    match variant::parse_word(key, value, &["on-turn", "static"])? {
                        0 => Immobility::OnTurn,
                        _ => Immobility::Static,
                    }
            }
            "setup" => self.setup = Some(value.to_string()),
            _ => return Err(variant::unknown_key(self.preset, key, PARAMS)),
        }
        Ok(())
    }

    /// The rule parameters that differ from the preset, as key/value pairs.
    fn changed(&self) -> Vec<(&'static str, String)> {
        let base = Self::preset(self.preset).expect("a preset");
        let mut v = Vec::new();
        if (self.width, self.height) != (base.width, base.height) {
            v.push(("board", format!("{}x{}", self.width, self.height)));
        }
        if self.cannons != base.cannons {
            v.push(("cannons", self.cannons.to_string()));
        }
        if self.soldiers != base.soldiers {
            v.push(("soldiers", self.soldiers.to_string()));
        }
        if self.rules.threshold != base.rules.threshold {
            v.push(("threshold", self.rules.threshold.to_string()));
        }
        if self.rules.immobility != base.rules.immobility {
            v.push(("immobility", "static".to_string()));
        }
        v
    }

    /// The canonical variant name (the setup is not part of it).
    pub fn name(&self) -> String {
        variant::canonical(self.preset, self.changed())
    }

    /// The default start: soldiers fill the ranks from the top, the last
    /// partial rank from both ends inward; the cannons stand centred on
    /// rank 1. Reproduces both presets' setups.
    pub fn default_setup(&self) -> Result<String, String> {
        let (w, h) = (self.width, self.height);
        let rows = self.soldiers.div_ceil(w);
        if rows + 1 > h || self.cannons > w {
            return Err(format!(
                "{} soldiers and {} cannons do not fit the default setup on a {w}x{h} board \
                 (soldiers from the top rank down, cannons on rank 1): give setup=",
                self.soldiers, self.cannons
            ));
        }
        let mut grid = vec![vec!['.'; w as usize]; h as usize]; // grid[rank from 0 = rank 1]
        for r in 0..self.soldiers / w {
            grid[(h - 1 - r) as usize].fill('S');
        }
        for f in variant::from_ends(w, self.soldiers % w) {
            grid[(h - 1 - self.soldiers / w) as usize][f as usize] = 'S';
        }
        for f in variant::centred(w, self.cannons) {
            grid[0][f as usize] = 'C';
        }
        let ranks: Vec<String> = grid.iter().rev().map(|r| r.iter().collect()).collect();
        Ok(format!("{} C", ranks.join("/")))
    }

    /// Build the game, checking that the parameters fit together.
    pub fn build(&self) -> Result<Cannons, String> {
        let name = self.name();
        let n = self.width * self.height;
        if self.cannons + self.soldiers > n {
            return Err(format!(
                "{name}: {} cannons and {} soldiers do not fit on {n} points",
                self.cannons, self.soldiers
            ));
        }
        // The numbering keeps a table entry per cannon set of up to c points.
        let table: u64 = (0..=self.cannons).map(|m| binom(n, m)).sum();
        if table > 40_000_000 {
            return Err(format!(
                "{name}: {} cannons on {n} points need {table} numbering-table entries (at most 40000000)",
                self.cannons
            ));
        }
        if self.rules.threshold > self.soldiers {
            return Err(format!(
                "{name}: threshold {} is above the soldier count {}: the cannons would have won \
                 before the first move",
                self.rules.threshold, self.soldiers
            ));
        }
        let start = match (&self.setup, self.default_setup()) {
            (None, Ok(s)) => s,
            (None, Err(e)) => return Err(format!("{name}: {e}")),
            // A placeholder start to build the tables; replaced below.
            (Some(_), Ok(s)) => s,
            (Some(_), Err(_)) => self.placeholder_setup(),
        };
        let changed = self.changed();
        let title = if changed.is_empty() {
            self.title.to_string()
        } else {
            let list: Vec<String> = changed.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} ({})", self.title, list.join(", "))
        };
        let mut g = Cannons::new(
            &name,
            &title,
            self.width,
            self.height,
            self.cannons,
            self.soldiers,
            &start,
        )
        .with_rules(self.rules, &name, &title);
        if let Some(setup) = &self.setup {
            let p = g
                .parse_pos(&variant::setup_position(setup, 'C'))
                .map_err(|e| format!("{name}: bad setup '{setup}': {e}"))?;
            if p.soldiers.count_ones() != self.soldiers {
                return Err(format!(
                    "{name}: bad setup '{setup}': it has {} soldiers, the variant {} (set soldiers= too)",
                    p.soldiers.count_ones(),
                    self.soldiers
                ));
            }
            g.title = format!("{title}, setup {}", g.format_pos(&p));
            g = g.with_start(p);
        }
        Ok(g)
    }

    /// Any legal placement of the material (row by row from the top, the
    /// cannons last), used only until the explicit setup replaces it.
    fn placeholder_setup(&self) -> String {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut cells = vec!['.'; w * h];
        for c in cells.iter_mut().take(self.soldiers as usize) {
            *c = 'S';
        }
        for c in cells
            .iter_mut()
            .skip(self.soldiers as usize)
            .take(self.cannons as usize)
        {
            *c = 'C';
        }
        let ranks: Vec<String> = cells.chunks(w).map(|r| r.iter().collect()).collect();
        format!("{} C", ranks.join("/"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn variant_names_and_hashes() {
        let mut p = CannonsParams::preset("three-cannons").unwrap();
        p.set("immobility", "static").unwrap();
        let g = p.build().unwrap();
        assert_eq!(g.id(), "three-cannons:immobility=static");
        assert_ne!(g.rules_hash(), Cannons::three_cannons().rules_hash());
        let mut q = p.clone();
        q.set("threshold", "5").unwrap();
        q.set("board", "5x5").unwrap();
        let h = q.build().unwrap();
        assert_eq!(h.id(), "three-cannons:immobility=static,threshold=5");
        assert_ne!(h.rules_hash(), g.rules_hash());
        // A setup moves the start only.
        let mut s = CannonsParams::preset("two-cannons").unwrap();
        s.set("setup", "SSSSS/SSSSS/.S.S./...../.C.C.").unwrap();
        let sg = s.build().unwrap();
        assert_eq!(sg.id(), "two-cannons");
        assert_eq!(sg.rules_hash(), Cannons::two_cannons().rules_hash());
        assert_eq!(
            sg.format_pos(&sg.start()),
            "SSSSS/SSSSS/.S.S./...../.C.C. C"
        );
        s.set("setup", "SSSSS/SSSSS/.S.../...../.C.C.").unwrap();
        assert!(s.build().err().unwrap().contains("11 soldiers"));
        let mut b = CannonsParams::preset("two-cannons").unwrap();
        b.set("board", "4x5").unwrap();
        let bg = b.build().unwrap();
        assert_eq!(bg.format_pos(&bg.start()), "SSSS/SSSS/SSSS/..../.CC. C");
        assert_eq!(bg.symmetry_count(), 4);
        b.set("soldiers", "17").unwrap();
        assert!(b.build().is_err());
        assert!(b
            .set("colour", "red")
            .unwrap_err()
            .contains("allowed: board"));
        assert!(b
            .set("immobility", "never")
            .unwrap_err()
            .contains("on-turn, static"));
    }

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
