//! [`SpecError`]: why a game id or variant string names no game.

use std::fmt;

use super::GAME_IDS;
use crate::game::error::OneLine;
use crate::game::ParseError;

/// Why `AnyGame::from_id` (or a family's parameters) refused a game id or
/// variant string `GAME:key=value,…`. The message is the one line users
/// see ([`Display`](fmt::Display)); the variant says what kind of mistake
/// it is.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SpecError {
    /// No game has this id.
    UnknownGame {
        /// The id as given.
        id: String,
    },
    /// The `GAME:key=value,…` syntax is broken (a parameter without `=`,
    /// an empty key or value, a key given twice).
    Malformed {
        /// What is wrong, in one line.
        message: String,
    },
    /// A key the game's family does not know.
    UnknownKey {
        /// The game (preset) it was given to.
        game: String,
        /// The key as given.
        key: String,
        /// The keys the family knows (none: the game takes no parameters).
        allowed: Vec<&'static str>,
    },
    /// A value outside its key's range.
    BadValue {
        /// The key.
        key: String,
        /// The value as given.
        value: String,
        /// The values the key accepts, in words.
        allowed: String,
    },
    /// Values that are each well formed but that the game cannot take or
    /// that do not fit together (board size, material, threshold).
    Unsupported {
        /// What is wrong, in one line.
        message: String,
    },
    /// The `setup=` value (or a start position) is not a position of the
    /// variant.
    BadSetup {
        /// The variant's name.
        game: String,
        /// The setup as given.
        setup: String,
        /// Why it is not a position.
        error: ParseError,
    },
}

impl SpecError {
    /// The error as seen from game `name` (an [`Unsupported`] message is
    /// prefixed with it).
    ///
    /// [`Unsupported`]: SpecError::Unsupported
    pub fn in_game(self, name: &str) -> SpecError {
        match self {
            SpecError::Unsupported { message } => SpecError::Unsupported {
                message: format!("{name}: {message}"),
            },
            e => e,
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        // Each one line, whatever the user's text holds.
        let f = &mut OneLine(f);
        match self {
            SpecError::UnknownGame { id } => write!(
                f,
                "unknown game '{id}' (known games: {}; variants: GAME:key=value,…, see qibase --help)",
                GAME_IDS.join(", ")
            ),
            SpecError::Malformed { message } | SpecError::Unsupported { message } => {
                f.write_str(message)
            }
            SpecError::UnknownKey { game, key, allowed } if allowed.is_empty() => {
                write!(f, "{game} has no parameters (got '{key}')")
            }
            SpecError::UnknownKey { game, key, allowed } => write!(
                f,
                "unknown parameter '{key}' for {game} (allowed: {})",
                allowed.join(", ")
            ),
            SpecError::BadValue {
                key,
                value,
                allowed,
            } => write!(
                f,
                "bad value '{value}' for parameter '{key}' (allowed: {allowed})"
            ),
            SpecError::BadSetup { game, setup, error } => {
                write!(f, "{game}: bad setup '{setup}': {error}")
            }
        }
    }
}

impl std::error::Error for SpecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SpecError::BadSetup { error, .. } => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::games::AnyGame;

    /// A game id or a setup pasted with a newline or a NUL in it is
    /// refused on one line, the characters shown as escapes (found by
    /// fuzzing the variant specs).
    #[test]
    fn errors_quoting_the_users_text_stay_on_one_line() {
        for spec in [
            "two-cannons:setup=SSSnnon-chesr6sdb\n\0\0..C.",
            "no\ngame",
            "cannon-chess:tiao=x\ny",
            "weiming:k\0=1",
        ] {
            let Err(e) = AnyGame::from_id(spec) else {
                panic!("{spec:?} accepted")
            };
            let e = e.to_string();
            assert!(!e.contains(|c: char| c.is_control()), "{spec:?}: {e:?}");
        }
        let Err(e) = AnyGame::from_id("two-cannons:setup=SS\nC") else {
            panic!("accepted")
        };
        let e = e.to_string();
        assert!(e.contains("\\n"), "{e}");
    }
}
