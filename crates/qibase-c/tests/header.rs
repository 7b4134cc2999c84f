//! The committed header, include/qibase.h, is what cbindgen makes of the
//! crate today. `QB_BLESS=1 cargo test -p qibase-c --test header`
//! rewrites it after a change of the API.

use std::path::Path;

#[test]
fn the_committed_header_matches_the_code() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml reads");
    let mut made = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen parses the crate")
        .write(&mut made);
    let made = String::from_utf8(made).expect("the header is UTF-8");
    let path = crate_dir.join("include/qibase.h");
    if std::env::var_os("QB_BLESS").is_some() {
        std::fs::write(&path, &made).expect("include/qibase.h is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == made,
        "include/qibase.h is not what the code makes: run \
         `QB_BLESS=1 cargo test -p qibase-c --test header` and commit it"
    );
}
