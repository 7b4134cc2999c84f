//! Cannon Chess (炮棋) on a W × H grid: `cannon-chess` (4 files × 5 ranks) and
//! `cannon-chess-4x4` (the 六子冲 board). Rules: `docs/rules.md`.
//!
//! # Representation
//!
//! Points are numbered `rank * W + file` (a1 = 0, b1 = 1, …), so a board of
//! at most 32 points is a `u32` bitboard. A position stores the pieces of the
//! side to move (`me`) and of the other side (`opp`) plus the colour of the
//! side to move, which only matters for display: the rules are symmetric in
//! X and O (nobody has a forward direction), so move generation, end rules,
//! tiers and numbering all work on (mover, other) and ignore colours.
//!
//! # Tiers and numbering
//!
//! A tier is an unordered pair of piece counts {a, b}, a ≥ b, key `a*16+b`,
//! name `avb`. It holds every placement with the mover having a pieces and
//! the other b, and (if a ≠ b) every placement with the mover having b and
//! the other a; a non-capturing move goes from one half to the other.
//!
//! The rules are also invariant under the board's symmetries: the mirrors of
//! the files and of the ranks and the 180° rotation (4 symmetries), and on a
//! square board the transposes and quarter turns as well (8). Nothing has a
//! direction: steps and slides go both ways along ranks and files, a
//! cannon-shot reads a line in either direction (own own enemy or enemy own
//! own) and is checked on the rank and on the file alike, and a lone piece
//! takes a pair on its rank or on its file. The numbering stores one
//! position per symmetry class. Index of a position with mover set M
//! (m pieces) and other set T (o pieces):
//!
//! ```text
//! half offset + class(M) · C(n−m, o) + rank(compress(σ(T), σ(M)))
//! ```
//!
//! where n = W·H and `rank` is the colex rank of a subset
//! ([`crate::numbering::colex`]). `class(M)` numbers the
//! orbits of m-point sets under the symmetries, in colex order of each
//! orbit's smallest member, its representative. σ ranges over the
//! symmetries mapping M onto the representative (usually just one; more
//! when the representative has a non-trivial stabiliser), and the one giving
//! the smallest rank is used. `compress(T, M)` deletes the points of M from
//! the board and renumbers the rest (pext of T over the points not in M).
//! The half offset is 0 for (m, o) = (a, b) and classes(a)·C(n−a, b) for
//! (m, o) = (b, a). `unrank` returns the stored representative with X to
//! move; a position, its symmetric images and their colour swaps share a
//! rank. A slot whose other set is not the smallest under the
//! representative's stabiliser is unused (`rank(unrank(i)) < i` there).
//! Un-moves are not canonicalised: they are real positions.
//!
//! The numbering itself is the shared layer
//! [`PairNumbering`](crate::numbering::PairNumbering) with A = mover set,
//! B = other set.

use super::grid;
use super::rules_hash::RulesHasher;
use super::variant::{self, ParamDoc};
use crate::game::{EndReason, GameEnd, Notation, Rules, Side, TierKey, Tiers};
use crate::numbering::{binom, GridSymmetry, PairNumbering};
use crate::value::Value;
use std::ops::Range;

/// Most pieces one side may have in the presets (the material of the real game).
pub const MAX_SIDE: u32 = 6;

/// Most pieces one side may have in any variant (tier keys hold 4 bits a side).
const MAX_PIECES: u32 = 15;

/// Most entries of the per-set class table (Σ C(n, m) over m ≤ pieces; 4
/// bytes each): beyond it the numbering tables alone would not fit.
const MAX_SET_TABLE: u64 = 40_000_000;

/// Who may capture two enemy pieces by entering between them (挑).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Tiao {
    /// Only a lone piece (the seed's rule).
    Lone,
    /// Any piece (the traditional 六子冲 rule as Lin Jifu gives it).
    Any,
}

/// The rule switches of the family (the presets use [`CcRules::PRESET`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CcRules {
    pub tiao: Tiao,
    /// A lone piece slides any distance (else it steps like the others).
    pub lone_slides: bool,
    /// One piece against one is a draw by rule (else play goes on).
    pub one_v_one_draw: bool,
}

impl CcRules {
    pub const PRESET: CcRules = CcRules {
        tiao: Tiao::Lone,
        lone_slides: true,
        one_v_one_draw: true,
    };
}

/// Bump when the rules or the numbering implemented here change (part of
/// `rules_hash`, so tablebases of an older numbering are refused).
/// 2: symmetry-reduced numbering.
const RULES_VERSION: u64 = 2;

/// "No neighbour" in the direction tables.
const NONE: u8 = u8::MAX;

/// A cannon-chess position: the pieces of the side to move, of the other
/// side, and which colour is to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CcPos {
    /// Pieces of the side to move.
    pub me: u32,
    /// Pieces of the other side.
    pub opp: u32,
    /// `true` if X (the first player) is to move.
    pub x_to_move: bool,
}

/// A move: from and to point, and the enemy pieces it captures (filled in by
/// move generation so `apply` is a few bit operations).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CcMove {
    pub from: u8,
    pub to: u8,
    pub captured: u32,
}

