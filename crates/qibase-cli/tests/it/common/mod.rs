//! Helpers shared by the tests that drive the `qibase` binary.
#![allow(dead_code)] // each test crate uses a different subset

use std::path::PathBuf;
use std::process::{Command, Output};

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
