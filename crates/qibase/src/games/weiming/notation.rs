//! Weiming's notation (docs/rules.md): the nine points by name in the
//! order `tl tm tr / s x m / bl bm br`, the side to move and the lock flag.

use super::{Weiming, WeimingMove, WeimingPos, EDGES, PIECES_PER_SIDE, POINT_NAMES, START};
use crate::game::{GeoPoint, Geometry, MovePoints, Notation, ParseError, Side};

fn point_index(name: &str) -> Option<u8> {
    POINT_NAMES.iter().position(|&n| n == name).map(|i| i as u8)
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

    fn parse_pos(&self, s: &str) -> Result<WeimingPos, ParseError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if fields.is_empty() {
            return Err(ParseError::malformed_position(format!(
                "empty position: expected e.g. '{START}' (board, side to move, lock flag)"
            )));
        }
        let groups: Vec<&str> = fields[0].split('/').collect();
        if groups.len() != 3 {
            return Err(ParseError::malformed_position(format!(
                "bad board '{}': expected 3 groups separated by '/' (tl tm tr / s x m / bl bm br), found {}",
                fields[0],
                groups.len()
            )));
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
                return Err(ParseError::malformed_position(format!(
                    "bad board '{}': group {} ('{grp}') has {n} points, expected 3",
                    fields[0],
                    g + 1
                )));
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
                        return Err(ParseError::malformed_position(format!(
                            "bad board '{}': unknown character '{c}' at point {at} (use X, O, S or .)",
                            fields[0]
                        )));
                    }
                }
            }
        }
        if nx != PIECES_PER_SIDE {
            return Err(ParseError::illegal_position(format!(
                "bad board '{}': {nx} X pieces, exactly {PIECES_PER_SIDE} required",
                fields[0]
            )));
        }
        if no != PIECES_PER_SIDE {
            return Err(ParseError::illegal_position(format!(
                "bad board '{}': {no} O pieces, exactly {PIECES_PER_SIDE} required",
                fields[0]
            )));
        }
        if ns != 1 {
            return Err(ParseError::illegal_position(format!(
                "bad board '{}': {ns} shared pieces S, exactly 1 required",
                fields[0]
            )));
        }
        p.side = match fields.get(1) {
            None => {
                return Err(ParseError::malformed_position(
                    "missing side to move after the board (X or O)",
                ))
            }
            Some(&"X") => Side::First,
            Some(&"O") => Side::Second,
            Some(t) => {
                return Err(ParseError::malformed_position(format!(
                    "bad side to move '{t}': expected X or O"
                )))
            }
        };
        p.locked =
            match fields.get(2) {
                None => return Err(ParseError::malformed_position(
                    "missing lock flag after the side to move ('-' shared piece free, '!' locked)"
                        .to_string(),
                )),
                Some(&"-") => false,
                Some(&"!") => true,
                Some(t) => {
                    return Err(ParseError::malformed_position(format!(
                        "bad lock flag '{t}': expected '-' (shared piece free) or '!' (locked)"
                    )))
                }
            };
        if fields.len() > 3 {
            return Err(ParseError::malformed_position(format!(
                "unexpected text after the lock flag: '{}'",
                fields[3..].join(" ")
            )));
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

    /// Weiming has no captures.
    fn move_points(&self, _p: &WeimingPos, m: &WeimingMove) -> MovePoints {
        MovePoints::step(m.from, m.to, 0)
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

    fn parse_move(&self, p: &WeimingPos, s: &str) -> Result<WeimingMove, ParseError> {
        let s = s.trim();
        let names = POINT_NAMES.join(" ");
        let (a, b) = s.split_once('-').ok_or_else(|| {
            ParseError::malformed_move(format!(
                "malformed move '{s}': expected from-to, e.g. s-x (points: {names})"
            ))
        })?;
        let from = point_index(a).ok_or_else(|| {
            ParseError::malformed_move(format!(
                "malformed move '{s}': unknown point '{a}' (points: {names})"
            ))
        })?;
        let to = point_index(b).ok_or_else(|| {
            ParseError::malformed_move(format!(
                "malformed move '{s}': unknown point '{b}' (points: {names})"
            ))
        })?;
        let me = Self::letter(p.side);
        if from == to {
            return Err(ParseError::illegal_move(format!(
                "illegal move '{s}': from and to are the same point"
            )));
        }
        if from == p.s {
            if p.locked {
                return Err(ParseError::illegal_move(format!(
                    "illegal move '{s}': the shared piece S is locked (it was moved on the previous move, so {me} may not move it now)"
                )));
            }
        } else if Self::own(p) & (1 << from) == 0 {
            if (p.x | p.o) & (1 << from) != 0 {
                return Err(ParseError::illegal_move(format!(
                    "illegal move '{s}': the piece on {a} is {}'s, and {me} is to move",
                    Self::letter(p.side.other())
                )));
            }
            return Err(ParseError::illegal_move(format!(
                "illegal move '{s}': there is no piece on {a}"
            )));
        }
        if self.adj[from as usize] & (1 << to) == 0 {
            return Err(ParseError::illegal_move(format!(
                "illegal move '{s}': {a} and {b} are not joined by a line"
            )));
        }
        if Self::empty(p) & (1 << to) == 0 {
            return Err(ParseError::illegal_move(format!(
                "illegal move '{s}': {b} is occupied"
            )));
        }
        Ok(WeimingMove { from, to })
    }

    /// The drawing of the module comment: `s` to the left of `x`, off the
    /// `tl`–`bl` column so that no line seems to pass through it.
    fn geometry(&self) -> Geometry {
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
        Geometry {
            points: POINT_NAMES
                .iter()
                .zip(XY)
                .map(|(n, (x, y))| GeoPoint {
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
