//! The game API, split by who uses it.
//!
//! Modelled on GamesmanOne's split between a game API and a generic tier
//! solver: a game knows its rules, its notation and how to number its
//! positions densely inside each *tier* (a material class closed under
//! non-capturing moves); the solver knows no game. The API is three traits,
//! one per kind of caller:
//!
//! * [`Rules`] — the start position, the legal moves, their effect, the
//!   ends of the game and the time-out pass: what play, analysis and perft
//!   need.
//! * [`Notation`] — position and move strings, diagrams, point names,
//!   board geometry, titles and the words for the ends of the game: what
//!   the command line, the HTTP server and the report show.
//! * [`Tiers`] — tiers, dense numbering, un-moves, symmetry and the
//!   identity recorded in tablebase headers: what the solver and the
//!   tablebase need (the solver is bound on `Tiers` alone; it requires
//!   `Rules` as a supertrait for the end rules and move generation).
//!
//! [`Game`] is all three, blanket-implemented, for code that needs
//! everything (analysis, the CLI) and wants to name one bound. Everything
//! stays generic and monomorphic: no trait objects on the hot paths.

pub(crate) mod error;
mod notation;
mod rules;
mod tiers;

pub use error::{InputKind, ParseError};
pub use notation::{GeoPoint, Geometry, MovePoints, Notation};
pub use rules::Rules;
pub use tiers::{child_ranks_by_moves, unmove_ranks_by_unmoves, Tiers};

use std::fmt;

use crate::value::Value;

/// The two players. `First` moves first from the start position
/// (`X` in the cannon-chess and weiming games, the cannons in the cannon games).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Side {
    /// The player who moves first from the start position.
    First,
    /// The other player.
    Second,
}

impl Side {
    /// The opponent.
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
}

/// Why a game ended, in terms any game can use; a game's own words for it
/// come from [`Notation::describe_end`] (its [`Display`](fmt::Display) is
/// the generic wording).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// The side to move has no pieces left (all were captured).
    NoPiecesLeft,
    /// The opponent of the side to move has no pieces left; only reachable
    /// by placement, never by play (value `win 0`).
    OpponentHasNoPieces,
    /// Both sides are down to `pieces` pieces: a draw by rule.
    BothDownTo {
        /// Pieces each side has left.
        pieces: u32,
    },
    /// The side to move has no legal move: it loses.
    NoLegalMove,
    /// `side` has fewer pieces than `threshold` left: it has lost.
    TooFewPieces {
        /// The side that fell short.
        side: Side,
        /// The fewest pieces it needs to play on.
        threshold: u32,
    },
    /// No piece of `side` can move, and the rules end the game at once
    /// (whoever is to move): `side` has lost.
    Immobile {
        /// The side whose pieces are stuck.
        side: Side,
    },
}

impl fmt::Display for EndReason {
    /// The generic wording (a game may say it its own way, see
    /// [`Notation::describe_end`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let player = |s: Side| match s {
            Side::First => "the first player",
            Side::Second => "the second player",
        };
        match *self {
            EndReason::NoPiecesLeft => f.write_str("the side to move has no pieces left"),
            EndReason::OpponentHasNoPieces => f.write_str("the opponent has no pieces left"),
            EndReason::BothDownTo { pieces: 1 } => f.write_str("both sides are down to one piece"),
            EndReason::BothDownTo { pieces } => {
                write!(f, "both sides are down to {pieces} pieces")
            }
            EndReason::NoLegalMove => f.write_str("the side to move has no legal move"),
            EndReason::TooFewPieces { side, threshold } => {
                write!(f, "{} has fewer than {threshold} pieces", player(side))
            }
            EndReason::Immobile { side } => write!(f, "no piece of {} can move", player(side)),
        }
    }
}

/// The end of a game in a position: its value (side to move's view, always
/// remoteness 0 or draw) and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GameEnd {
    /// The position's value for the side to move.
    pub value: Value,
    /// Why the game is over.
    pub reason: EndReason,
}

/// A tier key, encoded by the game (e.g. soldier count, or piece counts).
/// Only the game interprets it; the solver treats it as an opaque id.
pub type TierKey = u32;

/// A whole game: its [`Rules`], [`Notation`] and [`Tiers`]. Implemented
/// for every type that implements the three, so callers needing all of
/// them name one bound.
///
/// Contract between the methods, relied on by the solver and by tests
/// (checked by [`crate::contract::check_game`]):
/// * `rank(tier_of(p), p)` is `< tier_size(tier_of(p))`, and
///   `rank(t, unrank(t, i)) == i` for every index `i` of every tier `t`
///   whose slot holds a position (with symmetry reduction a game may leave
///   unused slots: `rank(t, unrank(t, i)) != i` marks one, and positions
///   equivalent by symmetry share one rank).
/// * Every move from a position goes either to the same tier (a
///   non-capturing move) or to one of `tier_deps(tier)`.
/// * `unmoves(p)` lists every position `q` in `tier_of(p)` with no
///   `rule_end`, and a legal move `q -> p` (each such `q` at least once).
/// * `parse_pos(format_pos(p)) == p` and `parse_move(p, format_move(m)) == m`.
pub trait Game: Rules + Notation + Tiers {}

impl<G: Rules + Notation + Tiers + ?Sized> Game for G {}
