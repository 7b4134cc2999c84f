//! `qibase play` driven through stdin, on weiming (solved on the fly, no
//! tablebase files needed): every program reply is checked against an
//! independent in-memory solve, illegal input is refused, and a short timer
//! with no input passes the turn.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use qibase::ai::{choose, Difficulty, Rng};
use qibase::analysis::MemoryOracle;
use qibase::games::{AnyGame, Weiming};
use qibase::{Notation, Rules, Side, TierKey, Tiers};
use qibase::{Packed, Value};

const BIN: &str = env!("CARGO_BIN_EXE_qibase");

/// A scratch tablebase directory that holds nothing (so weiming is solved on the fly).
fn empty_dir() -> String {
    let d = std::env::temp_dir().join(format!("qibase-play-test-{}", std::process::id()));
    d.to_string_lossy().into_owned()
}

fn table_value(
    g: &Weiming,
    t: &HashMap<TierKey, Vec<Packed>>,
    p: &<Weiming as Rules>::Pos,
) -> Value {
    let k = g.tier_of(p);
    Value::unpack(t[&k][g.rank(k, p) as usize]).unwrap()
}

/// Is `text` a value-optimal move in `p`, by the independent solve?
fn is_optimal(
    g: &Weiming,
    t: &HashMap<TierKey, Vec<Packed>>,
    p: &<Weiming as Rules>::Pos,
    text: &str,
) -> bool {
    let mut ms = Vec::new();
    g.moves(p, &mut ms);
    let val = |m: &<Weiming as Rules>::Move| Value::of_move_to(table_value(g, t, &g.apply(p, m)));
    let best = ms.iter().map(val).max().expect("a move exists");
    let m = g.parse_move(p, text).expect("program move is legal");
    val(&m) == best && best == table_value(g, t, p)
}

