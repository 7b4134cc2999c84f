//! The games qibase knows, and the registry that maps a game id to its rules.
//!
//! Board size, material and setup are data: the variants are the same Rust
//! types built with other parameters.

pub mod cannon_chess;
pub mod cannons;
pub mod grid;
pub mod rules_hash;
pub mod weiming;

pub use cannon_chess::CannonChess;
pub use cannons::Cannons;
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
    CannonChess(CannonChess),
    Weiming(Weiming),
    Cannons(Cannons),
}

impl AnyGame {
    /// The game with this id, or an error naming the known ids.
    pub fn from_id(id: &str) -> Result<AnyGame, String> {
        Ok(match id {
            "weiming" => AnyGame::Weiming(Weiming::new()),
            "cannon-chess" => AnyGame::CannonChess(CannonChess::standard()),
            "cannon-chess-4x4" => AnyGame::CannonChess(CannonChess::four_by_four()),
            "two-cannons" => AnyGame::Cannons(Cannons::two_cannons()),
            "three-cannons" => AnyGame::Cannons(Cannons::three_cannons()),
            _ => {
                return Err(format!(
                    "unknown game '{id}' (known games: {})",
                    GAME_IDS.join(", ")
                ))
            }
        })
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
