//! The games qibase knows, and the registry that maps a game id to its rules.
//!
//! Board size, material and setup are data: the variants are the same Rust
//! types built with other parameters.

pub mod cannon_chess;
pub mod cannons;
mod error;
pub mod grid;
pub mod rules_hash;
pub mod variant;
pub mod weiming;

pub use cannon_chess::{CannonChess, CannonChessParams};
pub use cannons::{Cannons, CannonsParams};
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
        let raw = variant::split(spec)?;
        if let Some(mut p) = CannonChessParams::preset(raw.base) {
            for (k, v) in raw.params {
                p.set(k, v)?;
            }
            return p.build().map(AnyGame::CannonChess);
        }
        if let Some(mut p) = CannonsParams::preset(raw.base) {
            for (k, v) in raw.params {
                p.set(k, v)?;
            }
            return p.build().map(AnyGame::Cannons);
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
