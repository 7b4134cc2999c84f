//! Perft counts kept as data (`data/perft/<game>.perft`, one file per
//! game), checked with `qibase::perft` for every line up to a node budget
//! and, on the shallower lines, against the naive generators of `naive/`.
//!
//! The budget is the number of move sequences a line counts: by default
//! [`NODES`] (a few seconds for all games together); set
//! `QIBASE_PERFT_NODES` to check deeper lines, which are data until then.

use std::collections::HashMap;

use qibase::games::{AnyGame, GAME_IDS};
use qibase::{perft, with_game, Notation, Rules};

use crate::naive;

/// The data files.
const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/data/perft");

/// Lines counting at most this many sequences are checked by default.
const NODES: u64 = 10_000_000;

/// The naive generators (which allocate for every position) check lines
/// of at most this many sequences.
const NAIVE_NODES: u64 = 1_000_000;

/// One `perft` line: the game, where to count from (`None`: the start),
/// the depth and the expected count.
#[derive(Debug)]
struct Line {
    game: String,
    pos: Option<String>,
    depth: u32,
    count: u64,
}

/// The `perft` lines of one file (format: see the files' header).
fn read_lines(name: &str, text: &str) -> Vec<Line> {
    let mut game: Option<String> = None;
    let mut pos: Option<Option<String>> = None;
    let mut out = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let at = || format!("{name}:{}", k + 1);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "id" => game = Some(rest.trim().to_string()),
            "start" => pos = Some(None),
            "pos" => pos = Some(Some(rest.trim().to_string())),
            "perft" => {
                let f: Vec<&str> = rest.split_whitespace().collect();
                assert_eq!(f.len(), 2, "{}: perft DEPTH COUNT", at());
                out.push(Line {
                    game: game
                        .clone()
                        .unwrap_or_else(|| panic!("{}: no id yet", at())),
                    pos: pos
                        .clone()
                        .unwrap_or_else(|| panic!("{}: no start or pos yet", at())),
                    depth: f[0].parse().unwrap_or_else(|_| panic!("{}: depth", at())),
                    count: f[1].parse().unwrap_or_else(|_| panic!("{}: count", at())),
                });
            }
            other => panic!("{}: unknown line kind '{other}'", at()),
        }
    }
    out
}

/// Every data file's lines, by file name.
fn all_lines() -> Vec<(String, Vec<Line>)> {
    let mut files: Vec<_> = std::fs::read_dir(DIR)
        .expect("the perft data directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "perft"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(p).expect("a readable file");
            let lines = read_lines(&name, &text);
            (name, lines)
        })
        .collect()
}

#[test]
fn the_data_covers_every_game_from_its_start() {
    let all = all_lines();
    let starts = |id: &str| {
        all.iter()
            .flat_map(|(_, lines)| lines)
            .filter(|l| l.game == id && l.pos.is_none())
            .count()
    };
    for id in GAME_IDS {
        let n = starts(id);
        assert!(n >= 9, "{id}: {n} perft lines from the start");
    }
    // 64-bit boards, counted also by the naive generators.
    for id in ["cannon-chess:board=6x6", "two-cannons:board=6x6"] {
        let n = starts(id);
        assert!(n >= 6, "{id}: {n} perft lines from the start");
        assert!(naive::perft(id, &start_of(id), 1).is_some(), "{id}");
    }
}

/// The start position string of a game id.
fn start_of(id: &str) -> String {
    let any = AnyGame::from_id(id).expect("a known game");
    with_game!(any, |g| g.format_pos(&g.start()))
}

#[test]
fn perft_counts_match_the_data_files() {
    let budget = std::env::var("QIBASE_PERFT_NODES")
        .ok()
        .map(|v| v.parse::<u64>().expect("QIBASE_PERFT_NODES: a number"))
        .unwrap_or(NODES);
    let mut games: HashMap<String, AnyGame> = HashMap::new();
    let (mut checked, mut naive_checked, mut beyond) = (0, 0, 0);
    for (file, lines) in all_lines() {
        for l in lines {
            if l.count > budget {
                beyond += 1;
                continue;
            }
            let any = games
                .entry(l.game.clone())
                .or_insert_with(|| AnyGame::from_id(&l.game).expect("a known game"));
            with_game!(any, |g| {
                let p = match &l.pos {
                    None => g.start(),
                    Some(s) => g.parse_pos(s).unwrap_or_else(|e| panic!("{file}: {e}")),
                };
                let at = format!("{file}: {} depth {}", g.format_pos(&p), l.depth);
                assert_eq!(perft(g, &p, l.depth), l.count, "{at}");
                if l.count <= NAIVE_NODES {
                    if let Some(n) = naive::perft(&l.game, &g.format_pos(&p), l.depth) {
                        assert_eq!(n, l.count, "naive, {at}");
                        naive_checked += 1;
                    }
                }
            });
            checked += 1;
        }
    }
    eprintln!(
        "perft: {checked} lines checked ({naive_checked} also by the naive generators), \
         {beyond} beyond the budget of {budget} sequences"
    );
    assert!(
        checked >= 40 && naive_checked >= 30,
        "{checked} {naive_checked}"
    );
}
