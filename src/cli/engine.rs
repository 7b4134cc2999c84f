//! Commands for programs: `bestmove` (one answer) and `engine` (JSON Lines
//! on stdin, one JSON line answer per command; see `docs/engine-protocol.md`).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Args;
use serde_json::{json, Value as Json};

use super::{game_by_id, CliError, CliResult};
use crate::ai::{choose, Difficulty, Rng};
use crate::analysis::{analyse, open_oracle, principal_variation, Oracle};
use crate::game::{Game, GameEnd};
use crate::with_game;

#[derive(Args, Debug)]
pub struct BestmoveArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Position string (RULES.md notation, quoted).
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

fn end_json(e: &GameEnd) -> Json {
    json!({"value": e.value.to_string(), "reason": e.reason.describe()})
}

/// The `bestmove` answer for a position (also the engine's).
fn bestmove_json<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    p: &G::Pos,
    level: Difficulty,
    rng: &mut Rng,
) -> Result<Json, String> {
    let (a, pick) = choose(g, oracle, p, level, rng)?;
    let mut out = json!({
        "position": g.format_pos(p),
        "difficulty": level.name(),
        "position_value": a.value.to_string(),
    });
    match pick {
        None => {
            out["move"] = Json::Null;
            out["game_over"] = a.end.as_ref().map_or(Json::Null, end_json);
        }
        Some(i) => {
            let m = &a.moves[i];
            out["move"] = json!(m.text);
            out["value"] = json!(m.value.to_string());
            out["optimal"] = json!(m.value == a.value);
            out["position_after"] = json!(g.format_pos(&m.after));
            out["game_over_after"] = g.game_end(&m.after).as_ref().map_or(Json::Null, end_json);
        }
    }
    Ok(out)
}

/// The `query` answer: value, every move's value best first, the principal variation.
fn query_json<G: Game>(g: &G, oracle: &dyn Oracle<G>, p: &G::Pos) -> Result<Json, String> {
    let a = analyse(g, oracle, p)?;
    let pv = principal_variation(g, oracle, p)?;
    let moves: Vec<Json> = a
        .moves
        .iter()
        .map(|m| json!({"move": m.text, "value": m.value.to_string(), "position": g.format_pos(&m.after)}))
        .collect();
    Ok(json!({
        "position": g.format_pos(p),
        "side_to_move": g.side_letter(g.side_to_move(p)).to_string(),
        "value": a.value.to_string(),
        "game_over": a.end.as_ref().map_or(Json::Null, end_json),
        "best": a.best().map(|m| m.text.clone()),
        "moves": moves,
        "pv": pv.iter().map(|m| m.text.clone()).collect::<Vec<_>>(),
    }))
}

/// The `moves` answer: the legal moves and where they lead (no values needed).
fn moves_json<G: Game>(g: &G, p: &G::Pos) -> Json {
    let end = g.game_end(p);
    let mut ms = Vec::new();
    if end.is_none() {
        g.moves(p, &mut ms);
    }
    let list: Vec<Json> = ms
        .iter()
        .map(|m| {
            let q = g.apply(p, m);
            json!({
                "move": g.format_move(m),
                "position": g.format_pos(&q),
                "game_over_after": g.game_end(&q).as_ref().map_or(Json::Null, end_json),
            })
        })
        .collect();
    json!({
        "position": g.format_pos(p),
        "side_to_move": g.side_letter(g.side_to_move(p)).to_string(),
        "game_over": end.as_ref().map_or(Json::Null, end_json),
        "moves": list,
    })
}

pub fn bestmove(a: &BestmoveArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    let level: Difficulty = a.difficulty.parse().map_err(CliError::input)?;
    with_game!(any, |g| {
        let p = g.parse_pos(&a.position).map_err(CliError::input)?;
        let (oracle, _) = open_oracle(g, &a.dir, &p).map_err(CliError::failure)?;
        let mut rng = Rng::new(a.seed.unwrap_or_else(Rng::clock_seed));
        let j =
            bestmove_json(g, oracle.as_ref(), &p, level, &mut rng).map_err(CliError::failure)?;
        if a.json {
            println!("{j}");
        } else {
            match j["move"].as_str() {
                Some(m) => println!(
                    "{m}   (move value {}; position value {}; {level})",
                    j["value"].as_str().unwrap_or("?"),
                    j["position_value"].as_str().unwrap_or("?")
                ),
                None => println!(
                    "no move: the game is over ({}; {} for the side to move)",
                    j["game_over"]["reason"].as_str().unwrap_or("?"),
                    j["position_value"].as_str().unwrap_or("?")
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
    oracle: Result<Box<dyn Oracle<G> + 'g>, String>,
    rng: Rng,
}

impl<G: Game> Engine<'_, G> {
    fn oracle(&self) -> Result<&dyn Oracle<G>, String> {
        self.oracle
            .as_ref()
            .map(|b| b.as_ref())
            .map_err(|e| e.clone())
    }

    /// Answer one command line.
    fn answer(&mut self, line: &str) -> Json {
        let cmd: Json = match serde_json::from_str(line) {
            Ok(c) => c,
            Err(e) => return json!({"error": format!("malformed JSON: {e}")}),
        };
        let id = cmd.get("id").cloned();
        let mut out = self.run(&cmd).unwrap_or_else(|e| json!({"error": e}));
        if let (Some(id), Some(obj)) = (id, out.as_object_mut()) {
            obj.insert("id".to_string(), id);
        }
        out
    }

    fn run(&mut self, cmd: &Json) -> Result<Json, String> {
        let Some(obj) = cmd.as_object() else {
            return Err("a command must be a JSON object".to_string());
        };
        let name = obj
            .get("cmd")
            .and_then(Json::as_str)
            .ok_or("missing \"cmd\" (bestmove, query, moves or quit)")?;
        let position = || -> Result<G::Pos, String> {
            let s = obj
                .get("position")
                .and_then(Json::as_str)
                .ok_or("missing \"position\" (a position string)")?;
            self.g
                .parse_pos(s)
                .map_err(|e| format!("bad position: {e}"))
        };
        match name {
            "bestmove" => {
                let p = position()?;
                let level = match obj.get("difficulty") {
                    None | Some(Json::Null) => Difficulty::Perfect,
                    Some(Json::String(s)) => s.parse()?,
                    Some(_) => return Err("\"difficulty\" must be a string".to_string()),
                };
                let mut own;
                let rng = match obj.get("seed") {
                    None | Some(Json::Null) => &mut self.rng,
                    Some(s) => {
                        let seed = s
                            .as_u64()
                            .ok_or("\"seed\" must be a non-negative integer")?;
                        own = Rng::new(seed);
                        &mut own
                    }
                };
                let oracle = self
                    .oracle
                    .as_ref()
                    .map(|b| b.as_ref())
                    .map_err(|e| e.clone())?;
                bestmove_json(self.g, oracle, &p, level, rng)
            }
            "query" => {
                let p = position()?;
                query_json(self.g, self.oracle()?, &p)
            }
            "moves" => Ok(moves_json(self.g, &position()?)),
            "quit" => Ok(json!({"bye": true})),
            other => Err(format!(
                "unknown cmd '{other}' (bestmove, query, moves or quit)"
            )),
        }
    }
}

pub fn engine(a: &EngineArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let oracle = open_oracle(g, &a.dir, &g.start()).map(|(o, _)| o);
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
            let ans = e.answer(&line);
            let quit = ans.get("bye").is_some();
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
