//! `qibase serve` at the router level (every endpoint, every error code),
//! against the CLI's JSON, with damaged and partial tablebases, and on
//! loopback under concurrent load.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use qibase::ai::Difficulty;
use qibase::games::Weiming;
use qibase::tablebase::{tier_path, write_tier, TierStore};
use qibase::{Geometry, Notation, Tiers};
use qibase_cli::api::{ApiError, BestmoveJson, MovesJson, QueryJson};
use qibase_cli::server::state::{GameService, GameSummary};
use qibase_cli::server::{app, AppState};
use serde_json::Value as Json;
use tower::ServiceExt;

use crate::common::{qibase, temp_dir};

const START: &str = "XXX/S../OOO X -";

fn committed() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| crate::common::root().join("tablebases"))
}

pub(crate) fn router(dir: &Path) -> Router {
    app(Arc::new(AppState::open(dir).unwrap()))
}

async fn call(app: &Router, method: Method, uri: &str) -> (StatusCode, Json) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .body(Body::empty())
        .unwrap();
    let r = app.clone().oneshot(req).await.unwrap();
    let status = r.status();
    let ct = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = r.into_body().collect().await.unwrap().to_bytes();
    assert!(
        ct.starts_with("application/json"),
        "{uri}: content-type {ct}"
    );
    let j: Json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (status, j)
}

pub(crate) async fn get(app: &Router, uri: &str) -> (StatusCode, Json) {
    call(app, Method::GET, uri).await
}

/// An error answer: the status, the code, `{"error", "code"}` only.
pub(crate) async fn expect_error(
    app: &Router,
    uri: &str,
    status: StatusCode,
    code: &str,
) -> String {
    let (s, j) = get(app, uri).await;
    assert_eq!(s, status, "{uri}: {j}");
    assert_eq!(j["code"], code, "{uri}: {j}");
    let obj = j.as_object().unwrap();
    assert_eq!(obj.len(), 2, "{uri}: {j}");
    j["error"].as_str().unwrap().to_string()
}

pub(crate) fn url_pos(p: &str) -> String {
    p.replace(' ', "_")
}

