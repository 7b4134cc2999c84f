//! Solves shared by the ranks of an MPI job (`qibase-mpi`, built with the
//! `mpi` feature, run under MPICH's `mpiexec`): the tier files equal a solve in one
//! process on every used slot and byte for byte apart from the recorded
//! timings, for 1, 2 and 4 ranks; a killed job resumes; ranks asked for
//! different solves stop with one line each; rank 0 alone holds the
//! directory's lock, for the whole job.
//!
//! The subsets are small: four ranks on this machine's two cores wait on
//! each other (MPICH polls while it waits), and each job starts its ranks.
//! `.ci/run` installs MPICH and runs this target.

#[path = "../../qibase-cli/tests/it/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};

use common::outside::{self, MPIEXEC};
use common::{assert_same_tables, qibase, signal, temp_dir, tier_files, wait_for_lock};

/// One test's jobs at a time: each waiting rank polls, so the ranks of two
/// jobs at once slowed each other down on two cores (all four tests: 43 s
/// one at a time, 49 s two at a time, with 80 s of processor time against
/// 93 s).
fn one_job_at_a_time() -> MutexGuard<'static, ()> {
    static JOBS: Mutex<()> = Mutex::new(());
    // A failed test poisons the lock; the next still runs.
    JOBS.lock().unwrap_or_else(|e| e.into_inner())
}

/// `mpiexec -n N qibase ARGS`.
fn mpiexec(n: usize, args: &[&str]) -> Command {
    let mut c = Command::new("mpiexec");
    c.arg("-n")
        .arg(n.to_string())
        .arg(env!("CARGO_BIN_EXE_qibase-mpi"))
        .args(args);
    c
}

#[test]
fn one_two_and_four_ranks_write_the_tables_of_one_process() {
    if !outside::available(&[&MPIEXEC]) {
        return;
    }
    let _one = one_job_at_a_time();
    // Weiming whole: a small tier cut into few regions. Four ranks on this
    // machine's two cores wait for each other's turn on a core at every
    // exchange, which made their solves ten times slower than two ranks'
    // (two-cannons up to 6 pieces: 13.5 s against 1.2 s): they solve the
    // subsets one piece smaller, whose tiers are still cut into slices.
    for (game, max, ranks) in [
        ("two-cannons", "6", &[1, 2][..]),
        ("two-cannons", "5", &[4]),
        ("cannon-chess", "4", &[1, 2]),
        ("cannon-chess", "3", &[4]),
        ("weiming", "", &[1, 2, 4]),
    ] {
        let base = temp_dir(&format!("mpi-{game}-{max}"));
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
        for &n in ranks {
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
    let _one = one_job_at_a_time();
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
    let written = |d: &Path| tier_files(&d.join("cannon-chess"));
    let t0 = std::time::Instant::now();
    while written(&dir) < 3 && t0.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SIGTERM to mpiexec: its process manager ends every rank.
    signal(job.id(), "-TERM");
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
    let _one = one_job_at_a_time();
    let base = temp_dir("mpi-disagree");
    let (a, b) = (base.join("a"), base.join("b"));
    let rank = |dir: &Path, max: &str| {
        vec![
            "-n".to_string(),
            "1".into(),
            env!("CARGO_BIN_EXE_qibase-mpi").into(),
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

/// The processes of the `qibase` binary started with `dir` among their
/// arguments, each with its MPI rank (`PMI_RANK` of its environment, set
/// by MPICH's process manager; `None` outside a job).
fn qibase_processes_in(dir: &Path) -> Vec<(u32, Option<u32>)> {
    let (exe, dir) = (env!("CARGO_BIN_EXE_qibase-mpi"), dir.to_str().unwrap());
    let nul_split = |b: Vec<u8>| -> Vec<String> {
        b.split(|&c| c == 0)
            .map(|x| String::from_utf8_lossy(x).into_owned())
            .collect()
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        // A process may end between the listing and these reads.
        let (Ok(cmd), Ok(env)) = (
            std::fs::read(entry.path().join("cmdline")),
            std::fs::read(entry.path().join("environ")),
        ) else {
            continue;
        };
        let args = nul_split(cmd);
        if args.first().map(String::as_str) != Some(exe) || !args.iter().any(|a| a == dir) {
            continue;
        }
        let rank = nul_split(env)
            .iter()
            .find_map(|v| v.strip_prefix("PMI_RANK=").and_then(|r| r.parse().ok()));
        found.push((pid, rank));
    }
    found
}

#[test]
fn rank_zero_alone_holds_the_directory_lock_for_the_job() {
    if !outside::available(&[&MPIEXEC]) {
        return;
    }
    let _one = one_job_at_a_time();
    let base = temp_dir("mpi-lock");
    let d = base.to_str().unwrap();
    let job_args = [
        "solve",
        "cannon-chess",
        "--max-pieces",
        "4",
        "--threads",
        "1",
        "--dir",
        d,
        "--quiet",
    ];
    let job = mpiexec(2, &job_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mpiexec");
    let game_dir = base.join("cannon-chess");
    let holder = wait_for_lock(&game_dir, |_| true);
    // Held still, so that the job surely runs while the plain solve
    // starts (as dir_lock.rs does with one process).
    let ranks = qibase_processes_in(&base);
    for &(pid, _) in &ranks {
        signal(pid, "-STOP");
    }
    let plain = qibase(&job_args);
    for &(pid, _) in &ranks {
        signal(pid, "-CONT");
    }
    let out = job.wait_with_output().expect("wait for mpiexec");
    let mut by_rank: Vec<Option<u32>> = ranks.iter().map(|r| r.1).collect();
    by_rank.sort();
    assert_eq!(
        by_rank,
        [Some(0), Some(1)],
        "the job's processes: {ranks:?}"
    );
    assert!(
        ranks.contains(&(holder, Some(0))),
        "the lock is held by pid {holder}, not rank 0 of {ranks:?}"
    );
    let err = String::from_utf8_lossy(&plain.stderr);
    assert_eq!(plain.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&game_dir.display().to_string()), "{err}");
    assert!(err.contains(&format!("pid {holder}")), "{err}");
    // Had rank 1 asked for the lock too, one of the two would have been
    // refused and the job would have failed.
    assert!(out.status.success(), "the job failed: {out:?}");
    assert!(
        !game_dir.join(qibase::tablebase::lock::LOCK_FILE).exists(),
        "lock file left"
    );
    let verify = qibase(&["verify", "cannon-chess", "--quiet", "--dir", d]);
    assert!(verify.status.success(), "{verify:?}");
    let _ = std::fs::remove_dir_all(&base);
}
