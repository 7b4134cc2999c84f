//! Every tablebase failure mode against a real (damaged) file: one clear
//! line naming the file, a non-zero exit, never a wrong value, never a panic.
//! The CLI is run through the built binary.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use qibase::games::Weiming;
use qibase::tablebase::internals::checksum::checksum64;
use qibase::tablebase::internals::header::{Layout, PREAMBLE_LEN};
use qibase::tablebase::internals::parse_layout;
use qibase::tablebase::{tier_path, write_tier, Tablebase, TierFile, TierStore};
use qibase::Value;
use qibase::{Rules, Tiers};

const START: &str = "XXX/S../OOO X -";

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_qibase")
}

fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .current_dir(crate::common::root())
        .args(args)
        .output()
        .expect("runs qibase")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qibase-tberr-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// A solved weiming tablebase (made once through the binary).
fn solved() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = scratch("solved");
        let out = run(&["solve", "weiming", "--dir", d.to_str().unwrap(), "--quiet"]);
        assert!(
            out.status.success(),
            "solve: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        d
    })
}

fn weiming_file(dir: &Path) -> PathBuf {
    let g = Weiming::new();
    let t = g.tiers(None)[0];
    tier_path(dir, g.id(), &g.tier_name(t))
}

/// A copy of the solved tablebase with the tier file's bytes changed by `f`.
fn damaged(name: &str, f: impl FnOnce(&mut Vec<u8>)) -> (PathBuf, PathBuf) {
    let d = scratch(name);
    let src = weiming_file(solved());
    let dst = weiming_file(&d);
    fs::create_dir_all(dst.parent().unwrap()).unwrap();
    let mut bytes = fs::read(&src).unwrap();
    f(&mut bytes);
    fs::write(&dst, &bytes).unwrap();
    (d, dst)
}

/// `query`, `verify` and (for header damage) `info` all fail with one line
/// that names the file and contains `what`; no value is printed, nothing
/// panics. `info` reads headers only, so it cannot see damage in a block.
fn assert_cli_fails(dir: &Path, file: &Path, what: &str) {
    assert_cli_fails_with(dir, file, what, true)
}

fn assert_cli_fails_with(dir: &Path, file: &Path, what: &str, info_sees_it: bool) {
    let d = dir.to_str().unwrap();
    let mut commands = vec![
        vec!["query", "weiming", START, "--dir", d],
        vec!["query", "weiming", START, "--dir", d, "--json"],
        vec!["verify", "weiming", "--dir", d, "--quiet"],
    ];
    if info_sees_it {
        commands.push(vec!["info", "weiming", "--dir", d]);
    }
    for args in commands {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success(), "{args:?} succeeded: {stdout}");
        assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {err}");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: one line expected, got {err}");
        if args[0] == "query" {
            assert!(
                lines[0].contains(&file.display().to_string()),
                "{args:?}: {err}"
            );
            assert!(lines[0].contains(what), "{args:?}: want '{what}' in {err}");
            assert!(
                !stdout.contains("win") && !stdout.contains("draw") && !stdout.contains("loss")
            );
        } else {
            // verify / info report the tier's problem on stdout, then fail.
            assert!(
                stdout.contains(&file.display().to_string()) && stdout.contains(what),
                "{args:?}: want file and '{what}' in {stdout}"
            );
        }
    }
    // stdin mode: the error goes in-band, the next line still answers.
    let mut child = Command::new(bin())
        .current_dir(crate::common::root())
        .args(["query", "weiming", "-", "--dir", dir.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{START}\nnonsense\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["error"].is_string(), "{l}");
        assert!(v.get("value").is_none(), "{l}");
    }
    assert!(lines[0].contains(what), "{}", lines[0]);
}

fn header_len(bytes: &[u8]) -> usize {
    PREAMBLE_LEN + u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize + 8
}

