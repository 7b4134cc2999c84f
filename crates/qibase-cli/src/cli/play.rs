//! `qibase play`: a game against the program in the terminal, with the
//! original games' turn timer (a timed-out turn passes) and difficulty levels.
//!
//! Standard input is read by a separate thread and handed over a channel,
//! so the timer runs while the person thinks; when stdin closes the game
//! quits cleanly.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use super::{game_by_id, CliError, CliResult};
use crate::hint::lookup_hint;
use qibase::ai::{choose, Difficulty, Rng};
use qibase::analysis::{analyse, open_oracle, position_value, Oracle};
use qibase::with_game;
use qibase::Value;
use qibase::{Game, Notation, Rules, Side};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SideArg {
    First,
    Second,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Which side you play: first (moves first) or second.
    #[arg(long = "as", value_enum, default_value = "first")]
    pub side: SideArg,
    /// The program's level: perfect, hard, medium or easy.
    #[arg(long, default_value = "perfect")]
    pub difficulty: String,
    /// Start from this position instead of the start position.
    #[arg(long)]
    pub from: Option<String>,
    /// Seconds per turn for you; when they run out your turn passes. 0 = no timer.
    #[arg(long, default_value_t = 60)]
    pub timer: u64,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Seed of the program's random choices; default: from the clock.
    #[arg(long)]
    pub seed: Option<u64>,
}

/// A line typed by the person, or the end of input.
enum Input {
    Line(String),
    Closed,
    TimedOut,
}

/// Stdin, read by its own thread.
struct Keyboard {
    rx: Receiver<String>,
    closed: bool,
}

impl Keyboard {
    fn spawn() -> Keyboard {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Keyboard { rx, closed: false }
    }

    /// The next line, waiting at most until `deadline` (if any).
    fn read(&mut self, deadline: Option<Instant>) -> Input {
        if self.closed {
            return Input::Closed;
        }
        let got = match deadline {
            None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(d) => self
                .rx
                .recv_timeout(d.saturating_duration_since(Instant::now())),
        };
        match got {
            Ok(l) => Input::Line(l),
            Err(RecvTimeoutError::Timeout) => Input::TimedOut,
            Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Input::Closed
            }
        }
    }
}

fn say(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

/// One ply of history: the position before it and the move that led there.
struct Snapshot<G: Game> {
    pos: G::Pos,
    last: Option<G::Move>,
}

struct Session<'g, G: Game> {
    g: &'g G,
    oracle: &'g dyn Oracle<G>,
    human: Side,
    level: Difficulty,
    rng: Rng,
    timer: Option<Duration>,
    initial: G::Pos,
    pos: G::Pos,
    last: Option<G::Move>,
    /// What was before each ply (moves and passes).
    history: Vec<Snapshot<G>>,
    /// The last ply was a pass (for the diagram note).
    passed: bool,
    kb: Keyboard,
}

/// How a turn of the person ended.
enum Turn {
    Continue,
    Quit,
}

impl<'g, G: Game> Session<'g, G> {
    fn name(&self, side: Side) -> String {
        let who = if side == self.human { "you" } else { "qibase" };
        format!("{} ({who})", self.g.side_letter(side))
    }

    fn reset(&mut self) {
        self.pos = self.initial;
        self.last = None;
        self.history.clear();
        self.passed = false;
    }

    fn push(&mut self, next: G::Pos, mv: Option<G::Move>) {
        self.history.push(Snapshot {
            pos: self.pos,
            last: self.last,
        });
        self.pos = next;
        self.last = mv;
        self.passed = mv.is_none();
    }

    fn timer_text(&self) -> String {
        match self.timer {
            None => "no turn timer".to_string(),
            Some(t) => format!("{} s per turn", t.as_secs_f64()),
        }
    }

    fn show_board(&self) {
        let mut s = String::new();
        s.push('\n');
        s.push_str(&self.g.diagram(&self.pos, self.last.as_ref()));
        if self.passed {
            s.push_str(&format!(
                "last turn: {} passed (time ran out)\n",
                self.name(self.g.side_to_move(&self.pos).other())
            ));
        }
        s.push_str(&format!("position: {}\n", self.g.format_pos(&self.pos)));
        let human_clock = match self.timer {
            None => "no limit".to_string(),
            Some(t) => format!("{} s left this turn", t.as_secs()),
        };
        s.push_str(&format!(
            "clocks: {}: {human_clock} · {}: moves at once ({})\n",
            self.name(self.human),
            self.name(self.human.other()),
            self.level
        ));
        say(&s);
    }

