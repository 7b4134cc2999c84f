//! The solver's limits, defined once, and the check that refuses a game
//! the solver cannot take before any work starts.
//!
//! * A tier's state words must fit the address space: [`MAX_TIER_SLOTS`].
//!   (Tiers of up to 2^32 slots keep 32-bit slot numbers in their queues
//!   and messages, larger ones 64-bit numbers; see `slot.rs`.)
//! * An undecided position counts its undecided distinct in-tier children
//!   in 7 bits of its 16-bit state word: [`MAX_IN_TIER_CHILDREN`].
//! * A decided value shares the state word with the open states, so its
//!   packed form must stay below them: [`MAX_REMOTENESS`] (tablebase
//!   files could hold more, [`crate::value::MAX_REMOTENESS`]).
//!
//! [`check_limits`] checks the tier sizes, and a bound on the in-tier
//! children when the caller knows one; [`solve_game`](super::solve_game)
//! calls it before solving. The child counter cannot be checked up front
//! for any game (the [`Tiers`] trait states no bound), so the initial pass
//! of a tier also checks every position's count and stops the tier with
//! [`LimitError::TooManyChildren`]. The remoteness is known only as the
//! solve goes; no game here comes near the limit (the longest values are
//! a few hundred plies), and reaching it panics.

use std::fmt;

use super::state;
use crate::game::{TierKey, Tiers};

/// Most index slots in one tier: 2^46, whose 16-bit state words take
/// 128 TiB, all of the user address space of x86-64's 4-level page tables.
/// Memory, not this, bounds every variant a machine can solve (`qibase
/// solve --estimate` says how much a variant needs).
pub const MAX_TIER_SLOTS: u64 = 1 << 46;

/// Most distinct in-tier children (successors in the same tier) one
/// position may have: the undecided ones are counted in 7 bits of the
/// position's state word.
pub const MAX_IN_TIER_CHILDREN: u32 = state::COUNT as u32;

/// Largest remoteness, in plies, the solver can store: a decided value's
/// packed form must stay below the open states of the state word.
pub const MAX_REMOTENESS: u16 = (state::OPEN - 4) / 2;

/// Why the solver cannot take a game (or a tier of it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitError {
    /// A tier has more index slots than [`MAX_TIER_SLOTS`].
    TierTooLarge {
        /// The tier's name ([`Tiers::tier_name`]).
        tier: String,
        /// Its index slots.
        slots: u64,
    },
    /// A position may have more distinct in-tier children than
    /// [`MAX_IN_TIER_CHILDREN`].
    TooManyChildren {
        /// The tier's name, when a position of it was found with too many;
        /// `None` when only the caller's bound is over the limit.
        tier: Option<String>,
        /// The number of children (found, or the caller's bound).
        children: u32,
    },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::TierTooLarge { tier, slots } => write!(
                f,
                "tier {tier} has {slots} index slots, over the solver's limit of 2^46 ({MAX_TIER_SLOTS}): its state words would not fit the address space"
            ),
            LimitError::TooManyChildren { tier, children } => {
                let at = tier.as_ref().map_or(String::new(), |t| format!(" in tier {t}"));
                write!(
                    f,
                    "a position{at} may have up to {children} distinct moves, more than the solver's 7-bit counter holds ({MAX_IN_TIER_CHILDREN})"
                )
            }
        }
    }
}

impl std::error::Error for LimitError {}

/// Check the tiers of `g` (or of the subset of at most `max_pieces`)
/// against the solver's limits, and `max_children`, a bound on any
/// position's distinct in-tier children, when the caller knows one.
///
/// # Errors
///
/// [`LimitError::TierTooLarge`] for the first tier over
/// [`MAX_TIER_SLOTS`]; [`LimitError::TooManyChildren`] if `max_children`
/// is over [`MAX_IN_TIER_CHILDREN`].
pub fn check_limits<G: Tiers>(
    g: &G,
    max_pieces: Option<u32>,
    max_children: Option<u32>,
) -> Result<(), LimitError> {
    for t in g.tiers(max_pieces) {
        check_tier_size(g, t)?;
    }
    match max_children {
        Some(children) if children > MAX_IN_TIER_CHILDREN => Err(LimitError::TooManyChildren {
            tier: None,
            children,
        }),
        _ => Ok(()),
    }
}

/// The size check of one tier.
pub(super) fn check_tier_size<G: Tiers>(g: &G, t: TierKey) -> Result<(), LimitError> {
    check_slots(g.tier_size(t), || g.tier_name(t))
}

/// The size check of a tier of `slots` slots, named by `tier`.
fn check_slots(slots: u64, tier: impl FnOnce() -> String) -> Result<(), LimitError> {
    if slots > MAX_TIER_SLOTS {
        return Err(LimitError::TierTooLarge {
            tier: tier(),
            slots,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::AnyGame;
    use crate::value::Value;

    #[test]
    fn limits_match_the_state_word() {
        // The largest remoteness packs below the open states; one more
        // does not.
        for v in [Value::Win(MAX_REMOTENESS), Value::Loss(MAX_REMOTENESS)] {
            assert!(v.pack().to_bits() < state::OPEN, "{v}");
        }
        assert!(Value::Win(MAX_REMOTENESS + 1).pack().to_bits() >= state::OPEN);
        assert_eq!(MAX_IN_TIER_CHILDREN, 127);
        assert_eq!(MAX_TIER_SLOTS, 70_368_744_177_664);
    }

    #[test]
    fn check_refuses_large_tiers_and_many_children() {
        let small = AnyGame::from_id("cannon-chess-4x4").unwrap();
        crate::with_game!(small, |g| {
            assert_eq!(check_limits(g, None, Some(MAX_IN_TIER_CHILDREN)), Ok(()));
            let err = check_limits(g, None, Some(MAX_IN_TIER_CHILDREN + 1)).unwrap_err();
            assert_eq!(
                err,
                LimitError::TooManyChildren {
                    tier: None,
                    children: 128
                }
            );
        });
        // Tiers over 2^32 slots are taken now (64-bit slot numbers).
        let wide = AnyGame::from_id("cannon-chess:board=8x4,pieces=7").unwrap();
        crate::with_game!(wide, |g| {
            assert!(g.tiers(None).iter().any(|&t| g.tier_size(t) > 1 << 32));
            assert_eq!(check_limits(g, None, None), Ok(()));
        });
        // Over the address space (no game here has such a tier).
        assert_eq!(check_slots(MAX_TIER_SLOTS, || "k1".into()), Ok(()));
        let err = check_slots(MAX_TIER_SLOTS + 1, || "k1".into()).unwrap_err();
        assert!(err.to_string().contains("tier k1"), "{err}");
        assert!(err.to_string().contains("2^46"), "{err}");
    }
}
