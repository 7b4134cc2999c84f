//! Every committed input of the fuzz targets (`fuzz/corpus/<target>/`,
//! the inputs that found a crash among them) through the target's entry
//! function, on stable Rust: a bug the fuzzer found and that was fixed
//! stays fixed.

use qibase_cli::fuzzing::TARGETS;

#[test]
fn every_fuzz_corpus_file_replays_without_a_wrong_answer() {
    let root = crate::common::root().join("fuzz/corpus");
    for (name, entry) in TARGETS {
        let dir = root.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no corpus for {name}");
        for f in &files {
            let data = std::fs::read(f).unwrap();
            if std::panic::catch_unwind(|| entry(&data)).is_err() {
                panic!("{name}: {} fails", f.display());
            }
        }
    }
}