    fn legal_list(&self) -> String {
        let mut ms = Vec::new();
        self.g.moves(&self.pos, &mut ms);
        let mut names: Vec<String> = ms.iter().map(|m| self.g.format_move(m)).collect();
        names.sort();
        names.join(" ")
    }

    fn hint(&self) -> Result<(), String> {
        let a = analyse(self.g, self.oracle, &self.pos).map_err(|e| lookup_hint(&e))?;
        let mut s = format!("position value (for you): {}\n", a.value);
        if let Some(b) = a.best() {
            s.push_str(&format!("best move: {} ({})\n", b.text, b.value));
        }
        s.push_str("every move, best first (value for you):\n");
        for m in &a.moves {
            s.push_str(&format!("  {:<8} {}\n", m.text, m.value));
        }
        say(&s);
        Ok(())
    }

    /// Take back the last full turn: back to the position before the
    /// person's last move (or pass), undoing the program's reply too.
    fn undo(&mut self) {
        let Some(k) = self
            .history
            .iter()
            .rposition(|s| self.g.side_to_move(&s.pos) == self.human)
        else {
            say("nothing to undo\n");
            return;
        };
        let snap = self.history.swap_remove(k);
        self.history.truncate(k);
        self.pos = snap.pos;
        self.last = snap.last;
        self.passed = false;
        say("took back your last turn\n");
    }

    fn program_move(&mut self) -> Result<(), String> {
        let (a, pick) = choose(self.g, self.oracle, &self.pos, self.level, &mut self.rng)
            .map_err(|e| lookup_hint(&e))?;
        let Some(i) = pick else { return Ok(()) };
        let m = &a.moves[i];
        say(&format!(
            "qibase ({}) plays {}\n",
            self.g.side_letter(self.g.side_to_move(&self.pos)),
            m.text
        ));
        let (after, mv) = (m.after, m.mv);
        self.push(after, Some(mv));
        Ok(())
    }

    /// Announce the end; `Quit` unless a new game is wanted.
    fn game_over(&mut self, end: qibase::GameEnd) -> Turn {
        let to_move = self.g.side_to_move(&self.pos);
        let winner = match end.value {
            Value::Win(_) => Some(to_move),
            Value::Loss(_) => Some(to_move.other()),
            Value::Draw => None,
        };
        let mut s = String::from("\n");
        s.push_str(&self.g.diagram(&self.pos, self.last.as_ref()));
        s.push_str("\nGame over: ");
        s.push_str(&match winner {
            Some(w) if w == self.human => format!("you win as {}!", self.g.side_letter(w)),
            Some(w) => format!("qibase wins as {}.", self.g.side_letter(w)),
            None => "a draw.".to_string(),
        });
        s.push_str(&format!(
            " Why: {} to move, and {}.\n",
            self.name(to_move),
            self.g.describe_end(end.reason)
        ));
        say(&s);
        loop {
            say("New game? [y/n] ");
            match self.kb.read(None) {
                Input::Line(l) => match l.trim() {
                    "y" | "yes" | "new" => {
                        self.reset();
                        say("new game\n");
                        return Turn::Continue;
                    }
                    "n" | "no" | "quit" | "q" => return Turn::Quit,
                    _ => say("please answer y or n\n"),
                },
                _ => {
                    say("\n");
                    return Turn::Quit;
                }
            }
        }
    }

    fn help(&self) {
        say(&format!(
            "type a move in RULES notation (e.g. {}), or a command:\n  \
             moves              list the legal moves\n  \
             hint               the best move and the value of every move\n  \
             undo               take back your last turn (and the reply)\n  \
             difficulty LEVEL   perfect, hard, medium or easy (now: {})\n  \
             new                start again\n  \
             quit               leave\n",
            self.example_move(),
            self.level
        ));
    }

    fn example_move(&self) -> String {
        let mut ms = Vec::new();
        if self.g.game_end(&self.pos).is_none() {
            self.g.moves(&self.pos, &mut ms);
        }
        ms.first()
            .map(|m| self.g.format_move(m))
            .unwrap_or_else(|| "from-to".to_string())
    }

