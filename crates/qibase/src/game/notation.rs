//! [`Notation`]: how positions, moves and boards are written and drawn.

use super::{EndReason, ParseError, Rules, Side};

/// A game's notation (docs/rules.md): position and move strings, the
/// diagram, point names, the board's geometry and the words shown to
/// users. What the command line, the HTTP server and the report use.
pub trait Notation: Rules {
    /// Human name, e.g. `Cannon Chess 5×4`.
    fn title(&self) -> &str;
    /// One line describing the board, e.g. `4 files × 5 ranks, 20 points`.
    fn board_desc(&self) -> String;
    /// One line describing the material, e.g. `X 6, O 6`.
    fn material_desc(&self) -> String;
    /// Letter of each side in position strings (`X`/`O`, `C`/`S`).
    fn side_letter(&self, side: Side) -> char;

    /// Parse a position string; the error tells a malformed string from a
    /// position the rules do not allow, and says what is wrong.
    ///
    /// # Errors
    ///
    /// A [`ParseError`]: a malformed string, or a position the rules do
    /// not allow.
    fn parse_pos(&self, s: &str) -> Result<Self::Pos, ParseError>;
    /// The position string of `p`.
    fn format_pos(&self, p: &Self::Pos) -> String;

    /// Parse a move string against a position: a malformed string and an
    /// illegal move give different errors. The default finds the legal
    /// move whose [`format_move`](Self::format_move) is `s` (any other
    /// string is an illegal move).
    ///
    /// # Errors
    ///
    /// A [`ParseError`]: a malformed move string, or a move that is not
    /// legal in `p`.
    fn parse_move(&self, p: &Self::Pos, s: &str) -> Result<Self::Move, ParseError> {
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        let s = s.trim();
        moves
            .iter()
            .copied()
            .find(|m| self.format_move(m) == s)
            .ok_or_else(|| ParseError::illegal_move(format!("illegal move '{s}' in this position")))
    }
    /// The move string of `m` (`from-to`).
    fn format_move(&self, m: &Self::Move) -> String;

    /// A readable multi-line board diagram with coordinates; `last`, if
    /// given, is the move that led here and is marked.
    fn diagram(&self, p: &Self::Pos, last: Option<&Self::Move>) -> String;
    /// Names of all points of the board (for heat maps and reports), in the
    /// game's own point order.
    fn point_names(&self) -> Vec<String>;
    /// Which side's piece (if any) stands on each point, in `point_names` order,
    /// as the character used in position strings (`.` for empty).
    fn occupancy(&self, p: &Self::Pos) -> Vec<char>;
    /// The board's points (in `point_names` order) with coordinates, and the
    /// lines between them, so one renderer draws every board.
    fn geometry(&self) -> Geometry;

    /// Where a legal move `m` of `p` goes on the board: the point it
    /// leaves, the point it arrives on and the points whose pieces it
    /// captures, as indices into [`point_names`](Self::point_names). For
    /// drawing and animating moves without parsing their notation. `from`
    /// and `to` are `None` only for a move that has no such point (a drop
    /// or a pass; no game has one today).
    fn move_points(&self, p: &Self::Pos, m: &Self::Move) -> MovePoints;

    /// The game's words for why a game ended (shown by `play`, `query`,
    /// `show` and in the JSON `end` reason). Default: the generic wording.
    fn describe_end(&self, reason: EndReason) -> String {
        reason.to_string()
    }
}

/// The geometry of one move ([`Notation::move_points`]): point indices in
/// [`Notation::point_names`] order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MovePoints {
    /// The point the moving piece leaves (`None` for a drop or a pass).
    pub from: Option<usize>,
    /// The point it arrives on (`None` for a pass).
    pub to: Option<usize>,
    /// The points whose pieces the move captures, ascending.
    pub captured: Vec<usize>,
}

impl MovePoints {
    /// A move from `from` to `to` capturing the pieces on the set bits of
    /// `captured` (a bitboard of point indices).
    pub fn step(from: u8, to: u8, captured: u64) -> MovePoints {
        let mut c = Vec::new();
        let mut b = captured;
        while b != 0 {
            c.push(b.trailing_zeros() as usize);
            b &= b - 1;
        }
        MovePoints {
            from: Some(from as usize),
            to: Some(to as usize),
            captured: c,
        }
    }
}

/// A board as points and lines, for drawing (the web page). Coordinates are
/// in board units, `x` to the right and `y` downwards (screen order).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Geometry {
    /// In `Notation::point_names` order.
    pub points: Vec<GeoPoint>,
    /// Pairs of indices into `points`.
    pub lines: Vec<[usize; 2]>,
}

/// One point of a [`Geometry`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GeoPoint {
    /// The point's name, as in position and move strings.
    pub name: String,
    /// Column, left to right.
    pub x: f64,
    /// Row, top to bottom.
    pub y: f64,
}

impl Geometry {
    /// A `w` × `h` grid with orthogonal lines; point `rank * w + file` is
    /// named `names[rank * w + file]`, rank 0 drawn at the bottom.
    pub fn grid(w: u32, h: u32, names: Vec<String>) -> Geometry {
        let points = names
            .into_iter()
            .enumerate()
            .map(|(i, name)| GeoPoint {
                name,
                x: (i as u32 % w) as f64,
                y: (h - 1 - i as u32 / w) as f64,
            })
            .collect();
        let mut lines = Vec::new();
        for r in 0..h {
            for f in 0..w {
                let i = (r * w + f) as usize;
                if f + 1 < w {
                    lines.push([i, i + 1]);
                }
                if r + 1 < h {
                    lines.push([i, i + w as usize]);
                }
            }
        }
        Geometry { points, lines }
    }
}
