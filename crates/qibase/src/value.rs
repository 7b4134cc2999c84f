//! Game-theoretic values with remoteness, and their 16-bit packing.
//!
//! A position's value is seen from the side to move: `win N`, `loss N` or
//! `draw`, where N is the remoteness in plies (the winner finishes as fast as
//! possible, the loser delays as long as possible).

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// Exact value of a position (side to move's view) or of a move (mover's view).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    /// The side to move wins in this many plies.
    Win(u16),
    /// The side to move loses in this many plies.
    Loss(u16),
    /// Neither side can force a win.
    Draw,
}

/// Packed value stored in solver arrays and tablebases.
/// `0` means "not decided yet" (solver-internal), `1` is draw,
/// `2 + 2r` is loss r and `3 + 2r` is win r.
pub type Packed = u16;

/// The packed "undecided" marker.
pub const UNDECIDED: Packed = 0;

/// Largest remoteness that fits the packing.
pub const MAX_REMOTENESS: u16 = (u16::MAX - 3) / 2;

impl Value {
    /// Pack into 16 bits (never returns [`UNDECIDED`]).
    #[inline]
    pub fn pack(self) -> Packed {
        match self {
            Value::Draw => 1,
            Value::Loss(r) => 2 + 2 * r,
            Value::Win(r) => 3 + 2 * r,
        }
    }

    /// Unpack; `None` for [`UNDECIDED`].
    #[inline]
    pub fn unpack(p: Packed) -> Option<Value> {
        match p {
            0 => None,
            1 => Some(Value::Draw),
            p if p & 1 == 0 => Some(Value::Loss((p - 2) / 2)),
            p => Some(Value::Win((p - 3) / 2)),
        }
    }

    /// The value of a move, from the mover's view, given the value of the
    /// position it leads to (from the opponent's view). Counts the move.
    #[inline]
    pub fn of_move_to(child: Value) -> Value {
        match child {
            Value::Loss(r) => Value::Win(r + 1),
            Value::Win(r) => Value::Loss(r + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Remoteness, `None` for a draw.
    pub fn remoteness(self) -> Option<u16> {
        match self {
            Value::Win(r) | Value::Loss(r) => Some(r),
            Value::Draw => None,
        }
    }

    /// Preference rank for the mover: higher is better.
    /// Wins beat draws beat losses; shorter wins and longer losses are better.
    #[inline]
    fn score(self) -> i32 {
        match self {
            Value::Win(r) => 100_000 - r as i32,
            Value::Draw => 0,
            Value::Loss(r) => -100_000 + r as i32,
        }
    }

    /// Just the outcome class, for WDL statistics.
    pub fn wdl(self) -> Wdl {
        match self {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }
}

/// Ordering by preference for the mover: `a > b` means `a` is the better value.
impl Ord for Value {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score().cmp(&other.score())
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(r) => write!(f, "win {r}"),
            Value::Loss(r) => write!(f, "loss {r}"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

/// Why a string is not a [`Value`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParseValueError {
    /// Not `win N`, `loss N` or `draw`.
    Shape {
        /// The text as given (trimmed).
        text: String,
    },
    /// `win` or `loss` with a remoteness that is not a number of plies.
    Remoteness {
        /// The text as given (trimmed).
        text: String,
    },
}

impl fmt::Display for ParseValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseValueError::Shape { text } => {
                write!(
                    f,
                    "bad value '{text}': expected 'win N', 'loss N' or 'draw'"
                )
            }
            ParseValueError::Remoteness { text } => {
                write!(f, "bad remoteness in value '{text}'")
            }
        }
    }
}

impl std::error::Error for ParseValueError {}

impl FromStr for Value {
    type Err = ParseValueError;
    fn from_str(s: &str) -> Result<Self, ParseValueError> {
        let s = s.trim();
        if s == "draw" {
            return Ok(Value::Draw);
        }
        let shape = || ParseValueError::Shape {
            text: s.to_string(),
        };
        let (kind, n) = s.split_once(' ').ok_or_else(shape)?;
        let n: u16 = n.parse().map_err(|_| ParseValueError::Remoteness {
            text: s.to_string(),
        })?;
        match kind {
            "win" => Ok(Value::Win(n)),
            "loss" => Ok(Value::Loss(n)),
            _ => Err(shape()),
        }
    }
}

/// Outcome class without remoteness.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Wdl {
    /// A win.
    Win,
    /// A draw.
    Draw,
    /// A loss.
    Loss,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trip() {
        for v in [
            Value::Draw,
            Value::Win(0),
            Value::Win(1),
            Value::Loss(0),
            Value::Loss(7),
            Value::Win(MAX_REMOTENESS),
            Value::Loss(MAX_REMOTENESS),
        ] {
            assert_ne!(v.pack(), UNDECIDED);
            assert_eq!(Value::unpack(v.pack()), Some(v));
        }
        assert_eq!(Value::unpack(UNDECIDED), None);
    }

    #[test]
    fn ordering_prefers_fast_wins_and_slow_losses() {
        assert!(Value::Win(1) > Value::Win(3));
        assert!(Value::Win(99) > Value::Draw);
        assert!(Value::Draw > Value::Loss(99));
        assert!(Value::Loss(9) > Value::Loss(2));
    }

    #[test]
    fn move_value_counts_the_move() {
        assert_eq!(Value::of_move_to(Value::Loss(0)), Value::Win(1));
        assert_eq!(Value::of_move_to(Value::Win(4)), Value::Loss(5));
        assert_eq!(Value::of_move_to(Value::Draw), Value::Draw);
    }

    #[test]
    fn text_round_trip() {
        for s in ["win 7", "loss 0", "draw"] {
            assert_eq!(s.parse::<Value>().unwrap().to_string(), s);
        }
        assert!("win".parse::<Value>().is_err());
        assert!("tie 3".parse::<Value>().is_err());
    }
}
