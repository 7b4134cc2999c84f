//! The games qibase knows, and the registry that maps a game id to its rules.
//!
//! Board size, material and setup are data: the variants are the same Rust
//! types built with other parameters.

mod any_entry;
mod any_tablebase;
pub mod cannon_chess;
pub mod cannons;
mod describe;
mod error;
#[doc(hidden)]
pub mod grid;
#[doc(hidden)]
pub mod rules_hash;
pub mod variant;
pub mod weiming;

pub use any_tablebase::AnyTablebase;
pub use cannon_chess::{CannonChess, CannonChessParams};
pub use cannons::{Cannons, CannonsParams};
pub use describe::Describe;
pub use error::SpecError;
pub use weiming::Weiming;

/// Every game id, in the order `qibase games` lists them.
pub const GAME_IDS: [&str; 5] = [
    "weiming",
    "cannon-chess",
    "two-cannons",
    "cannon-chess-4x4",
    "three-cannons",
];

/// One concrete game, chosen at run time. Use [`with_game!`](crate::with_game)
/// to run generic code on it.
pub enum AnyGame {
    /// `cannon-chess`, `cannon-chess-4x4` and their variants.
    CannonChess(CannonChess),
    /// `weiming`.
    Weiming(Weiming),
    /// `two-cannons`, `three-cannons` and their variants.
    Cannons(Cannons),
}

impl AnyGame {
    /// The game with this id or variant (`GAME:key=value,…`, see
    /// [`variant`]), or an error whose message names the known ids, or the
    /// bad key or value and the allowed ones.
    ///
    /// # Errors
    ///
    /// [`SpecError::UnknownGame`] for an unknown id; as [`variant::split`]
    /// and each family's `set` and `build` for a bad variant.
    pub fn from_id(spec: &str) -> Result<AnyGame, SpecError> {
        Self::from_id_with(spec, true)
    }

    /// [`from_id`](Self::from_id), made once per id or variant string and
    /// kept for the process's lifetime (a game is a few kilobytes of
    /// tables): what a front end hands out to handles that borrow it, so
    /// that calls need not build it again.
    ///
    /// # Errors
    ///
    /// As [`from_id`](Self::from_id).
    pub fn shared(spec: &str) -> Result<&'static AnyGame, SpecError> {
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static GAMES: OnceLock<Mutex<HashMap<String, &'static AnyGame>>> = OnceLock::new();
        let mut made = GAMES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(g) = made.get(spec) {
            return Ok(g);
        }
        let g: &'static AnyGame = Box::leak(Box::new(AnyGame::from_id(spec)?));
        made.insert(spec.to_string(), g);
        Ok(g)
    }

    /// [`from_id`](Self::from_id); with `tables` false, a game whose
    /// numbering keeps its sizes only (see [`VariantSizes`]).
    fn from_id_with(spec: &str, tables: bool) -> Result<AnyGame, SpecError> {
        let raw = variant::split(spec)?;
        if let Some(mut p) = CannonChessParams::preset(raw.base) {
            for (k, v) in raw.params {
                p.set(k, v)?;
            }
            return p.build_with(tables).map(AnyGame::CannonChess);
        }
        if let Some(mut p) = CannonsParams::preset(raw.base) {
            for (k, v) in raw.params {
                p.set(k, v)?;
            }
            return p.build_with(tables).map(AnyGame::Cannons);
        }
        match raw.base {
            "weiming" if raw.params.is_empty() => Ok(AnyGame::Weiming(Weiming::new())),
            "weiming" => Err(SpecError::UnknownKey {
                game: "weiming".to_string(),
                key: raw.params[0].0.to_string(),
                allowed: Vec::new(),
            }),
            base => Err(SpecError::UnknownGame {
                id: base.to_string(),
            }),
        }
    }
}

impl AnyGame {
    /// The family's disputed rule readings as `key=value` switches (for
    /// the report; none for weiming).
    pub fn rule_switches(&self) -> &'static [&'static str] {
        match self {
            AnyGame::CannonChess(_) => CannonChessParams::RULE_SWITCHES,
            AnyGame::Cannons(_) => CannonsParams::RULE_SWITCHES,
            AnyGame::Weiming(_) => &[],
        }
    }

    /// Plausible start boards of the game's material, as (label, board
    /// part of a position), its own setup first (for the report; none
    /// known for weiming).
    pub fn plausible_setups(&self) -> Vec<(String, String)> {
        match self {
            AnyGame::CannonChess(g) => g.plausible_setups(),
            AnyGame::Cannons(g) => g.plausible_setups(),
            AnyGame::Weiming(_) => Vec::new(),
        }
    }
}

