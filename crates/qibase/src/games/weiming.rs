//! Weiming Shuang Cheng Chess III (`weiming`): 9 points, 13 lines, three
//! pieces a side and one shared piece `S` with a lockout rule.
//!
//! Points, in index order (the order of the position string):
//!
//! ```text
//!  tl ------ tm ------ tr        0 ------- 1 ------- 2
//!     \     / |         |
//!       \ /   |         |
//!  s --- x -- m         |        3 --- 4 -- 5
//!       / \   |         |
//!     /     \ |         |
//!  bl ------ bm ------ br        6 ------- 7 ------- 8
//! ```
//!
//! A position is the X, O bitboards (bit i = point i), the point of `S`,
//! the side to move and the lock flag (`true`: the previous move moved `S`,
//! so the side to move may not move it).
//!
//! Numbering: one tier (`all`) of 9 × C(8,3) × C(5,3) × 2 × 2 = 20,160
//! slots, every slot a position: index = (((s·56 + rank of X among the 8
//! points other than s)·10 + rank of O among the 5 points left)·2 + side)·2
//! + lock.

use super::rules_hash::RulesHasher;
use crate::game::{GameEnd, Notation, Rules, Side, TierKey, Tiers};
use crate::numbering::{pdep, pext, rank_subset, unrank_subset};

/// Point names in index order.
pub const POINT_NAMES: [&str; 9] = ["tl", "tm", "tr", "s", "x", "m", "bl", "bm", "br"];

const TL: u8 = 0;
const TM: u8 = 1;
const TR: u8 = 2;
const S: u8 = 3;
const X: u8 = 4;
const M: u8 = 5;
const BL: u8 = 6;
const BM: u8 = 7;
const BR: u8 = 8;

/// The 13 lines of the board (undirected).
pub const EDGES: [(u8, u8); 13] = [
    (TL, TM),
    (TM, TR),
    (TR, BR),
    (BR, BM),
    (BM, BL),
    (TM, M),
    (M, BM),
    (TL, X),
    (X, BM),
    (BL, X),
    (X, TM),
    (S, X),
    (X, M),
];

/// Pieces per side, and the shared piece.
pub const PIECES_PER_SIDE: u32 = 3;

/// The start position.
pub const START: &str = "XXX/S../OOO X -";

/// Bumped whenever the implemented rules change meaning.
const RULES_VERSION: u32 = 1;

const ALL: u16 = (1 << 9) - 1;

/// Size of the single tier: 9 · 56 · 10 · 2 · 2.
const TIER_SIZE: u64 = 9 * 56 * 10 * 2 * 2;

/// A weiming position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WeimingPos {
    /// X's pieces, bit i = point i.
    pub x: u16,
    /// O's pieces.
    pub o: u16,
    /// Point of the shared piece.
    pub s: u8,
    pub side: Side,
    /// The previous move moved the shared piece: the side to move may not.
    pub locked: bool,
}

/// A move: a piece (own or shared, as the position says) from one point to
/// an adjacent one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WeimingMove {
    pub from: u8,
    pub to: u8,
}

/// The game, with its adjacency table built from [`EDGES`].
pub struct Weiming {
    adj: [u16; 9],
}

impl Default for Weiming {
    fn default() -> Self {
        Self::new()
    }
}

fn point_index(name: &str) -> Option<u8> {
    POINT_NAMES.iter().position(|&n| n == name).map(|i| i as u8)
}

impl Weiming {
    pub fn new() -> Self {
        let mut adj = [0u16; 9];
        for &(a, b) in EDGES.iter() {
            adj[a as usize] |= 1 << b;
            adj[b as usize] |= 1 << a;
        }
        Weiming { adj }
    }

    /// Neighbours of point `i` as a bitboard.
    pub fn adjacent(&self, i: u8) -> u16 {
        self.adj[i as usize]
    }

    #[inline]
    fn empty(p: &WeimingPos) -> u16 {
        !(p.x | p.o | (1 << p.s)) & ALL
    }

    #[inline]
    fn own(p: &WeimingPos) -> u16 {
        match p.side {
            Side::First => p.x,
            Side::Second => p.o,
        }
    }

    fn letter(side: Side) -> char {
        match side {
            Side::First => 'X',
            Side::Second => 'O',
        }
    }

    fn char_at(p: &WeimingPos, i: u8) -> char {
        if p.s == i {
            'S'
        } else if p.x & (1 << i) != 0 {
            'X'
        } else if p.o & (1 << i) != 0 {
            'O'
        } else {
            '.'
        }
    }
}

impl Rules for Weiming {
    type Pos = WeimingPos;

    type Move = WeimingMove;

    fn start(&self) -> WeimingPos {
        self.parse_pos(START).expect("start position parses")
    }

    fn side_to_move(&self, p: &WeimingPos) -> Side {
        p.side
    }

