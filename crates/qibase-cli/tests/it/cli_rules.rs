//! The rules commands through the binary: `games`, `show`, `moves`, `perft`,
//! and the one-line errors with exit code 2 for bad input.

use crate::common::qibase;

use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Bad input: exit code 2, exactly one line on stderr containing `needle`.
fn assert_input_error(args: &[&str], needle: &str) {
    let o = qibase(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn games_lists_every_game_with_its_position_count() {
    let o = qibase(&["games"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for (id, count) in [
        ("weiming", "20160"),
        ("cannon-chess ", "1018206282"),
        ("cannon-chess-4x4", "42189578"),
        ("two-cannons", "3327829200"),
        ("three-cannons", "18787540800"),
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(id))
            .unwrap_or_else(|| panic!("{id} missing: {out}"));
        assert!(line.split_whitespace().nth(1) == Some(count), "{line}");
    }
}

#[test]
fn show_draws_the_start_position() {
    let o = qibase(&["show", "cannon-chess"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("OOOO/O..O/..../X..X/XXXX X"), "{out}");
    for label in ["a", "d", "1", "5"] {
        assert!(out.contains(label));
    }
}

#[test]
fn moves_reports_results_and_game_ends() {
    // X to move captures O's last piece with a cannon-shot on rank 1.
    let o = qibase(&[
        "moves",
        "cannon-chess",
        "..../..../..../X.../.XO. X",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let moves = v["moves"].as_array().unwrap();
    let capture = moves
        .iter()
        .find(|m| m["move"] == "a2-a1")
        .expect("a2-a1 listed");
    assert_eq!(capture["position"], "..../..../..../..../XX.. O");
    // The game ends after the capture: O, to move, has lost; the move's
    // value (known by the rules alone) is a win in one ply for X.
    assert_eq!(capture["end"]["value"], "loss 0");
    assert_eq!(capture["end"]["category"], "loss");
    assert_eq!(capture["value"], "win 1");
    assert_eq!(capture["remoteness"], 1);
    let quiet = moves
        .iter()
        .find(|m| m["move"] == "a2-a3")
        .expect("a2-a3 listed");
    assert!(quiet["end"].is_null());
    assert!(
        quiet.get("value").is_none(),
        "no tablebase, no value: {quiet}"
    );
}

#[test]
fn perft_prints_one_line_per_depth() {
    let o = qibase(&["perft", "two-cannons", "4"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "1 6\n2 42\n3 250\n4 2312\n");
    let o = qibase(&["perft", "weiming", "3", "--from", "XXX/S../OOO X -"]);
    assert_eq!(stdout(&o), "1 4\n2 6\n3 19\n");
}

#[test]
fn bad_input_gets_one_line_and_exit_code_2() {
    assert_input_error(&["show", "chess"], "unknown game 'chess'");
    assert_input_error(&["moves", "chess", "x"], "unknown game");
    assert_input_error(&["show", "cannon-chess", "OOOO/O..O/..../X..X X"], "rank");
    assert_input_error(&["show", "cannon-chess", "OOOO/O..O/..../X..X/XXXXX X"], "");
    assert_input_error(&["show", "cannon-chess", "OOOO/O..O/..../X..Q/XXXX X"], "Q");
    assert_input_error(&["show", "cannon-chess", "OOOO/OOOO/..../X..X/XXXX X"], "");
    assert_input_error(
        &["show", "cannon-chess", "OOOO/O..O/..../X..X/XXXX"],
        "side",
    );
    assert_input_error(&["show", "cannon-chess", "OOOO/O..O/..../X..X/XXXX Z"], "");
    assert_input_error(
        &["show", "cannon-chess", "OOOO/O..O/..../X..X/XXXX X -"],
        "",
    );
    assert_input_error(&["show", "weiming", "XXX/S../OOO X"], "");
    assert_input_error(&["show", "weiming", "XXX/S../OOO X ?"], "");
    assert_input_error(
        &["show", "two-cannons", "SSSSS/SSSSS/S...S/...../.C.C. X"],
        "",
    );
    assert_input_error(
        &["show", "two-cannons", "SSSSS/SSSSS/S...S/...../CC.C. C"],
        "cannon",
    );
    assert_input_error(&["perft", "weiming", "3", "--from", "XXX/S../OO. X -"], "");
    assert_input_error(&["perft", "weiming", "x"], "");
}
