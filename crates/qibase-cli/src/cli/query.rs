//! `qibase query`: a position's exact value, every move's value and the
//! principal variation, read from the tablebase files.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Args;

use super::{game_by_id, CliError, CliResult};
use crate::api::{self, ErrorJson};
use qibase::analysis::{analyse, principal_variation, Oracle};
use qibase::tablebase::BlockCache;
use qibase::tablebase::Tablebase;
use qibase::with_game;
use qibase::Value;
use qibase::{Game, Notation, Rules};

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

/// Block cache of a one-position query (unless `QIBASE_CACHE_MB` says
/// otherwise). Its few hundred lookups never fill even this, and every
/// lookup of a fresh process touches a new page of the cache's
/// bookkeeping: at the default budget (an eighth of memory) those page
/// faults were about a fifth of a two-cannons start query (wall 6.2–7.6
/// ms against 5.1–6.3 ms with 16 MiB, alternated).
const ONE_QUERY_CACHE: usize = 16 << 20;

pub fn run(a: &QueryArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    if a.position != "-" && std::env::var_os("QIBASE_CACHE_MB").is_none() {
        BlockCache::configure(ONE_QUERY_CACHE);
    }
    with_game!(any, |g| {
        let tb = Tablebase::open(g, &a.dir);
        if a.position == "-" {
            return stdin_lines(g, &tb);
        }
        let p = api::parse_position(g, &a.position).map_err(CliError::input)?;
        if a.json {
            let j = api::query(g, &tb, &p, true)?;
            println!("{}", api::to_line(&j));
            return Ok(());
        }
        let ans = analyse(g, &tb, &p)?;
        let pv = principal_variation(g, &tb, &p)?;
        let mut out = String::new();
        out += &format!("position: {}\n", g.format_pos(&p));
        out += &format!("value:    {}\n", ans.value);
        if let Some(end) = ans.end {
            out += &format!("game over: {}\n", g.describe_end(end.reason));
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
                        g.describe_end(end.reason)
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
/// the others. Blank lines are skipped. No principal variation (bulk use).
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
        let answer = api::parse_position(g, text)
            .and_then(|p| api::query(g, tb, &p, false).map_err(api::ApiError::from));
        let o = match answer {
            Ok(j) => api::to_line(&j),
            Err(e) => api::to_line(&ErrorJson {
                position: Some(text.to_string()),
                ..e.json()
            }),
        };
        writeln!(out, "{o}")
            .and_then(|_| out.flush())
            .map_err(|e| CliError::failure(format!("cannot write stdout: {e}")))?;
    }
    Ok(())
}
