//! The one identity check of a tier file, fast or compact: that its header
//! names the game, the rules, the tier and the slot count asked for.

use std::path::Path;

use super::{Mismatch, TbError, TierMeta};
use crate::game::TierKey;

impl TierMeta {
    /// Check that this header (of the file at `path`, a compact one if
    /// `compact`) holds tier `tier` of `game` under the rules with hash
    /// `rules_hash`, and, when `positions` is given, that it numbers the
    /// tier with that many slots.
    ///
    /// # Errors
    /// [`TbError::Foreign`] with the first [`Mismatch`] found.
    pub fn check(
        &self,
        path: &Path,
        game: &str,
        rules_hash: u64,
        tier: TierKey,
        positions: Option<u64>,
        compact: bool,
    ) -> Result<(), TbError> {
        let mismatch = if self.game != game {
            Mismatch::Game {
                found: self.game.clone(),
                expected: game.to_string(),
            }
        } else if self.rules_hash != rules_hash {
            Mismatch::Rules {
                game: game.to_string(),
                found: self.rules_hash,
                expected: rules_hash,
            }
        } else if self.tier != tier {
            Mismatch::Tier {
                found_name: self.tier_name.clone(),
                found: self.tier,
                expected: tier,
            }
        } else if positions.is_some_and(|n| n != self.positions) {
            Mismatch::Positions {
                tier: self.tier_name.clone(),
                found: self.positions,
                expected: positions.unwrap_or_default(),
            }
        } else {
            return Ok(());
        };
        Err(TbError::foreign(path, mismatch, compact))
    }
}
