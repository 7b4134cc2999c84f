//! `qibase-dev levels`: the difficulty levels measured against each other.
//!
//! Every pair of levels plays, in every game given, from the start
//! position (`--games` games with each colour) and from `--openings`
//! drawn positions reached from the start by seeded random walks (each
//! with both colours). A game ends by the rules (no pieces, no legal move,
//! the end rules of each game) or, since the rules have no repetition
//! rule and endless play is a draw, as a draw after `--max-plies` plies.
//! The output is Markdown: per game the wins, draws and losses of every
//! level against every other, and an Elo-style ladder fitted by maximum
//! likelihood to all the games (logistic, 400 points = 10 : 1 odds), with
//! `easy` at 0.
//!
//! Every game has its own generator, seeded from `--seed` and the game's
//! place in the schedule, so a run is reproducible whatever the threads.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rayon::prelude::*;

use qibase::ai::{choose, choose_index_with_policy, Difficulty, MistakeKind, MistakePolicy};
use qibase::analysis::{analyse, open_oracle, LookupError, Oracle};
use qibase::with_game;
use qibase::Rng;
use qibase::{Game, TierKey};
use qibase::{Value, Wdl};
use qibase_cli::cli::{game_by_id, CliError, CliResult};

#[derive(Args, Debug)]
pub struct LevelsArgs {
    /// Game ids (see `qibase games`), one section each.
    #[arg(required = true)]
    pub game: Vec<String>,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Games from the start position per pair of levels and colour.
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Drawn positions sampled by random walks from the start, each played
    /// once per pair of levels and colour.
    #[arg(long, default_value_t = 20)]
    pub openings: usize,
    /// Seed of the walks and of every game.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A game still going after this many plies is a draw.
    #[arg(long, default_value_t = 200)]
    pub max_plies: usize,
    /// Measure other settings than the built-in ones:
    /// `LEVEL=PERCENT:KIND` (KIND `mildest` or `random`), e.g.
    /// `--policy hard=3:mildest`; repeatable.
    #[arg(long = "policy", value_name = "LEVEL=PERCENT:KIND")]
    pub policies: Vec<String>,
    /// Write the Markdown here (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Walk plies before a position may be taken as an opening.
const OPENING_MIN_PLIES: usize = 8;
/// Walk plies after which a walk stops.
const OPENING_MAX_PLIES: usize = 40;

/// Drawn positions reached from `start` by random walks (a random move 25 %
/// of the time, else a random move keeping the result), one per walk,
/// taken between [`OPENING_MIN_PLIES`] and [`OPENING_MAX_PLIES`] plies;
/// symmetric positions count once.
fn sample_openings<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    start: G::Pos,
    count: usize,
    rng: &mut Rng,
) -> Result<Vec<G::Pos>, LookupError> {
    let mut seen: HashSet<(TierKey, u64)> = HashSet::new();
    let mut out = Vec::new();
    let mut walks = 0;
    while out.len() < count && walks < count.max(1).saturating_mul(200) {
        walks += 1;
        let mut p = start;
        let mut here = Vec::new();
        for ply in 0..OPENING_MAX_PLIES {
            let a = analyse(g, oracle, &p)?;
            if a.moves.is_empty() {
                break;
            }
            if ply >= OPENING_MIN_PLIES && a.value == Value::Draw {
                let t = g.tier_of(&p);
                let key = (t, g.rank(t, &p));
                if !seen.contains(&key) {
                    here.push((key, p));
                }
            }
            let class = a.value.wdl();
            let keep = a.moves.iter().filter(|m| m.value.wdl() == class).count();
            let i = if rng.chance(25) {
                rng.below(a.moves.len())
            } else {
                rng.below(keep.max(1))
            };
            p = a.moves[i].after;
        }
        if !here.is_empty() {
            let (key, q) = here[rng.below(here.len())];
            seen.insert(key);
            out.push(q);
        }
    }
    Ok(out)
}

/// A level, and the mistake policy it plays with if not its built-in one.
#[derive(Clone, Copy, Debug)]
struct Player {
    level: Difficulty,
    policy: Option<MistakePolicy>,
}

