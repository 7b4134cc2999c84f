//! `qibase solve` through the binary: tier files, resumption, errors.

use crate::common::{qibase, temp_dir};

use std::path::Path;

fn tier_files(dir: &Path, game: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join(game))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn solve_writes_one_file_per_tier_and_resumes() {
    let dir = temp_dir("resume");
    let d = dir.to_str().unwrap();
    let out = qibase(&[
        "solve",
        "cannon-chess-4x4",
        "--max-pieces",
        "2",
        "--dir",
        d,
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("2v2"), "{stdout}");
    assert!(
        stdout.lines().last().unwrap().contains("peak memory"),
        "{stdout}"
    );
    let files = tier_files(&dir, "cannon-chess-4x4");
    assert_eq!(
        files,
        ["0v0.qtb", "1v0.qtb", "1v1.qtb", "2v0.qtb", "2v1.qtb", "2v2.qtb"]
    );

    // A second run skips every finished tier.
    let out = qibase(&[
        "solve",
        "cannon-chess-4x4",
        "--max-pieces",
        "2",
        "--dir",
        d,
        "--quiet",
    ]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("solved 0 positions"), "{stdout}");
    assert_eq!(stdout.matches("(done)").count(), 6, "{stdout}");

    // A lost tier (killed solve) and a damaged one are solved again, the rest kept.
    std::fs::remove_file(dir.join("cannon-chess-4x4/2v2.qtb")).unwrap();
    let damaged = dir.join("cannon-chess-4x4/2v1.qtb");
    let mut bytes = std::fs::read(&damaged).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&damaged, bytes).unwrap();
    let out = qibase(&[
        "solve",
        "cannon-chess-4x4",
        "--max-pieces",
        "2",
        "--dir",
        d,
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("(done)").count(), 4, "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("2v1"));
    assert_eq!(tier_files(&dir, "cannon-chess-4x4").len(), 6);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_rejects_bad_input() {
    let out = qibase(&["solve", "chess"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown game 'chess'"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    let out = qibase(&["solve"]);
    assert_eq!(out.status.code(), Some(2));

    let out = qibase(&["solve", "weiming", "--threads", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_estimate_for_mpi_ranks_gives_each_ranks_memory_and_exchange() {
    let run = |ranks: &str| {
        let out = qibase(&[
            "solve",
            "cannon-chess:board=6x5,pieces=5",
            "--estimate",
            "--ranks",
            ranks,
        ]);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let four = run("4");
    assert!(
        four.contains("memory/rank") && four.contains("exchange/rank"),
        "{four}"
    );
    assert!(four.contains("with 4 ranks: each rank needs"), "{four}");
    // One rank exchanges nothing.
    let one = run("1");
    let row = one
        .lines()
        .find(|l| l.trim_start().starts_with("5v5"))
        .unwrap();
    assert!(row.contains(" 0.0 MiB"), "{row}");
    // Bad options: no ranks, or ranks without --estimate.
    for args in [
        &["solve", "weiming", "--estimate", "--ranks", "0"][..],
        &["solve", "weiming", "--ranks", "2"][..],
    ] {
        let out = qibase(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