    /// The person's turn: commands until a move, a pass, undo, new or quit.
    fn human_turn(&mut self) -> Result<Turn, String> {
        self.show_board();
        let start = Instant::now();
        let deadline = self.timer.map(|t| start + t);
        // Warn 10 s before the end, or half-way for timers of 20 s or less.
        let warn_at = self.timer.map(|t| {
            let before = if t > Duration::from_secs(20) {
                Duration::from_secs(10)
            } else {
                t / 2
            };
            start + t - before
        });
        let mut warned = false;
        loop {
            let prompt = match deadline {
                Some(d) => format!(
                    "{} to move, {} s left> ",
                    self.name(self.human),
                    d.saturating_duration_since(Instant::now())
                        .as_secs_f64()
                        .ceil()
                ),
                None => format!("{} to move> ", self.name(self.human)),
            };
            say(&prompt);
            let wait_until = match (warned, warn_at) {
                (false, Some(w)) => Some(w),
                _ => deadline,
            };
            let line = match self.kb.read(wait_until) {
                Input::TimedOut if !warned && warn_at.is_some() => {
                    warned = true;
                    let left = deadline.unwrap().saturating_duration_since(Instant::now());
                    say(&format!(
                        "\nhurry: {:.0} s left, then your turn passes to qibase\n",
                        left.as_secs_f64().ceil()
                    ));
                    continue;
                }
                Input::TimedOut => {
                    let next = self.g.pass(&self.pos);
                    say(&format!(
                        "\ntime is up: your turn passes to {}\n",
                        self.name(self.human.other())
                    ));
                    self.push(next, None);
                    return Ok(Turn::Continue);
                }
                Input::Closed => {
                    say("\ninput closed: bye\n");
                    return Ok(Turn::Quit);
                }
                Input::Line(l) => l,
            };
            let line = line.trim();
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (None, _) => {}
                (Some("help") | Some("?"), None) => self.help(),
                (Some("moves"), None) => say(&format!("legal moves: {}\n", self.legal_list())),
                (Some("hint"), None) => self.hint()?,
                (Some("undo"), None) => {
                    self.undo();
                    return Ok(Turn::Continue);
                }
                (Some("new"), None) => {
                    self.reset();
                    say("new game\n");
                    return Ok(Turn::Continue);
                }
                (Some("quit") | Some("exit") | Some("q"), None) => return Ok(Turn::Quit),
                (Some("difficulty"), level) => match level.map(str::parse::<Difficulty>) {
                    Some(Ok(d)) => {
                        self.level = d;
                        say(&format!("difficulty is now {d}: {}\n", d.describe()));
                    }
                    Some(Err(e)) => say(&format!("{e}\n")),
                    None => say(&format!(
                        "difficulty is {}; change it with: difficulty perfect|hard|medium|easy\n",
                        self.level
                    )),
                },
                _ => match self.g.parse_move(&self.pos, line) {
                    Ok(m) => {
                        let next = self.g.apply(&self.pos, &m);
                        self.push(next, Some(m));
                        return Ok(Turn::Continue);
                    }
                    Err(e) => say(&format!(
                        "{e}\nlegal moves: {}\n(type help for the commands)\n",
                        self.legal_list()
                    )),
                },
            }
        }
    }

    fn run(&mut self) -> Result<(), String> {
        loop {
            if let Some(end) = self.g.game_end(&self.pos) {
                match self.game_over(end) {
                    Turn::Continue => continue,
                    Turn::Quit => return Ok(()),
                }
            }
            if self.g.side_to_move(&self.pos) != self.human {
                self.program_move()?;
                continue;
            }
            match self.human_turn()? {
                Turn::Continue => {}
                Turn::Quit => return Ok(()),
            }
        }
    }
}

pub fn run(a: &PlayArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    let level: Difficulty = a.difficulty.parse().map_err(CliError::from)?;
    with_game!(any, |g| {
        let initial = match &a.from {
            Some(s) => g.parse_pos(s).map_err(CliError::from)?,
            None => g.start(),
        };
        let (oracle, source) = open_oracle(g, &a.dir)?;
        // A partial tablebase may not cover the chosen start: say so now.
        position_value(g, oracle.as_ref(), &initial)?;
        let human = match a.side {
            SideArg::First => Side::First,
            SideArg::Second => Side::Second,
        };
        let seed = a.seed.unwrap_or_else(Rng::clock_seed);
        let timer = (a.timer > 0).then(|| Duration::from_secs(a.timer));
        let mut s = Session {
            g,
            oracle: oracle.as_ref(),
            human,
            level,
            rng: Rng::new(seed),
            timer,
            initial,
            pos: initial,
            last: None,
            history: Vec::new(),
            passed: false,
            kb: Keyboard::spawn(),
        };
        say(&format!(
            "{} — you play {}, qibase plays {} at difficulty {level} (seed {seed}); {}{}.\nvalues: {source}\n",
            g.title(),
            g.side_letter(human),
            g.side_letter(human.other()),
            s.timer_text(),
            if timer.is_some() {
                " (when it runs out your turn passes)"
            } else {
                ""
            },
        ));
        s.help();
        s.run().map_err(CliError::failure)
    })
}
