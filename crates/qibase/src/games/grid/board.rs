//! The board part of a grid position string (`OOOO/O..O/..../X..X/XXXX`):
//! ranks from the top, separated by `/`, one character per point.

use std::fmt;

/// What is wrong with a board string, in terms each family words its own
/// way (the messages users see come from the family's notation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardError {
    /// Not `h` ranks: `found` of them.
    RankCount {
        /// Ranks in the string.
        found: usize,
    },
    /// Rank `rank` (1 = bottom) is `text`, with `len` points instead of `w`.
    RankLength {
        /// The rank's number (1 = bottom).
        rank: u32,
        /// The rank as written.
        text: String,
        /// Its number of points.
        len: usize,
    },
    /// A character that is neither a piece letter nor `.` on rank `rank`.
    UnknownChar {
        /// The character.
        c: char,
        /// The rank's number (1 = bottom).
        rank: u32,
    },
}

impl fmt::Display for BoardError {
    /// A generic wording (the families use their own).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::RankCount { found } => write!(f, "{found} ranks"),
            BoardError::RankLength { rank, text, len } => {
                write!(f, "rank {rank} ('{text}') has {len} points")
            }
            BoardError::UnknownChar { c, rank } => {
                write!(f, "unknown character '{c}' on rank {rank}")
            }
        }
    }
}

/// The bitboards of the two piece letters `letters` in `board`, a
/// `w` × `h` board string; ranks are checked from the top, each for its
/// length and then its characters, and the first fault is returned.
///
/// # Errors
///
/// A [`BoardError`]: the wrong number of ranks, a rank of the wrong
/// length, or a character that is neither a letter of `letters` nor `.`.
pub fn read_board(board: &str, w: u32, h: u32, letters: [char; 2]) -> Result<[u64; 2], BoardError> {
    // Batch probes parse millions of positions: a well-formed board is
    // read in one pass over its bytes, without allocating; anything else
    // takes the checking path, which finds the first fault.
    if let Some(sets) = read_ascii_board(board.as_bytes(), w, h, letters) {
        return Ok(sets);
    }
    read_board_checked(board, w, h, letters)
}

/// The bitboards of a well-formed board whose letters are ASCII; `None`
/// for anything else (exactly what [`read_board_checked`] refuses, and
/// non-ASCII letters).
#[inline]
fn read_ascii_board(board: &[u8], w: u32, h: u32, letters: [char; 2]) -> Option<[u64; 2]> {
    let ascii = |c: char| u8::try_from(c).ok().filter(u8::is_ascii);
    let (a, b) = (ascii(letters[0])?, ascii(letters[1])?);
    if board.len() != (w * h + h).checked_sub(1)? as usize {
        return None;
    }
    let mut sets = [0u64; 2];
    let (mut rank, mut file) = (h, 0);
    for &c in board {
        if c == b'/' {
            if file != w || rank == 1 {
                return None;
            }
            (rank, file) = (rank - 1, 0);
            continue;
        }
        if file == w {
            return None;
        }
        let bit = 1u64 << ((rank - 1) * w + file);
        if c == a {
            sets[0] |= bit;
        } else if c == b {
            sets[1] |= bit;
        } else if c != b'.' {
            return None;
        }
        file += 1;
    }
    (rank == 1 && file == w).then_some(sets)
}

/// [`read_board`]'s checking path: ranks from the top, each for its
/// length and then its characters; the first fault is the error.
fn read_board_checked(
    board: &str,
    w: u32,
    h: u32,
    letters: [char; 2],
) -> Result<[u64; 2], BoardError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != h as usize {
        return Err(BoardError::RankCount { found: ranks.len() });
    }
    let mut sets = [0u64; 2];
    for (i, text) in ranks.iter().enumerate() {
        let rank = h - i as u32; // 1 = bottom
        let len = text.chars().count();
        if len != w as usize {
            return Err(BoardError::RankLength {
                rank,
                text: text.to_string(),
                len,
            });
        }
        for (file, c) in text.chars().enumerate() {
            let bit = 1u64 << ((rank - 1) * w + file as u32);
            match letters.iter().position(|&l| l == c) {
                Some(k) => sets[k] |= bit,
                None if c == '.' => {}
                None => return Err(BoardError::UnknownChar { c, rank }),
            }
        }
    }
    Ok(sets)
}