/// The players of `--policy` overrides: `LEVEL=PERCENT:KIND`.
fn players(overrides: &[String]) -> Result<[Player; 4], CliError> {
    let mut out = Difficulty::ALL.map(|level| Player {
        level,
        policy: None,
    });
    for o in overrides {
        let bad = || {
            CliError::input(format!(
                "bad --policy '{o}' (LEVEL=PERCENT:KIND, KIND mildest or random)"
            ))
        };
        let (name, rest) = o.split_once('=').ok_or_else(bad)?;
        let (percent, kind) = rest.split_once(':').ok_or_else(bad)?;
        let level: Difficulty = name.parse()?;
        let percent: u32 = percent.parse().map_err(|_| bad())?;
        if percent > 100 || level == Difficulty::Perfect {
            return Err(bad());
        }
        let kind = match kind {
            "mildest" => MistakeKind::Mildest,
            "random" => MistakeKind::Random,
            _ => return Err(bad()),
        };
        let slot = out.iter_mut().find(|p| p.level == level).ok_or_else(bad)?;
        slot.policy = Some(MistakePolicy { percent, kind });
    }
    Ok(out)
}

/// A level's setting in words, e.g. `3 % mildest mistakes`.
fn setting(p: &Player) -> String {
    match p.policy.or(p.level.policy()) {
        None => "exact".to_string(),
        Some(MistakePolicy { percent: 0, .. }) => "no mistakes".to_string(),
        Some(m) => format!("{} % {} mistakes", m.percent, m.kind.name()),
    }
}

/// One game: `first` moves in `start`, `second` replies. The result for
/// `first` (win, draw or loss) and the plies played.
fn play<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    start: G::Pos,
    first: Player,
    second: Player,
    seed: u64,
    max_plies: usize,
) -> Result<(Wdl, usize), LookupError> {
    let mut rng = Rng::new(seed);
    let me = g.side_to_move(&start);
    let mut p = start;
    for ply in 0..max_plies {
        let level = if g.side_to_move(&p) == me {
            first
        } else {
            second
        };
        let (a, i) = match level.policy {
            Some(policy) => {
                let a = analyse(g, oracle, &p)?;
                let i = choose_index_with_policy(&a, Some(policy), &mut rng)?;
                (a, i)
            }
            None => choose(g, oracle, &p, level.level, &mut rng)?,
        };
        let Some(i) = i else {
            let w = a.value.wdl();
            let mine = if g.side_to_move(&p) == me {
                w
            } else {
                match w {
                    Wdl::Win => Wdl::Loss,
                    Wdl::Loss => Wdl::Win,
                    Wdl::Draw => Wdl::Draw,
                }
            };
            return Ok((mine, ply));
        };
        p = a.moves[i].after;
    }
    Ok((Wdl::Draw, max_plies))
}

/// Wins, draws, losses.
type Wdl3 = [u32; 3];

/// The levels' ratings by maximum likelihood under the logistic (Elo)
/// model, from `score[i][j]` (points of `i` against `j`, a draw half a
/// point) and `games[i][j]`; one virtual draw per pair keeps every rating
/// finite. Shifted so that the last level (easy) is 0.
fn elo(results: &[[Wdl3; 4]; 4]) -> [f64; 4] {
    let mut s = [[0.0f64; 4]; 4];
    let mut n = [[0.0f64; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            if i != j {
                let [w, d, l] = results[i][j];
                s[i][j] = w as f64 + 0.5 * d as f64 + 0.5;
                n[i][j] = (w + d + l) as f64 + 1.0;
            }
        }
    }
    let k = std::f64::consts::LN_10 / 400.0;
    let mut r = [0.0f64; 4];
    for _ in 0..10_000 {
        let mut next = r;
        for i in 0..4 {
            let (mut grad, mut hess) = (0.0, 0.0);
            for j in 0..4 {
                if i != j {
                    let e = 1.0 / (1.0 + (k * (r[j] - r[i])).exp());
                    grad += s[i][j] - n[i][j] * e;
                    hess += n[i][j] * e * (1.0 - e);
                }
            }
            next[i] = r[i] + grad / (k * hess.max(1e-9));
        }
        let moved = (0..4).map(|i| (next[i] - r[i]).abs()).fold(0.0, f64::max);
        r = next;
        if moved < 1e-6 {
            break;
        }
    }
    let base = r[3];
    r.map(|x| x - base)
}

