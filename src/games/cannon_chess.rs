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
use crate::game::{EndReason, Game, GameEnd, Side, TierKey};
use crate::numbering::{binom, GridSymmetry, PairNumbering};
use crate::value::Value;

/// Most pieces one side may have (the material of the real game).
pub const MAX_SIDE: u32 = 6;

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
        Self::new(
            "cannon-chess",
            "Cannon Chess 5×4",
            4,
            5,
            "OOOO/O..O/..../X..X/XXXX X",
        )
        .expect("valid built-in setup")
    }

    /// The variant on the traditional 4 × 4 board of 六子冲.
    pub fn four_by_four() -> Self {
        Self::new(
            "cannon-chess-4x4",
            "Cannon Chess 4×4 (六子冲 board)",
            4,
            4,
            "OOOO/O..O/X..X/XXXX X",
        )
        .expect("valid built-in setup")
    }

    /// A board of `w` files × `h` ranks (w·h ≤ 32, w, h ≤ 26 and ≥ 1) with the start
    /// position `start` in position-string notation.
    pub fn new(id: &str, title: &str, w: u32, h: u32, start: &str) -> Result<Self, String> {
        if w == 0 || h == 0 || w > 26 || w * h > 32 {
            return Err(format!("unsupported board {w} × {h}"));
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
            tab: Box::new(Tables {
                neigh: [0; 32],
                nb: [[NONE; 32]; 4],
                rank_line: [0; 32],
                file_line: [0; 32],
                pairs: [[0; 2]; 32],
            }),
            // Files shorter than three points never hold a shot.
            file3: if h >= 3 { 1 | 1 << w | 1 << (2 * w) } else { 0 },
            num: PairNumbering::new(w, h, MAX_SIDE, MAX_SIDE),
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
        Ok(g)
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
    /// of `m` points, `m ≤ MAX_SIDE`.
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

    fn is_terminal_counts(m: u32, o: u32) -> bool {
        m == 0 || o == 0 || (m == 1 && o == 1)
    }
}

impl Game for CannonChess {
    type Pos = CcPos;
    type Move = CcMove;

    fn id(&self) -> &str {
        &self.id
    }

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

    fn rules_hash(&self) -> u64 {
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

    fn side_letter(&self, side: Side) -> char {
        match side {
            Side::First => 'X',
            Side::Second => 'O',
        }
    }

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
            if set.count_ones() > MAX_SIDE {
                return Err(format!(
                    "too many pieces: {letter} has {}, at most {MAX_SIDE} per side",
                    set.count_ones()
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
                e.reason.describe()
            ));
        }
        let mut ms = Vec::new();
        self.moves(p, &mut ms);
        ms.into_iter()
            .find(|m| m.from as u32 == from && m.to as u32 == to)
            .ok_or_else(|| format!("illegal move '{s}' in this position"))
    }

    fn rule_end(&self, p: &CcPos) -> Option<GameEnd> {
        let (me, opp) = (p.me, p.opp);
        if me == 0 {
            Some(GameEnd {
                value: Value::Loss(0),
                reason: EndReason::AllCaptured,
            })
        } else if opp == 0 {
            Some(GameEnd {
                value: Value::Win(0),
                reason: EndReason::OpponentHasNoPieces,
            })
        } else if me & (me - 1) == 0 && opp & (opp - 1) == 0 {
            Some(GameEnd {
                value: Value::Draw,
                reason: EndReason::BothOnePiece,
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
                    t = self.tab.nb[d][t as usize];
                }
            }
            return;
        }
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
                out.push(CcMove {
                    from: f as u8,
                    to: t as u8,
                    captured: self.shots(rest | 1 << t, opp, t as usize),
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

    fn tiers(&self, max_pieces: Option<u32>) -> Vec<TierKey> {
        let max = max_pieces.unwrap_or(MAX_SIDE).min(MAX_SIDE);
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
        for (m, o) in [(a, b), (b, a)] {
            if Self::is_terminal_counts(m, o) {
                continue;
            }
            // A cannon-shot needs two own pieces; a double capture needs a
            // lone piece or at least three own pieces (one on each line
            // besides the mover).
            if m >= 2 && o >= 1 {
                v.push(Self::tier_key(o - 1, m));
            }
            if (m == 1 || m >= 3) && o >= 2 {
                v.push(Self::tier_key(o - 2, m));
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
        let offset = if m >= o { 0 } else { self.half_size(o, m) };
        offset + self.num.rank(p.me, p.opp)
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
        if Self::is_terminal_counts(pc, sc) {
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
            if self.shots(prev, stay, t as usize) != 0 {
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

    fn geometry(&self) -> crate::game::Geometry {
        crate::game::Geometry::grid(self.w, self.h, self.point_names())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