/// Per-point lookup tables of a board.
struct Tables {
    /// Orthogonal neighbours of each point.
    neigh: [u32; 32],
    /// Neighbour in direction 0 = left, 1 = right, 2 = down, 3 = up.
    nb: [[u8; 32]; 4],
    /// All points of the rank through each point.
    rank_line: [u32; 32],
    /// All points of the file through each point.
    file_line: [u32; 32],
    /// For each point, the two-point masks {left, right} and {down, up} of its
    /// neighbours along its rank and file (0 when one of them is off the
    /// board): a lone piece arriving there captures a pair that is all enemy.
    pairs: [[u32; 2]; 32],
}

/// The game on one board with one setup; build with [`CannonChess::standard`],
/// [`CannonChess::four_by_four`] or [`CannonChess::new`].
pub struct CannonChess {
    id: String,
    title: String,
    w: u32,
    h: u32,
    n: u32,
    board: u32,
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
    file3: u32,
    /// Slot numbering of (mover set, other set) under the board symmetries.
    num: PairNumbering,
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

    /// A board of `w` files × `h` ranks (w·h ≤ 32, w, h ≤ 26 and ≥ 1) with the start
    /// position `start` in position-string notation.
    pub fn new(id: &str, title: &str, w: u32, h: u32, start: &str) -> Result<Self, String> {
        Self::with_rules(id, title, w, h, start, MAX_SIDE, CcRules::PRESET)
    }

