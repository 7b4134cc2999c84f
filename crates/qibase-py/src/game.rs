//! `qibase.Game`: a game chosen by its variant string, kept for the
//! process's lifetime.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::{held, released, Res};
use crate::value::{GameEnd, Value};
use qibase::games::AnyGame;
use qibase::{with_game, Game as RsGame, Notation, ParseError, Rules, Side, TierKey, Tiers};

/// The game of `spec`, made once per process ([`AnyGame::shared`]).
pub(crate) fn game_static(spec: &str) -> Res<&'static AnyGame> {
    Ok(AnyGame::shared(spec)?)
}

/// A game argument: a [`Game`] or a variant string.
pub(crate) fn game_arg(obj: &Bound<'_, PyAny>) -> PyResult<&'static AnyGame> {
    if let Ok(g) = obj.extract::<PyRef<'_, Game>>() {
        return Ok(g.game);
    }
    if let Ok(s) = obj.extract::<String>() {
        return held(|| game_static(&s));
    }
    Err(PyTypeError::new_err(format!(
        "game must be a qibase.Game or a variant string, not {}",
        obj.get_type().name()?
    )))
}

pub(crate) fn side_name(s: Side) -> &'static str {
    match s {
        Side::First => "first",
        Side::Second => "second",
    }
}

/// A game: its rules and notation. `Game("cannon-chess:board=4x4,tiao=any")`
/// takes any variant string (`qibase.games()` lists the presets).
/// Positions and moves are strings in the game's notation.
#[pyclass(frozen, module = "qibase")]
pub(crate) struct Game {
    pub(crate) game: &'static AnyGame,
}

pub(crate) fn parse<G: RsGame>(g: &G, pos: &str) -> Res<G::Pos> {
    Ok(g.parse_pos(pos)?)
}

#[pymethods]
impl Game {
    #[new]
    fn new(variant: &str) -> PyResult<Game> {
        Ok(Game {
            game: held(|| game_static(variant))?,
        })
    }

    /// The game's id (`cannon-chess`), the name of its tablebase directory.
    #[getter]
    fn id(&self) -> String {
        with_game!(self.game, |g| g.id().to_string())
    }

    /// The canonical variant string (keys sorted, defaults dropped).
    #[getter]
    fn variant(&self) -> String {
        with_game!(self.game, |g| g.variant_spec())
    }

    /// The game's title.
    #[getter]
    fn title(&self) -> String {
        with_game!(self.game, |g| g.title().to_string())
    }

    /// The start position.
    #[getter]
    fn start(&self) -> String {
        with_game!(self.game, |g| g.format_pos(&g.start()))
    }

    /// The position in canonical notation; raises `ParseError` (or
    /// `IllegalPosition`) if `pos` is not a position of this game.
    fn parse(&self, pos: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| Ok(g.format_pos(&parse(g, pos)?))))
    }

    /// The move `mv` in canonical notation; raises `ParseError` if it is
    /// malformed or not legal in `pos`.
    fn parse_move(&self, pos: &str, mv: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| {
            let p = parse(g, pos)?;
            Ok(g.format_move(&g.parse_move(&p, mv)?))
        }))
    }

    /// The side to move: `"first"` or `"second"`.
    fn side_to_move(&self, pos: &str) -> PyResult<&'static str> {
        with_game!(self.game, |g| held(|| Ok(side_name(
            g.side_to_move(&parse(g, pos)?)
        ))))
    }

    /// The legal moves of `pos` with their resulting positions, as
    /// `(move, position)` pairs in the move generator's order; empty when
    /// the game is over.
    fn moves(&self, pos: &str) -> PyResult<Vec<(String, String)>> {
        with_game!(self.game, |g| held(|| {
            let p = parse(g, pos)?;
            let mut out = Vec::new();
            if g.game_end(&p).is_none() {
                let mut ms = Vec::new();
                g.moves(&p, &mut ms);
                for m in ms {
                    out.push((g.format_move(&m), g.format_pos(&g.apply(&p, &m))));
                }
            }
            Ok(out)
        }))
    }

    /// The position after the move `mv`; raises `ParseError` if the move
    /// is malformed or illegal (or the game is over).
    fn apply(&self, pos: &str, mv: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| {
            let p = parse(g, pos)?;
            if g.game_end(&p).is_some() {
                return Err(ParseError::illegal_move(format!(
                    "illegal move '{mv}': the game is over"
                ))
                .into());
            }
            let m = g.parse_move(&p, mv)?;
            Ok(g.format_pos(&g.apply(&p, &m)))
        }))
    }

    /// The position after a time-out pass (same board, the other side to
    /// move; in weiming the shared piece is freed). Named `pass_turn`
    /// because `pass` is a Python keyword.
    fn pass_turn(&self, pos: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| Ok(
            g.format_pos(&g.pass(&parse(g, pos)?))
        )))
    }

    /// How the game ends in `pos` (a `GameEnd`: the value for the side to
    /// move and the reason), or `None` if it goes on.
    fn result(&self, pos: &str) -> PyResult<Option<GameEnd>> {
        with_game!(self.game, |g| held(|| {
            let p = parse(g, pos)?;
            Ok(g.game_end(&p).map(|e| GameEnd {
                value: Value::of(e.value),
                reason: g.describe_end(e.reason),
            }))
        }))
    }

    /// The number of move sequences of length `depth` from `pos` (a
    /// finished game is not expanded). Runs without the GIL.
    fn perft(&self, py: Python<'_>, pos: &str, depth: u32) -> PyResult<u64> {
        let game = self.game;
        let pos = pos.to_string();
        released(py, move || {
            with_game!(game, |g| {
                let p = parse(g, &pos)?;
                Ok(qibase::perft(g, &p, depth))
            })
        })
    }

    /// A text diagram of `pos` (as `qibase show`).
    fn diagram(&self, pos: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| Ok(g.diagram(&parse(g, pos)?, None))))
    }

    /// The tier (material class) key of `pos`.
    fn tier_of(&self, pos: &str) -> PyResult<TierKey> {
        with_game!(self.game, |g| held(|| Ok(g.tier_of(&parse(g, pos)?))))
    }

    /// The tiers of the game, or of its closed subset with at most
    /// `max_pieces` pieces a side (soldiers, for the cannon games), in
    /// solving order, as `(key, name)` pairs.
    #[pyo3(signature = (max_pieces=None))]
    fn tier_names(&self, max_pieces: Option<u32>) -> Vec<(TierKey, String)> {
        with_game!(self.game, |g| g
            .tiers(max_pieces)
            .into_iter()
            .map(|t| (t, g.tier_name(t)))
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("qibase.Game({:?})", self.variant())
    }

    fn __str__(&self) -> String {
        self.variant()
    }
}
