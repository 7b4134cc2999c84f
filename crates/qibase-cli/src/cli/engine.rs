//! Commands for programs: `bestmove` (one answer) and `engine` (JSON Lines
//! on stdin, one JSON line answer per command; see `docs/engine-protocol.md`).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use serde_json::Value as Json;

use super::{game_by_id, CliError, CliResult};
use crate::api::{self, code, ApiError};
use qibase::ai::{Difficulty, Rng};
use qibase::analysis::{open_oracle, Oracle, SharedOracle};
use qibase::with_game;
use qibase::Game;

#[derive(Args, Debug)]
pub struct BestmoveArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Position string (the notation of docs/rules.md, quoted).
    pub position: String,
    /// perfect, hard, medium or easy.
    #[arg(long, default_value = "perfect")]
    pub difficulty: String,
    /// Seed of the random choices (hard, medium, easy); default: from the clock.
    #[arg(long)]
    pub seed: Option<u64>,
    /// One JSON object (as the engine's `bestmove` answer) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct EngineArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Seed of the random choices; default: from the clock.
    #[arg(long)]
    pub seed: Option<u64>,
}

pub fn bestmove(a: &BestmoveArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    let level = api::parse_difficulty(&a.difficulty).map_err(CliError::input)?;
    with_game!(any, |g| {
        let p = api::parse_position(g, &a.position).map_err(CliError::input)?;
        let (oracle, _) = open_oracle(g, &a.dir)?;
        let mut rng = Rng::new(a.seed.unwrap_or_else(Rng::clock_seed));
        let j = api::bestmove(g, oracle.as_ref(), &p, level, a.seed, &mut rng)?;
        if a.json {
            println!("{}", api::to_line(&j));
        } else {
            match &j.mv {
                Some(m) => println!(
                    "{}   (move value {}; position value {}; {level})",
                    m.mv,
                    m.value.as_ref().map_or("?", |v| v.value.as_str()),
                    j.value.value
                ),
                None => println!(
                    "no move: the game is over ({}; {} for the side to move)",
                    j.end.as_ref().map_or("?", |e| e.reason.as_str()),
                    j.value.value
                ),
            }
        }
        Ok(())
    })
}

/// What the engine has: the game, and the oracle if one could be opened
/// (else the reason, returned for every command that needs values).
struct Engine<'g, G: Game> {
    g: &'g G,
    oracle: Result<SharedOracle<'g, G>, ApiError>,
    rng: Rng,
}

/// One answer of the engine: the same types as `query --json`, `moves
/// --json`, `bestmove --json` and the HTTP API (fields in the same order).
#[derive(Serialize)]
#[serde(untagged)]
enum Answer {
    Query(api::QueryJson),
    Moves(api::MovesJson),
    /// Boxed: the largest answer (serde flattens the box away).
    Bestmove(Box<api::BestmoveJson>),
    Error(api::ErrorJson),
    Bye {
        bye: bool,
    },
}

/// An answer with the command's `id` (if it had one) as its last field.
#[derive(Serialize)]
struct WithId {
    #[serde(flatten)]
    answer: Answer,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Json>,
}

fn bad_request(what: impl Into<String>) -> ApiError {
    ApiError::new(code::BAD_REQUEST, what)
}

