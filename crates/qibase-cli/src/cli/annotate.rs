//! `qibase annotate`: review a game move by move with exact values,
//! marking each move that changed the result, with the best move instead
//! and its line ([`qibase::analysis::annotate`]; the page's review shows
//! the same marks through the HTTP `annotate` endpoint).

use std::io::Read;
use std::path::PathBuf;

use clap::Args;

use super::{game_by_id, CliError, CliResult};
use crate::api::annotate::{annotate, split_moves, PlyJson};
use crate::api::{self, code};
use qibase::tablebase::Tablebase;
use qibase::with_game;
use qibase::Rules;

#[derive(Args, Debug)]
pub struct AnnotateArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// The moves, in the notation of docs/rules.md (`b1-b2`); none: read
    /// them from stdin (separated by white space or commas).
    pub moves: Vec<String>,
    /// The position the game starts from (default: the start position).
    #[arg(long = "from")]
    pub from: Option<String>,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// JSON Lines: one object per ply instead of text.
    #[arg(long)]
    pub json: bool,
}

fn moves_of(a: &AnnotateArgs) -> Result<Vec<String>, CliError> {
    if !a.moves.is_empty() {
        return Ok(a
            .moves
            .iter()
            .flat_map(|m| split_moves(m))
            .map(str::to_string)
            .collect());
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| CliError::failure(format!("cannot read stdin: {e}")))?;
    Ok(split_moves(&text).into_iter().map(str::to_string).collect())
}

pub fn run(a: &AnnotateArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    let moves = moves_of(a)?;
    if moves.is_empty() {
        return Err(CliError::input(
            "no moves to annotate (give them as arguments or on stdin)",
        ));
    }
    with_game!(any, |g| {
        let tb = Tablebase::open(g, &a.dir);
        let start = match &a.from {
            Some(text) => api::parse_position(g, text).map_err(CliError::input)?,
            None => g.start(),
        };
        let review = annotate(g, &tb, &start, &moves).map_err(|e| {
            if e.is_input() || e.code == code::BAD_MOVE {
                CliError::input(e.message)
            } else {
                CliError::failure(e.message)
            }
        })?;
        let mut out = String::new();
        if a.json {
            for p in &review.plies {
                out += &api::to_line(p);
                out.push('\n');
            }
        } else {
            out += &text(&review.start, &review.plies);
        }
        print!("{out}");
        Ok(())
    })
}

/// The review as text: one line per ply, and under each mistake the best
/// move and its line.
fn text(start: &str, plies: &[PlyJson]) -> String {
    let mut out = format!("start: {start}\n");
    let mistakes = plies.iter().filter(|p| p.mistake).count();
    for p in plies {
        let after = p.played.value.as_ref().map_or("", |v| v.value.as_str());
        let mark = if p.mistake { "  ??" } else { "" };
        out += &format!(
            "{:>4}. {} {:<8} {:<9} (before: {}){mark}\n",
            p.ply, p.side_to_move, p.played.mv, after, p.value.value
        );
        if let Some(line) = &p.line {
            let best = p.best.value.as_ref().map_or("", |v| v.value.as_str());
            let rest: Vec<&str> = line.iter().map(|m| m.mv.as_str()).collect();
            out += &format!(
                "      best instead: {} ({best}); line: {}\n",
                p.best.mv,
                if rest.is_empty() {
                    "-".to_string()
                } else {
                    rest.join(" ")
                }
            );
        }
    }
    out += &format!("{} plies, {mistakes} changed the result\n", plies.len());
    out
}