/// The board string of a `w` × `h` board: each point shows the letter of
/// the first of `pieces` (bitboard, letter) that holds it, else `.`.
pub fn write_board(w: u32, h: u32, pieces: &[(u64, char)]) -> String {
    let mut s = String::with_capacity((w * h + h) as usize);
    for rank in (0..h).rev() {
        for file in 0..w {
            s.push(char_at(pieces, rank * w + file));
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s
}

/// The character on each of the `n` points, in point order: the letter of
/// the first of `pieces` (bitboard, letter) that holds it, else `.`.
pub fn occupancy(n: u32, pieces: &[(u64, char)]) -> Vec<char> {
    (0..n).map(|pt| char_at(pieces, pt)).collect()
}

fn char_at(pieces: &[(u64, char)], pt: u32) -> char {
    pieces
        .iter()
        .find(|(bits, _)| bits >> pt & 1 != 0)
        .map_or('.', |&(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_round_trip() {
        let b = "OO./.../.XX";
        let [x, o] = read_board(b, 3, 3, ['X', 'O']).unwrap();
        assert_eq!((x, o), (0b110, 0b011 << 6));
        assert_eq!(write_board(3, 3, &[(x, 'X'), (o, 'O')]), b);
    }

    #[test]
    fn faults_in_order() {
        let read = |b| read_board(b, 3, 2, ['C', 'S']);
        assert_eq!(read("..."), Err(BoardError::RankCount { found: 1 }));
        assert_eq!(
            read("..../x"),
            Err(BoardError::RankLength {
                rank: 2,
                text: "....".into(),
                len: 4
            })
        );
        assert_eq!(
            read(".x./.."),
            Err(BoardError::UnknownChar { c: 'x', rank: 2 })
        );
    }

    /// The one-pass reading of well-formed boards agrees with the
    /// checking path on every string, well-formed or not: random strings
    /// over the board's alphabet and a few strangers, of lengths around
    /// the right one.
    #[test]
    fn the_fast_path_reads_what_the_checking_path_reads() {
        let mut rng = crate::rng::Rng::new(11);
        let alphabet = ['X', 'O', '.', '.', '/', 'x', 'é'];
        let (mut fast, mut refused) = (0, 0);
        for (w, h) in [(4, 5), (5, 5), (4, 4), (3, 2), (1, 3), (8, 4)] {
            for _ in 0..20_000 {
                // Mostly well-formed boards with a few faults mixed in.
                let mut text = String::new();
                for rank in 0..h {
                    for _ in 0..w {
                        let k = if rng.below(20) == 0 {
                            4 + rng.below(3)
                        } else {
                            rng.below(4)
                        };
                        text.push(alphabet[k]);
                    }
                    if rank + 1 < h || rng.below(50) == 0 {
                        text.push('/');
                    }
                }
                if rng.below(30) == 0 {
                    text.pop();
                }
                let got = read_board(&text, w, h, ['X', 'O']);
                assert_eq!(got, read_board_checked(&text, w, h, ['X', 'O']), "{text:?}");
                match got {
                    Ok(_) => fast += 1,
                    Err(_) => refused += 1,
                }
                assert_eq!(
                    read_board(&text, w, h, ['X', 'é']),
                    read_board_checked(&text, w, h, ['X', 'é']),
                    "{text:?}"
                );
            }
        }
        assert!(
            fast > 10_000 && refused > 10_000,
            "{fast} read, {refused} refused"
        );
    }

    #[test]
    fn occupancy_marks_pieces() {
        assert_eq!(
            occupancy(4, &[(0b0001, 'X'), (0b0100, 'O')]),
            ['X', '.', 'O', '.']
        );
    }
}