/// One game's section of the report.
fn measure<G: Game>(g: &G, a: &LevelsArgs, out: &mut String) -> CliResult {
    let t0 = Instant::now();
    let (oracle, from) = open_oracle(g, &a.dir)?;
    let oracle = oracle.as_ref();
    let start = g.start();
    let mut rng = Rng::new(a.seed);
    let openings = sample_openings(g, oracle, start, a.openings, &mut rng)?;
    let levels = players(&a.policies)?;
    // (first level, second level, opening: None = the start, game seed)
    let mut jobs = Vec::new();
    let mut k = 0u64;
    for i in 0..levels.len() {
        for j in i + 1..levels.len() {
            let starts = (0..a.games)
                .map(|_| None)
                .chain((0..openings.len()).map(Some));
            for o in starts {
                for (x, y) in [(i, j), (j, i)] {
                    k += 1;
                    let seed = Rng::new(a.seed ^ k.wrapping_mul(0x9E37_79B9)).next_u64();
                    jobs.push((x, y, o, seed));
                }
            }
        }
    }
    eprintln!(
        "{}: {} openings, {} games ({from})",
        g.id(),
        openings.len(),
        jobs.len()
    );
    let played: Result<Vec<(Wdl, usize)>, LookupError> = jobs
        .par_iter()
        .map(|&(x, y, o, seed)| {
            let p = o.map_or(start, |o| openings[o]);
            play(g, oracle, p, levels[x], levels[y], seed, a.max_plies)
        })
        .collect();
    let played = played?;
    let mut results = [[[0u32; 3]; 4]; 4];
    let mut capped = 0;
    let mut plies = 0;
    for (&(x, y, _, _), &(w, n)) in jobs.iter().zip(&played) {
        let (wx, wy) = match w {
            Wdl::Win => (0, 2),
            Wdl::Draw => (1, 1),
            Wdl::Loss => (2, 0),
        };
        results[x][y][wx] += 1;
        results[y][x][wy] += 1;
        plies += n;
        if n >= a.max_plies {
            capped += 1;
        }
    }
    eprintln!("{}: {:.1} s", g.id(), t0.elapsed().as_secs_f64());
    let _ = writeln!(out, "## {}\n", g.id());
    let _ = writeln!(
        out,
        "{} games: every pair of levels from the start position ({} a colour) and from {} drawn positions ({} to {} plies from the start, each with both colours); {} reached the {}-ply cap (a draw); {:.0} plies a game on average.\n",
        jobs.len(),
        a.games,
        openings.len(),
        OPENING_MIN_PLIES,
        OPENING_MAX_PLIES,
        capped,
        a.max_plies,
        plies as f64 / jobs.len().max(1) as f64,
    );
    let _ = writeln!(
        out,
        "Levels: {}.\n",
        levels
            .iter()
            .map(|p| format!("{} ({})", p.level, setting(p)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        out,
        "Wins-draws-losses of the row's level against the column's, and its score:\n"
    );
    let _ = writeln!(out, "| | {} |", levels.map(|l| l.level.name()).join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(levels.len()));
    for i in 0..levels.len() {
        let cells: Vec<String> = (0..levels.len())
            .map(|j| {
                if i == j {
                    return "—".to_string();
                }
                let [w, d, l] = results[i][j];
                let n = (w + d + l).max(1) as f64;
                format!(
                    "{w}-{d}-{l} ({:.0} %)",
                    100.0 * (w as f64 + 0.5 * d as f64) / n
                )
            })
            .collect();
        let _ = writeln!(out, "| **{}** | {} |", levels[i].level, cells.join(" | "));
    }
    let r = elo(&results);
    let ladder: Vec<String> = (0..levels.len())
        .map(|i| format!("{} **{:+.0}**", levels[i].level, r[i]))
        .collect();
    let _ = writeln!(
        out,
        "\nLadder (Elo, maximum likelihood, easy = 0): {}.\n",
        ladder.join(", ")
    );
    Ok(())
}

pub fn run(a: &LevelsArgs) -> CliResult {
    if a.max_plies == 0 {
        return Err(CliError::input("--max-plies must be at least 1"));
    }
    if a.games == 0 && a.openings == 0 {
        return Err(CliError::input(
            "no games to play: --games and --openings are 0",
        ));
    }
    let mut out = String::new();
    for id in &a.game {
        let any = game_by_id(id)?;
        with_game!(any, |g| measure(g, a, &mut out))?;
    }
    match &a.out {
        Some(path) => std::fs::write(path, &out)
            .map_err(|e| CliError::failure(format!("cannot write {}: {e}", path.display())))?,
        None => print!("{out}"),
    }
    Ok(())
}
