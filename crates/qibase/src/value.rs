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

/// A value packed in 16 bits, as the solver's arrays and the tablebases
/// hold it. This type is the only code that knows the encoding: `0` is
/// "not decided yet" ([`Packed::UNDECIDED`]: a slot that holds no
/// position, or the solver has not reached), `1` is a draw, `2 + 2r` a
/// loss in `r` and `3 + 2r` a win in `r`. Others store and move the raw
/// 16-bit word ([`Packed::to_bits`], [`Packed::from_bits`]) without
/// reading it.
///
/// `repr(transparent)`: a `Packed` is laid out as its `u16`, so slices of
/// them can be viewed as 16-bit words (the solver's atomic state words).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Packed(u16);

/// The packed "undecided" marker ([`Packed::UNDECIDED`]).
pub const UNDECIDED: Packed = Packed::UNDECIDED;

/// Largest remoteness that fits the packing.
pub const MAX_REMOTENESS: u16 = (u16::MAX - 3) / 2;

impl Packed {
    /// Not decided: the slot holds no position, or the solver has not
    /// decided it yet. All bits zero.
    pub const UNDECIDED: Packed = Packed(0);
    /// A draw.
    pub const DRAW: Packed = Packed(1);

    /// The raw 16-bit word, to store as is.
    #[inline]
    pub const fn to_bits(self) -> u16 {
        self.0
    }

    /// The packed value whose raw word is `bits` (every word is one).
    #[inline]
    pub const fn from_bits(bits: u16) -> Packed {
        Packed(bits)
    }

    /// Pack `v` (never [`Packed::UNDECIDED`]).
    ///
    /// A remoteness over [`MAX_REMOTENESS`] does not fit (the arithmetic
    /// overflows).
    #[inline]
    pub const fn of(v: Value) -> Packed {
        match v {
            Value::Draw => Packed::DRAW,
            Value::Loss(r) => Packed(2 + 2 * r),
            Value::Win(r) => Packed(3 + 2 * r),
        }
    }

    /// A win (`win`) or a loss in `remoteness` plies, which must be at
    /// most [`MAX_REMOTENESS`] (for decoders that know the two apart).
    #[inline]
    pub const fn decisive(win: bool, remoteness: u16) -> Packed {
        Packed(2 + 2 * remoteness + win as u16)
    }

    /// The value; `None` if undecided.
    #[inline]
    pub const fn value(self) -> Option<Value> {
        match self.0 {
            0 => None,
            1 => Some(Value::Draw),
            p if p & 1 == 0 => Some(Value::Loss((p - 2) / 2)),
            p => Some(Value::Win((p - 3) / 2)),
        }
    }

    /// Whether a value is stored (anything but [`Packed::UNDECIDED`]).
    #[inline]
    pub const fn is_decided(self) -> bool {
        self.0 != 0
    }

    /// Win, draw or loss; `None` if undecided.
    #[inline]
    pub const fn wdl(self) -> Option<Wdl> {
        match self.0 {
            0 => None,
            1 => Some(Wdl::Draw),
            p if p & 1 == 0 => Some(Wdl::Loss),
            _ => Some(Wdl::Win),
        }
    }

    /// The remoteness of a win or a loss; `None` for a draw or undecided.
    #[inline]
    pub const fn remoteness(self) -> Option<u16> {
        match self.0 {
            0 | 1 => None,
            p => Some((p - 2) / 2),
        }
    }

    /// The value, undecided read as a draw: how a tablebase stores a slot
    /// that holds no position.
    #[inline]
    pub const fn or_draw(self) -> Packed {
        if self.0 == 0 {
            Packed::DRAW
        } else {
            self
        }
    }

    /// A vector of 16-bit words as packed values, without a copy.
    pub(crate) fn vec_from_bits(words: Vec<u16>) -> Vec<Packed> {
        bytemuck::allocation::cast_vec(words)
    }

    /// Packed values as their 16-bit words.
    pub(crate) fn slice_as_bits(values: &[Packed]) -> &[u16] {
        bytemuck::cast_slice(values)
    }

    /// Packed values as their 16-bit words.
    pub(crate) fn slice_as_bits_mut(values: &mut [Packed]) -> &mut [u16] {
        bytemuck::cast_slice_mut(values)
    }
}

impl From<Value> for Packed {
    #[inline]
    fn from(v: Value) -> Packed {
        Packed::of(v)
    }
}

impl Value {
    /// Pack into 16 bits (never returns [`UNDECIDED`]).
    #[inline]
    pub fn pack(self) -> Packed {
        Packed::of(self)
    }

    /// Unpack; `None` for [`UNDECIDED`].
    #[inline]
    pub fn unpack(p: Packed) -> Option<Value> {
        p.value()
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
    fn packed_words_and_classes() {
        // The encoding, word by word.
        assert_eq!(Packed::UNDECIDED.to_bits(), 0);
        assert_eq!(Value::Draw.pack().to_bits(), 1);
        assert_eq!(Value::Loss(0).pack().to_bits(), 2);
        assert_eq!(Value::Win(0).pack().to_bits(), 3);
        assert_eq!(Value::Loss(7).pack().to_bits(), 16);
        assert_eq!(Value::Win(MAX_REMOTENESS).pack().to_bits(), u16::MAX);
        for bits in 0..=u16::MAX {
            let p = Packed::from_bits(bits);
            assert_eq!(p.to_bits(), bits);
            assert_eq!(p.is_decided(), bits != 0);
            let v = p.value();
            assert_eq!(p.wdl(), v.map(Value::wdl));
            assert_eq!(p.remoteness(), v.and_then(Value::remoteness));
            match v {
                Some(v) => assert_eq!(v.pack(), p),
                None => assert_eq!(p.or_draw(), Packed::DRAW),
            }
            if let Some(Value::Win(r) | Value::Loss(r)) = v {
                let win = matches!(v, Some(Value::Win(_)));
                assert_eq!(Packed::decisive(win, r), p);
            }
        }
        let mut words = vec![0u16, 1, 2, 3];
        let mut values = Packed::vec_from_bits(words.clone());
        assert_eq!(values[3], Value::Win(0).pack());
        Packed::slice_as_bits_mut(&mut values)[1] = 5;
        words[1] = 5;
        assert_eq!(Packed::slice_as_bits_mut(&mut values), &words[..]);
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
