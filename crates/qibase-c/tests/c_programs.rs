//! The C tests (tests/c/test_api.c) and the C examples (examples/c/)
//! compiled with the system's C compiler against the static library this
//! build made, and run on tables solved and packed here: cannon-chess up
//! to two pieces a side, in the compact format, and copies of them with
//! one file damaged or of another tier.

use std::path::{Path, PathBuf};
use std::process::Command;

use qibase::games::AnyGame;
use qibase::games::CannonChessParams;
use qibase::solver::SolveOptions;
use qibase::tablebase::compact::pack;
use qibase::Tiers;

/// The C compiler: `$CC`, else `cc`. `None` (after one line saying what
/// to install) if there is none, except under CI, which must have one.
fn c_compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    if Command::new(&cc).arg("--version").output().is_ok() {
        return Some(cc);
    }
    let line = format!(
        "no C compiler ({cc}): the C tests need one; install the package gcc \
         (`apt-get install gcc`)"
    );
    assert!(std::env::var_os("CI").is_none(), "{line}");
    eprintln!("SKIPPED: {line}");
    None
}

/// The directory of this build's static library: the test binary's own
/// `deps/` (where `cargo test` leaves it), or the profile directory above
/// it (where `cargo build` puts it).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    let deps = exe
        .parent()
        .expect("the test binary is in <target>/<profile>/deps");
    let found = [Some(deps), deps.parent()]
        .into_iter()
        .flatten()
        .find(|d| d.join("libqibase_c.a").is_file())
        .unwrap_or_else(|| panic!("no libqibase_c.a in or above {}", deps.display()))
        .to_path_buf();
    found
}

/// Compile `source` into `out` against the static library.
fn compile(cc: &str, source: &Path, out: &Path) {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(cc)
        .args([
            "-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-pthread", "-I",
        ])
        .arg(crate_dir.join("include"))
        .arg(source)
        .arg(lib_dir().join("libqibase_c.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(out)
        .status()
        .expect("the C compiler runs");
    assert!(status.success(), "{} does not compile", source.display());
}

/// The directories the C tests take: GOOD, DAMAGED, FOREIGN, EMPTY.
fn tables(root: &Path) -> [PathBuf; 4] {
    let g = CannonChessParams::preset("cannon-chess")
        .expect("a preset")
        .build()
        .expect("the preset builds");
    let fast = root.join("fast");
    let opts = SolveOptions {
        max_pieces: Some(2),
        ..SolveOptions::new(&fast)
    };
    AnyGame::from_id(g.id())
        .expect("a known game")
        .solve(&opts)
        .expect("the subset solves");
    let good = root.join("good");
    pack(&g, &fast, &good, &mut |_| {}).expect("the subset packs");
    let game_dir = qibase::tablebase::game_dir(&good, g.id());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&game_dir)
        .expect("pack wrote the game's directory")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 2, "{} compact files", files.len());
    let copy = |name: &str| -> PathBuf {
        let to = root.join(name).join(game_dir.file_name().expect("a name"));
        std::fs::create_dir_all(&to).expect("a temporary directory");
        for f in &files {
            std::fs::copy(f, to.join(f.file_name().expect("a name"))).expect("a copy");
        }
        to
    };
    // One file cut short: damaged.
    let damaged = copy("damaged");
    let victim = damaged.join(files[0].file_name().expect("a name"));
    let bytes = std::fs::read(&victim).expect("readable");
    std::fs::write(&victim, &bytes[..bytes.len() * 2 / 3]).expect("writable");
    // One tier's file in place of another's: a file of something else.
    let foreign = copy("foreign");
    std::fs::copy(
        &files[1],
        foreign.join(files[0].file_name().expect("a name")),
    )
    .expect("a copy");
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).expect("a temporary directory");
    [good, root.join("damaged"), root.join("foreign"), empty]
}

#[test]
fn the_c_tests_and_the_c_example_pass() {
    let Some(cc) = c_compiler() else {
        return;
    };
    let root = std::env::temp_dir().join(format!("qibase-c-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("a temporary directory");
    let dirs = tables(&root);
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));

    let test = root.join("test_api");
    compile(&cc, &crate_dir.join("tests/c/test_api.c"), &test);
    let out = Command::new(&test).args(&dirs).output().expect("runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the C tests failed:\n{text}");
    assert!(text.contains(" checks, 0 failed"), "{text}");

    let play = root.join("play");
    compile(&cc, &crate_dir.join("../../examples/c/play.c"), &play);
    let out = Command::new(&play)
        .arg(&dirs[0])
        .args(["cannon-chess", "OO../..../..../..../XX.. X"])
        .output()
        .expect("runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the example failed:\n{text}");
    assert!(text.contains("game over"), "{text}");
    let first = root.join("first_probe");
    compile(
        &cc,
        &crate_dir.join("../../examples/c/first_probe.c"),
        &first,
    );
    let out = Command::new(&first)
        .arg(&dirs[0])
        .args(["cannon-chess", "OO../..../..../..../XX.. X"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("first probe") && text.contains("resident KiB"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without tables it says so in one line and fails.
    let out = Command::new(&play).arg(&dirs[3]).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.lines().count() == 1, "{err}");
    let _ = std::fs::remove_dir_all(&root);
}