impl<G: Game> Engine<'_, G> {
    fn oracle(&self) -> Result<&dyn Oracle<G>, ApiError> {
        match &self.oracle {
            Ok(o) => Ok(o.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }

    /// Answer one command line: the JSON line, and whether it was `quit`.
    fn answer(&mut self, line: &str) -> (String, bool) {
        let cmd: Json = match serde_json::from_str(line) {
            Ok(c) => c,
            Err(e) => {
                let e = bad_request(format!("malformed JSON: {e}"));
                return (api::to_line(&e.json()), false);
            }
        };
        let id = cmd.get("id").cloned();
        let (answer, quit) = match self.run(&cmd) {
            Ok(a) => {
                let quit = matches!(a, Answer::Bye { .. });
                (a, quit)
            }
            Err(e) => (Answer::Error(e.json()), false),
        };
        (api::to_line(&WithId { answer, id }), quit)
    }

    fn run(&mut self, cmd: &Json) -> Result<Answer, ApiError> {
        let Some(obj) = cmd.as_object() else {
            return Err(bad_request("a command must be a JSON object"));
        };
        let name = obj
            .get("cmd")
            .and_then(Json::as_str)
            .ok_or_else(|| bad_request("missing \"cmd\" (bestmove, query, moves or quit)"))?;
        let g = self.g;
        let position = || -> Result<G::Pos, ApiError> {
            let s = match obj.get("position") {
                Some(Json::String(s)) => s,
                _ => {
                    return Err(ApiError::new(
                        code::BAD_POSITION,
                        "missing \"position\" (a position string)",
                    ))
                }
            };
            let p = api::parse_position(g, s)?;
            let mv = match obj.get("move") {
                None | Some(Json::Null) => None,
                Some(Json::String(m)) => Some(m.as_str()),
                Some(_) => return Err(ApiError::new(code::BAD_MOVE, "\"move\" must be a string")),
            };
            api::after_move(g, p, mv)
        };
        match name {
            "bestmove" => {
                let p = position()?;
                let level = match obj.get("difficulty") {
                    None | Some(Json::Null) => Difficulty::Perfect,
                    Some(Json::String(s)) => api::parse_difficulty(s)?,
                    Some(_) => {
                        return Err(ApiError::new(
                            code::BAD_DIFFICULTY,
                            "\"difficulty\" must be a string",
                        ))
                    }
                };
                let seed = match obj.get("seed") {
                    None | Some(Json::Null) => None,
                    Some(s) => Some(s.as_u64().ok_or_else(|| {
                        ApiError::new(code::BAD_SEED, "\"seed\" must be a non-negative integer")
                    })?),
                };
                let oracle = match &self.oracle {
                    Ok(o) => o.as_ref(),
                    Err(e) => return Err(e.clone()),
                };
                let j = api::bestmove(g, oracle, &p, level, seed, &mut self.rng)?;
                Ok(Answer::Bestmove(Box::new(j)))
            }
            "query" => {
                let p = position()?;
                Ok(Answer::Query(api::query(g, self.oracle()?, &p, true)?))
            }
            "moves" => Ok(Answer::Moves(api::moves(g, &position()?))),
            "quit" => Ok(Answer::Bye { bye: true }),
            other => Err(bad_request(format!(
                "unknown cmd '{other}' (bestmove, query, moves or quit)"
            ))),
        }
    }
}

/// The engine's answers to `input`'s lines (blank ones skipped, none
/// after `quit`), over the tables in `dir`: what `qibase engine` prints,
/// for the fuzz target of the protocol (`crate::fuzzing`).
pub fn answer_lines<G: Game>(g: &G, dir: &std::path::Path, seed: u64, input: &str) -> Vec<String> {
    let oracle = open_oracle(g, dir).map(|(o, _)| o).map_err(ApiError::from);
    let mut e = Engine {
        g,
        oracle,
        rng: Rng::new(seed),
    };
    let mut answers = Vec::new();
    for line in input.lines().filter(|l| !l.trim().is_empty()) {
        let (ans, quit) = e.answer(line);
        answers.push(ans);
        if quit {
            break;
        }
    }
    answers
}

pub fn engine(a: &EngineArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        // Opened once; a partial tablebase answers inside its tiers, and a
        // missing or damaged one gives every value command the error.
        let oracle = open_oracle(g, &a.dir)
            .map(|(o, _)| o)
            .map_err(ApiError::from);
        let mut e = Engine {
            g,
            oracle,
            rng: Rng::new(a.seed.unwrap_or_else(Rng::clock_seed)),
        };
        let stdin = std::io::stdin();
        let mut stdout = std::io::stdout().lock();
        for line in stdin.lock().lines() {
            let line = line.map_err(|err| CliError::failure(format!("reading stdin: {err}")))?;
            if line.trim().is_empty() {
                continue;
            }
            let (ans, quit) = e.answer(&line);
            writeln!(stdout, "{ans}")
                .and_then(|_| stdout.flush())
                .map_err(|err| CliError::failure(format!("writing stdout: {err}")))?;
            if quit {
                break;
            }
        }
        Ok(())
    })
}
