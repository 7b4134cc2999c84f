//! `qibase annotate` against per-ply `qibase query`: the same positions,
//! values and best moves, and a mark exactly where a move lowered the
//! mover's result.

use serde_json::Value as Json;

use crate::common::qibase;

fn query(pos: &str) -> Json {
    let o = qibase(&["query", "--json", "weiming", pos]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn rank(category: &str) -> u8 {
    match category {
        "loss" => 0,
        "draw" => 1,
        "win" => 2,
        other => panic!("category {other}"),
    }
}

/// A won position of weiming (win 3 for O, whose other move draws).
const WON: &str = "X.X/SXO/.OO O -";

/// A game of weiming from [`WON`] that takes the worst move at the first
/// ply and the best move after it, with each position's `query` answer.
fn game() -> (Vec<String>, Vec<Json>) {
    let mut pos = WON.to_string();
    let (mut moves, mut answers) = (Vec::new(), Vec::new());
    for ply in 0..8 {
        let a = query(&pos);
        if !a["end"].is_null() {
            break;
        }
        let list = a["moves"].as_array().unwrap();
        let m = if ply == 0 { list.last() } else { list.first() }.unwrap();
        moves.push(m["move"].as_str().unwrap().to_string());
        pos = m["position"].as_str().unwrap().to_string();
        answers.push(a);
    }
    (moves, answers)
}

#[test]
fn annotate_agrees_with_query_ply_by_ply() {
    let (moves, answers) = game();
    let mut args = vec!["annotate", "weiming", "--json", "--from", WON];
    args.extend(moves.iter().map(String::as_str));
    let o = qibase(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<Json> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), moves.len());
    let mut mistakes = 0;
    for ((line, q), mv) in lines.iter().zip(&answers).zip(&moves) {
        assert_eq!(line["position"], q["position"]);
        assert_eq!(line["value"], q["value"]);
        assert_eq!(line["side_to_move"], q["side_to_move"]);
        assert_eq!(line["best"]["move"], q["best"]);
        assert_eq!(&line["played"]["move"], mv);
        let entry = q["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| &m["move"] == mv)
            .unwrap();
        assert_eq!(line["played"], *entry);
        let worse =
            rank(entry["category"].as_str().unwrap()) < rank(q["category"].as_str().unwrap());
        assert_eq!(line["mistake"], Json::Bool(worse), "{line}");
        if worse {
            mistakes += 1;
            // The line after the best move is that position's principal variation.
            let after = query(q["moves"][0]["position"].as_str().unwrap());
            let pv: Vec<&Json> = after["pv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| &m["move"])
                .collect();
            let line_moves: Vec<&Json> = line["line"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| &m["move"])
                .collect();
            assert_eq!(line_moves, pv);
        } else {
            assert!(line["line"].is_null());
        }
    }
    assert!(mistakes > 0, "the worst moves changed no result: {moves:?}");

    // Text, with the moves on stdin: one line a ply, each mistake marked.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qibase"))
        .current_dir(crate::common::root())
        .args(["annotate", "weiming", "--from", WON])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(moves.join("\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("??").count(), mistakes, "{text}");
    assert_eq!(text.matches("best instead:").count(), mistakes, "{text}");
    assert!(
        text.contains(&format!(
            "{} plies, {mistakes} changed the result",
            moves.len()
        )),
        "{text}"
    );
}

#[test]
fn a_bad_move_is_one_line_naming_its_ply() {
    let (moves, _) = game();
    let o = qibase(&["annotate", "weiming", "--from", WON, &moves[0], "zz-zz"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("ply 2"), "{err}");
    let o = qibase(&["annotate", "weiming", "--from", "XXX/S../OO X -", &moves[0]]);
    assert_eq!(o.status.code(), Some(2));
    let o = qibase(&["annotate", "weiming"]);
    // No moves on an empty stdin.
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
