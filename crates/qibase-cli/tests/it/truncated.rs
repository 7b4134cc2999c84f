//! A tier file cut short under a running `serve`, `engine` or `query -`
//! (as `truncate -s` would) fails the lookups that need its lost bytes,
//! with the file's path, and nothing else: the process goes on answering
//! other tiers, other games and everything that needs no table. The files
//! are memory-mapped under a SIGBUS guard (without it, the next lookup was
//! a SIGBUS that killed the whole process); the same holds with positional
//! reads (`QIBASE_TB_READ=pread`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use axum::http::StatusCode;
use qibase::games::CannonChess;
use qibase::{Notation, Rules, TierKey, Tiers};
use serde_json::{json, Value as Json};

use crate::common::{qibase, temp_dir};
use crate::server::{expect_error, get, router, url_pos};

const GAME: &str = "cannon-chess-4x4";

/// `cannon-chess-4x4`, solved once (about a second). Its largest tier
/// (6v5, 1,161 blocks, 340 kB) is one the old reader mapped (it read
/// files under 64 KiB into memory).
fn solved() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = temp_dir("trunc-solved");
        let out = qibase(&["solve", GAME, "--dir", d.to_str().unwrap(), "--quiet"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        d
    })
}

/// A private copy of the solved table (each test truncates its own).
fn copy(name: &str) -> PathBuf {
    let d = temp_dir(name);
    let (src, dst) = (solved().join(GAME), d.join(GAME));
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
    d
}

/// The positions and the file of the test.
struct Plan {
    /// Two positions of the largest tier, far apart (different blocks).
    first: String,
    second: String,
    /// A position of a lower tier, whose moves never reach that tier.
    lower: String,
    /// The largest tier's file in `dir`.
    file: PathBuf,
}

fn plan(dir: &Path) -> Plan {
    let g = CannonChess::four_by_four();
    let tier = |name: &str| -> TierKey {
        g.tiers(None)
            .into_iter()
            .find(|&t| g.tier_name(t) == name)
            .unwrap()
    };
    // The first used slot from `from` on whose game goes on.
    let pick = |t: TierKey, from: u64| -> String {
        (from..g.tier_size(t))
            .find_map(|i| {
                let p = g.unrank(t, i);
                (g.rank(t, &p) == i && g.game_end(&p).is_none()).then(|| g.format_pos(&p))
            })
            .unwrap()
    };
    let top = tier("6v5");
    Plan {
        first: pick(top, 0),
        second: pick(top, g.tier_size(top) * 3 / 4),
        lower: pick(tier("2v1"), 0),
        file: qibase::tablebase::tier_path(dir, GAME, "6v5"),
    }
}

/// Cut `file` to its first 128 KiB (its header, its index and most of
/// its WDL section), under whoever has it open. The old reader, its file
/// mapped, died of SIGBUS at the next lookup that read a block's bytes
/// past the cut. (Cut to its first kilobyte instead, the file's pages
/// still in one large folio of the page cache read back as zeros: a
/// checksum error, not a crash.)
fn truncate(file: &Path) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .unwrap()
        .set_len(128 << 10)
        .unwrap();
}