    /// A board with `max_side` pieces a side at most and these rule
    /// switches. A preset's id (no `:`) with the preset rules and six
    /// pieces keeps today's rules hash; any other variant hashes its name.
    pub fn with_rules(
        id: &str,
        title: &str,
        w: u32,
        h: u32,
        start: &str,
        max_side: u32,
        rules: CcRules,
    ) -> Result<Self, String> {
        if w == 0 || h == 0 || w > 26 || w * h > 32 {
            return Err(format!("unsupported board {w} × {h}"));
        }
        if max_side == 0 || max_side > MAX_PIECES {
            return Err(format!(
                "{max_side} pieces a side: from 1 to {MAX_PIECES} are supported"
            ));
        }
        let table: u64 = (0..=max_side).map(|m| binom(w * h, m)).sum();
        if table > MAX_SET_TABLE {
            return Err(format!(
                "{max_side} pieces a side on {} points need {table} numbering-table entries (at most {MAX_SET_TABLE})",
                w * h
            ));
        }
        let n = w * h;
        let board = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
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
            tab: Box::new(Tables {
                neigh: [0; 32],
                nb: [[NONE; 32]; 4],
                rank_line: [0; 32],
                file_line: [0; 32],
                pairs: [[0; 2]; 32],
            }),
            // Files shorter than three points never hold a shot.
            file3: if h >= 3 { 1 | 1 << w | 1 << (2 * w) } else { 0 },
            num: PairNumbering::new(w, h, max_side, max_side),
        };
        for p in 0..n {
            let (f, r) = (p % w, p / w);
            let pi = p as usize;
            if f > 0 {
                g.tab.nb[0][pi] = (p - 1) as u8;
            }
            if f + 1 < w {
                g.tab.nb[1][pi] = (p + 1) as u8;
            }
            if r > 0 {
                g.tab.nb[2][pi] = (p - w) as u8;
            }
            if r + 1 < h {
                g.tab.nb[3][pi] = (p + w) as u8;
            }
            for d in 0..4 {
                if g.tab.nb[d][pi] != NONE {
                    g.tab.neigh[pi] |= 1 << g.tab.nb[d][pi];
                }
            }
            for q in 0..n {
                if q / w == r {
                    g.tab.rank_line[pi] |= 1 << q;
                }
                if q % w == f {
                    g.tab.file_line[pi] |= 1 << q;
                }
            }
            for k in 0..2 {
                let (a, b) = (g.tab.nb[2 * k][pi], g.tab.nb[2 * k + 1][pi]);
                if a != NONE && b != NONE {
                    g.tab.pairs[pi][k] = 1 << a | 1 << b;
                }
            }
        }
        let sp = g.parse_pos(start)?;
        g.start = sp;
        g.start_str = g.format_pos(&sp);
        g.hash = if rules == CcRules::PRESET && max_side == MAX_SIDE && !id.contains(':') {
            g.preset_rules_hash()
        } else {
            RulesHasher::new()
                .feed(b"cannon-chess/variant")
                .feed(&RULES_VERSION.to_le_bytes())
                .feed(id.as_bytes())
                .finish()
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

    /// Number of board symmetries used by the numbering (8 on a square
    /// board, 4 otherwise).
    pub fn symmetry_count(&self) -> usize {
        self.num.symmetry().len()
    }

    /// The image of `p` under symmetry `s` (`s < symmetry_count()`; 0 is
    /// the identity), same side to move.
    pub fn symmetric(&self, s: usize, p: &CcPos) -> CcPos {
        let sym = self.num.symmetry();
        assert!(s < sym.len(), "symmetry {s} out of range");
        CcPos {
            me: sym.map(s, p.me),
            opp: sym.map(s, p.opp),
            x_to_move: p.x_to_move,
        }
    }

    /// The board's symmetry group (the point maps of `symmetric`).
    pub fn board_symmetry(&self) -> &GridSymmetry {
        self.num.symmetry()
    }

    /// Number of classes (orbits under the board symmetries) of point sets
    /// of `m` points, `m ≤ max_side()`.
    pub fn set_classes(&self, m: u32) -> u64 {
        self.num.classes(m)
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
    pub fn colours(&self, p: &CcPos) -> (u32, u32) {
        if p.x_to_move {
            (p.me, p.opp)
        } else {
            (p.opp, p.me)
        }
    }

    /// The position with these X and O bitboards and side to move.
    pub fn from_colours(&self, x: u32, o: u32, x_to_move: bool) -> CcPos {
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

    /// The enemy piece captured by a cannon-shot along `line` (0 if none):
    /// `me` are the mover's pieces after the move, `opp` the enemy's;
    /// `pat3` is three contiguous points of the line starting at bit 0 and
    /// `step` the distance of neighbours on it.
    #[inline(always)]
    fn shot(me: u32, opp: u32, line: u32, pat3: u32, step: u32) -> u32 {
        // (No popcount here: the baseline x86-64 target has no POPCNT.)
        let occ = (me | opp) & line;
        if occ == 0 {
            return 0;
        }
        let low = occ.trailing_zeros();
        // Exactly three pieces on the line, on adjacent points.
        if occ != pat3 << low {
            return 0;
        }
        // It captures iff the middle one is own and exactly one end is
        // enemy (then the other end is own: own own enemy / enemy own own).
        let enemy = opp & line;
        if me & (1 << (low + step)) != 0 && enemy & enemy.wrapping_sub(1) == 0 {
            enemy
        } else {
            0
        }
    }

    /// Enemy pieces captured by a cannon-shot of the piece that arrived on
    /// `t` (own pieces `me` after the move).
    #[inline(always)]
    fn shots(&self, me: u32, opp: u32, t: usize) -> u32 {
        Self::shot(me, opp, self.tab.rank_line[t], 0b111, 1)
            | Self::shot(me, opp, self.tab.file_line[t], self.file3, self.w)
    }

    /// Enemy pieces captured by a lone piece stopping on `t`.
    #[inline(always)]
    fn lone_captures(&self, opp: u32, t: usize) -> u32 {
        let [a, b] = self.tab.pairs[t];
        let mut c = 0;
        if a != 0 && opp & a == a {
            c |= a;
        }
        if b != 0 && opp & b == b {
            c |= b;
        }
        c
    }

    fn tier_key(a: u32, b: u32) -> TierKey {
        let (a, b) = if a >= b { (a, b) } else { (b, a) };
        a * 16 + b
    }

    /// Size of one half (mover a, other b) of a tier.
    #[inline]
    fn half_size(&self, a: u32, b: u32) -> u64 {
        self.num.size(a, b)
    }

    /// Where the half with mover count m and other count o starts in its
    /// tier: the half with the larger count moving comes first.
    #[inline]
    fn half_offset(&self, m: u32, o: u32) -> u64 {
        if m >= o {
            0
        } else {
            self.half_size(o, m)
        }
    }

    /// Piece counts (mover, other) at which the game has ended by rule.
    fn is_terminal_counts(&self, m: u32, o: u32) -> bool {
        m == 0 || o == 0 || (self.rules.one_v_one_draw && m == 1 && o == 1)
    }

    /// Enemy pieces taken by 挑 when a piece of a side with `own` pieces
    /// arrives on `t`: with the seed's rule only a lone piece does it.
    #[inline(always)]
    fn tiao_captures(&self, own: u32, opp: u32, t: usize) -> u32 {
        if own & (own - 1) == 0 || self.rules.tiao == Tiao::Any {
            self.lone_captures(opp, t)
        } else {
            0
        }
    }
}

impl Rules for CannonChess {
    type Pos = CcPos;

    type Move = CcMove;

    fn start(&self) -> CcPos {
        self.start
    }

    fn side_to_move(&self, p: &CcPos) -> Side {
        if p.x_to_move {
            Side::First
        } else {
            Side::Second
        }
    }

    fn rule_end(&self, p: &CcPos) -> Option<GameEnd> {
        let (me, opp) = (p.me, p.opp);
        if me == 0 {
            Some(GameEnd {
                value: Value::Loss(0),
                reason: EndReason::NoPiecesLeft,
            })
        } else if opp == 0 {
            Some(GameEnd {
                value: Value::Win(0),
                reason: EndReason::OpponentHasNoPieces,
            })
        } else if self.rules.one_v_one_draw && me & (me - 1) == 0 && opp & (opp - 1) == 0 {
            Some(GameEnd {
                value: Value::Draw,
                reason: EndReason::BothDownTo { pieces: 1 },
            })
        } else {
            None
        }
    }

    fn moves(&self, p: &CcPos, out: &mut Vec<CcMove>) {
        let me = p.me;
        let opp = p.opp;
        let occ = me | opp;
        if me != 0 && me & (me - 1) == 0 {
            let f = me.trailing_zeros() as usize;
            for d in 0..4 {
                let mut t = self.tab.nb[d][f];
                while t != NONE && occ >> t & 1 == 0 {
                    out.push(CcMove {
                        from: f as u8,
                        to: t,
                        captured: self.lone_captures(opp, t as usize),
                    });
                    if !self.rules.lone_slides {
                        break;
                    }
                    t = self.tab.nb[d][t as usize];
                }
            }
            return;
        }
        let tiao_any = self.rules.tiao == Tiao::Any;
        let empty = self.board & !occ;
        let mut pieces = me;
        while pieces != 0 {
            let f = pieces.trailing_zeros();
            pieces &= pieces - 1;
            let rest = me & !(1 << f);
            let mut targets = self.tab.neigh[f as usize] & empty;
            while targets != 0 {
                let t = targets.trailing_zeros();
                targets &= targets - 1;
                let mut captured = self.shots(rest | 1 << t, opp, t as usize);
                if tiao_any {
                    captured |= self.lone_captures(opp, t as usize);
                }
                out.push(CcMove {
                    from: f as u8,
                    to: t as u8,
                    captured,
                });
            }
        }
    }

    #[inline]
    fn apply(&self, p: &CcPos, m: &CcMove) -> CcPos {
        CcPos {
            me: p.opp & !m.captured,
            opp: p.me ^ (1 << m.from | 1 << m.to),
            x_to_move: !p.x_to_move,
        }
    }

    fn pass(&self, p: &CcPos) -> CcPos {
        // The same board, the other side to move: mover and other swap.
        CcPos {
            me: p.opp,
            opp: p.me,
            x_to_move: !p.x_to_move,
        }
    }
}

impl Notation for CannonChess {
    fn title(&self) -> &str {
        &self.title
    }

    fn board_desc(&self) -> String {
        format!("{} files × {} ranks, {} points", self.w, self.h, self.n)
    }

    fn material_desc(&self) -> String {
        let (x, o) = self.colours(&self.start);
        format!("X {}, O {}", x.count_ones(), o.count_ones())
    }

    fn side_letter(&self, side: Side) -> char {
        match side {
            Side::First => 'X',
            Side::Second => 'O',
        }
    }

    fn parse_pos(&self, s: &str) -> Result<CcPos, String> {
        let s = s.trim();
        let mut parts = s.split_whitespace();
        let board = parts
            .next()
            .ok_or_else(|| "empty position string".to_string())?;
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != self.h as usize {
            return Err(format!(
                "wrong number of ranks in '{board}': found {}, expected {} separated by '/'",
                ranks.len(),
                self.h
            ));
        }
        let (mut x, mut o) = (0u32, 0u32);
        for (i, rank) in ranks.iter().enumerate() {
            let r = self.h - 1 - i as u32;
            let len = rank.chars().count();
            if len != self.w as usize {
                return Err(format!(
                    "wrong rank length: rank {} is '{rank}' with {len} points, expected {}",
                    r + 1,
                    self.w
                ));
            }
            for (f, c) in rank.chars().enumerate() {
                let bit = 1u32 << (r * self.w + f as u32);
                match c {
                    'X' => x |= bit,
                    'O' => o |= bit,
                    '.' => {}
                    _ => {
                        return Err(format!(
                            "unknown character '{c}' on rank {} (use X, O or .)",
                            r + 1
                        ))
                    }
                }
            }
        }
        for (letter, set) in [('X', x), ('O', o)] {
            if set.count_ones() > self.max_side {
                return Err(format!(
                    "too many pieces: {letter} has {}, at most {} per side",
                    set.count_ones(),
                    self.max_side
                ));
            }
        }
        let side = parts
            .next()
            .ok_or_else(|| "missing side to move: add ' X' or ' O' after the board".to_string())?;
        let x_to_move = match side {
            "X" => true,
            "O" => false,
            _ => return Err(format!("invalid side to move '{side}': expected X or O")),
        };
        if let Some(junk) = parts.next() {
            return Err(format!(
                "trailing junk '{junk}' after the side to move (cannon chess has no flags)"
            ));
        }
        Ok(self.from_colours(x, o, x_to_move))
    }

    fn format_pos(&self, p: &CcPos) -> String {
        let (x, o) = self.colours(p);
        let mut s = String::with_capacity((self.n + self.h + 2) as usize);
        for r in (0..self.h).rev() {
            for f in 0..self.w {
                let bit = 1u32 << (r * self.w + f);
                s.push(if x & bit != 0 {
                    'X'
                } else if o & bit != 0 {
                    'O'
                } else {
                    '.'
                });
            }
            if r > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(if p.x_to_move { 'X' } else { 'O' });
        s
    }

    fn diagram(&self, p: &CcPos, last: Option<&CcMove>) -> String {
        let (x, o) = self.colours(p);
        let mut s = String::new();
        for r in (0..self.h).rev() {
            s.push_str(&format!("{:>3} ", r + 1));
            for f in 0..self.w {
                let pt = r * self.w + f;
                let bit = 1u32 << pt;
                let c = if x & bit != 0 {
                    'X'
                } else if o & bit != 0 {
                    'O'
                } else {
                    '.'
                };
                let (l, rr) = match last {
                    Some(m) if m.to as u32 == pt => ('[', ']'),
                    Some(m) if m.from as u32 == pt => ('(', ')'),
                    _ => (' ', ' '),
                };
                s.push(l);
                s.push(c);
                s.push(rr);
            }
            s.push('\n');
        }
        s.push_str("    ");
        for f in 0..self.w {
            s.push(' ');
            s.push((b'a' + f as u8) as char);
            s.push(' ');
        }
        s.push('\n');
        if let Some(m) = last {
            s.push_str(&format!(
                "last move {}: ( ) from, [ ] to",
                self.format_move(m)
            ));
            if m.captured != 0 {
                s.push_str(&format!(", captured {}", m.captured.count_ones()));
            }
            s.push('\n');
        }
        s.push_str(&format!(
            "{} to move\n",
            if p.x_to_move { 'X' } else { 'O' }
        ));
        s
    }

    fn format_move(&self, m: &CcMove) -> String {
        format!(
            "{}-{}",
            self.square_name(m.from as u32),
            self.square_name(m.to as u32)
        )
    }

    fn point_names(&self) -> Vec<String> {
        (0..self.n).map(|p| self.square_name(p)).collect()
    }

    fn occupancy(&self, p: &CcPos) -> Vec<char> {
        let (x, o) = self.colours(p);
        grid::occupancy(self.n, &[(x, 'X'), (o, 'O')])
    }

    fn parse_move(&self, p: &CcPos, s: &str) -> Result<CcMove, String> {
        let s = s.trim();
        let malformed = || {
            format!(
                "malformed move '{s}': expected from-to with point names a1..{}, e.g. b1-b2",
                self.square_name(self.n - 1)
            )
        };
        let (a, b) = s.split_once('-').ok_or_else(malformed)?;
        let from = self.parse_square(a).ok_or_else(malformed)?;
        let to = self.parse_square(b).ok_or_else(malformed)?;
        if let Some(e) = self.rule_end(p) {
            return Err(format!(
                "illegal move '{s}': the game is over ({})",
                self.describe_end(e.reason)
            ));
        }
        let mut ms = Vec::new();
        self.moves(p, &mut ms);
        ms.into_iter()
            .find(|m| m.from as u32 == from && m.to as u32 == to)
            .ok_or_else(|| format!("illegal move '{s}' in this position"))
    }

    fn geometry(&self) -> crate::game::Geometry {
        crate::game::Geometry::grid(self.w, self.h, self.point_names())
    }

    fn describe_end(&self, reason: EndReason) -> String {
        match reason {
            EndReason::NoPiecesLeft => "all pieces of the side to move have been captured".into(),
            r => r.to_string(),
        }
    }
}

impl Tiers for CannonChess {
    fn id(&self) -> &str {
        &self.id
    }

    fn rules_hash(&self) -> u64 {
        self.hash
    }

    fn tiers(&self, max_pieces: Option<u32>) -> Vec<TierKey> {
        let max = max_pieces.unwrap_or(self.max_side).min(self.max_side);
        let mut v = Vec::new();
        // Every capture lowers the total count, so order by total.
        for total in 0..=2 * max {
            for a in (0..=max).rev() {
                if a > total {
                    continue;
                }
                let b = total - a;
                if b <= a {
                    v.push(Self::tier_key(a, b));
                }
            }
        }
        v
    }

    fn tier_name(&self, t: TierKey) -> String {
        format!("{}v{}", t / 16, t % 16)
    }

    #[inline]
    fn tier_of(&self, p: &CcPos) -> TierKey {
        Self::tier_key(p.me.count_ones(), p.opp.count_ones())
    }

    fn tier_max_pieces(&self, t: TierKey) -> u32 {
        t / 16
    }

    fn tier_size(&self, t: TierKey) -> u64 {
        let (a, b) = (t / 16, t % 16);
        if a == b {
            self.half_size(a, b)
        } else {
            // The halves differ in size: classes(a)·C(n−a, b) and
            // classes(b)·C(n−b, a).
            self.half_size(a, b) + self.half_size(b, a)
        }
    }

    fn tier_positions(&self, t: TierKey) -> u64 {
        // Every placement of a and b pieces, either colour holding a, and
        // either side to move.
        let (a, b) = (t / 16, t % 16);
        let n = self.n;
        let placements = binom(n, a) * binom(n - a, b);
        let colourings = if a == b { 1 } else { 2 };
        placements * colourings * 2
    }

    fn tier_deps(&self, t: TierKey) -> Vec<TierKey> {
        let (a, b) = (t / 16, t % 16);
        let mut v = Vec::new();
        let tiao_any = self.rules.tiao == Tiao::Any;
        for (m, o) in [(a, b), (b, a)] {
            if self.is_terminal_counts(m, o) {
                continue;
            }
            // A cannon-shot needs two own pieces; a double capture needs a
            // lone piece, 挑 by any piece, or at least three own pieces (one
            // on each line besides the mover). 挑 takes the pair across the
            // line of travel (the point the piece left is empty), so with
            // it at most one shot (along the travel) comes on top: three.
            if m >= 2 && o >= 1 {
                v.push(Self::tier_key(o - 1, m));
            }
            if (m == 1 || m >= 3 || tiao_any) && o >= 2 {
                v.push(Self::tier_key(o - 2, m));
            }
            if tiao_any && m >= 2 && o >= 3 {
                v.push(Self::tier_key(o - 3, m));
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    #[inline]
    fn rank(&self, t: TierKey, p: &CcPos) -> u64 {
        debug_assert_eq!(t, self.tier_of(p));
        let (m, o) = (p.me.count_ones(), p.opp.count_ones());
        self.half_offset(m, o) + self.num.rank(p.me, p.opp)
    }

    fn unrank(&self, t: TierKey, i: u64) -> CcPos {
        let (a, b) = (t / 16, t % 16);
        let hs = self.half_size(a, b);
        let (m, o, i) = if i >= hs { (b, a, i - hs) } else { (a, b, i) };
        let (me, opp) = self.num.unrank(m, o, i);
        CcPos {
            me,
            opp,
            x_to_move: true,
        }
    }

    fn used_slots(&self, t: TierKey, range: Range<u64>, out: &mut Vec<(u64, CcPos)>) {
        // The halves (a, b) and, for a ≠ b, (b, a) one after the other, each
        // enumerated by the numbering without re-ranking.
        let (a, b) = (t / 16, t % 16);
        let hs = self.half_size(a, b);
        let halves: &[(u32, u32, u64)] = if a == b {
            &[(a, b, 0)]
        } else {
            &[(a, b, 0), (b, a, hs)]
        };
        for &(m, o, offset) in halves {
            let lo = range.start.max(offset) - offset;
            let hi = range.end.saturating_sub(offset);
            self.num.for_each_used(m, o, lo..hi, |i, me, opp| {
                out.push((
                    offset + i,
                    CcPos {
                        me,
                        opp,
                        x_to_move: true,
                    },
                ))
            });
        }
    }

    fn child_ranks(&self, p: &CcPos, moves: &mut Vec<CcMove>, out: &mut Vec<(TierKey, u64)>) {
        // After a move without capture the mover set is p's other set,
        // unchanged: its class and symmetry are found once for all such
        // children. A capture changes it: rank those children in full.
        let t = self.tier_of(p);
        let (m, o) = (p.opp.count_ones(), p.me.count_ones());
        let offset = self.half_offset(m, o);
        let fixed = self.num.fix_a(p.opp, o);
        moves.clear();
        self.moves(p, moves);
        for mv in moves.iter() {
            let c = self.apply(p, mv);
            if mv.captured == 0 {
                debug_assert_eq!(c.me, p.opp);
                out.push((t, offset + self.num.rank_fixed(&fixed, c.opp)));
            } else {
                let ct = self.tier_of(&c);
                out.push((ct, self.rank(ct, &c)));
            }
        }
    }

    fn unmove_ranks(&self, _t: TierKey, p: &CcPos, parents: &mut Vec<CcPos>, out: &mut Vec<u64>) {
        // Every parent has p's mover set as its other set: its symmetry
        // images are mapped once for all of them.
        let fixed = self.num.fix_b(p.me);
        let offset = self.half_offset(p.opp.count_ones(), p.me.count_ones());
        parents.clear();
        self.unmoves(p, parents);
        out.extend(parents.iter().map(|q| {
            debug_assert_eq!(q.opp, p.me);
            offset + self.num.rank_fixed_b(&fixed, q.me)
        }));
    }

    fn lower_child_ranks(
        &self,
        p: &CcPos,
        moves: &mut Vec<CcMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) -> usize {
        moves.clear();
        self.moves(p, moves);
        let mut in_tier = 0;
        for mv in moves.iter() {
            if mv.captured == 0 {
                in_tier += 1;
            } else {
                let c = self.apply(p, mv);
                let ct = self.tier_of(&c);
                out.push((ct, self.rank(ct, &c)));
            }
        }
        in_tier
    }

    fn in_tier_children_may_share_slots(&self, p: &CcPos) -> bool {
        // A child without capture is (p.opp, p.me with one piece moved).
        self.num.moves_may_share_slots(p.opp, p.me)
    }

    fn symmetry_images(&self, p: &CcPos, out: &mut Vec<CcPos>) {
        // Each board image, and its colour exchange: the same mover and
        // other sets with the other colour to move.
        for s in 0..self.symmetry_count() {
            let q = self.symmetric(s, p);
            out.push(q);
            out.push(CcPos {
                x_to_move: !q.x_to_move,
                ..q
            });
        }
    }

    fn orbit_size(&self, p: &CcPos) -> u64 {
        2 * self.num.orbit_size(p.me, p.opp)
    }

    fn unmoves(&self, p: &CcPos, out: &mut Vec<CcPos>) {
        // The previous mover is the side not to move in p; in q it is to move.
        let prev = p.opp;
        let stay = p.me;
        let pc = prev.count_ones();
        let sc = stay.count_ones();
        if self.is_terminal_counts(pc, sc) {
            // q would have the same counts (mover pc, other sc): a rule end.
            return;
        }
        let occ = prev | stay;
        let x_to_move = !p.x_to_move;
        if pc == 1 {
            let t = prev.trailing_zeros() as usize;
            // Arriving on t would capture: then the move does not lead to p.
            if self.lone_captures(stay, t) != 0 {
                return;
            }
            for d in 0..4 {
                let mut f = self.tab.nb[d][t];
                while f != NONE && occ >> f & 1 == 0 {
                    out.push(CcPos {
                        me: 1 << f,
                        opp: stay,
                        x_to_move,
                    });
                    if !self.rules.lone_slides {
                        break;
                    }
                    f = self.tab.nb[d][f as usize];
                }
            }
            return;
        }
        let empty = self.board & !occ;
        let mut pieces = prev;
        while pieces != 0 {
            let t = pieces.trailing_zeros();
            pieces &= pieces - 1;
            // The shot depends only on the position after the move and the
            // arrival point, not on where the piece came from.
            if self.shots(prev, stay, t as usize) != 0
                || self.tiao_captures(prev, stay, t as usize) != 0
            {
                continue;
            }
            let rest = prev & !(1 << t);
            let mut froms = self.tab.neigh[t as usize] & empty;
            while froms != 0 {
                let f = froms.trailing_zeros();
                froms &= froms - 1;
                out.push(CcPos {
                    me: rest | 1 << f,
                    opp: stay,
                    x_to_move,
                });
            }
        }
    }
}

/// What the report values besides the game itself (see `qibase report`):
/// other readings of the disputed rules and other plausible setups.
impl CannonChess {
    /// The family's disputed rule readings, as `key=value` switches that
    /// turn a preset's reading into another one (the report values the
    /// start under each).
    pub const RULE_SWITCHES: &'static [&'static str] = &["tiao=any", "lone=step", "one-v-one=play"];

    /// Plausible start positions on this board and material, as (label,
    /// board part of a position), the rules' own setup first (the report
    /// values each; every position is solved, so no new tables are
    /// needed). Empty when none is known.
    pub fn plausible_setups(&self) -> Vec<(String, String)> {
        // The seed's pattern (a full edge row and the two ends of the next
        // row) and its reading with the middle pair of the next row, where
        // the material is exactly that: W + 2 pieces on an even width.
        let w = self.w as usize;
        if self.max_side as usize != w + 2 || w < 4 || !w.is_multiple_of(2) || self.h < 4 {
            return Vec::new();
        }
        let row = |c: char, cells: &dyn Fn(usize) -> bool| -> String {
            (0..w).map(|x| if cells(x) { c } else { '.' }).collect()
        };
        let board = |second: &dyn Fn(usize) -> bool| {
            let mut ranks = vec![row('O', &|_| true), row('O', second)];
            ranks.extend((0..self.h as usize - 4).map(|_| ".".repeat(w)));
            ranks.push(row('X', second));
            ranks.push(row('X', &|_| true));
            ranks.join("/")
        };
        vec![
            (
                "seed: edge row + its two ends".into(),
                board(&|x| x == 0 || x == w - 1),
            ),
            (
                "edge row + the middle pair".into(),
                board(&|x| x == w / 2 - 1 || x == w / 2),
            ),
        ]
    }
}

/// The parameters of the family, documented for `--help` and errors.
pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "board",
        values: "WxH",
        help: "W files by H ranks, at most 32 points (cannon-chess 4x5, cannon-chess-4x4 4x4)",
    },
    ParamDoc {
        key: "pieces",
        values: "N",
        help: "pieces a side at the start, the most a side may have (presets: 6)",
    },
    ParamDoc {
        key: "tiao",
        values: "lone|any",
        help: "who captures two enemies by stopping between them (挑): only a lone piece \
               (default, the seed) or any piece (traditional 六子冲, Lin Jifu)",
    },
    ParamDoc {
        key: "lone",
        values: "slide|step",
        help: "a lone piece slides any distance along a line (default) or steps like the others",
    },
    ParamDoc {
        key: "one-v-one",
        values: "draw|play",
        help: "one piece against one is a draw by rule (default) or play goes on",
    },
    ParamDoc {
        key: "setup",
        values: "RANKS",
        help: "start board, ranks from the top separated by '/', X O . (X moves first); \
               default: a full edge row plus the two ends of the next row (filled from \
               both ends inward as the piece count allows), O mirrored at the top",
    },
];

/// A preset of the family with parameters applied: builds the game.
#[derive(Clone, Debug, PartialEq)]
pub struct CannonChessParams {
    preset: &'static str,
    title: &'static str,
    pub width: u32,
    pub height: u32,
    pub pieces: u32,
    pub rules: CcRules,
    /// An explicit start position (board part, optional side); `None`: the
    /// default pattern.
    pub setup: Option<String>,
}

impl CannonChessParams {
    /// The parameters of preset `id`, if it is one of this family.
    pub fn preset(id: &str) -> Option<CannonChessParams> {
        let (preset, title, height) = match id {
            "cannon-chess" => ("cannon-chess", "Cannon Chess 5×4", 5),
            "cannon-chess-4x4" => ("cannon-chess-4x4", "Cannon Chess 4×4 (六子冲 board)", 4),
            _ => return None,
        };
        Some(CannonChessParams {
            preset,
            title,
            width: 4,
            height,
            pieces: MAX_SIDE,
            rules: CcRules::PRESET,
            setup: None,
        })
    }

    /// Set one parameter (values are checked here; combinations in `build`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let word = |words: &[&str]| variant::parse_word(key, value, words);
        match key {
            "board" => (self.width, self.height) = variant::parse_board(value)?,
            "pieces" => self.pieces = variant::parse_count(key, value, 1, MAX_PIECES)?,
            "tiao" => self.rules.tiao = [Tiao::Lone, Tiao::Any][word(&["lone", "any"])?],
            "lone" => self.rules.lone_slides = word(&["slide", "step"])? == 0,
            "one-v-one" => self.rules.one_v_one_draw = word(&["draw", "play"])? == 0,
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
        if self.pieces != base.pieces {
            v.push(("pieces", self.pieces.to_string()));
        }
        if self.rules.tiao != base.rules.tiao {
            v.push(("tiao", "any".to_string()));
        }
        if self.rules.lone_slides != base.rules.lone_slides {
            v.push(("lone", "step".to_string()));
        }
        if self.rules.one_v_one_draw != base.rules.one_v_one_draw {
            v.push(("one-v-one", "play".to_string()));
        }
        v
    }

    /// The canonical variant name (the setup is not part of it).
    pub fn name(&self) -> String {
        variant::canonical(self.preset, self.changed())
    }

    /// The default start: X fills its edge rows (rank 1 up) and puts the
    /// rest of its pieces on the next rank from both ends inward; O the
    /// same from the top. Six pieces on four files give both presets'
    /// setups (a full row plus the two ends of the next).
    pub fn default_setup(&self) -> Result<String, String> {
        let (w, h, p) = (self.width, self.height, self.pieces);
        let rows = p.div_ceil(w);
        if 2 * rows > h {
            return Err(format!(
                "{p} pieces a side do not fit the default setup on a {w}x{h} board \
                 ({rows} ranks each side): give setup="
            ));
        }
        let mut grid = vec![vec!['.'; w as usize]; h as usize]; // grid[0] = rank 1
        let mut row_files = vec![(0..w).collect::<Vec<u32>>(); (p / w) as usize];
        if p % w != 0 {
            row_files.push(variant::from_ends(w, p % w));
        }
        for (r, files) in row_files.iter().enumerate() {
            for &f in files {
                grid[r][f as usize] = 'X';
                grid[h as usize - 1 - r][f as usize] = 'O';
            }
        }
        let ranks: Vec<String> = grid.iter().rev().map(|r| r.iter().collect()).collect();
        Ok(format!("{} X", ranks.join("/")))
    }

    /// Build the game, checking that the parameters fit together.
    pub fn build(&self) -> Result<CannonChess, String> {
        let name = self.name();
        if 2 * self.pieces > self.width * self.height {
            return Err(format!(
                "{name}: {} pieces a side do not fit on {} points",
                self.pieces,
                self.width * self.height
            ));
        }
        let changed = self.changed();
        let title = if changed.is_empty() {
            self.title.to_string()
        } else {
            let list: Vec<String> = changed.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("Cannon Chess ({})", list.join(", "))
        };
        // The tables are built with the default start (or, if it does not
        // fit, an empty board) and the setup replaces it.
        let start = match (&self.setup, self.default_setup()) {
            (_, Ok(s)) => s,
            (None, Err(e)) => return Err(format!("{name}: {e}")),
            (Some(_), Err(_)) => {
                let ranks = vec![".".repeat(self.width as usize); self.height as usize];
                format!("{} X", ranks.join("/"))
            }
        };
        let g = CannonChess::with_rules(
            &name,
            &title,
            self.width,
            self.height,
            &start,
            self.pieces,
            self.rules,
        )
        .map_err(|e| format!("{name}: {e}"))?;
        let Some(setup) = &self.setup else {
            return Ok(g);
        };
        let p = g
            .parse_pos(&variant::setup_position(setup, 'X'))
            .map_err(|e| format!("{name}: bad setup '{setup}': {e}"))?;
        let title = format!("{title}, setup {}", g.format_pos(&p));
        Ok(g.with_start(p, &title))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn variant_names_setups_and_errors() {
        let mut p = CannonChessParams::preset("cannon-chess").unwrap();
        p.set("tiao", "any").unwrap();
        p.set("board", "4x5").unwrap();
        let g = p.build().unwrap();
        assert_eq!(g.id(), "cannon-chess:tiao=any");
        assert_ne!(g.rules_hash(), CannonChess::standard().rules_hash());
        p.set("board", "5x5").unwrap();
        p.set("one-v-one", "play").unwrap();
        p.set("pieces", "7").unwrap();
        assert_eq!(
            p.name(),
            "cannon-chess:board=5x5,one-v-one=play,pieces=7,tiao=any"
        );
        assert_eq!(
            p.default_setup().unwrap(),
            "OOOOO/O...O/...../X...X/XXXXX X"
        );
        p.set("board", "3x3").unwrap();
        assert!(p.build().err().unwrap().contains("do not fit on 9 points"));
        p.set("pieces", "4").unwrap();
        assert!(p.build().err().unwrap().contains("setup="));
        p.set("pieces", "2").unwrap();
        assert_eq!(p.default_setup().unwrap(), "O.O/.../X.X X");
        p.set("setup", "OO./.../.XX").unwrap();
        let g = p.build().unwrap();
        assert_eq!(g.format_pos(&g.start()), "OO./.../.XX X");
        assert_eq!(
            g.id(),
            "cannon-chess:board=3x3,one-v-one=play,pieces=2,tiao=any"
        );
        p.set("setup", "OOO/.../.XX").unwrap();
        assert!(p.build().err().unwrap().contains("too many pieces"));
        assert!(p.set("tiao", "all").unwrap_err().contains("lone, any"));
        assert!(p.set("pieces", "16").is_err());
        assert!(p
            .set("size", "3")
            .unwrap_err()
            .contains("allowed: board, pieces"));
        // A setup only moves the start: same name and tables.
        let mut s = CannonChessParams::preset("cannon-chess-4x4").unwrap();
        s.set("setup", "OOOO/.OO./.XX./XXXX").unwrap();
        let sg = s.build().unwrap();
        assert_eq!(sg.id(), "cannon-chess-4x4");
        assert_eq!(sg.rules_hash(), CannonChess::four_by_four().rules_hash());
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
}
