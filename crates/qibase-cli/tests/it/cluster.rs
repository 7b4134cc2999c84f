//! The plain `qibase`, started as one of several processes of an MPI job,
//! refuses to solve (the solves of MPI jobs are tested by qibase-mpi's
//! `cluster` tests, built with its `mpi` feature).

use std::process::Command;

use crate::common::temp_dir;

/// The built binary with `args`, as the single process of an MPI job
/// started by hand: the process manager's size variable alone.
fn as_one_of(ranks: usize, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_qibase"))
        .env("PMI_SIZE", ranks.to_string())
        .env("PMI_RANK", "0")
        .args(args)
        .output()
        .expect("run qibase")
}

#[test]
fn the_plain_binary_as_one_of_several_ranks_refuses_to_solve() {
    let dir = temp_dir("no-mpi");
    let d = dir.to_str().unwrap();
    let solve = [
        "solve",
        "two-cannons",
        "--max-pieces",
        "2",
        "--dir",
        d,
        "--quiet",
    ];
    let out = as_one_of(4, &solve);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("one of 4 processes") && err.contains("qibase-mpi"),
        "{err}"
    );
    assert!(!dir.exists(), "nothing is solved");
    // A job of one process is an ordinary solve.
    let out = as_one_of(1, &solve);
    assert!(out.status.success(), "{out:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
