//! The JSON of a reviewed game ([`qibase::analysis::annotate`]): one
//! object per ply, the same in `qibase annotate --json` (one a line) and
//! in the HTTP `annotate` answer (a list), so the two agree.

use serde::{Deserialize, Serialize};

use super::{code, side_letter, ApiError, MoveJson, ValueJson};
use qibase::analysis::annotate::{AnnotateError, AnnotatedPly};
use qibase::Game;

/// Most moves one review takes (a game of the app is far shorter).
pub const MAX_REVIEW_MOVES: usize = 400;

/// One ply of a reviewed game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PlyJson {
    /// The ply's number, from 1.
    pub ply: usize,
    /// The position the move was played in.
    pub position: String,
    pub side_to_move: String,
    /// The value of `position` for the mover.
    #[serde(flatten)]
    pub value: ValueJson,
    /// The move played, with its value for the mover.
    pub played: MoveJson,
    /// The best move of `position`.
    pub best: MoveJson,
    /// Whether the move changed the result for the worse (a win thrown to
    /// a draw or a loss, a draw to a loss).
    pub mistake: bool,
    /// For a mistake: the principal variation after `best`; else null.
    pub line: Option<Vec<MoveJson>>,
}

/// The answer of `annotate`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AnnotateJson {
    pub game: String,
    /// The position the game starts from.
    pub start: String,
    pub plies: Vec<PlyJson>,
}

/// The JSON of one reviewed ply.
pub fn ply_json<G: Game>(g: &G, p: &AnnotatedPly<G>) -> PlyJson {
    let line = p.mistake.as_ref().map(|m| {
        let mut before = p.best.after;
        m.line
            .iter()
            .map(|mv| {
                let j = MoveJson::of(g, &before, mv);
                before = mv.after;
                j
            })
            .collect()
    });
    PlyJson {
        ply: p.ply,
        position: g.format_pos(&p.before),
        side_to_move: side_letter(g, &p.before),
        value: p.before_value.into(),
        played: MoveJson::of(g, &p.before, &p.played),
        best: MoveJson::of(g, &p.before, &p.best),
        mistake: p.is_mistake(),
        line,
    }
}

/// Split a list of moves given as one string: moves are separated by
/// white space or commas (a URL may carry them with `,`).
pub fn split_moves(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .collect()
}

/// A move that cannot be played is a `bad_move`; a value that cannot be
/// looked up keeps its lookup code.
impl From<AnnotateError> for ApiError {
    fn from(e: AnnotateError) -> Self {
        match e {
            AnnotateError::Lookup { ply, error } => ApiError::new(
                code::of_lookup(&error),
                format!("ply {ply}: {}", crate::hint::lookup_hint(&error)),
            ),
            AnnotateError::BadMove { ply, error, .. } => {
                ApiError::new(code::BAD_MOVE, format!("ply {ply}: bad move: {error}"))
            }
            e @ AnnotateError::AfterEnd { .. } => ApiError::new(code::BAD_MOVE, e.to_string()),
        }
    }
}

/// Review `moves` from `start`: the `annotate` answer.
///
/// # Errors
///
/// `bad_move` for too many moves or one that cannot be played; a lookup
/// code for a value that cannot be found.
pub fn annotate<G: Game, S: AsRef<str>>(
    g: &G,
    oracle: &dyn qibase::analysis::Oracle<G>,
    start: &G::Pos,
    moves: &[S],
) -> Result<AnnotateJson, ApiError> {
    if moves.len() > MAX_REVIEW_MOVES {
        return Err(ApiError::new(
            code::BAD_MOVE,
            format!(
                "{} moves, at most {MAX_REVIEW_MOVES} in one review",
                moves.len()
            ),
        ));
    }
    let review = qibase::analysis::annotate::annotate(g, oracle, start, moves)?;
    Ok(AnnotateJson {
        game: g.id().to_string(),
        start: g.format_pos(start),
        plies: review.iter().map(|p| ply_json(g, p)).collect(),
    })
}
