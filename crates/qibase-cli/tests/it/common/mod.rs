//! Helpers shared by the tests that drive the `qibase` binary.
#![allow(dead_code)] // each test crate uses a different subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod outside;

/// The built command line: `qibase`, or in the MPI package's tests its
/// `qibase-mpi` (the same commands; started without `mpiexec`, it solves
/// alone).
const QIBASE: &str = match (
    option_env!("CARGO_BIN_EXE_qibase"),
    option_env!("CARGO_BIN_EXE_qibase-mpi"),
) {
    (Some(exe), _) | (None, Some(exe)) => exe,
    (None, None) => panic!("a test of a package without the command line"),
};

/// Run the built binary with `args` and collect its output.
pub fn qibase(args: &[&str]) -> Output {
    Command::new(QIBASE)
        .current_dir(crate::common::root())
        .args(args)
        .output()
        .expect("run qibase")
}

/// A fresh (removed if present) directory under the system temp dir, unique
/// to this test process and `name`.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qibase-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// How many finished tier files (`.qtb`) `game_dir` holds (0 if it is
/// missing); a tier write's temporary file is not one.
pub fn tier_files(game_dir: &Path) -> usize {
    std::fs::read_dir(game_dir).map_or(0, |r| {
        r.filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "qtb"))
        })
        .count()
    })
}

/// Wait (a minute at most) until the lock file of `dir` names a process
/// that `is_holder` accepts, and return its pid.
pub fn wait_for_lock(dir: &Path, is_holder: impl Fn(u32) -> bool) -> u32 {
    let file = dir.join(qibase::tablebase::lock::LOCK_FILE);
    let t0 = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if let Some(pid) = text.lines().next().and_then(|l| l.parse().ok()) {
            if is_holder(pid) {
                return pid;
            }
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "no lock in {}",
            dir.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Send signal `sig` (as `kill` spells it: `-STOP`) to process `pid`.
pub fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success(), "kill {sig} {pid}");
}

/// The workspace root: the committed `tablebases/` and `reports/` are
/// there, and the binary runs there as a user of a checkout would.
pub fn root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every tier file of `game` in `a` has a twin in `b` with the same header
/// apart from timings and the same bytes from the block index on.
pub fn assert_same_tables(a: &Path, b: &Path, game: &str) {
    use qibase::tablebase::internals::parse_layout;
    let mut files = 0;
    for entry in std::fs::read_dir(a.join(game)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("qtb") {
            continue;
        }
        let twin = b.join(game).join(path.file_name().unwrap());
        let (x, y) = (std::fs::read(&path).unwrap(), std::fs::read(&twin).unwrap());
        let (lx, ly) = (
            parse_layout(&path, &x).unwrap(),
            parse_layout(&twin, &y).unwrap(),
        );
        assert_eq!(
            lx.header.without_run_figures(),
            ly.header.without_run_figures(),
            "{}",
            path.display()
        );
        assert!(
            x[lx.index_start as usize..] == y[ly.index_start as usize..],
            "{} and {} differ",
            path.display(),
            twin.display()
        );
        files += 1;
    }
    assert!(files >= 1, "no tier file in {}", a.display());
    let count = |d: &Path| std::fs::read_dir(d.join(game)).unwrap().count();
    assert_eq!(count(a), count(b), "{} vs {}", a.display(), b.display());
}