fn cli_json(args: &[&str]) -> Json {
    let o = qibase(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A few weiming positions: the start, positions along its PV and some
/// won/lost ones and a finished one.
fn weiming_positions() -> Vec<String> {
    let g = Weiming::new();
    let mut v = vec![START.to_string(), "X.X/SXO/.OO O -".to_string()];
    for i in (0..g.tier_size(0)).step_by(997) {
        let p = g.unrank(0, i);
        if g.rank(0, &p) == i {
            v.push(g.format_pos(&p));
        }
    }
    v
}

#[tokio::test]
async fn games_and_geometry() {
    let app = router(committed());
    let (s, j) = get(&app, "/api/v1/games").await;
    assert_eq!(s, StatusCode::OK);
    let list = j.as_array().unwrap();
    let ids: Vec<&str> = list.iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(ids, qibase::games::GAME_IDS);
    assert_eq!(list[0]["tablebase"], true);
    assert_eq!(list[0]["start"], START);
    assert_eq!(list[0]["sides"], serde_json::json!(["X", "O"]));

    let (s, j) = get(&app, "/api/v1/games/weiming").await;
    assert_eq!(s, StatusCode::OK);
    let geo: Geometry = serde_json::from_value(j["geometry"].clone()).unwrap();
    let names: Vec<&str> = geo.points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, Weiming::new().point_names());
    assert_eq!(geo.lines.len(), 13);
    // The shared piece's point `s` has one line, to `x`.
    let s_lines: Vec<_> = geo.lines.iter().filter(|l| l.contains(&3)).collect();
    assert_eq!(s_lines, [&[3, 4]]);

    let (_, j) = get(&app, "/api/v1/games/cannon-chess").await;
    let geo: Geometry = serde_json::from_value(j["geometry"].clone()).unwrap();
    assert_eq!(geo.points.len(), 20);
    // 4 x 5 grid: 3*5 horizontal + 4*4 vertical lines, all of length 1.
    assert_eq!(geo.lines.len(), 31);
    for [a, b] in geo.lines {
        let (p, q) = (&geo.points[a], &geo.points[b]);
        assert_eq!((p.x - q.x).abs() + (p.y - q.y).abs(), 1.0);
    }
    // a1 is bottom left.
    assert_eq!(geo.points[0].name, "a1");
    assert_eq!((geo.points[0].x, geo.points[0].y), (0.0, 4.0));
}

#[tokio::test]
async fn query_moves_bestmove_equal_the_cli() {
    let app = router(committed());
    for p in weiming_positions() {
        let (s, http) = get(&app, &format!("/api/v1/weiming/query?pos={}", url_pos(&p))).await;
        assert_eq!(s, StatusCode::OK, "{p}: {http}");
        let cli = cli_json(&["query", "weiming", &p, "--json"]);
        assert_eq!(http, cli, "{p}");
        // Typed view: the moves best first, the PV starting with the best.
        let q: QueryJson = serde_json::from_value(http).unwrap();
        assert_eq!(q.best.as_deref(), q.moves.first().map(|m| m.mv.as_str()));
        if let (Some(pv), Some(first)) = (&q.pv, q.moves.first()) {
            assert_eq!(&pv[0], first);
        }
        for m in &q.moves {
            let v = m.value.as_ref().unwrap();
            assert_eq!(v.remoteness.is_none(), v.value == "draw");
            assert!(v
                .value
                .starts_with(&format!("{:?}", v.category).to_lowercase()));
        }

        let (s, http) = get(&app, &format!("/api/v1/weiming/moves?pos={}", url_pos(&p))).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(http, cli_json(&["moves", "weiming", &p, "--json"]), "{p}");
        let _: MovesJson = serde_json::from_value(http).unwrap();

        let uri = format!(
            "/api/v1/weiming/bestmove?pos={}&difficulty=medium&seed=7",
            url_pos(&p)
        );
        let (s, http) = get(&app, &uri).await;
        assert_eq!(s, StatusCode::OK);
        let cli = cli_json(&[
            "bestmove",
            "weiming",
            &p,
            "--difficulty",
            "medium",
            "--seed",
            "7",
            "--json",
        ]);
        assert_eq!(http, cli, "{p}");
        let _: BestmoveJson = serde_json::from_value(http).unwrap();
    }
}

#[tokio::test]
async fn position_spelling_move_parameter_and_pass() {
    let app = router(committed());
    let (_, a) = get(&app, "/api/v1/weiming/query?pos=XXX/S../OOO_X_-").await;
    let (_, b) = get(&app, "/api/v1/weiming/query?pos=XXX%2FS..%2FOOO%20X%20-").await;
    assert_eq!(a, b);
    // ?move= answers for the position after the move.
    let (s, after) = get(&app, "/api/v1/weiming/query?pos=XXX/S../OOO_X_-&move=s-x").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(after["position"], "XXX/.S./OOO O !");
    // The pass frees the shared piece (lock flag cleared) and hands over the turn.
    assert_eq!(after["pass"], "XXX/.S./OOO X -");
    assert_eq!(a["pass"], "XXX/S../OOO O -");
    // ?pv=false leaves the principal variation out, nothing else.
    let (_, mut c) = get(&app, "/api/v1/weiming/query?pos=XXX/S../OOO_X_-&pv=false").await;
    assert!(c.get("pv").is_none());
    let mut a = a;
    a.as_object_mut().unwrap().remove("pv");
    c.as_object_mut().unwrap().remove("pv");
    assert_eq!(a, c);
    expect_error(
        &app,
        "/api/v1/weiming/query?pos=XXX/S../OOO_X_-&pv=maybe",
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
}

#[tokio::test]
async fn every_error_code() {
    let app = router(committed());
    let q = "/api/v1/weiming/query?pos=";
    for bad in [
        "",
        "nonsense",
        "XXX/S../OOX_X_-",
        "XXX/S../OOO_Z_-",
        "%FF%FE",
    ] {
        expect_error(
            &app,
            &format!("{q}{bad}"),
            StatusCode::BAD_REQUEST,
            "bad_position",
        )
        .await;
    }
    expect_error(
        &app,
        "/api/v1/weiming/query",
        StatusCode::BAD_REQUEST,
        "bad_position",
    )
    .await;
    let long = "X".repeat(1000);
    let e = expect_error(
        &app,
        &format!("{q}{long}"),
        StatusCode::BAD_REQUEST,
        "bad_position",
    )
    .await;
    assert!(e.contains("at most"), "{e}");
    // An overlong URI as a whole.
    let huge = "X".repeat(10_000);
    let (s, j) = get(&app, &format!("{q}{huge}")).await;
    assert_eq!(s, StatusCode::URI_TOO_LONG);
    assert_eq!(j["code"], "too_large");
    let base = "/api/v1/weiming/bestmove?pos=XXX/S../OOO_X_-";
    expect_error(
        &app,
        &format!("{base}&move=s-tl"),
        StatusCode::BAD_REQUEST,
        "bad_move",
    )
    .await;
    expect_error(
        &app,
        &format!("{base}&move=zz"),
        StatusCode::BAD_REQUEST,
        "bad_move",
    )
    .await;
    expect_error(
        &app,
        &format!("{base}&difficulty=godlike"),
        StatusCode::BAD_REQUEST,
        "bad_difficulty",
    )
    .await;
    for seed in ["-1", "x", "18446744073709551616"] {
        expect_error(
            &app,
            &format!("{base}&seed={seed}"),
            StatusCode::BAD_REQUEST,
            "bad_seed",
        )
        .await;
    }
    expect_error(
        &app,
        "/api/v1/chess/query?pos=x",
        StatusCode::NOT_FOUND,
        "unknown_game",
    )
    .await;
    expect_error(
        &app,
        "/api/v1/games/chess",
        StatusCode::NOT_FOUND,
        "unknown_game",
    )
    .await;
    expect_error(
        &app,
        "/api/v1/weiming/solve",
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    expect_error(&app, "/api/v2/games", StatusCode::NOT_FOUND, "not_found").await;
    expect_error(
        &app,
        "/assets/nothing.js",
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    for m in [Method::POST, Method::PUT, Method::DELETE] {
        let (s, j) = call(&app, m.clone(), &format!("{q}XXX/S../OOO_X_-")).await;
        assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED, "{m}");
        assert_eq!(j["code"], "method_not_allowed");
    }
    // Not solved: 503 with the command that makes the table; `moves`
    // needs no table and still answers.
    let empty = temp_dir("serve-empty");
    fs::create_dir_all(&empty).unwrap();
    let app = router(&empty);
    let start = url_pos("OOOO/O..O/..../X..X/XXXX X");
    let e = expect_error(
        &app,
        &format!("/api/v1/cannon-chess/query?pos={start}"),
        StatusCode::SERVICE_UNAVAILABLE,
        "not_solved",
    )
    .await;
    assert!(e.contains("qibase solve cannon-chess"), "{e}");
    let (s, _) = get(&app, &format!("/api/v1/cannon-chess/moves?pos={start}")).await;
    assert_eq!(s, StatusCode::OK);
    // Weiming works without a table: solved in memory, same answers.
    let (s, j) = get(&app, "/api/v1/weiming/query?pos=XXX/S../OOO_X_-").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(j, cli_json(&["query", "weiming", START, "--json"]));
    let (_, games) = get(&app, "/api/v1/games").await;
    assert!(games[0]["source"].as_str().unwrap().contains("in memory"));
    let _ = fs::remove_dir_all(&empty);
}

fn weiming_file(dir: &Path) -> PathBuf {
    let g = Weiming::new();
    tier_path(dir, g.id(), &g.tier_name(g.tiers(None)[0]))
}

/// A copy of the committed weiming table, changed by `f`.
fn damaged(name: &str, f: impl FnOnce(&mut Vec<u8>)) -> (PathBuf, PathBuf) {
    let d = temp_dir(name);
    let file = weiming_file(&d);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mut bytes = fs::read(weiming_file(committed())).unwrap();
    f(&mut bytes);
    fs::write(&file, bytes).unwrap();
    (d, file)
}

#[tokio::test]
async fn damaged_and_foreign_tables_are_500_with_the_path() {
    let uri = "/api/v1/weiming/query?pos=XXX/S../OOO_X_-";
    // A damaged header and a truncated file (both found when opened).
    let flip_header = |b: &mut Vec<u8>| {
        // A byte of the checksummed header: format 3 checks a block only
        // when a probe reads it, but every open checks the header.
        b[20] ^= 0x55;
    };
    let truncate = |b: &mut Vec<u8>| b.truncate(10);
    for (name, f) in [
        ("serve-flip", &flip_header as &dyn Fn(&mut Vec<u8>)),
        ("serve-trunc", &truncate),
    ] {
        let (d, file) = damaged(name, f);
        let app = router(&d);
        for _ in 0..2 {
            let e = expect_error(
                &app,
                uri,
                StatusCode::INTERNAL_SERVER_ERROR,
                "corrupt_tablebase",
            )
            .await;
            assert!(e.contains(&file.display().to_string()), "{e}");
        }
        // The server goes on serving what needs no table.
        let (s, _) = get(&app, "/api/v1/weiming/moves?pos=XXX/S../OOO_X_-").await;
        assert_eq!(s, StatusCode::OK);
        let _ = fs::remove_dir_all(&d);
    }
    // A table made under other rules.
    let g = Weiming::new();
    let d = temp_dir("serve-foreign");
    let store = TierStore::new(&g, committed());
    let mut meta = store.meta(0).unwrap();
    let values = store.load(0).unwrap();
    meta.rules_hash ^= 1;
    write_tier(&weiming_file(&d), &meta, &values).unwrap();
    let app = router(&d);
    let e = expect_error(
        &app,
        uri,
        StatusCode::INTERNAL_SERVER_ERROR,
        "foreign_tablebase",
    )
    .await;
    assert!(e.contains(&weiming_file(&d).display().to_string()), "{e}");
    let _ = fs::remove_dir_all(&d);
    // A table of an older format (the committed format 4 fixture).
    let d = temp_dir("serve-old-format");
    fs::create_dir_all(weiming_file(&d).parent().unwrap()).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/data/v4/weiming/all.qtb"),
        weiming_file(&d),
    )
    .unwrap();
    let app = router(&d);
    let e = expect_error(
        &app,
        uri,
        StatusCode::INTERNAL_SERVER_ERROR,
        "foreign_tablebase",
    )
    .await;
    assert!(e.contains(&weiming_file(&d).display().to_string()), "{e}");
    assert!(
        e.contains("format version 4") && e.contains("qibase solve weiming"),
        "{e}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[tokio::test]
async fn partial_tablebase_answers_inside_its_tiers() {
    let d = temp_dir("serve-partial");
    let ds = d.to_str().unwrap();
    let o = qibase(&[
        "solve",
        "cannon-chess-4x4",
        "--max-pieces",
        "2",
        "--dir",
        ds,
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let app = router(&d);
    let inside = "..../O.../X..X/.... X";
    let (s, j) = get(
        &app,
        &format!("/api/v1/cannon-chess-4x4/query?pos={}", url_pos(inside)),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{j}");
    assert_eq!(
        j,
        cli_json(&["query", "cannon-chess-4x4", inside, "--dir", ds, "--json"])
    );
    let e = expect_error(
        &app,
        "/api/v1/cannon-chess-4x4/query?pos=OOOO/O..O/X..X/XXXX_X",
        StatusCode::SERVICE_UNAVAILABLE,
        "not_solved",
    )
    .await;
    assert!(e.contains("qibase solve cannon-chess-4x4"), "{e}");
    let _ = fs::remove_dir_all(&d);
}

/// A service that panics in every lookup.
struct Panicky;

impl GameService for Panicky {
    fn summary(&self) -> GameSummary {
        panic!("summary")
    }
    fn geometry(&self) -> Geometry {
        panic!("geometry")
    }
    fn query(&self, _: &str, _: Option<&str>, _: bool) -> Result<QueryJson, ApiError> {
        panic!("query")
    }
    fn moves(&self, _: &str, _: Option<&str>) -> Result<MovesJson, ApiError> {
        panic!("moves")
    }
    fn bestmove(
        &self,
        _: &str,
        _: Option<&str>,
        _: Difficulty,
        _: Option<u64>,
    ) -> Result<BestmoveJson, ApiError> {
        panic!("bestmove")
    }
    fn annotate(
        &self,
        _: Option<&str>,
        _: &[String],
    ) -> Result<qibase_cli::api::annotate::AnnotateJson, ApiError> {
        panic!("annotate")
    }
}

#[tokio::test]
async fn a_panic_is_a_500_and_the_server_goes_on() {
    let real = AppState::open(committed()).unwrap();
    let mut games = real.games.clone();
    games.push((
        "boom".to_string(),
        Arc::new(Panicky) as Arc<dyn GameService>,
    ));
    let app = app(Arc::new(AppState::with_services(committed(), games)));
    for uri in [
        "/api/v1/boom/query?pos=x",
        "/api/v1/boom/moves?pos=x",
        "/api/v1/games/boom",
        // `/games` calls summary() on the reactor: caught by the panic layer.
        "/api/v1/games",
    ] {
        expect_error(&app, uri, StatusCode::INTERNAL_SERVER_ERROR, "internal").await;
    }
    let (s, _) = get(&app, "/api/v1/weiming/query?pos=XXX/S../OOO_X_-").await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn the_page_and_its_assets() {
    let app = router(committed());
    // Every file of web/ is served (a new module not registered in
    // assets.rs would break the page).
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let mut files = Vec::new();
    for e in fs::read_dir(&web).unwrap().flatten() {
        if e.path().is_dir() {
            for f in fs::read_dir(e.path()).unwrap().flatten() {
                files.push(format!(
                    "{}/{}",
                    e.file_name().to_string_lossy(),
                    f.file_name().to_string_lossy()
                ));
            }
        } else {
            files.push(e.file_name().to_string_lossy().to_string());
        }
    }
    assert!(files.len() > 10, "{files:?}");
    for name in &files {
        let r = app
            .clone()
            .oneshot(
                Request::get(format!("/assets/{name}"))
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{name} is not served");
        let body = r.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body, fs::read(web.join(name)).unwrap(), "{name}");
    }
    // Every language has every string; beside it, exactly the plural
    // forms its own rules have (i18n.js picks them by Intl.PluralRules:
    // English `_one`, Chinese none, so its general string serves n = 1).
    let plural_forms: [(&str, &[&str]); 2] = [("en", &["one"]), ("zh", &[])];
    let strings = |lang: &str| -> serde_json::Map<String, Json> {
        serde_json::from_slice(&fs::read(web.join(format!("i18n/{lang}.json"))).unwrap()).unwrap()
    };
    let general = |m: &serde_json::Map<String, Json>| -> std::collections::BTreeSet<String> {
        m.keys()
            .filter(|k| {
                !["_zero", "_one", "_two", "_few", "_many"]
                    .iter()
                    .any(|f| k.ends_with(f))
            })
            .cloned()
            .collect()
    };
    let en_keys = general(&strings("en"));
    for (lang, forms) in plural_forms {
        let m = strings(lang);
        let keys = general(&m);
        let odd: Vec<&String> = en_keys.symmetric_difference(&keys).collect();
        assert!(
            odd.is_empty(),
            "in one of en.json and {lang}.json only: {odd:?}"
        );
        for k in m.keys().filter(|k| !keys.contains(*k)) {
            let (base, form) = k.rsplit_once('_').unwrap();
            assert!(
                forms.contains(&form),
                "{lang}.json: {k}: {lang} has no '{form}' form"
            );
            assert!(keys.contains(base), "{lang}.json: {k} without {base}");
        }
    }
    // The rules say the same in both languages: the same items, under the
    // same variant conditions, with the same diagrams.
    let shape = |v: &Json| -> Json {
        fn walk(v: &Json) -> Json {
            match v {
                Json::String(_) => Json::Null,
                Json::Array(a) => Json::Array(a.iter().map(walk).collect()),
                Json::Object(o) => Json::Object(
                    o.iter()
                        .filter(|(k, _)| *k != "text" && *k != "caption" && *k != "h")
                        .map(|(k, v)| {
                            let keep = k == "when" || k == "demo";
                            (k.clone(), if keep { v.clone() } else { walk(v) })
                        })
                        .collect(),
                ),
                other => other.clone(),
            }
        }
        walk(v)
    };
    let en: Json = serde_json::from_slice(&fs::read(web.join("rules/en.json")).unwrap()).unwrap();
    let zh: Json = serde_json::from_slice(&fs::read(web.join("rules/zh.json")).unwrap()).unwrap();
    assert_eq!(shape(&en), shape(&zh));
    for (uri, ty) in [
        ("/", "text/html"),
        ("/assets/app.js", "text/javascript"),
        ("/assets/board.js", "text/javascript"),
        ("/assets/style.css", "text/css"),
    ] {
        let r = app
            .clone()
            .oneshot(Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{uri}");
        let ct = r.headers()["content-type"].to_str().unwrap().to_string();
        assert!(ct.starts_with(ty), "{uri}: {ct}");
        let body = r.into_body().collect().await.unwrap().to_bytes();
        assert!(!body.is_empty(), "{uri}");
    }
}

/// Many parallel requests on loopback through a real socket: every answer
/// equals the sequential one, and the server is still up afterwards.
#[test]
fn concurrent_requests_on_loopback() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let state = Arc::new(AppState::open(committed()).unwrap());
        let (listener, addr) = qibase_cli::server::bind("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(qibase_cli::server::serve(listener, state, async {
            let _ = stop_rx.await;
        }));
        let uris: Vec<String> = weiming_positions()
            .iter()
            .take(12)
            .flat_map(|p| {
                let p = url_pos(p);
                [
                    format!("/api/v1/weiming/query?pos={p}"),
                    format!("/api/v1/weiming/moves?pos={p}"),
                    format!("/api/v1/weiming/bestmove?pos={p}&difficulty=hard&seed=3"),
                ]
            })
            .chain(["/api/v1/weiming/query?pos=bad".to_string()])
            .collect();
        let expected = {
            let mut v = Vec::new();
            for u in &uris {
                v.push(http_get(addr, std::slice::from_ref(u)).await.remove(0));
            }
            v
        };
        // 32 connections, each sending every request (keep-alive), in a
        // different order.
        let mut tasks = Vec::new();
        for c in 0..32usize {
            let mut mine: Vec<(usize, String)> = uris.iter().cloned().enumerate().collect();
            mine.rotate_left(c % uris.len());
            tasks.push(tokio::spawn(async move {
                let (idx, us): (Vec<usize>, Vec<String>) = mine.into_iter().unzip();
                let answers = http_get(addr, &us).await;
                idx.into_iter().zip(answers).collect::<Vec<_>>()
            }));
        }
        for t in tasks {
            for (i, a) in t.await.unwrap() {
                assert_eq!(a, expected[i], "{}", uris[i]);
            }
        }
        // Still up.
        let again = http_get(addr, &[uris[0].clone()]).await;
        assert_eq!(again[0], expected[0]);
        stop_tx.send(()).unwrap();
        server.await.unwrap().unwrap();
    });
}

/// GET each URI in turn over one keep-alive connection: (status, body).
async fn http_get(addr: std::net::SocketAddr, uris: &[String]) -> Vec<(u16, String)> {
    use hyper_util::rt::TokioIo;
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut out = Vec::new();
    for u in uris {
        let req = Request::get(u.as_str())
            .header("host", addr.to_string())
            .body(http_body_util::Empty::<axum::body::Bytes>::new())
            .unwrap();
        let r = send.send_request(req).await.unwrap();
        let status = r.status().as_u16();
        let body = r.into_body().collect().await.unwrap().to_bytes();
        out.push((status, String::from_utf8(body.to_vec()).unwrap()));
    }
    out
}

/// Clients that send half a request line and then nothing are disconnected
/// once the header time-out passes, while whole requests are answered
/// meanwhile: served beyond loopback, idle half-open connections must not
/// use up the server's file descriptors.
#[test]
fn half_sent_requests_are_dropped_after_the_header_timeout() {
    use std::time::{Duration, Instant};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const HALF_OPEN: usize = 300;
    let timeout = Duration::from_millis(600);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (listener, addr) = qibase_cli::server::bind("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(qibase_cli::server::serve_with(
            listener,
            router(committed()),
            timeout,
            async {
                let _ = stop_rx.await;
            },
        ));
        let t0 = Instant::now();
        let mut half = Vec::new();
        for _ in 0..HALF_OPEN {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(b"GET /api/v1/gam").await.unwrap();
            half.push(s);
        }
        // A whole request is answered while they hang.
        let answers = http_get(addr, &["/api/v1/games".to_string()]).await;
        assert_eq!(answers[0].0, 200, "{}", answers[0].1);
        // Every half-open connection is closed by the server (EOF or reset).
        for mut s in half {
            let mut buf = [0u8; 256];
            let closed = tokio::time::timeout(Duration::from_secs(10), async {
                loop {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
            })
            .await;
            assert!(closed.is_ok(), "a half-sent request was kept open");
        }
        let waited = t0.elapsed();
        assert!(waited >= timeout, "closed before the time-out: {waited:?}");
        // The server still answers afterwards, then shuts down cleanly.
        let answers = http_get(addr, &["/api/v1/games".to_string()]).await;
        assert_eq!(answers[0].0, 200);
        stop_tx.send(()).unwrap();
        server.await.unwrap().unwrap();
    });
}

#[tokio::test]
async fn moves_carry_their_geometry() {
    let app = router(committed());
    // Every move lists where it goes; the names are the notation's.
    let (_, q) = get(&app, "/api/v1/weiming/query?pos=X.X/SXO/.OO_O_-").await;
    for m in q["moves"]
        .as_array()
        .unwrap()
        .iter()
        .chain(q["pv"].as_array().unwrap())
    {
        let text = m["move"].as_str().unwrap();
        let (from, to) = text.split_once('-').unwrap();
        assert_eq!(
            (m["from"].as_str(), m["to"].as_str()),
            (Some(from), Some(to))
        );
        assert!(m.get("captured").is_none(), "{m}");
    }
    // Captures: a cannon-shot (own own enemy on a rank) and a lone piece's
    // double capture (挑), by the rules alone (`moves`).
    let (s, j) = get(
        &app,
        "/api/v1/cannon-chess/moves?pos=...O/..../..../.X../X.O._X",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{j}");
    let m = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "b2-b1")
        .cloned()
        .unwrap_or_else(|| panic!("{j}"));
    assert_eq!(m["captured"], serde_json::json!(["c1"]));
    assert_eq!(m["board"], "XX.................O");
    let (_, j) = get(
        &app,
        "/api/v1/cannon-chess/moves?pos=..../..../O.O./..../.X.._X",
    )
    .await;
    let m = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "b1-b3")
        .cloned()
        .unwrap();
    assert_eq!(m["from"], "b1");
    assert_eq!(m["to"], "b3");
    assert_eq!(m["captured"], serde_json::json!(["a3", "c3"]));
    assert_eq!(m["category"], "win");
    // A cannon's jump lands on the soldier it takes.
    let (_, j) = get(
        &app,
        "/api/v1/two-cannons/moves?pos=SSSSS/SSSSS/.S..S/...../.C.C._C",
    )
    .await;
    let m = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "b1-b3")
        .cloned()
        .unwrap();
    assert_eq!(m["captured"], serde_json::json!(["b3"]));
    // bestmove's move too.
    let (_, b) = get(&app, "/api/v1/weiming/bestmove?pos=X.X/SXO/.OO_O_-").await;
    assert_eq!(b["move"]["move"], "m-tm");
    assert_eq!(b["move"]["from"], "m");
    assert_eq!(b["move"]["to"], "tm");
}