#[tokio::test]
async fn serve_answers_500_for_a_truncated_tier_and_goes_on() {
    let d = copy("trunc-serve");
    let p = plan(&d);
    let app = router(&d);
    let query = |pos: &str| format!("/api/v1/{GAME}/query?pos={}", url_pos(pos));
    let (s, j) = get(&app, &query(&p.first)).await;
    assert_eq!(s, StatusCode::OK, "{j}");
    truncate(&p.file);
    for _ in 0..2 {
        let e = expect_error(
            &app,
            &query(&p.second),
            StatusCode::INTERNAL_SERVER_ERROR,
            "corrupt_tablebase",
        )
        .await;
        assert!(e.contains(&p.file.display().to_string()), "{e}");
        assert!(e.contains("truncated"), "{e}");
    }
    // Another tier, another game, the game list and the rules still answer.
    let (s, j) = get(&app, &query(&p.lower)).await;
    assert_eq!(s, StatusCode::OK, "{j}");
    let (s, j) = get(&app, "/api/v1/weiming/query?pos=XXX/S../OOO_X_-").await;
    assert_eq!(s, StatusCode::OK, "{j}");
    let (s, _) = get(&app, "/api/v1/games").await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = get(
        &app,
        &format!("/api/v1/{GAME}/moves?pos={}", url_pos(&p.second)),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let _ = std::fs::remove_dir_all(&d);
}

/// A child process reading JSON Lines commands: each line sent is
/// answered by one line read back (a dead child fails the read).
struct Child {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Child {
    fn start(args: &[&str]) -> Child {
        Child::start_with(args, &[])
    }

    fn start_with(args: &[&str], env: &[(&str, &str)]) -> Child {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qibase"))
            .current_dir(crate::common::root())
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        Child {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }

    fn ask(&mut self, line: &str) -> Json {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        let mut ans = String::new();
        self.stdout.read_line(&mut ans).unwrap();
        serde_json::from_str(&ans).unwrap_or_else(|e| {
            let status = self.child.try_wait().ok().flatten();
            panic!("no JSON answer to {line} ({e}): {ans:?}; the process: {status:?}")
        })
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn assert_truncated_error(j: &Json, file: &Path) {
    assert_eq!(j["code"], "corrupt_tablebase", "{j}");
    let e = j["error"].as_str().unwrap();
    assert!(
        e.contains(&file.display().to_string()) && e.contains("truncated"),
        "{j}"
    );
}

#[test]
fn engine_answers_an_error_for_a_truncated_tier_and_goes_on() {
    let d = copy("trunc-engine");
    let p = plan(&d);
    let mut engine = Child::start(&["engine", GAME, "--dir", d.to_str().unwrap()]);
    let query = |pos: &str| json!({"cmd": "query", "position": pos}).to_string();
    let j = engine.ask(&query(&p.first));
    assert!(j["value"].is_string(), "{j}");
    truncate(&p.file);
    assert_truncated_error(&engine.ask(&query(&p.second)), &p.file);
    let j = engine.ask(&query(&p.lower));
    assert!(j["value"].is_string(), "{j}");
    let j = engine.ask(&json!({"cmd": "moves", "position": p.second}).to_string());
    assert!(j["moves"].is_array(), "{j}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn query_lines_answer_an_error_for_a_truncated_tier_and_go_on() {
    query_lines_survive_truncation("trunc-query", "map");
}

#[test]
fn positional_reads_answer_an_error_for_a_truncated_tier_too() {
    query_lines_survive_truncation("trunc-query-pread", "pread");
}

#[test]
fn a_bad_read_mode_is_refused() {
    let p = plan(solved());
    let out = Command::new(env!("CARGO_BIN_EXE_qibase"))
        .current_dir(crate::common::root())
        .args(["query", GAME, &p.first, "--dir", solved().to_str().unwrap()])
        .env("QIBASE_TB_READ", "mmap")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("QIBASE_TB_READ must be 'map' or 'pread'"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

fn query_lines_survive_truncation(name: &str, mode: &str) {
    let d = copy(name);
    let p = plan(&d);
    let mut query = Child::start_with(
        &["query", GAME, "-", "--dir", d.to_str().unwrap()],
        &[("QIBASE_TB_READ", mode)],
    );
    let j = query.ask(&p.first);
    assert!(j["value"].is_string(), "{j}");
    truncate(&p.file);
    let j = query.ask(&p.second);
    assert_truncated_error(&j, &p.file);
    assert_eq!(j["position"], p.second.as_str());
    let j = query.ask(&p.lower);
    assert!(j["value"].is_string(), "{j}");
    let _ = std::fs::remove_dir_all(&d);
}
