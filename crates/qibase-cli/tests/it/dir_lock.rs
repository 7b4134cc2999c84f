//! One writer per directory: a second solve into a game directory that
//! another solve is writing is refused with one line naming the
//! directory and the other process (exit 2), while the first finishes
//! with tables that verify; a lock left by a killed solve blocks nobody;
//! the other writers take the same lock; `verify` tells an I/O error from
//! an inconsistency by its exit status.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::common::{assert_same_tables, qibase, temp_dir};
use qibase::tablebase::lock::{DirLock, LOCK_FILE};

const GAME: &str = "cannon-chess";

/// A solve of `GAME`'s 4-piece subset into `dir`, started in the
/// background.
fn start_solve(dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_qibase"))
        .current_dir(crate::common::root())
        .args([
            "solve",
            GAME,
            "--max-pieces",
            "4",
            "--quiet",
            "--threads",
            "1",
        ])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start qibase")
}

/// Wait until `child` has written its pid into the lock file of `dir`.
fn wait_for_lock(dir: &Path, child: &Child) {
    crate::common::wait_for_lock(dir, |pid| pid == child.id());
}

fn signal(child: &Child, sig: &str) {
    crate::common::signal(child.id(), sig);
}

fn verify_ok(dir: &Path) {
    let out = qibase(&["verify", GAME, "--quiet", "--dir", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 inconsistencies"));
}

#[test]
fn a_second_solve_into_a_directory_being_written_is_refused_and_the_first_finishes() {
    let d = temp_dir("lock-two-solves");
    let mut first = start_solve(&d);
    let game_dir = d.join(GAME);
    wait_for_lock(&game_dir, &first);
    // Stopped while it holds the lock, so that it is surely running when
    // the second starts.
    signal(&first, "-STOP");
    let second = qibase(&[
        "solve",
        GAME,
        "--max-pieces",
        "4",
        "--quiet",
        "--dir",
        d.to_str().unwrap(),
    ]);
    signal(&first, "-CONT");
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&game_dir.display().to_string()), "{err}");
    assert!(err.contains(&format!("pid {}", first.id())), "{err}");
    assert!(err.contains("qibase solve cannon-chess"), "{err}");
    let status = first.wait().unwrap();
    assert!(status.success(), "the first solve failed");
    verify_ok(&d);
    assert!(!game_dir.join(LOCK_FILE).exists(), "lock file left");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_lock_left_by_a_killed_solve_does_not_block_the_next() {
    let (killed, clean) = (temp_dir("lock-killed"), temp_dir("lock-clean"));
    let mut first = start_solve(&killed);
    wait_for_lock(&killed.join(GAME), &first);
    signal(&first, "-KILL");
    let _ = first.wait();
    // The lock file is still there, naming a process that is gone.
    assert!(killed.join(GAME).join(LOCK_FILE).exists());
    for dir in [&killed, &clean] {
        let out = qibase(&[
            "solve",
            GAME,
            "--max-pieces",
            "4",
            "--quiet",
            "--dir",
            dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
    }
    verify_ok(&killed);
    assert_same_tables(&clean, &killed, GAME);
    let _ = std::fs::remove_dir_all(&killed);
    let _ = std::fs::remove_dir_all(&clean);
}

#[test]
fn every_writer_is_refused_while_another_process_holds_its_directory() {
    let tables = temp_dir("lock-writers-tables");
    let out = qibase(&[
        "solve",
        GAME,
        "--max-pieces",
        "3",
        "--quiet",
        "--dir",
        tables.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let other = temp_dir("lock-writers-out");
    let (t, o) = (tables.to_str().unwrap(), other.to_str().unwrap());
    let puzzles = other.join("p.json");
    // Each writer and the directory it writes.
    let cases: Vec<(Vec<&str>, std::path::PathBuf)> = vec![
        (
            vec!["verify", GAME, "--quiet", "--memory", "64KiB", "--dir", t],
            tables.join(GAME),
        ),
        (
            vec!["pack", GAME, "--quiet", "--dir", t, "--out", o],
            other.join(GAME),
        ),
        (
            vec!["unpack", GAME, "--quiet", "--dir", t, "--out", o],
            other.join(GAME),
        ),
        (
            vec!["report", GAME, "--quiet", "--dir", t, "--out", o],
            other.clone(),
        ),
        (
            vec![
                "puzzles",
                GAME,
                "--dir",
                t,
                "--count",
                "1",
                "--out",
                puzzles.to_str().unwrap(),
            ],
            other.clone(),
        ),
    ];
    for (args, dir) in cases {
        // This test process holds the lock.
        let lock = DirLock::acquire(&dir).unwrap();
        let out = qibase(&args);
        drop(lock);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(&dir.display().to_string()), "{args:?}: {err}");
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&tables);
    let _ = std::fs::remove_dir_all(&other);
}

#[test]
fn verify_tells_an_io_error_from_an_inconsistency() {
    let d = temp_dir("lock-verify-io");
    let out = qibase(&[
        "solve",
        GAME,
        "--max-pieces",
        "3",
        "--quiet",
        "--dir",
        d.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    // A tier "file" that the operating system cannot read as one: a
    // directory in its place (an I/O error, EISDIR, even for root).
    let game_dir = d.join(GAME);
    let victim = std::fs::read_dir(&game_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("qtb"))
        .max()
        .unwrap();
    std::fs::remove_file(&victim).unwrap();
    std::fs::create_dir(&victim).unwrap();
    let out = qibase(&["verify", GAME, "--quiet", "--dir", d.to_str().unwrap()]);
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{stdout}{err}");
    assert!(stdout.contains("0 inconsistencies"), "{stdout}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not checked"), "{err}");
    let help = qibase(&["verify", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("Exit status") && help.contains("  3  "),
        "{help}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