#[tokio::test]
async fn games_tell_their_variant() {
    let app = router(committed());
    let (_, j) = get(&app, "/api/v1/games/weiming").await;
    assert_eq!(
        j["variant"],
        serde_json::json!({"family": "weiming", "preset": "weiming"})
    );
    let (_, j) = get(&app, "/api/v1/games/cannon-chess-4x4").await;
    assert_eq!(
        j["variant"],
        serde_json::json!({"family": "cannon-chess", "preset": "cannon-chess-4x4", "board": "4x4",
                           "pieces": 6, "tiao": "lone", "lone": "slide", "one-v-one": "draw"})
    );
    let (s, j) = get(&app, "/api/v1/games/three-cannons:immobility=static").await;
    assert_eq!(s, StatusCode::OK, "{j}");
    assert_eq!(
        j["variant"],
        serde_json::json!({"family": "cannons", "preset": "three-cannons", "board": "5x5",
                           "cannons": 3, "soldiers": 15, "threshold": 4, "immobility": "static"})
    );
    let (_, list) = get(&app, "/api/v1/games").await;
    assert_eq!(list[1]["variant"]["tiao"], "lone");
}

/// Every embedded puzzle set keeps the format's promises: its game, a
/// position in the notation, `best` legal, `wrong` every other legal move
/// once with a legal refutation line; and, where values are at hand
/// (weiming's committed table), every value is the tablebase's and `best`
/// is the only move that keeps the result.
#[tokio::test]
async fn puzzle_sets_are_served_and_true() {
    use qibase_cli::server::puzzles;
    let app = router(committed());
    let ids: Vec<&str> = puzzles::games().collect();
    assert!(ids.contains(&"weiming"), "{ids:?}");
    for id in ids {
        let (s, set) = get(&app, &format!("/api/v1/{id}/puzzles")).await;
        assert_eq!(s, StatusCode::OK, "{id}");
        assert_eq!(set["format"], "qibase-puzzles 1");
        assert_eq!(set["game"], id);
        let list = set["puzzles"].as_array().unwrap();
        assert!(!list.is_empty(), "{id}");
        let mut seen = std::collections::HashSet::new();
        for p in list {
            let pid = p["id"].as_str().unwrap();
            assert!(seen.insert(pid.to_string()), "{pid} twice");
            let pos = p["position"].as_str().unwrap();
            let (s, moves) = get(&app, &format!("/api/v1/{id}/moves?pos={}", url_pos(pos))).await;
            assert_eq!(s, StatusCode::OK, "{pid}: {moves}");
            let legal: std::collections::BTreeSet<String> = moves["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["move"].as_str().unwrap().to_string())
                .collect();
            let mut listed: std::collections::BTreeSet<String> =
                [p["best"].as_str().unwrap().to_string()].into();
            for w in p["wrong"].as_array().unwrap() {
                assert!(
                    listed.insert(w["move"].as_str().unwrap().to_string()),
                    "{pid}"
                );
                // The refutation is a legal line from the position after the move.
                let mut at = moves["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|m| m["move"] == w["move"])
                    .unwrap()["position"]
                    .as_str()
                    .unwrap()
                    .to_string();
                for r in w["refutation"].as_array().unwrap() {
                    let uri = format!(
                        "/api/v1/{id}/moves?pos={}&move={}",
                        url_pos(&at),
                        r.as_str().unwrap()
                    );
                    let (s, next) = get(&app, &uri).await;
                    assert_eq!(s, StatusCode::OK, "{pid}: {uri}: {next}");
                    at = next["position"].as_str().unwrap().to_string();
                }
            }
            assert_eq!(listed, legal, "{pid}: best and wrong are the legal moves");
            if id != "weiming" {
                continue;
            }
            let (_, q) = get(&app, &format!("/api/v1/{id}/query?pos={}", url_pos(pos))).await;
            assert_eq!(q["value"], p["value"], "{pid}");
            let class = q["category"].clone();
            for m in q["moves"].as_array().unwrap() {
                if m["move"] == p["best"] {
                    assert_eq!(m["value"], q["value"], "{pid}");
                    continue;
                }
                let w = p["wrong"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|w| w["move"] == m["move"])
                    .unwrap();
                assert_eq!(w["value"], m["value"], "{pid}");
                assert_ne!(
                    m["category"], class,
                    "{pid}: {} keeps the result",
                    m["move"]
                );
                // The refutation starts with the opponent's best reply.
                let (_, after) = get(
                    &app,
                    &format!(
                        "/api/v1/{id}/query?pos={}",
                        url_pos(m["position"].as_str().unwrap())
                    ),
                )
                .await;
                assert_eq!(w["refutation"][0], after["best"], "{pid}");
            }
        }
    }
    // A variant has no set (only presets get one).
    expect_error(
        &app,
        "/api/v1/cannon-chess:tiao=any/puzzles",
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    expect_error(
        &app,
        "/api/v1/chess/puzzles",
        StatusCode::NOT_FOUND,
        "unknown_game",
    )
    .await;
}
