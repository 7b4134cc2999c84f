//! Solves shared by the ranks of an MPI job (built with `--features mpi`,
//! run under MPICH's `mpiexec`): the tier files equal a solve in one
//! process on every used slot and byte for byte apart from the recorded
//! timings, for 1, 2 and 4 ranks; a killed job resumes; ranks asked for
//! different solves stop with one line each.
//!
//! The subsets are small: four ranks on this machine's two cores wait on
//! each other (MPICH polls while it waits), and each job starts its ranks.
//! `.ci/run` installs MPICH and runs this target.

#[path = "../it/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;

use common::outside::{self, MPIEXEC};
use common::{assert_same_tables, qibase, temp_dir};

/// `mpiexec -n N qibase ARGS`.
fn mpiexec(n: usize, args: &[&str]) -> Command {
    let mut c = Command::new("mpiexec");
    c.arg("-n")
        .arg(n.to_string())
        .arg(env!("CARGO_BIN_EXE_qibase"))
        .args(args);
    c
}

#[test]
fn one_two_and_four_ranks_write_the_tables_of_one_process() {
    if !outside::available(&[&MPIEXEC]) {
        return;
    }
    // Weiming whole: a small tier cut into few regions.
    for (game, max) in [("two-cannons", "6"), ("cannon-chess", "4"), ("weiming", "")] {
        let base = temp_dir(&format!("mpi-{game}"));
        let plain = base.join("plain");
        let subset: &[&str] = if max.is_empty() {
            &[]
        } else {
            &["--max-pieces", max]
        };
        let out = qibase(
            &[
                &["solve", game, "--dir", plain.to_str().unwrap(), "--quiet"],
                subset,
            ]
            .concat(),
        );
        assert!(out.status.success(), "{out:?}");
        for n in [1, 2, 4] {
            let dir = base.join(format!("ranks-{n}"));
            let out = mpiexec(
                n,
                &[
                    &[
                        "solve",
                        game,
                        "--threads",
                        "1",
                        "--dir",
                        dir.to_str().unwrap(),
                        "--quiet",
                    ],
                    subset,
                ]
                .concat(),
            )
            .output()
            .expect("run mpiexec");
            assert!(out.status.success(), "{game} {n} ranks: {out:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            // Rank 0 alone prints: one summary line for the job.
            assert_eq!(text.matches("solved ").count(), 1, "{text}");
            if n > 1 {
                assert!(text.contains(&format!("{n} ranks of 1 threads")), "{text}");
            }
            assert_same_tables(&plain, &dir, game);
        }
        let _ = std::fs::remove_dir_all(&base);
    }
}

#[test]
fn a_killed_mpi_solve_resumes_at_its_first_unfinished_tier() {
    if !outside::available(&[&MPIEXEC]) {
        return;
    }
    let base = temp_dir("mpi-killed");
    let (plain, dir) = (base.join("plain"), base.join("ranks"));
    let args = |d: &Path| {
        vec![
            "solve".to_string(),
            "cannon-chess".into(),
            "--max-pieces".into(),
            "4".into(),
            "--threads".into(),
            "1".into(),
            "--dir".into(),
            d.to_str().unwrap().to_string(),
            "--quiet".into(),
        ]
    };
    let plain_args = args(&plain);
    let out = qibase(&plain_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{out:?}");
    let total = std::fs::read_dir(plain.join("cannon-chess"))
        .unwrap()
        .count();
    // Four ranks (slow on two cores), killed once some tiers are written.
    let job_args = args(&dir);
    let mut job = mpiexec(4, &job_args.iter().map(String::as_str).collect::<Vec<_>>())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start mpiexec");
    let written = |d: &Path| {
        std::fs::read_dir(d.join("cannon-chess"))
            .map(|r| {
                r.filter(|e| {
                    e.as_ref()
                        .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "qtb"))
                })
                .count()
            })
            .unwrap_or(0)
    };
    let t0 = std::time::Instant::now();
    while written(&dir) < 3 && t0.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SIGTERM to mpiexec: its process manager ends every rank.
    #[allow(unsafe_code)]
    // SAFETY: a plain system call on a child's process id.
    unsafe {
        libc::kill(job.id() as i32, libc::SIGTERM);
    }
    let _ = job.wait();
    let before = written(&dir);
    assert!(
        (3..total).contains(&before),
        "killed with {before} of {total} tiers written"
    );
    let out = mpiexec(2, &job_args.iter().map(String::as_str).collect::<Vec<_>>())
        .output()
        .expect("run mpiexec");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.matches("(done)").count() >= before, "{text}");
    assert_same_tables(&plain, &dir, "cannon-chess");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn ranks_asked_for_different_solves_stop_with_one_line_each() {
    if !outside::available(&[&MPIEXEC]) {
        return;
    }
    let base = temp_dir("mpi-disagree");
    let (a, b) = (base.join("a"), base.join("b"));
    let rank = |dir: &Path, max: &str| {
        vec![
            "-n".to_string(),
            "1".into(),
            env!("CARGO_BIN_EXE_qibase").into(),
            "solve".into(),
            "two-cannons".into(),
            "--max-pieces".into(),
            max.into(),
            "--dir".into(),
            dir.to_str().unwrap().to_string(),
            "--quiet".into(),
        ]
    };
    // Another directory, then another subset (MPMD launches: `:`).
    for (first, second) in [
        (rank(&a, "3"), rank(&b, "3")),
        (rank(&a, "3"), rank(&a, "2")),
    ] {
        let out = Command::new("mpiexec")
            .args(&first)
            .arg(":")
            .args(&second)
            .output()
            .expect("run mpiexec");
        assert!(!out.status.success(), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert!(!ours.is_empty(), "{err}");
        assert!(ours.iter().all(|l| l.contains("disagree")), "{err}");
        assert!(!a.join("two-cannons").exists(), "nothing is solved");
    }
    let _ = std::fs::remove_dir_all(&base);
}
