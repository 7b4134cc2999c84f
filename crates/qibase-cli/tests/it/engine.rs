//! `qibase engine` (JSON Lines) and `qibase bestmove`, on weiming: one
//! flushed answer per command, bad commands answered with an error while
//! the engine keeps running.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use qibase::games::{AnyGame, Weiming};
use qibase::Value;
use qibase::{Notation, Rules, Tiers};
use serde_json::{json, Value as Json};

const BIN: &str = env!("CARGO_BIN_EXE_qibase");

fn empty_dir() -> String {
    let d = std::env::temp_dir().join(format!("qibase-engine-test-{}", std::process::id()));
    d.to_string_lossy().into_owned()
}

/// Send commands one at a time and read each answer before the next (so an
/// unflushed answer would hang the test rather than pass).
#[test]
fn engine_round_trip_with_bad_commands() {
    let g = Weiming::new();
    let tables = AnyGame::from_id(g.id()).unwrap().solve_in_memory(None);
    let value = |s: &str| {
        let p = g.parse_pos(s).unwrap();
        Value::unpack(tables[&0][g.rank(0, &p) as usize]).unwrap()
    };

    let mut child = Command::new(BIN)
        .current_dir(crate::common::root())
        .args(["engine", "weiming", "--seed", "1", "--dir", &empty_dir()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| -> Json {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut ans = String::new();
        stdout.read_line(&mut ans).unwrap();
        serde_json::from_str(&ans).unwrap_or_else(|e| panic!("answer is not JSON ({e}): {ans}"))
    };

    let start = "XXX/S../OOO X -";
    let q = ask(&json!({"cmd": "query", "position": start, "id": 7}).to_string());
    assert_eq!(q["id"], 7);
    assert_eq!(q["value"], value(start).to_string());
    assert_eq!(q["moves"].as_array().unwrap().len(), 4);
    assert_eq!(
        q["pv"].as_array().unwrap().len(),
        40,
        "a draw's PV has 40 plies"
    );
    assert_eq!(q["pv"][0]["move"], q["best"]);
    assert_eq!(q["moves"][0]["move"], q["best"]);
    for m in q["moves"].as_array().unwrap() {
        let after = m["position"].as_str().unwrap();
        assert_eq!(m["value"], Value::of_move_to(value(after)).to_string());
    }

    let m = ask(&json!({"cmd": "moves", "position": start}).to_string());
    let mut names: Vec<&str> = m["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["s-x", "tl-x", "tm-m", "tm-x"]);

    // Bad commands: each gets an error, and the engine goes on.
    for bad in [
        "{not json",
        "[1,2]",
        r#"{"position": "XXX/S../OOO X -"}"#,
        r#"{"cmd": "fly"}"#,
        r#"{"cmd": "bestmove"}"#,
        r#"{"cmd": "bestmove", "position": "XXX/S../OOX X -"}"#,
        r#"{"cmd": "query", "position": 5}"#,
        r#"{"cmd": "bestmove", "position": "XXX/S../OOO X -", "difficulty": "godlike"}"#,
        r#"{"cmd": "bestmove", "position": "XXX/S../OOO X -", "seed": -1}"#,
    ] {
        let e = ask(bad);
        assert!(e["error"].is_string(), "{bad} -> {e}");
        assert!(
            e["code"].as_str().unwrap().starts_with("bad_"),
            "{bad} -> {e}"
        );
    }

    // bestmove at every level, from a few positions: always legal; perfect
    // plays the exact value, hard keeps the value's class or makes the
    // mildest mistake.
    for (i, p) in ["X.X/SXO/O.O X -", ".XX/SX./OOO O -", start]
        .iter()
        .enumerate()
    {
        for level in ["perfect", "hard", "medium", "easy"] {
            let b = ask(
                &json!({"cmd": "bestmove", "position": p, "difficulty": level, "seed": i})
                    .to_string(),
            );
            let mv = b["move"]["move"].as_str().unwrap_or_else(|| panic!("{b}"));
            let pos = g.parse_pos(p).unwrap();
            let after = g.apply(&pos, &g.parse_move(&pos, mv).unwrap());
            assert_eq!(b["move"]["position"], g.format_pos(&after));
            let mv_value = Value::of_move_to(value(&g.format_pos(&after)));
            assert_eq!(b["move"]["value"], mv_value.to_string());
            assert_eq!(b["value"], value(p).to_string());
            assert_eq!(b["optimal"], mv_value == value(p));
            if level == "perfect" {
                assert_eq!(mv_value, value(p));
            }
            if level == "hard" && mv_value.wdl() != value(p).wdl() {
                // A mistake (2 % of hard's moves): the mildest one, the
                // best value among the moves that change the result.
                let mut ms = Vec::new();
                g.moves(&pos, &mut ms);
                let mildest = ms
                    .iter()
                    .map(|m| Value::of_move_to(value(&g.format_pos(&g.apply(&pos, m)))))
                    .filter(|v| v.wdl() != value(p).wdl())
                    .max()
                    .unwrap();
                assert_eq!(mv_value, mildest);
            }
        }
    }

    // A finished game: no move, the reason.
    let done = (0..g.tier_size(0))
        .map(|i| g.unrank(0, i))
        .find(|p| g.game_end(p).is_some())
        .unwrap();
    let over = ask(&json!({"cmd": "bestmove", "position": g.format_pos(&done)}).to_string());
    assert!(over["move"].is_null(), "{over}");
    assert_eq!(over["value"], "loss 0", "{over}");
    assert!(over["end"]["reason"].is_string(), "{over}");

    let bye = ask(r#"{"cmd": "quit"}"#);
    assert_eq!(bye["bye"], true);
    assert!(child.wait().unwrap().success());
}

#[test]
fn engine_ends_cleanly_when_stdin_closes() {
    let out = Command::new(BIN)
        .current_dir(crate::common::root())
        .args(["engine", "weiming", "--dir", &empty_dir()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
}

#[test]
fn bestmove_command() {
    let run = |args: &[&str]| {
        Command::new(BIN)
            .current_dir(crate::common::root())
            .arg("bestmove")
            .args(args)
            .args(["--dir", &empty_dir()])
            .output()
            .unwrap()
    };
    let out = run(&["weiming", "XXX/S../OOO X -", "--json"]);
    assert!(out.status.success());
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["value"], "draw");
    assert_eq!(j["category"], "draw");
    assert!(j["remoteness"].is_null());
    assert_eq!(j["move"]["value"], "draw");
    // Same seed, same choice.
    let a = run(&[
        "weiming",
        "XXX/S../OOO X -",
        "--difficulty",
        "easy",
        "--seed",
        "9",
    ]);
    let b = run(&[
        "weiming",
        "XXX/S../OOO X -",
        "--difficulty",
        "easy",
        "--seed",
        "9",
    ]);
    assert_eq!(a.stdout, b.stdout);
    // Input errors exit 2.
    assert_eq!(run(&["weiming", "nonsense"]).status.code(), Some(2));
    assert_eq!(
        run(&["weiming", "XXX/S../OOO X -", "--difficulty", "x"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["chess", "XXX/S../OOO X -"]).status.code(), Some(2));
}

/// A copy of the committed weiming table with its tier file changed by `f`.
fn damaged_copy(name: &str, f: impl FnOnce(&mut Vec<u8>)) -> (String, String) {
    let d = crate::common::temp_dir(name);
    let src = crate::common::root().join("tablebases/weiming/all.qtb");
    let dst = d.join("weiming/all.qtb");
    std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
    let mut bytes = std::fs::read(src).unwrap();
    f(&mut bytes);
    std::fs::write(&dst, bytes).unwrap();
    (
        d.to_string_lossy().into_owned(),
        dst.to_string_lossy().into_owned(),
    )
}

/// Only a missing table may fall back to a solve in memory: a damaged one
/// is reported with its path by `bestmove`, `play` and `engine`.
#[test]
fn damaged_tables_are_reported_never_replaced() {
    let flip_header = |b: &mut Vec<u8>| {
        // A byte of the checksummed header: format 3 checks a block only
        // when a probe reads it, but every open checks the header.
        b[20] ^= 0x55;
    };
    let truncate = |b: &mut Vec<u8>| b.truncate(10);
    for (name, f) in [
        ("engine-flip", &flip_header as &dyn Fn(&mut Vec<u8>)),
        ("engine-trunc", &truncate),
    ] {
        let (dir, file) = damaged_copy(name, f);
        let start = "XXX/S../OOO X -";
        for args in [
            vec!["bestmove", "weiming", start, "--dir", &dir],
            vec!["bestmove", "weiming", start, "--dir", &dir, "--json"],
            vec!["play", "weiming", "--dir", &dir],
        ] {
            let out = Command::new(BIN)
                .current_dir(crate::common::root())
                .args(&args)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains(&file), "{args:?}: {err}");
            assert!(!err.contains("in memory"), "{err}");
        }
        let out = Command::new(BIN)
            .current_dir(crate::common::root())
            .args(["engine", "weiming", "--dir", &dir])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = out.stdin.as_ref().unwrap();
        writeln!(
            stdin,
            "{}\n{}",
            json!({"cmd": "query", "position": start}),
            json!({"cmd": "moves", "position": start})
        )
        .unwrap();
        let out = out.wait_with_output().unwrap();
        let lines: Vec<Json> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["code"], "corrupt_tablebase", "{}", lines[0]);
        assert!(lines[0]["error"].as_str().unwrap().contains(&file));
        // The rules need no table: moves still answers.
        assert_eq!(lines[1]["moves"].as_array().unwrap().len(), 4);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// After `solve --max-pieces`, the engine answers inside the solved tiers
/// and gives a per-command error outside them.
#[test]
fn engine_answers_inside_a_partial_tablebase() {
    let d = crate::common::temp_dir("engine-partial");
    let ds = d.to_str().unwrap();
    let solve = crate::common::qibase(&[
        "solve",
        "cannon-chess-4x4",
        "--max-pieces",
        "2",
        "--dir",
        ds,
        "--quiet",
    ]);
    assert!(solve.status.success());
    let mut child = Command::new(BIN)
        .current_dir(crate::common::root())
        .args(["engine", "cannon-chess-4x4", "--dir", ds])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let inside = "..../O.../X..X/.... X";
    let start = "OOOO/O..O/X..X/XXXX X";
    for c in [
        json!({"cmd": "query", "position": inside}),
        json!({"cmd": "bestmove", "position": inside}),
        json!({"cmd": "query", "position": start}),
        json!({"cmd": "bestmove", "position": start}),
    ] {
        writeln!(stdin, "{c}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let lines: Vec<Json> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    let cli: Json = serde_json::from_slice(
        &crate::common::qibase(&["query", "cannon-chess-4x4", inside, "--dir", ds, "--json"])
            .stdout,
    )
    .unwrap();
    assert_eq!(lines[0], cli);
    assert!(lines[1]["move"]["move"].is_string(), "{}", lines[1]);
    for l in &lines[2..] {
        assert_eq!(l["code"], "not_solved", "{l}");
        assert!(
            l["error"]
                .as_str()
                .unwrap()
                .contains("qibase solve cannon-chess-4x4"),
            "{l}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