    fn rule_end(&self, _p: &WeimingPos) -> Option<GameEnd> {
        None
    }

    fn moves(&self, p: &WeimingPos, out: &mut Vec<WeimingMove>) {
        let empty = Self::empty(p);
        let mut own = Self::own(p);
        while own != 0 {
            let f = own.trailing_zeros() as u8;
            own &= own - 1;
            let mut t = self.adj[f as usize] & empty;
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                out.push(WeimingMove { from: f, to });
            }
        }
        if !p.locked {
            let mut t = self.adj[p.s as usize] & empty;
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                out.push(WeimingMove { from: p.s, to });
            }
        }
    }

    fn apply(&self, p: &WeimingPos, m: &WeimingMove) -> WeimingPos {
        let mut q = *p;
        if m.from == p.s {
            q.s = m.to;
            q.locked = true;
        } else {
            let flip = (1u16 << m.from) | (1u16 << m.to);
            match p.side {
                Side::First => q.x ^= flip,
                Side::Second => q.o ^= flip,
            }
            q.locked = false;
        }
        q.side = p.side.other();
        q
    }

    fn pass(&self, p: &WeimingPos) -> WeimingPos {
        // A pass is not a move of the shared piece: it frees it.
        WeimingPos {
            side: p.side.other(),
            locked: false,
            ..*p
        }
    }
}

impl Notation for Weiming {
    fn title(&self) -> &str {
        "Weiming Shuang Cheng Chess III"
    }

    fn board_desc(&self) -> String {
        format!("{} points, {} lines", POINT_NAMES.len(), EDGES.len())
    }

    fn material_desc(&self) -> String {
        format!("X {PIECES_PER_SIDE}, O {PIECES_PER_SIDE}, shared 1")
    }

    fn side_letter(&self, side: Side) -> char {
        Self::letter(side)
    }

