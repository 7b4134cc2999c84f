//! Helpers shared by the tests that drive the `qibase` binary.
#![allow(dead_code)] // each test crate uses a different subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod outside;

/// Run the built binary with `args` and collect its output.
pub fn qibase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qibase"))
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
