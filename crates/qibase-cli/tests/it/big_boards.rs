//! Boards of 33 to 64 points through every tool: `solve`, `query`,
//! `moves`, `bestmove`, `verify`, `info`, `engine` and the HTTP API, on a
//! 6×6 cannon chess and a 7×5 two-cannons variant, each solved in full
//! (few pieces). Every value shown is checked against the reference solver
//! (forward iteration, `qibase::reference`), not against the tables.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use axum::http::StatusCode;
use qibase::games::AnyGame;
use qibase::reference::solve_forward;
use qibase::{Notation, Tiers, Value};
use serde_json::{json, Value as Json};

use crate::common::{qibase, temp_dir};
use crate::server::{expect_error, get, router, url_pos};

const VARIANTS: [&str; 2] = [
    "cannon-chess:board=6x6,pieces=2",
    "two-cannons:board=7x5,soldiers=3,threshold=2",
];

/// Every position's value by the reference solver, by position string.
fn reference(spec: &str) -> HashMap<String, Value> {
    let any = AnyGame::from_id(spec).unwrap();
    qibase::with_game!(any, |g| {
        let r = solve_forward(g, None);
        r.positions
            .iter()
            .zip(&r.values)
            .map(|(p, &v)| (g.format_pos(p), v))
            .collect()
    })
}

/// The value the reference solver gives `pos` (any position string: it is
/// parsed and looked up by its stored representative).
fn value_of(spec: &str, table: &HashMap<String, Value>, pos: &str) -> Value {
    let any = AnyGame::from_id(spec).unwrap();
    qibase::with_game!(any, |g| {
        let p = g.parse_pos(pos).unwrap();
        let t = g.tier_of(&p);
        let stored = g.unrank(t, g.rank(t, &p));
        table[&g.format_pos(&stored)]
    })
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_tool_works_on_boards_over_32_points() {
    let dir = temp_dir("big-boards");
    let d = dir.to_str().unwrap();
    for spec in VARIANTS {
        let table = reference(spec);
        ok(&qibase(&["solve", spec, "--dir", d, "--quiet"]));
        let start = ok(&qibase(&["show", spec]))
            .lines()
            .last()
            .unwrap()
            .to_string();

        // query: the value and every move's value.
        let q: Json =
            serde_json::from_str(&ok(&qibase(&["query", spec, &start, "--dir", d, "--json"])))
                .unwrap();
        assert_eq!(
            q["value"],
            value_of(spec, &table, &start).to_string(),
            "{spec}"
        );
        let moves = q["moves"].as_array().unwrap();
        assert!(!moves.is_empty(), "{spec}: {q}");
        for m in moves {
            let after = value_of(spec, &table, m["position"].as_str().unwrap());
            assert_eq!(
                m["value"],
                Value::of_move_to(after).to_string(),
                "{spec}: {m}"
            );
        }

        // moves: the same list of moves.
        let listed = ok(&qibase(&["moves", spec, &start]));
        for m in moves {
            assert!(
                listed.contains(m["move"].as_str().unwrap()),
                "{spec}: {listed}"
            );
        }

        // bestmove (perfect): a move of the position's value.
        let best = ok(&qibase(&["bestmove", spec, &start, "--dir", d]));
        assert!(
            best.contains(&format!("position value {}", q["value"].as_str().unwrap())),
            "{spec}: {best}"
        );

        // verify and info see every tier.
        let v = ok(&qibase(&["verify", spec, "--dir", d]));
        assert!(v.contains("0 inconsistencies"), "{spec}: {v}");
        let info = ok(&qibase(&["info", spec, "--dir", d]));
        let any = AnyGame::from_id(spec).unwrap();
        let tiers = qibase::with_game!(any, |g| g.tiers(None).len());
        assert!(
            info.contains(&format!("{tiers} of {tiers} tiers present")),
            "{spec}: {info}"
        );
        // info names the directory the tables are in (a variant's `:` is
        // `@` there).
        let game_dir = qibase::tablebase::game_dir(std::path::Path::new(d), spec);
        assert!(game_dir.is_dir(), "{}", game_dir.display());
        let shown = format!("in {}", game_dir.display());
        assert!(info.contains(&shown), "{spec}: {info}");

        // engine: the same answer as query.
        let mut child = Command::new(env!("CARGO_BIN_EXE_qibase"))
            .args(["engine", spec, "--dir", d])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{}", json!({"cmd": "query", "position": start})).unwrap();
        drop(stdin);
        let out = ok(&child.wait_with_output().unwrap());
        let e: Json = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(e, q, "{spec}");
    }

    // The HTTP API, in-process.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let app = router(&dir);
        for spec in VARIANTS {
            let start = ok(&qibase(&["show", spec]))
                .lines()
                .last()
                .unwrap()
                .to_string();
            let (s, j) = get(
                &app,
                &format!("/api/v1/{spec}/query?pos={}", url_pos(&start)),
            )
            .await;
            assert_eq!(s, StatusCode::OK, "{spec}: {j}");
            let cli: Json =
                serde_json::from_str(&ok(&qibase(&["query", spec, &start, "--dir", d, "--json"])))
                    .unwrap();
            assert_eq!(j["value"], cli["value"], "{spec}");
            assert_eq!(j["moves"], cli["moves"], "{spec}");
            let points: usize = spec
                .split("board=")
                .nth(1)
                .unwrap()
                .split([',', 'x'])
                .take(2)
                .map(|n| n.parse::<usize>().unwrap())
                .product();
            assert_eq!(
                j["board"].as_str().unwrap().chars().count(),
                points,
                "{spec}"
            );
        }
        // A board over 64 points is refused with a one-line error.
        let msg = expect_error(
            &app,
            "/api/v1/cannon-chess:board=9x8/query?pos=x",
            StatusCode::NOT_FOUND,
            "unknown_game",
        )
        .await;
        assert!(msg.contains("at most 64 points"), "{msg}");
    });
    let _ = std::fs::remove_dir_all(&dir);
}
