//! Point naming on rectangular grids, shared by the grid games: files
//! `a, b, c, …` left to right, ranks `1, 2, …` bottom to top, point index
//! `rank * width + file`.

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

/// The character on each of the `n` points: the first of `pieces`
/// (bitboard, letter) whose bitboard holds the point, else `.`.
pub fn occupancy(n: u32, pieces: &[(u32, char)]) -> Vec<char> {
    (0..n)
        .map(|pt| {
            pieces
                .iter()
                .find(|(bits, _)| bits >> pt & 1 != 0)
                .map_or('.', |&(_, c)| c)
        })
        .collect()
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
    fn occupancy_marks_pieces() {
        assert_eq!(
            occupancy(4, &[(0b0001, 'X'), (0b0100, 'O')]),
            ['X', '.', 'O', '.']
        );
    }
}