#[test]
fn good_file_answers() {
    let d = solved().to_str().unwrap();
    let out = run(&["query", "weiming", START, "--dir", d, "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let value = v["value"].as_str().unwrap();
    assert!(
        value == "draw" || value.starts_with("win ") || value.starts_with("loss "),
        "{value}"
    );
    let out = run(&["verify", "weiming", "--dir", d, "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 inconsistencies"));
    let out = run(&["info", "weiming", "--dir", d]);
    assert!(out.status.success());
}

#[test]
fn missing_tier_file() {
    let d = scratch("missing");
    let file = weiming_file(&d);
    let out = run(&["query", "weiming", START, "--dir", d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(
        err.contains(&format!("qibase solve weiming --dir {}", d.display())),
        "{err}"
    );
    let out = run(&["verify", "weiming", "--dir", d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("qibase solve weiming"));
}

/// A position in a tier that a `--max-pieces` subset solve did not make.
#[test]
fn position_outside_the_solved_tiers() {
    let d = scratch("subset");
    let ds = d.to_str().unwrap();
    let out = run(&[
        "solve",
        "cannon-chess-4x4",
        "--max-pieces",
        "2",
        "--dir",
        ds,
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Inside the subset: answers.
    let inside = run(&[
        "query",
        "cannon-chess-4x4",
        "..../O.../X..X/.... X",
        "--dir",
        ds,
    ]);
    assert!(
        inside.status.success(),
        "{}",
        String::from_utf8_lossy(&inside.stderr)
    );
    // The start position (6 v 6) is outside.
    let out = run(&[
        "query",
        "cannon-chess-4x4",
        "OOOO/O..O/X..X/XXXX X",
        "--dir",
        ds,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(".qtb") && err.contains("not solved"), "{err}");
    assert!(err.contains("qibase solve cannon-chess-4x4"), "{err}");
}

/// `verify --tier` checks the named tiers only (reading their lower
/// tiers), and names a tier the game lacks or one with no file.
#[test]
fn verify_chosen_tiers() {
    let d = scratch("verifytier");
    let ds = d.to_str().unwrap();
    let game = "cannon-chess-4x4";
    let out = run(&["solve", game, "--max-pieces", "2", "--dir", ds, "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&[
        "verify", game, "--dir", ds, "--quiet", "--tier", "2v2", "--tier", "2v1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let checked: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("positions checked"))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    // Solve order, each once.
    assert_eq!(checked, ["2v1", "2v2"], "{text}");
    assert!(
        text.contains("0 inconsistencies") && text.contains("in 2 tier file(s)"),
        "{text}"
    );
    // A tier the game does not have is bad input (exit 2), one outside the
    // solved subset a failure (exit 1); each a one-line error.
    let error_of = |tier: &str, code: i32| -> String {
        let out = run(&["verify", game, "--dir", ds, "--tier", tier]);
        assert_eq!(out.status.code(), Some(code), "--tier {tier}");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(err.lines().count(), 1, "{err}");
        err
    };
    let err = error_of("9v9", 2);
    assert!(
        err.contains("no tier '9v9'") && err.contains("6v6"),
        "{err}"
    );
    let err = error_of("3v3", 1);
    assert!(err.contains("tier 3v3") && err.contains("no file"), "{err}");
}

#[test]
fn file_of_another_game() {
    let d = scratch("othergame");
    let g = Weiming::new();
    let file = weiming_file(&d);
    let store = TierStore::new(&g, solved());
    let mut meta = store.meta(0).unwrap();
    let values = store.load(0).unwrap();
    meta.game = "two-cannons".into();
    write_tier(&file, &meta, &values).unwrap();
    assert_cli_fails(&d, &file, "belongs to game 'two-cannons'");
}

#[test]
fn file_of_other_rules() {
    let d = scratch("otherrules");
    let g = Weiming::new();
    let file = weiming_file(&d);
    let store = TierStore::new(&g, solved());
    let mut meta = store.meta(0).unwrap();
    let values = store.load(0).unwrap();
    meta.rules_hash ^= 1;
    write_tier(&file, &meta, &values).unwrap();
    assert_cli_fails(&d, &file, "other rules");
}

#[test]
fn other_format_version() {
    let (d, file) = damaged("version", |b| {
        // A version after format 6 (the wide layout of the same format).
        let other = qibase::tablebase::FORMAT_VERSION + 2;
        b[8..12].copy_from_slice(&other.to_le_bytes());
        // A well-formed file of that version: its checksum matches.
        let h = header_len(b) - 8;
        let sum = checksum64(&b[..h]);
        b[h..h + 8].copy_from_slice(&sum.to_le_bytes());
    });
    let expected = format!("format version {}", qibase::tablebase::FORMAT_VERSION + 2);
    assert_cli_fails(&d, &file, &expected);
}

#[test]
fn truncated_file() {
    let full = fs::read(weiming_file(solved())).unwrap();
    let hl = header_len(&full);
    for (k, cut) in [0, 5, 12, 20, hl - 1, hl + 3, full.len() / 2, full.len() - 1]
        .into_iter()
        .enumerate()
    {
        let (d, file) = damaged(&format!("trunc{k}"), |b| b.truncate(cut));
        assert_cli_fails(&d, &file, "truncated");
    }
}

/// The block holding the start position, and the file layout.
fn start_block(full: &[u8]) -> (Layout, usize) {
    let g = Weiming::new();
    let layout = parse_layout(Path::new("x"), full).unwrap();
    let b = (g.rank(0, &g.start()) / layout.header.block_size as u64) as usize;
    (layout, b)
}

#[test]
fn flipped_byte_in_a_block() {
    let full = fs::read(weiming_file(solved())).unwrap();
    let (layout, b) = start_block(&full);
    let (w, r) = (
        layout.wdl_range(&full, b).unwrap(),
        layout.rem_range(&full, b).unwrap(),
    );
    assert!(!r.is_empty(), "the start's block has a remoteness stream");
    for (k, at) in [
        w.start,
        (w.start + w.end) / 2,
        w.end - 1,
        r.start,
        r.end - 1,
    ]
    .into_iter()
    .enumerate()
    {
        let (d, file) = damaged(&format!("block{k}"), |b| b[at] ^= 0x20);
        assert_cli_fails_with(&d, &file, "corrupt block", false);
    }
}

#[test]
fn flipped_byte_in_the_header() {
    let full = fs::read(weiming_file(solved())).unwrap();
    let hl = header_len(&full);
    for (k, at) in [PREAMBLE_LEN + 1, PREAMBLE_LEN + 7, hl / 2 + 4, hl - 3]
        .into_iter()
        .enumerate()
    {
        let (d, file) = damaged(&format!("header{k}"), |b| b[at] ^= 0x04);
        assert_cli_fails(&d, &file, "corrupt header");
    }
}

/// Exhaustively (through the library, to keep it fast): every single-bit
/// flip anywhere in the file is refused by a whole-tier read; opening
/// refuses every flip in the header, a probe of the start position every
/// flip in the header, the index and the start's own block, and it still
/// answers right after a flip elsewhere.
#[test]
fn every_flip_is_refused() {
    let g = Weiming::new();
    let src = weiming_file(solved());
    let full = fs::read(&src).unwrap();
    let (layout, sb) = start_block(&full);
    let right = Tablebase::open(&g, solved()).probe(&g.start()).unwrap();
    let d = scratch("everyflip");
    let file = weiming_file(&d);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let start = g.start();
    let (w, r) = (
        layout.wdl_range(&full, sb).unwrap(),
        layout.rem_range(&full, sb).unwrap(),
    );
    let (mut refused, mut answered) = (0, 0);
    for at in 0..full.len() {
        let mut b = full.clone();
        b[at] ^= 1 << (at % 8);
        fs::write(&file, &b).unwrap();
        let r0 = TierStore::new(&g, &d).load(0);
        let e = r0.expect_err(&format!("flip at byte {at} accepted"));
        assert_eq!(e.path(), file);
        let meta_ok = TierFile::open(&file, g.id(), g.rules_hash(), 0).is_ok();
        // Opening checks the header alone; the index is checked in chunks
        // when a lookup needs it (weiming's index is one chunk).
        let (index_start, data_start) = (layout.index_start as usize, layout.data_start as usize);
        assert_eq!(meta_ok, at >= index_start, "flip at {at}");
        let in_index = (index_start..data_start).contains(&at);
        let tb = Tablebase::open(&g, &d);
        let probe = tb.probe(&start);
        if !meta_ok || in_index || w.contains(&at) || r.contains(&at) {
            assert!(probe.is_err(), "probe after flip at {at}");
            refused += 1;
        } else {
            assert_eq!(probe.unwrap(), right, "probe after flip at {at}");
            answered += 1;
        }
    }
    assert!(refused > 0 && answered > 0);
}

#[test]
fn verify_counts_a_wrong_value() {
    let d = scratch("wrongvalue");
    let g = Weiming::new();
    let file = weiming_file(&d);
    let store = TierStore::new(&g, solved());
    let meta = store.meta(0).unwrap();
    let mut values = store.load(0).unwrap();
    let i = g.rank(0, &g.start()) as usize;
    values[i] = if values[i] == Value::Draw.pack() {
        Value::Win(1).pack()
    } else {
        Value::Draw.pack()
    };
    write_tier(&file, &meta, &values).unwrap();
    let out = run(&["verify", "weiming", "--dir", d.to_str().unwrap(), "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(START), "{stdout}");
    // The start position and possibly some of its parents disagree.
    let line = stdout
        .lines()
        .find(|l| l.contains("inconsistencies ("))
        .unwrap();
    let n: u64 = line.split_whitespace().next().unwrap().parse().unwrap();
    assert!(n >= 1, "{stdout}");
}
