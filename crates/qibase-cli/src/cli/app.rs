//! The command line's arguments and dispatch, shared by the `qibase`
//! binary and the MPI build's `qibase-mpi` (docs/cluster.md).

use super::ranks::JoinJob;
use super::{
    annotate, engine, pack, play, puzzles, query, report, rules, serve, solve, verify, CliError,
};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "qibase",
    version,
    about = "Exact solutions of small traditional Chinese board games",
    after_help = qibase::games::variant::help_text()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the games with board, material and number of positions.
    Games,
    /// Draw a position as a board diagram (default: the start position).
    Show(rules::ShowArgs),
    /// List every legal move of a position, the result and whether the game ends.
    Moves(rules::MovesArgs),
    /// Count move sequences of 1..=DEPTH plies.
    Perft(rules::PerftArgs),
    /// Solve games by retrograde analysis and write their tablebases.
    Solve(solve::SolveArgs),
    /// A position's exact value, every move's value and the principal variation.
    Query(query::QueryArgs),
    /// Review a game move by move: each move's value, and each move that changed the result with the best move instead.
    Annotate(annotate::AnnotateArgs),
    /// Check every tablebase checksum and re-derive every stored value from its moves.
    Verify(verify::VerifyArgs),
    /// Which tiers are on disk: slots, bits per used slot of each section, solve statistics.
    Info(verify::InfoArgs),
    /// Write a game's tables in the compact format, for shipping: 2.6–2.8 bits
    /// per used slot, the level of published exact-distance tablebases.
    Pack(pack::PackArgs),
    /// Restore the fast format from compact tables, byte for byte.
    Unpack(pack::PackArgs),
    /// Write the research report of a solved game (markdown and SVG
    /// figures). A long report saves its progress every ten minutes next to
    /// its output, and a stopped one resumes from it.
    Report(report::ReportArgs),
    /// Select puzzles from the tables (one move keeps the result) into a JSON file.
    Puzzles(puzzles::PuzzlesArgs),
    /// Play against the program in the terminal (turn timer, hints, undo, difficulty levels).
    Play(play::PlayArgs),
    /// The program's move in a position at a difficulty level.
    Bestmove(engine::BestmoveArgs),
    /// Answer JSON Lines commands on stdin (bestmove, query, moves, quit), one JSON line each.
    Engine(engine::EngineArgs),
    /// Serve the HTTP API (/api/v1) and the web page (/), on loopback unless --host says otherwise.
    Serve(serve::ServeArgs),
}

/// Run the command line of this process: parse the arguments, run the
/// command, and exit with its code. `join` is how a binary built with MPI
/// joins the job that started it (`None`: the plain `qibase`, which solves
/// alone).
pub fn main(join: Option<JoinJob>) {
    if let Err(e) = qibase::check_cpu() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = e.print();
                    std::process::exit(0);
                }
                _ => {
                    // Bad usage: one line saying what is wrong (clap's first line).
                    let text = e.render().to_string();
                    let first = text
                        .lines()
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or("bad arguments");
                    eprintln!("{} (see qibase --help)", first.trim_end());
                    std::process::exit(2);
                }
            }
        }
    };
    let result: Result<(), CliError> = match &cli.command {
        Command::Games => rules::games(),
        Command::Show(a) => rules::show(a),
        Command::Moves(a) => rules::moves(a),
        Command::Perft(a) => rules::perft_cmd(a),
        Command::Solve(a) => solve::run(a, join),
        Command::Query(a) => query::run(a),
        Command::Annotate(a) => annotate::run(a),
        Command::Verify(a) => verify::verify(a),
        Command::Info(a) => verify::info(a),
        Command::Pack(a) => pack::run(a, pack::Direction::Pack),
        Command::Unpack(a) => pack::run(a, pack::Direction::Unpack),
        Command::Play(a) => play::run(a),
        Command::Bestmove(a) => engine::bestmove(a),
        Command::Engine(a) => engine::engine(a),
        Command::Serve(a) => serve::run(a),
        Command::Report(a) => report::run(a),
        Command::Puzzles(a) => puzzles::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(e.code);
    }
}
