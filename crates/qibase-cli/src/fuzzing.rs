//! The entry points of the fuzz targets (`fuzz/`), shared with the test
//! that replays every committed corpus file on stable Rust
//! (`tests/it/fuzz_replay.rs`): the same function, so a fixed bug stays
//! fixed. Each takes any bytes and panics only on a wrong answer: a
//! position that does not read back as itself, an error without its
//! one-line JSON, a server answer of 500. (A panic inside qibase is one
//! too, which is the point.)

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use qibase::games::{AnyGame, VariantSizes};
use qibase::tablebase::TierStore;
use qibase::with_game;
use qibase::{Notation, Tiers};

/// The games a position is read for: every preset and a variant of each
/// rule family. The first byte of a position input chooses one.
pub const POSITION_GAMES: [&str; 8] = [
    "weiming",
    "cannon-chess",
    "two-cannons",
    "cannon-chess-4x4",
    "three-cannons",
    "cannon-chess:tiao=any,lone=step",
    "cannon-chess-4x4:one-v-one=play",
    "three-cannons:immobility=static",
];

/// The committed tablebase (`tablebases/`, weiming), read by the engine
/// and server targets and copied from by the file readers' seeds.
pub fn committed_tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tablebases")
}

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// A position of one of [`POSITION_GAMES`] (first byte) in the text that
/// follows: if it parses, it prints as a position that parses back to
/// itself, and its moves are listed without a panic.
pub fn position(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let spec = POSITION_GAMES[pick as usize % POSITION_GAMES.len()];
    let any = game(spec);
    with_game!(any, |g| {
        let Ok(p) = g.parse_pos(&text(rest)) else {
            return;
        };
        let printed = g.format_pos(&p);
        let again = g
            .parse_pos(&printed)
            .unwrap_or_else(|e| panic!("{spec}: {printed:?} does not read back: {e}"));
        assert!(
            again == p,
            "{spec}: {printed:?} reads back as another position"
        );
        assert_eq!(g.format_pos(&again), printed, "{spec}");
        let moves = crate::api::moves(g, &p);
        let _ = moves;
    })
}

/// A game of `spec`, built once per process (building a variant's
/// numbering takes a while).
fn game(spec: &str) -> &'static AnyGame {
    static GAMES: OnceLock<Vec<AnyGame>> = OnceLock::new();
    let games = GAMES.get_or_init(|| {
        POSITION_GAMES
            .iter()
            .map(|s| AnyGame::from_id(s).expect("a known game"))
            .collect()
    });
    let k = POSITION_GAMES
        .iter()
        .position(|s| *s == spec)
        .expect("listed");
    &games[k]
}

/// A variant spec: refused with a one-line error, or accepted as a game
/// whose id reads back as the same game.
pub fn variant_spec(data: &[u8]) {
    let spec = text(data);
    let sizes = match VariantSizes::of(&spec) {
        Ok(s) => s,
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "{spec:?}: {e}");
            return;
        }
    };
    // A variant too large to build is refused with its reason; one small
    // enough to build is built only when small (the fuzzer's time).
    if sizes.refusal().is_some() {
        return;
    }
    let slots: u64 = sizes.tiers(None).iter().map(|&t| sizes.tier_size(t)).sum();
    if slots > 50_000_000 {
        return;
    }
    let Some(any) = sizes.into_game() else {
        return;
    };
    let id = with_game!(&any, |g| (g.id().to_string(), g.rules_hash()));
    let again = AnyGame::from_id(&id.0).unwrap_or_else(|e| panic!("{spec:?} -> {}: {e}", id.0));
    let again_id = with_game!(&again, |g| (g.id().to_string(), g.rules_hash()));
    assert_eq!(id, again_id, "{spec:?}");
}

/// Lines of the engine protocol, to weiming's engine over the committed
/// tables: every line gets one JSON object on one line.
pub fn engine_lines(data: &[u8]) {
    let input = text(data);
    let g = qibase::games::Weiming::new();
    for answer in crate::cli::engine::answer_lines(&g, &committed_tables(), 1, &input) {
        assert!(!answer.contains('\n'), "{answer}");
        let j: serde_json::Value =
            serde_json::from_str(&answer).unwrap_or_else(|e| panic!("not JSON ({e}): {answer}"));
        assert!(j.is_object(), "{answer}");
    }
}

/// A request of the HTTP API (`/api/v1/` and the bytes: a route, its
/// query string), to a server of the committed tables: never a 500, and
/// always a JSON body.
pub fn http_query(data: &[u8]) {
    use tower::ServiceExt;
    static APP: OnceLock<(axum::Router, tokio::runtime::Runtime)> = OnceLock::new();
    let (app, rt) = APP.get_or_init(|| {
        let state =
            crate::server::AppState::open(&committed_tables()).expect("the committed tables");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        (crate::server::app(std::sync::Arc::new(state)), rt)
    });
    let uri = format!("/api/v1/{}", text(data));
    let Ok(req) = axum::http::Request::get(&uri).body(axum::body::Body::empty()) else {
        return;
    };
    let (status, body) = rt.block_on(async {
        let r = app.clone().oneshot(req).await.expect("infallible");
        let status = r.status();
        let body = axum::body::to_bytes(r.into_body(), 1 << 24)
            .await
            .expect("a body");
        (status, body)
    });
    assert!(
        status != axum::http::StatusCode::INTERNAL_SERVER_ERROR,
        "{uri}: {status}"
    );
    let j: Result<serde_json::Value, _> = serde_json::from_slice(&body);
    assert!(
        j.is_ok(),
        "{uri}: {status}: not JSON: {}",
        String::from_utf8_lossy(&body)
    );
}

/// A scratch directory of this process and thread, for the file readers.
fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "qibase-fuzz-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(d.join("weiming")).expect("a scratch directory");
    d
}

/// The bytes as weiming's tier file: opened and read whole, or refused
/// with an error naming the file; never a panic.
pub fn tier_file(data: &[u8]) {
    let g = qibase::games::Weiming::new();
    let dir = scratch();
    let t = g.tiers(None)[0];
    let store = TierStore::new(&g, &dir);
    std::fs::write(store.path(t), data).expect("scratch written");
    if let Err(e) = store.load(t) {
        assert!(
            e.to_string().contains(&store.path(t).display().to_string()),
            "{e}"
        );
    }
}

/// The bytes as weiming's compact tier file: resolved whole, or refused
/// with an error naming a file; never a panic.
pub fn compact_file(data: &[u8]) {
    let g = qibase::games::Weiming::new();
    let dir = scratch();
    let t = g.tiers(None)[0];
    let store = TierStore::new(&g, &dir);
    let _ = std::fs::remove_file(store.path(t));
    std::fs::write(store.compact_path(t), data).expect("scratch written");
    let mut held = std::collections::HashMap::new();
    if let Err(e) = store.load_held(t, &mut held) {
        assert!(e.to_string().contains(".qtc"), "{e}");
    }
}

/// A fuzz target's entry: any bytes in, a panic only on a wrong answer.
pub type Entry = fn(&[u8]);

/// The entry of each fuzz target, by the target's (and corpus
/// directory's) name.
pub const TARGETS: [(&str, Entry); 6] = [
    ("position", position),
    ("variant_spec", variant_spec),
    ("engine_lines", engine_lines),
    ("http_query", http_query),
    ("tier_file", tier_file),
    ("compact_file", compact_file),
];
