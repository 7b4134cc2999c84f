//! `qibase query`: a position's exact value, every move's value and the
//! principal variation, read from the tablebase files.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{game_by_id, CliError, CliResult};
use crate::game::Game;
use crate::tablebase::{Tablebase, TbError};
use crate::value::Value;
use crate::with_game;

/// Plies of the principal variation shown for a drawn position.
pub const DRAW_PV_PLIES: usize = 40;

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

/// One legal move with the position it leads to and its value (mover's view).
pub struct MoveValue<G: Game> {
    pub mv: G::Move,
    pub child: G::Pos,
    pub value: Value,
}

/// Everything `query` says about a position.
pub struct Answer<G: Game> {
    pub pos: G::Pos,
    pub value: Value,
    /// Best first.
    pub moves: Vec<MoveValue<G>>,
}

/// The value of `p` and of each of its moves, best first (ties keep the
/// move generator's order).
pub fn analyse<G: Game>(tb: &Tablebase<G>, p: &G::Pos) -> Result<Answer<G>, TbError> {
    let g = tb.game();
    let value = tb.probe(p)?;
    let mut moves = Vec::new();
    if g.rule_end(p).is_none() {
        let mut ms = Vec::new();
        g.moves(p, &mut ms);
        for m in ms {
            let child = g.apply(p, &m);
            let value = Value::of_move_to(tb.probe(&child)?);
            moves.push(MoveValue {
                mv: m,
                child,
                value,
            });
        }
    }
    moves.sort_by_key(|m| std::cmp::Reverse(m.value));
    Ok(Answer {
        pos: *p,
        value,
        moves,
    })
}

/// A line of play: each move with the position it leads to.
pub type Line<G> = Vec<(<G as Game>::Move, <G as Game>::Pos)>;

/// Perfect play from `p`: to the end of the game for a win or a loss, at
/// most [`DRAW_PV_PLIES`] plies for a draw. Stops early if the table's best
/// move does not match the position's value (which `verify` would report).
pub fn principal_variation<G: Game>(tb: &Tablebase<G>, p: &G::Pos) -> Result<Line<G>, TbError> {
    let mut pv = Vec::new();
    let mut cur = *p;
    let limit = match tb.probe(p)? {
        Value::Draw => DRAW_PV_PLIES,
        v => v.remoteness().unwrap_or(0) as usize,
    };
    while pv.len() < limit {
        let a = analyse(tb, &cur)?;
        let Some(best) = a.moves.first() else { break };
        if best.value != a.value {
            break;
        }
        pv.push((best.mv, best.child));
        cur = best.child;
    }
    Ok(pv)
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

fn answer_json<G: Game>(g: &G, a: &Answer<G>, pv: Option<&[(G::Move, G::Pos)]>) -> String {
    let o = AnswerOut {
        position: g.format_pos(&a.pos),
        value: a.value.to_string(),
        moves: a
            .moves
            .iter()
            .map(|m| MoveOut {
                mv: g.format_move(&m.mv),
                position: g.format_pos(&m.child),
                value: m.value.to_string(),
            })
            .collect(),
        end: g.game_end(&a.pos).map(|e| e.reason.describe()),
        pv: pv.map(|pv| pv.iter().map(|(m, _)| g.format_move(m)).collect()),
        pv_end: pv.and_then(|pv| pv.last().map(|(_, q)| g.format_pos(q))),
    };
    serde_json::to_string(&o).expect("serialises")
}

fn error_json(position: &str, error: String) -> String {
    serde_json::to_string(&ErrorOut { position, error }).expect("serialises")
}

pub fn run(a: &QueryArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let tb = Tablebase::open(g, &a.dir);
        if a.position == "-" {
            return stdin_lines(g, &tb);
        }
        let p = g.parse_pos(&a.position).map_err(CliError::input)?;
        let ans = analyse(&tb, &p)?;
        let pv = principal_variation(&tb, &p)?;
        if a.json {
            println!("{}", answer_json(g, &ans, Some(&pv)));
            return Ok(());
        }
        let mut out = String::new();
        out += &format!("position: {}\n", g.format_pos(&p));
        out += &format!("value:    {}\n", ans.value);
        if let Some(end) = g.game_end(&p) {
            out += &format!("game over: {}\n", end.reason.describe());
        }
        if !ans.moves.is_empty() {
            out += "moves (value for the mover, best first):\n";
            for m in &ans.moves {
                out += &format!(
                    "  {:<8} {:<9} {}\n",
                    g.format_move(&m.mv),
                    m.value.to_string(),
                    g.format_pos(&m.child)
                );
            }
        }
        if !pv.is_empty() {
            let line: Vec<String> = pv.iter().map(|(m, _)| g.format_move(m)).collect();
            let note = if ans.value == Value::Draw {
                format!(" (first {} plies of a draw)", pv.len())
            } else {
                String::new()
            };
            out += &format!("principal variation{note}: {}\n", line.join(" "));
            let last = pv.last().unwrap().1;
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
fn stdin_lines<G: Game>(g: &G, tb: &Tablebase<G>) -> CliResult {
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
            Ok(p) => match analyse(tb, &p) {
                Ok(a) => answer_json(g, &a, None),
                Err(e) => error_json(text, e.to_string()),
            },
        };
        writeln!(out, "{o}")
            .and_then(|_| out.flush())
            .map_err(|e| CliError::failure(format!("cannot write stdout: {e}")))?;
    }
    Ok(())
}
