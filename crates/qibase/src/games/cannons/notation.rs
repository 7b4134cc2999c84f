//! The cannon games' notation (docs/rules.md): the grid notation shared
//! with cannon chess ([`grid`]), with C and S as the piece letters and this
//! family's wording of every error.

use std::fmt::Write as _;

use super::{Cannons, CannonsMove, CannonsPos};
use crate::game::{EndReason, Geometry, MovePoints, Notation, ParseError, Rules, Side};
use crate::games::grid::{self, board::BoardError};

impl Cannons {
    /// The side's name in messages.
    fn side_name(side: Side) -> &'static str {
        match side {
            Side::First => "cannons",
            Side::Second => "soldiers",
        }
    }

    /// The one-line message for a fault of a board string.
    fn board_error(&self, e: BoardError) -> String {
        match e {
            BoardError::RankCount { found } => {
                format!("expected {} ranks separated by '/', found {found}", self.h)
            }
            BoardError::RankLength { rank, text, len } => {
                format!(
                    "rank {rank} ('{text}') has {len} points, expected {}",
                    self.w
                )
            }
            BoardError::UnknownChar { c, rank } => {
                format!("unknown character '{c}' on rank {rank} (expected C, S or .)")
            }
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

    fn parse_pos(&self, s: &str) -> Result<CannonsPos, ParseError> {
        // The side to move and the rest are checked before the board.
        let mut parts = s.split_whitespace();
        let board = parts
            .next()
            .ok_or_else(|| ParseError::malformed_position("empty position string"))?;
        let side = match parts.next() {
            None => {
                return Err(ParseError::malformed_position(format!(
                    "missing side to move after the board '{board}' (expected ' C' or ' S')"
                )))
            }
            Some("C") => Side::First,
            Some("S") => Side::Second,
            Some(x) => {
                return Err(ParseError::malformed_position(format!(
                    "invalid side to move '{x}' (expected C for cannons or S for soldiers)"
                )))
            }
        };
        if let Some(x) = parts.next() {
            return Err(ParseError::malformed_position(format!(
                "trailing junk '{x}' after the side to move"
            )));
        }
        let [cannons, soldiers] = grid::board::read_board(board, self.w, self.h, ['C', 'S'])
            .map_err(|e| ParseError::malformed_position(self.board_error(e)))?;
        let c = cannons.count_ones();
        if c != self.n_cannons {
            return Err(ParseError::illegal_position(format!(
                "wrong number of cannons: {c} (this game has exactly {}; cannons are never captured)",
                self.n_cannons
            )));
        }
        let k = soldiers.count_ones();
        if k > self.max_soldiers {
            return Err(ParseError::illegal_position(format!(
                "too many soldiers: {k} (at most {})",
                self.max_soldiers
            )));
        }
        Ok(CannonsPos {
            cannons,
            soldiers,
            side,
        })
    }

    fn format_pos(&self, p: &CannonsPos) -> String {
        let mut s =
            grid::board::write_board(self.w, self.h, &[(p.cannons, 'C'), (p.soldiers, 'S')]);
        s.push(' ');
        s.push(self.side_letter(p.side));
        s
    }

    fn parse_move(&self, p: &CannonsPos, s: &str) -> Result<CannonsMove, ParseError> {
        let s = s.trim();
        let Some((from, to)) = grid::parse_move_points(self.w, self.h, s) else {
            return Err(ParseError::malformed_move(format!(
                "malformed move '{s}': expected from-to with points a1..{}, like b1-b2",
                grid::square_name(self.w, self.n - 1)
            )));
        };
        let m = CannonsMove {
            from: from as u8,
            to: to as u8,
        };
        if let Some(e) = self.rule_end(p) {
            return Err(ParseError::illegal_move(format!(
                "illegal move '{s}': the game is over ({})",
                self.describe_end(e.reason)
            )));
        }
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        if moves.contains(&m) {
            return Ok(m);
        }
        // Why not: the names as written (a parsed point name is canonical).
        let (a, b) = (
            grid::square_name(self.w, from),
            grid::square_name(self.w, to),
        );
        let own = if p.side == Side::First {
            p.cannons
        } else {
            p.soldiers
        };
        let why = if own >> from & 1 == 0 {
            let name = Self::side_name(p.side);
            format!("no {} on {a}", &name[..name.len() - 1])
        } else if self.t.adj[from as usize] >> to & 1 != 0 {
            format!("{b} is not empty")
        } else if p.side == Side::First && self.t.jump[from as usize] >> to & 1 != 0 {
            "a cannon jumps only over one empty point onto a soldier".to_string()
        } else {
            "pieces move one point orthogonally".to_string()
        };
        Err(ParseError::illegal_move(format!(
            "illegal move '{s}' in this position: {why}"
        )))
    }

    /// A capturing jump lands on the soldier it takes: `to` is also the
    /// captured point.
    fn move_points(&self, _p: &CannonsPos, m: &CannonsMove) -> MovePoints {
        let captured = if m.is_capture(self.w) { 1 << m.to } else { 0 };
        MovePoints::step(m.from, m.to, captured)
    }

    fn format_move(&self, m: &CannonsMove) -> String {
        grid::move_name(self.w, m.from as u32, m.to as u32)
    }

    fn diagram(&self, p: &CannonsPos, last: Option<&CannonsMove>) -> String {
        let marks = last.map(|m| (m.from as u32, m.to as u32));
        let mut s = grid::diagram::board_lines(self.w, self.h, &self.occupancy(p), marks, 2);
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

    fn point_names(&self) -> Vec<String> {
        grid::point_names(self.w, self.h)
    }

    fn occupancy(&self, p: &CannonsPos) -> Vec<char> {
        grid::board::occupancy(self.n, &[(p.cannons, 'C'), (p.soldiers, 'S')])
    }

    fn geometry(&self) -> Geometry {
        grid::geometry(self.w, self.h)
    }

    fn describe_end(&self, reason: EndReason) -> String {
        match reason {
            EndReason::TooFewPieces { .. } => "too few soldiers remain".into(),
            EndReason::Immobile { .. } => "no cannon can move".into(),
            r => r.to_string(),
        }
    }
}
