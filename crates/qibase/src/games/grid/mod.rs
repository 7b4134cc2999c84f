//! The notation of the grid games (cannon chess and the cannon games),
//! written once: both families play on a W × H grid of points, one bit
//! each in a `u64` bitboard, named and drawn alike.
//!
//! Points are numbered `rank * width + file`: files `a, b, c, …` left to
//! right, ranks `1, 2, …` bottom to top (a1 = 0, b1 = 1, …). A position
//! string's board part lists the ranks from the top, separated by `/`; a
//! move is `from-to`. Each family keeps its own wording of errors and its
//! own last lines under a diagram: what is shared here is the reading,
//! writing and drawing, which returns typed details for the family to
//! word ([`board::BoardError`]).

pub mod board;
pub mod diagram;

use crate::game::Geometry;

/// The name of point `p` on a board `w` files wide (`a1`, `b3`, …).
pub fn square_name(w: u32, p: u32) -> String {
    format!("{}{}", (b'a' + (p % w) as u8) as char, p / w + 1)
}

/// The point named `s` on a `w` × `h` board, if the name is well formed and
/// on the board (no sign, no leading zero).
pub fn parse_square(w: u32, h: u32, s: &str) -> Option<u32> {
    let mut chars = s.chars();
    let fc = chars.next()?;
    if !fc.is_ascii_lowercase() {
        return None;
    }
    let f = fc as u32 - 'a' as u32;
    let rest = chars.as_str();
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) || rest.starts_with('0') {
        return None;
    }
    let r: u32 = rest.parse().ok()?;
    if f >= w || r == 0 || r > h {
        return None;
    }
    Some((r - 1) * w + f)
}

/// The names of all `w · h` points, in point order.
pub fn point_names(w: u32, h: u32) -> Vec<String> {
    (0..w * h).map(|p| square_name(w, p)).collect()
}

/// The move string `from-to`.
pub fn move_name(w: u32, from: u32, to: u32) -> String {
    format!("{}-{}", square_name(w, from), square_name(w, to))
}

/// The two points of a move string `from-to`, if both are points of the
/// `w` × `h` board (whether the move is legal is the rules' business).
pub fn parse_move_points(w: u32, h: u32, s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once('-')?;
    Some((parse_square(w, h, a)?, parse_square(w, h, b)?))
}

/// The board drawn as a grid with orthogonal lines.
pub fn geometry(w: u32, h: u32) -> Geometry {
    Geometry::grid(w, h, point_names(w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in 0..20 {
            assert_eq!(parse_square(4, 5, &square_name(4, p)), Some(p));
        }
        assert_eq!(square_name(5, 7), "c2");
        for bad in ["", "a", "a0", "a01", "e1", "a6", "A1", "a+1", "1a", "a1x"] {
            assert_eq!(parse_square(4, 5, bad), None, "{bad}");
        }
    }

    #[test]
    fn move_names_round_trip() {
        assert_eq!(move_name(4, 0, 4), "a1-a2");
        assert_eq!(parse_move_points(4, 5, "a1-a2"), Some((0, 4)));
        for bad in ["a1a2", "a1-", "-a2", "a1-e1", "a1--a2"] {
            assert_eq!(parse_move_points(4, 5, bad), None, "{bad}");
        }
    }
}
