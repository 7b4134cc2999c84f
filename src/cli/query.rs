//! `qibase query`: a position's exact value, every move's value and the
//! principal variation, read from the tablebase files.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{game_by_id, CliError, CliResult};
use crate::analysis::{analyse, principal_variation, Analysis, MoveInfo, Oracle, TablebaseOracle};
use crate::game::Game;
use crate::value::Value;
use crate::with_game;

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Position string, or `-` to read positions from stdin (one a line,
    /// JSON Lines out).
    pub position: String,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct MoveOut {
    #[serde(rename = "move")]
    mv: String,
    position: String,
    value: String,
}

/// Field order as documented: position, value, moves, then the extras.
#[derive(Serialize)]
struct AnswerOut {
    position: String,
    value: String,
    moves: Vec<MoveOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pv: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pv_end: Option<String>,
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    position: &'a str,
    error: String,
}

fn answer_json<G: Game>(g: &G, a: &Analysis<G>, pv: Option<&[MoveInfo<G>]>) -> String {
    let o = AnswerOut {
        position: g.format_pos(&a.pos),
        value: a.value.to_string(),
        moves: a
            .moves
            .iter()
            .map(|m| MoveOut {
                mv: m.text.clone(),
                position: g.format_pos(&m.after),
                value: m.value.to_string(),
            })
            .collect(),
        end: a.end.map(|e| e.reason.describe()),
        pv: pv.map(|pv| pv.iter().map(|m| m.text.clone()).collect()),
        pv_end: pv.and_then(|pv| pv.last().map(|m| g.format_pos(&m.after))),
    };
    serde_json::to_string(&o).expect("serialises")
}

fn error_json(position: &str, error: String) -> String {
    serde_json::to_string(&ErrorOut { position, error }).expect("serialises")
}

pub fn run(a: &QueryArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let tb = TablebaseOracle::open(g, &a.dir).map_err(CliError::failure)?;
        if a.position == "-" {
            return stdin_lines(g, &tb);
        }
        let p = g.parse_pos(&a.position).map_err(CliError::input)?;
        let ans = analyse(g, &tb, &p).map_err(CliError::failure)?;
        let pv = principal_variation(g, &tb, &p).map_err(CliError::failure)?;
        if a.json {
            println!("{}", answer_json(g, &ans, Some(&pv)));
            return Ok(());
        }
        let mut out = String::new();
        out += &format!("position: {}\n", g.format_pos(&p));
        out += &format!("value:    {}\n", ans.value);
        if let Some(end) = ans.end {
            out += &format!("game over: {}\n", end.reason.describe());
        }
        if !ans.moves.is_empty() {
            out += "moves (value for the mover, best first):\n";
            for m in &ans.moves {
                out += &format!(
                    "  {:<8} {:<9} {}\n",
                    m.text,
                    m.value.to_string(),
                    g.format_pos(&m.after)
                );
            }
        }
        if !pv.is_empty() {
            let line: Vec<&str> = pv.iter().map(|m| m.text.as_str()).collect();
            let note = if ans.value == Value::Draw {
                format!(" (first {} plies of a draw)", pv.len())
            } else {
                String::new()
            };
            out += &format!("principal variation{note}: {}\n", line.join(" "));
            let last = pv.last().unwrap().after;
            match g.game_end(&last) {
                Some(end) => {
                    out += &format!(
                        "  ends in {}: {}\n",
                        g.format_pos(&last),
                        end.reason.describe()
                    )
                }
                None => out += &format!("  reaches {}\n", g.format_pos(&last)),
            }
        }
        print!("{out}");
        Ok(())
    })
}

/// JSON Lines: one answer (or error) per input line; bad lines do not stop
/// the others. Blank lines are skipped.
fn stdin_lines<G: Game>(g: &G, tb: &dyn Oracle<G>) -> CliResult {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| CliError::failure(format!("cannot read stdin: {e}")))?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let o = match g.parse_pos(text) {
            Err(e) => error_json(text, e),
            Ok(p) => match analyse(g, tb, &p) {
                Ok(a) => answer_json(g, &a, None),
                Err(e) => error_json(text, e),
            },
        };
        writeln!(out, "{o}")
            .and_then(|_| out.flush())
            .map_err(|e| CliError::failure(format!("cannot write stdout: {e}")))?;
    }
    Ok(())
}
