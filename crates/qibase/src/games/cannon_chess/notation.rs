//! Cannon chess's notation (docs/rules.md): the grid notation shared with
//! the cannon games ([`grid`]), with X and O as the piece letters and this
//! family's wording of every error.

use super::{CannonChess, CcMove, CcPos};
use crate::game::{EndReason, Geometry, MovePoints, Notation, ParseError, Rules, Side};
use crate::games::grid::{self, board::BoardError};

impl CannonChess {
    /// The one-line message for a fault of a board string.
    fn board_error(&self, board: &str, e: BoardError) -> String {
        match e {
            BoardError::RankCount { found } => format!(
                "wrong number of ranks in '{board}': found {found}, expected {} separated by '/'",
                self.h
            ),
            BoardError::RankLength { rank, text, len } => format!(
                "wrong rank length: rank {rank} is '{text}' with {len} points, expected {}",
                self.w
            ),
            BoardError::UnknownChar { c, rank } => {
                format!("unknown character '{c}' on rank {rank} (use X, O or .)")
            }
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

    fn parse_pos(&self, s: &str) -> Result<CcPos, ParseError> {
        let mut parts = s.split_whitespace();
        let board = parts
            .next()
            .ok_or_else(|| ParseError::malformed_position("empty position string"))?;
        let [x, o] = grid::board::read_board(board, self.w, self.h, ['X', 'O'])
            .map_err(|e| ParseError::malformed_position(self.board_error(board, e)))?;
        for (letter, set) in [('X', x), ('O', o)] {
            if set.count_ones() > self.max_side {
                return Err(ParseError::illegal_position(format!(
                    "too many pieces: {letter} has {}, at most {} per side",
                    set.count_ones(),
                    self.max_side
                )));
            }
        }
        let side = parts.next().ok_or_else(|| {
            ParseError::malformed_position("missing side to move: add ' X' or ' O' after the board")
        })?;
        let x_to_move = match side {
            "X" => true,
            "O" => false,
            _ => {
                return Err(ParseError::malformed_position(format!(
                    "invalid side to move '{side}': expected X or O"
                )))
            }
        };
        if let Some(junk) = parts.next() {
            return Err(ParseError::malformed_position(format!(
                "trailing junk '{junk}' after the side to move (cannon chess has no flags)"
            )));
        }
        Ok(self.from_colours(x, o, x_to_move))
    }

    fn format_pos(&self, p: &CcPos) -> String {
        let (x, o) = self.colours(p);
        let mut s = grid::board::write_board(self.w, self.h, &[(x, 'X'), (o, 'O')]);
        s.push(' ');
        s.push(if p.x_to_move { 'X' } else { 'O' });
        s
    }

    fn parse_move(&self, p: &CcPos, s: &str) -> Result<CcMove, ParseError> {
        let s = s.trim();
        let Some((from, to)) = grid::parse_move_points(self.w, self.h, s) else {
            return Err(ParseError::malformed_move(format!(
                "malformed move '{s}': expected from-to with point names a1..{}, e.g. b1-b2",
                self.square_name(self.n - 1)
            )));
        };
        if let Some(e) = self.rule_end(p) {
            return Err(ParseError::illegal_move(format!(
                "illegal move '{s}': the game is over ({})",
                self.describe_end(e.reason)
            )));
        }
        let mut ms = Vec::new();
        self.moves(p, &mut ms);
        ms.into_iter()
            .find(|m| m.from as u32 == from && m.to as u32 == to)
            .ok_or_else(|| ParseError::illegal_move(format!("illegal move '{s}' in this position")))
    }

    /// Captures come with the move (move generation fills them in).
    fn move_points(&self, _p: &CcPos, m: &CcMove) -> MovePoints {
        MovePoints::step(m.from, m.to, m.captured)
    }

    fn format_move(&self, m: &CcMove) -> String {
        grid::move_name(self.w, m.from as u32, m.to as u32)
    }

    fn diagram(&self, p: &CcPos, last: Option<&CcMove>) -> String {
        let marks = last.map(|m| (m.from as u32, m.to as u32));
        let mut s = grid::diagram::board_lines(self.w, self.h, &self.occupancy(p), marks, 3);
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

    fn point_names(&self) -> Vec<String> {
        grid::point_names(self.w, self.h)
    }

    fn occupancy(&self, p: &CcPos) -> Vec<char> {
        let (x, o) = self.colours(p);
        grid::board::occupancy(self.n, &[(x, 'X'), (o, 'O')])
    }

    fn geometry(&self) -> Geometry {
        grid::geometry(self.w, self.h)
    }

    fn describe_end(&self, reason: EndReason) -> String {
        match reason {
            EndReason::NoPiecesLeft => "all pieces of the side to move have been captured".into(),
            r => r.to_string(),
        }
    }
}
