//! `qibase puzzles` through the binary (seeded, atomic output, errors),
//! and the committed puzzle sets under `crates/qibase-cli/puzzles/`:
//! weiming's checked move by move against the committed weiming table,
//! the others for their structure and the legality of every position and
//! move.

use std::collections::HashSet;

use serde_json::Value as Json;

use crate::common::{qibase, root, temp_dir};
use qibase::games::AnyGame;
use qibase::tablebase::Tablebase;
use qibase::with_game;
use qibase::Game;
use qibase::Value;

/// Loss < draw < win.
fn class(v: Value) -> u8 {
    match v {
        Value::Loss(_) => 0,
        Value::Draw => 1,
        Value::Win(_) => 2,
    }
}

fn run_ok(args: &[&str]) -> String {
    let out = qibase(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Exit code and the stderr of a failing run, which must be one line.
fn run_err(args: &[&str]) -> (i32, String) {
    let out = qibase(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    (out.status.code().unwrap(), err)
}

/// A puzzle's position, its best move and its wrong moves with their
/// claimed values.
type Claims<G> = (<G as qibase::Rules>::Pos, String, Vec<(String, String)>);

/// The structure every puzzle file has, and the legality of every
/// position and move in it (with the rules of `g`): `best` and `wrong`
/// are exactly the legal moves, each refutation a legal line. Returns the
/// positions and their moves' claimed values, for a caller with tables.
fn check_structure<G: Game>(g: &G, j: &Json) -> Vec<Claims<G>> {
    assert_eq!(j["format"], "qibase-puzzles 1");
    assert_eq!(j["game"], g.variant_spec());
    assert!(j["seed"].is_u64());
    let puzzles = j["puzzles"].as_array().unwrap();
    assert!(!puzzles.is_empty());
    let mut ids = HashSet::new();
    let mut out = Vec::new();
    let mut last_grade = 0;
    for pz in puzzles {
        let id = pz["id"].as_str().unwrap();
        assert!(id.starts_with(&format!("{}-", g.id())), "{id}");
        assert!(ids.insert(id.to_string()), "{id} twice");
        let p = g.parse_pos(pz["position"].as_str().unwrap()).unwrap();
        assert!(g.game_end(&p).is_none(), "{id}: the game is over");
        let value: Value = pz["value"].as_str().unwrap().parse().unwrap();
        assert!(matches!(value, Value::Win(_) | Value::Draw), "{id}");
        let d = &pz["difficulty"];
        let grade = d["grade"].as_u64().unwrap();
        assert!((1..=5).contains(&grade), "{id}");
        assert!(grade >= last_grade, "{id}: grades out of order");
        last_grade = grade;
        assert_eq!(d["remoteness"].as_u64(), value.remoteness().map(u64::from));
        assert!(d["tempting"].is_u64() && d["refutation_depth"].is_u64());
        let mut legal = Vec::new();
        g.moves(&p, &mut legal);
        let mut named: Vec<String> = legal.iter().map(|m| g.format_move(m)).collect();
        named.sort();
        let best = pz["best"].as_str().unwrap().to_string();
        let mut listed = vec![best.clone()];
        let mut claims = Vec::new();
        for w in pz["wrong"].as_array().unwrap() {
            let mv = w["move"].as_str().unwrap();
            listed.push(mv.to_string());
            let v = w["value"].as_str().unwrap();
            let wv: Value = v.parse().unwrap();
            assert!(class(wv) < class(value), "{id}: {mv} is not wrong");
            claims.push((mv.to_string(), v.to_string()));
            let mut q = g.apply(&p, &g.parse_move(&p, mv).unwrap());
            for r in w["refutation"].as_array().unwrap() {
                let m = g.parse_move(&q, r.as_str().unwrap()).unwrap();
                q = g.apply(&q, &m);
            }
        }
        assert!(!claims.is_empty(), "{id}: no wrong move");
        listed.sort();
        assert_eq!(
            listed, named,
            "{id}: best and wrong are not the legal moves"
        );
        out.push((p, best, claims));
    }
    out
}

#[test]
fn puzzles_are_reproducible_and_written_whole() {
    let dir = temp_dir("puzzles");
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (a, b, c) = (file("a.json"), file("b.json"), file("c.json"));
    let args = |seed: &'static str, out: &str| {
        run_ok(&[
            "puzzles", "weiming", "--count", "12", "--seed", seed, "--out", out,
        ])
    };
    let said = args("5", &a);
    assert!(said.contains("12 puzzles of weiming"), "{said}");
    args("5", &b);
    args("6", &c);
    let read = |f: &str| std::fs::read_to_string(f).unwrap();
    assert_eq!(read(&a), read(&b));
    assert_ne!(read(&a), read(&c));
    let j: Json = serde_json::from_str(&read(&a)).unwrap();
    assert_eq!(j["seed"], 5);
    assert_eq!(j["puzzles"].as_array().unwrap().len(), 12);
    // Only the three files: no temporary file is left behind.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn puzzles_bad_input() {
    let dir = temp_dir("puzzles-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("p.json");
    let o = out.to_str().unwrap();
    let d = dir.to_str().unwrap();
    let (code, err) = run_err(&["puzzles", "chess", "--count", "3", "--out", o]);
    assert_eq!(code, 2, "{err}");
    let (code, err) = run_err(&["puzzles", "weiming", "--count", "0", "--out", o]);
    assert_eq!(code, 2, "{err}");
    // No tables in the directory: a failure naming what is missing.
    let (code, err) = run_err(&[
        "puzzles",
        "cannon-chess-4x4",
        "--dir",
        d,
        "--count",
        "3",
        "--out",
        o,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not solved") || err.contains("solve"), "{err}");
    let (code, err) = run_err(&["puzzles", "weiming", "--dir", d, "--count", "3", "--out", o]);
    assert_eq!(code, 1, "{err}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn committed_puzzle_sets() {
    for id in qibase::games::GAME_IDS {
        let path = root().join(format!("crates/qibase-cli/puzzles/{id}.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let j: Json = serde_json::from_str(&text).unwrap();
        let any = AnyGame::from_id(id).unwrap();
        with_game!(any, |g| {
            let puzzles = check_structure(g, &j);
            assert!(puzzles.len() >= 30, "{id}: {} puzzles", puzzles.len());
            if id == "weiming" {
                check_against_table(g, &puzzles);
            }
        });
    }
}

/// Every claim of a puzzle file recomputed from the committed tablebase.
fn check_against_table<G: Game>(g: &G, puzzles: &[Claims<G>]) {
    let tb = Tablebase::open(g, &root().join("tablebases"));
    let value = |p: &G::Pos| match g.game_end(p) {
        Some(e) => e.value,
        None => tb.probe(p).unwrap(),
    };
    for (p, best, wrong) in puzzles {
        let v = value(p);
        let mut ms = Vec::new();
        g.moves(p, &mut ms);
        let keepers: Vec<String> = ms
            .iter()
            .filter(|m| Value::of_move_to(value(&g.apply(p, m))).wdl() == v.wdl())
            .map(|m| g.format_move(m))
            .collect();
        assert_eq!(&keepers, std::slice::from_ref(best), "{}", g.format_pos(p));
        for (mv, claimed) in wrong {
            let m = g.parse_move(p, mv).unwrap();
            let actual = Value::of_move_to(value(&g.apply(p, &m)));
            assert_eq!(&actual.to_string(), claimed, "{} {mv}", g.format_pos(p));
        }
    }
}
