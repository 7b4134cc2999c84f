//! [`ParseError`]: why a position or move string was not accepted.

use std::fmt;

/// Which kind of text a [`ParseError`] is about.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum InputKind {
    /// A position string.
    Position,
    /// A move string.
    Move,
}

/// Why a position or move string was not accepted: text that does not
/// follow the notation, a well-formed position the rules do not allow, or
/// a well-formed move that is not legal where it is played. The message
/// is the one line users see ([`Display`](fmt::Display)); callers tell
/// the cases apart by the variant (e.g. the HTTP server's `bad_position`
/// and `bad_move` codes, the command line's exit code).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParseError {
    /// The text does not follow the notation: wrong shape, unknown
    /// characters or point names, a missing or extra field.
    Malformed {
        /// A position or a move.
        kind: InputKind,
        /// What is wrong, in one line.
        message: String,
    },
    /// A well-formed position that the rules do not allow (the wrong
    /// material).
    IllegalPosition {
        /// What is wrong, in one line.
        message: String,
    },
    /// A well-formed move that is not legal in the position (including:
    /// the game is over there).
    IllegalMove {
        /// Why not, in one line.
        message: String,
    },
}

impl ParseError {
    /// A position string that does not follow the notation.
    pub fn malformed_position(message: impl Into<String>) -> ParseError {
        ParseError::Malformed {
            kind: InputKind::Position,
            message: message.into(),
        }
    }

    /// A move string that does not follow the notation.
    pub fn malformed_move(message: impl Into<String>) -> ParseError {
        ParseError::Malformed {
            kind: InputKind::Move,
            message: message.into(),
        }
    }

    /// A well-formed position the rules do not allow.
    pub fn illegal_position(message: impl Into<String>) -> ParseError {
        ParseError::IllegalPosition {
            message: message.into(),
        }
    }

    /// A well-formed move that is not legal in the position.
    pub fn illegal_move(message: impl Into<String>) -> ParseError {
        ParseError::IllegalMove {
            message: message.into(),
        }
    }

    /// Whether a position or a move was rejected.
    pub fn kind(&self) -> InputKind {
        match self {
            ParseError::Malformed { kind, .. } => *kind,
            ParseError::IllegalPosition { .. } => InputKind::Position,
            ParseError::IllegalMove { .. } => InputKind::Move,
        }
    }

    /// The one-line message.
    pub fn message(&self) -> &str {
        match self {
            ParseError::Malformed { message, .. }
            | ParseError::IllegalPosition { message }
            | ParseError::IllegalMove { message } => message,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Write::write_str(&mut OneLine(f), self.message())
    }
}

/// A writer that keeps an error message on one line whatever text it
/// quotes: control characters (a newline or a NUL in a pasted position,
/// say) pass as their escapes (`\n`, `\u{0}`). Error messages quote what
/// the user gave, and front ends print each as one line.
pub(crate) struct OneLine<'a, 'b>(pub &'a mut fmt::Formatter<'b>);

impl fmt::Write for OneLine<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for part in s.split_inclusive(char::is_control) {
            match part.char_indices().last() {
                Some((at, c)) if c.is_control() => {
                    self.0.write_str(&part[..at])?;
                    write!(self.0, "{}", c.escape_default())?;
                }
                _ => self.0.write_str(part)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}