    fn parse_pos(&self, s: &str) -> Result<WeimingPos, String> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if fields.is_empty() {
            return Err(format!(
                "empty position: expected e.g. '{START}' (board, side to move, lock flag)"
            ));
        }
        let groups: Vec<&str> = fields[0].split('/').collect();
        if groups.len() != 3 {
            return Err(format!(
                "bad board '{}': expected 3 groups separated by '/' (tl tm tr / s x m / bl bm br), found {}",
                fields[0],
                groups.len()
            ));
        }
        let mut p = WeimingPos {
            x: 0,
            o: 0,
            s: 0,
            side: Side::First,
            locked: false,
        };
        let (mut nx, mut no, mut ns) = (0, 0, 0);
        for (g, grp) in groups.iter().enumerate() {
            let n = grp.chars().count();
            if n != 3 {
                return Err(format!(
                    "bad board '{}': group {} ('{grp}') has {n} points, expected 3",
                    fields[0],
                    g + 1
                ));
            }
            for (k, c) in grp.chars().enumerate() {
                let i = (g * 3 + k) as u8;
                match c {
                    'X' => {
                        p.x |= 1 << i;
                        nx += 1;
                    }
                    'O' => {
                        p.o |= 1 << i;
                        no += 1;
                    }
                    'S' => {
                        p.s = i;
                        ns += 1;
                    }
                    '.' => {}
                    _ => {
                        let at = POINT_NAMES[i as usize];
                        return Err(format!(
                            "bad board '{}': unknown character '{c}' at point {at} (use X, O, S or .)",
                            fields[0]
                        ));
                    }
                }
            }
        }
        if nx != PIECES_PER_SIDE {
            return Err(format!(
                "bad board '{}': {nx} X pieces, exactly {PIECES_PER_SIDE} required",
                fields[0]
            ));
        }
        if no != PIECES_PER_SIDE {
            return Err(format!(
                "bad board '{}': {no} O pieces, exactly {PIECES_PER_SIDE} required",
                fields[0]
            ));
        }
        if ns != 1 {
            return Err(format!(
                "bad board '{}': {ns} shared pieces S, exactly 1 required",
                fields[0]
            ));
        }
        p.side = match fields.get(1) {
            None => return Err("missing side to move after the board (X or O)".to_string()),
            Some(&"X") => Side::First,
            Some(&"O") => Side::Second,
            Some(t) => return Err(format!("bad side to move '{t}': expected X or O")),
        };
        p.locked =
            match fields.get(2) {
                None => return Err(
                    "missing lock flag after the side to move ('-' shared piece free, '!' locked)"
                        .to_string(),
                ),
                Some(&"-") => false,
                Some(&"!") => true,
                Some(t) => {
                    return Err(format!(
                        "bad lock flag '{t}': expected '-' (shared piece free) or '!' (locked)"
                    ))
                }
            };
        if fields.len() > 3 {
            return Err(format!(
                "unexpected text after the lock flag: '{}'",
                fields[3..].join(" ")
            ));
        }
        Ok(p)
    }

    fn format_pos(&self, p: &WeimingPos) -> String {
        let mut s = String::with_capacity(15);
        for i in 0..9u8 {
            if i == 3 || i == 6 {
                s.push('/');
            }
            s.push(Self::char_at(p, i));
        }
        s.push(' ');
        s.push(Self::letter(p.side));
        s.push(' ');
        s.push(if p.locked { '!' } else { '-' });
        s
    }

    fn diagram(&self, p: &WeimingPos, last: Option<&WeimingMove>) -> String {
        // Pieces board: one character per point, with a free column on each
        // side of it for the last-move marks; the point names beside it.
        const BOARD: [&str; 7] = [
            " 0 ------- 1 ------- 2 ",
            "   \\     / |         |",
            "     \\ /   |         |",
            " 3 -- 4 -- 5         |",
            "     / \\   |         |",
            "   /     \\ |         |",
            " 6 ------- 7 ------- 8 ",
        ];
        const NAMES: [&str; 7] = [
            " tl ------ tm ------ tr",
            "    \\     / |         |",
            "      \\ /   |         |",
            " s --- x -- m         |",
            "      / \\   |         |",
            "    /     \\ |         |",
            " bl ------ bm ------ br",
        ];
        let mut out = String::new();
        for (line, names) in BOARD.iter().zip(NAMES) {
            let mut row: Vec<char> = line.chars().collect();
            for k in 0..row.len() {
                if let Some(d) = row[k].to_digit(10) {
                    let i = d as u8;
                    row[k] = Self::char_at(p, i);
                    if let Some(m) = last {
                        if m.to == i {
                            row[k - 1] = '[';
                            row[k + 1] = ']';
                        } else if m.from == i {
                            row[k - 1] = '(';
                            row[k + 1] = ')';
                        }
                    }
                }
            }
            let row: String = row.into_iter().collect();
            out.push_str(&format!("{row:<24}     {names}\n"));
        }
        if let Some(m) = last {
            let what = if m.to == p.s {
                "the shared piece S".to_string()
            } else {
                format!("{}'s piece", Self::letter(p.side.other()))
            };
            out.push_str(&format!(
                "last move: {} ({what}; (.) from, [ ] to)\n",
                self.format_move(m)
            ));
        }
        out.push_str(&format!(
            "{} to move; shared piece S {}\n",
            Self::letter(p.side),
            if p.locked {
                "locked (it moved last turn)"
            } else {
                "free"
            }
        ));
        out
    }

    fn format_move(&self, m: &WeimingMove) -> String {
        format!(
            "{}-{}",
            POINT_NAMES[m.from as usize], POINT_NAMES[m.to as usize]
        )
    }

    fn point_names(&self) -> Vec<String> {
        POINT_NAMES.iter().map(|s| s.to_string()).collect()
    }

    fn occupancy(&self, p: &WeimingPos) -> Vec<char> {
        (0..9u8).map(|i| Self::char_at(p, i)).collect()
    }

    fn parse_move(&self, p: &WeimingPos, s: &str) -> Result<WeimingMove, String> {
        let s = s.trim();
        let names = POINT_NAMES.join(" ");
        let (a, b) = s.split_once('-').ok_or_else(|| {
            format!("malformed move '{s}': expected from-to, e.g. s-x (points: {names})")
        })?;
        let from = point_index(a).ok_or_else(|| {
            format!("malformed move '{s}': unknown point '{a}' (points: {names})")
        })?;
        let to = point_index(b).ok_or_else(|| {
            format!("malformed move '{s}': unknown point '{b}' (points: {names})")
        })?;
        let me = Self::letter(p.side);
        if from == to {
            return Err(format!(
                "illegal move '{s}': from and to are the same point"
            ));
        }
        if from == p.s {
            if p.locked {
                return Err(format!(
                    "illegal move '{s}': the shared piece S is locked (it was moved on the previous move, so {me} may not move it now)"
                ));
            }
        } else if Self::own(p) & (1 << from) == 0 {
            if (p.x | p.o) & (1 << from) != 0 {
                return Err(format!(
                    "illegal move '{s}': the piece on {a} is {}'s, and {me} is to move",
                    Self::letter(p.side.other())
                ));
            }
            return Err(format!("illegal move '{s}': there is no piece on {a}"));
        }
        if self.adj[from as usize] & (1 << to) == 0 {
            return Err(format!(
                "illegal move '{s}': {a} and {b} are not joined by a line"
            ));
        }
        if Self::empty(p) & (1 << to) == 0 {
            return Err(format!("illegal move '{s}': {b} is occupied"));
        }
        Ok(WeimingMove { from, to })
    }

    /// The drawing of the module comment: `s` to the left of `x`, off the
    /// `tl`–`bl` column so that no line seems to pass through it.
    fn geometry(&self) -> crate::game::Geometry {
        // In POINT_NAMES order: tl tm tr s x m bl bm br.
        const XY: [(f64, f64); 9] = [
            (1.0, 0.0),
            (3.0, 0.0),
            (5.0, 0.0),
            (0.0, 1.0),
            (2.0, 1.0),
            (3.0, 1.0),
            (1.0, 2.0),
            (3.0, 2.0),
            (5.0, 2.0),
        ];
        crate::game::Geometry {
            points: POINT_NAMES
                .iter()
                .zip(XY)
                .map(|(n, (x, y))| crate::game::GeoPoint {
                    name: n.to_string(),
                    x,
                    y,
                })
                .collect(),
            lines: EDGES
                .iter()
                .map(|&(a, b)| [a as usize, b as usize])
                .collect(),
        }
    }
}