/// Run `play` with this whole stdin and return stdout (the process must exit by itself).
fn run_play(args: &[&str], input: &str) -> String {
    let mut child = Command::new(BIN)
        .current_dir(crate::common::root())
        .arg("play")
        .arg("weiming")
        .args(args)
        .args(["--dir", &empty_dir()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "play failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The moves the program announced, in order.
fn program_moves(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.split_once(") plays ").map(|(_, m)| m.trim().to_string()))
        .collect()
}

/// Script a game: the person plays random legal moves (seeded), the
/// program's replies are predicted with the library's `perfect` choice.
/// Returns the stdin script and the positions in which the program moved.
fn script(
    g: &Weiming,
    oracle: &MemoryOracle<Weiming>,
    start: <Weiming as Rules>::Pos,
    human: Side,
    seed: u64,
) -> (String, Vec<(<Weiming as Rules>::Pos, String)>) {
    let mut rng = Rng::new(seed);
    let mut p = start;
    let mut input = String::new();
    let mut expected = Vec::new();
    for _ in 0..60 {
        if g.game_end(&p).is_some() {
            input.push_str("n\n");
            return (input, expected);
        }
        if g.side_to_move(&p) == human {
            let mut ms = Vec::new();
            g.moves(&p, &mut ms);
            let m = ms[rng.below(ms.len())];
            input.push_str(&g.format_move(&m));
            input.push('\n');
            p = g.apply(&p, &m);
        } else {
            let (a, i) = choose(g, oracle, &p, Difficulty::Perfect, &mut Rng::new(0)).unwrap();
            let m = &a.moves[i.unwrap()];
            expected.push((p, m.text.clone()));
            p = m.after;
        }
    }
    input.push_str("quit\n");
    (input, expected)
}

#[test]
fn scripted_games_get_optimal_replies() {
    let g = Weiming::new();
    let tables = AnyGame::from_id(g.id()).unwrap().solve_in_memory(None);
    let oracle = MemoryOracle::solve(&g, None);
    let mut rng = Rng::new(2024);
    let mut replies = 0;
    for game in 0..24u64 {
        let human = if game % 2 == 0 {
            Side::First
        } else {
            Side::Second
        };
        // Half of the games from the start, half from random positions.
        let start = if game < 4 {
            g.start()
        } else {
            loop {
                let p = g.unrank(0, rng.below(g.tier_size(0) as usize) as u64);
                if g.game_end(&p).is_none() {
                    break p;
                }
            }
        };
        let (input, expected) = script(&g, &oracle, start, human, game);
        let side = if human == Side::First {
            "first"
        } else {
            "second"
        };
        let from = g.format_pos(&start);
        let out = run_play(&["--timer", "0", "--as", side, "--from", &from], &input);
        let got = program_moves(&out);
        let want: Vec<String> = expected.iter().map(|(_, m)| m.clone()).collect();
        assert_eq!(got, want, "game {game} from {from}:\n{out}");
        for (p, m) in &expected {
            assert!(
                is_optimal(&g, &tables, p, m),
                "{m} is not optimal in {}",
                g.format_pos(p)
            );
            replies += 1;
        }
    }
    assert!(replies > 60, "only {replies} replies checked");
}

#[test]
fn illegal_and_malformed_moves_are_refused() {
    let out = run_play(
        &["--timer", "0"],
        "tl-bl\nfoo\ns-x\nundo\nmoves\nhint\ndifficulty silly\ndifficulty hard\nquit\n",
    );
    assert!(out.contains("illegal move 'tl-bl'"), "{out}");
    assert!(out.contains("malformed move 'foo'"), "{out}");
    assert!(out.contains("legal moves: s-x tl-x tm-m tm-x"), "{out}");
    // Nothing changed until s-x, which the program answers.
    assert_eq!(program_moves(&out).len(), 1, "{out}");
    assert!(out.contains("took back your last turn"), "{out}");
    assert!(out.contains("best move: "), "{out}");
    assert!(out.contains("unknown difficulty 'silly'"), "{out}");
    assert!(out.contains("difficulty is now hard"), "{out}");
    // After undo the start position is shown again.
    let after_undo = out.split("took back your last turn").nth(1).unwrap();
    assert!(after_undo.contains("position: XXX/S../OOO X -"), "{out}");
}

#[test]
fn game_end_is_announced_and_a_new_game_offered() {
    let g = Weiming::new();
    let tables = AnyGame::from_id(g.id()).unwrap().solve_in_memory(None);
    // A position where X (the person) wins in one.
    let p = (0..g.tier_size(0))
        .map(|i| g.unrank(0, i))
        .find(|p| g.side_to_move(p) == Side::First && table_value(&g, &tables, p) == Value::Win(1))
        .expect("a win in one exists");
    let mut ms = Vec::new();
    g.moves(&p, &mut ms);
    let win = ms
        .iter()
        .find(|m| table_value(&g, &tables, &g.apply(&p, m)) == Value::Loss(0))
        .unwrap();
    let input = format!("{}\ny\nquit\n", g.format_move(win));
    let out = run_play(&["--timer", "0", "--from", &g.format_pos(&p)], &input);
    assert!(out.contains("you play X"), "{out}");
    assert!(out.contains("Game over: you win as X!"), "{out}");
    assert!(out.contains("has no legal move"), "{out}");
    assert!(out.contains("New game? [y/n]"), "{out}");
    assert!(out.contains("new game"), "{out}");
}

/// Reads a child's stdout into a shared buffer as it comes.
fn collect(mut r: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let buf = Arc::new(Mutex::new(String::new()));
    let b = buf.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = r.read(&mut chunk) {
            if n == 0 {
                break;
            }
            b.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    });
    buf
}

fn wait_for(buf: &Arc<Mutex<String>>, needle: &str, count: usize, secs: u64) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(secs) {
        if buf.lock().unwrap().matches(needle).count() >= count {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn timer_passes_the_turn() {
    for side in ["first", "second"] {
        let mut child = Command::new(BIN)
            .current_dir(crate::common::root())
            .args([
                "play",
                "weiming",
                "--timer",
                "1",
                "--as",
                side,
                "--dir",
                &empty_dir(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = collect(child.stdout.take().unwrap());
        // Programs moves: one after each pass (plus the opening one as second).
        let opening = usize::from(side == "second");
        assert!(
            wait_for(&out, "time is up: your turn passes", 2, 20),
            "no pass:\n{}",
            out.lock().unwrap()
        );
        assert!(
            wait_for(&out, ") plays ", 2 + opening, 10),
            "{}",
            out.lock().unwrap()
        );
        drop(stdin); // closing stdin quits cleanly
        let status = child.wait().unwrap();
        assert!(status.success());
        let text = out.lock().unwrap().clone();
        assert!(
            text.contains("hurry:"),
            "no warning before the pass:\n{text}"
        );
        // The pass gave the program the move: in the start position as X,
        // the program now plays O, with the shared piece free.
        let first_pass = text.split("time is up").nth(1).unwrap();
        assert!(first_pass.contains(") plays "), "{text}");
    }
}