/// The tiers of a variant and their sizes, also of a variant too large to
/// build: its numbering tables (one entry per point set of a piece kind)
/// would not fit, but its tier sizes follow from counts alone (orbits of
/// point sets by Burnside's lemma, times binomials). What `solve
/// --estimate` needs, for every variant that parses.
pub struct VariantSizes {
    /// The game itself, or one built with counts only: either way only its
    /// tier names, sizes and dependencies are asked of it here.
    game: AnyGame,
    refusal: Option<SpecError>,
}

impl VariantSizes {
    /// The sizes of the variant `spec`.
    ///
    /// # Errors
    ///
    /// As [`AnyGame::from_id`], except that numbering tables too large to
    /// build are not an error here but [`refusal`](Self::refusal).
    pub fn of(spec: &str) -> Result<VariantSizes, SpecError> {
        match AnyGame::from_id(spec) {
            Ok(game) => Ok(VariantSizes {
                game,
                refusal: None,
            }),
            // Built without tables, only their size can have been the
            // reason; any other mistake fails again.
            Err(e) => Ok(VariantSizes {
                game: AnyGame::from_id_with(spec, false)?,
                refusal: Some(e),
            }),
        }
    }

    /// Why the variant cannot be built (so neither solved nor played): its
    /// numbering tables would be too large. `None` for every other variant.
    pub fn refusal(&self) -> Option<&SpecError> {
        self.refusal.as_ref()
    }

    /// The game itself, for every command: `None` when it could not be
    /// built (see [`refusal`](Self::refusal)).
    pub fn into_game(self) -> Option<AnyGame> {
        self.refusal.is_none().then_some(self.game)
    }

    /// The canonical name.
    pub fn id(&self) -> &str {
        crate::with_game!(self.game, |g| crate::game::Tiers::id(g))
    }

    /// The title.
    pub fn title(&self) -> &str {
        crate::with_game!(self.game, |g| crate::game::Notation::title(g))
    }

    /// The tiers in solve order (or the closed subset, see
    /// [`Tiers::tiers`](crate::game::Tiers::tiers)).
    pub fn tiers(&self, max_pieces: Option<u32>) -> Vec<crate::game::TierKey> {
        crate::with_game!(self.game, |g| crate::game::Tiers::tiers(g, max_pieces))
    }

    /// A tier's name.
    pub fn tier_name(&self, t: crate::game::TierKey) -> String {
        crate::with_game!(self.game, |g| crate::game::Tiers::tier_name(g, t))
    }

    /// A tier's index slots, saturating at `u64::MAX`.
    pub fn tier_size(&self, t: crate::game::TierKey) -> u64 {
        crate::with_game!(self.game, |g| crate::game::Tiers::tier_size(g, t))
    }

    /// The positions a tier's slots stand for, saturating at `u64::MAX`.
    pub fn tier_positions(&self, t: crate::game::TierKey) -> u64 {
        crate::with_game!(self.game, |g| crate::game::Tiers::tier_positions(g, t))
    }

    /// The tiers a tier's captures lead to.
    pub fn tier_deps(&self, t: crate::game::TierKey) -> Vec<crate::game::TierKey> {
        crate::with_game!(self.game, |g| crate::game::Tiers::tier_deps(g, t))
    }

    /// A bound on the distinct non-capturing moves of any position.
    pub fn max_in_tier_moves(&self) -> u32 {
        match &self.game {
            AnyGame::CannonChess(g) => g.max_in_tier_moves(),
            AnyGame::Cannons(g) => g.max_in_tier_moves(),
            // Three own pieces and the shared piece, at most six lines each.
            AnyGame::Weiming(_) => 4 * 6,
        }
    }
}

/// Run `$body` with `$g` bound to the concrete game inside an [`AnyGame`];
/// the body is compiled once per game type, so generic code stays monomorphic.
#[macro_export]
macro_rules! with_game {
    ($any:expr, |$g:ident| $body:expr) => {
        match $any {
            $crate::games::AnyGame::CannonChess(ref $g) => $body,
            $crate::games::AnyGame::Weiming(ref $g) => $body,
            $crate::games::AnyGame::Cannons(ref $g) => $body,
        }
    };
}