impl Tiers for Weiming {
    fn id(&self) -> &str {
        "weiming"
    }

    fn rules_hash(&self) -> u64 {
        let mut h = RulesHasher::new();
        h.feed(b"weiming");
        h.feed(&RULES_VERSION.to_le_bytes());
        for n in POINT_NAMES {
            h.feed(n.as_bytes());
            h.feed(b",");
        }
        for (a, b) in EDGES {
            h.feed(&[a, b]);
        }
        h.feed(&PIECES_PER_SIDE.to_le_bytes());
        h.feed(b"shared 1; lockout: opponent's next move only");
        h.feed(START.as_bytes());
        h.finish()
    }

    fn tiers(&self, _max_pieces: Option<u32>) -> Vec<TierKey> {
        vec![0]
    }

    fn tier_name(&self, _t: TierKey) -> String {
        "all".to_string()
    }

    fn tier_of(&self, _p: &WeimingPos) -> TierKey {
        0
    }

    fn tier_max_pieces(&self, _t: TierKey) -> u32 {
        PIECES_PER_SIDE
    }

    fn tier_size(&self, _t: TierKey) -> u64 {
        TIER_SIZE
    }

    fn tier_deps(&self, _t: TierKey) -> Vec<TierKey> {
        Vec::new()
    }

    fn rank(&self, _t: TierKey, p: &WeimingPos) -> u64 {
        let free = ALL as u32 & !(1u32 << p.s);
        let xr = rank_subset(pext(p.x as u32, free));
        let free2 = free & !(p.x as u32);
        let or = rank_subset(pext(p.o as u32, free2));
        let side = match p.side {
            Side::First => 0,
            Side::Second => 1,
        };
        (((p.s as u64 * 56 + xr) * 10 + or) * 2 + side) * 2 + p.locked as u64
    }

    fn unrank(&self, _t: TierKey, i: u64) -> WeimingPos {
        let locked = i & 1 == 1;
        let side = if (i >> 1) & 1 == 0 {
            Side::First
        } else {
            Side::Second
        };
        let or = (i / 4) % 10;
        let xr = (i / 40) % 56;
        let s = (i / 2240) as u8;
        let free = ALL as u32 & !(1u32 << s);
        let x = pdep(unrank_subset(8, 3, xr), free);
        let o = pdep(unrank_subset(5, 3, or), free & !x);
        WeimingPos {
            x: x as u16,
            o: o as u16,
            s,
            side,
            locked,
        }
    }

    fn unmoves(&self, p: &WeimingPos, out: &mut Vec<WeimingPos>) {
        let prev = p.side.other();
        let empty = Self::empty(p);
        if p.locked {
            // The shared piece moved last, from an adjacent (now empty) point;
            // it was free then.
            let mut b = self.adj[p.s as usize] & empty;
            while b != 0 {
                let from = b.trailing_zeros() as u8;
                b &= b - 1;
                out.push(WeimingPos {
                    s: from,
                    side: prev,
                    locked: false,
                    ..*p
                });
            }
        } else {
            // The previous mover stepped one of its own pieces; the shared
            // piece may have been free or locked for it.
            let mut pieces = match prev {
                Side::First => p.x,
                Side::Second => p.o,
            };
            while pieces != 0 {
                let at = pieces.trailing_zeros() as u8;
                pieces &= pieces - 1;
                let mut b = self.adj[at as usize] & empty;
                while b != 0 {
                    let from = b.trailing_zeros() as u8;
                    b &= b - 1;
                    let flip = (1u16 << at) | (1u16 << from);
                    let mut q = WeimingPos {
                        side: prev,
                        locked: false,
                        ..*p
                    };
                    match prev {
                        Side::First => q.x ^= flip,
                        Side::Second => q.o ^= flip,
                    }
                    out.push(q);
                    q.locked = true;
                    out.push(q);
                }
            }
        }
    }
}
