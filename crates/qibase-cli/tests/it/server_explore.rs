//! The explorer's server side: the variants that have tables in the served
//! directory are listed with their parameters and drawn from their own
//! geometry, and `annotate` answers what `qibase annotate --json` prints.

use axum::http::StatusCode;
use serde_json::Value as Json;

use crate::common::{qibase, temp_dir};
use crate::server::{expect_error, get, router};

const VARIANTS: [(&str, usize); 2] = [
    ("cannon-chess:board=5x5,pieces=2", 25),
    ("two-cannons:board=6x5,soldiers=3,threshold=2", 30),
];

#[tokio::test]
async fn variants_with_tables_are_listed_with_their_parameters() {
    let d = temp_dir("serve-variants");
    for (spec, _) in VARIANTS {
        let o = qibase(&["solve", spec, "--dir", d.to_str().unwrap(), "--quiet"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // Directories that name no variant, or one without tables, are passed over.
    std::fs::create_dir_all(d.join("weiming@board=3x3")).unwrap();
    std::fs::create_dir_all(d.join("cannon-chess@pieces=2")).unwrap();
    std::fs::create_dir_all(d.join("notes")).unwrap();
    let app = router(&d);
    let (s, games) = get(&app, "/api/v1/games").await;
    assert_eq!(s, StatusCode::OK);
    let ids: Vec<&str> = games
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "weiming",
            "cannon-chess",
            "two-cannons",
            "cannon-chess-4x4",
            "three-cannons",
            VARIANTS[0].0,
            VARIANTS[1].0
        ]
    );
    let listed = |id: &str| {
        games
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == id)
            .unwrap()
            .clone()
    };
    let cc = listed(VARIANTS[0].0);
    assert_eq!(cc["tablebase"], true, "{cc}");
    assert_eq!(cc["variant"]["family"], "cannon-chess");
    assert_eq!(cc["variant"]["preset"], "cannon-chess");
    assert_eq!(cc["variant"]["board"], "5x5");
    assert_eq!(cc["variant"]["pieces"], 2);
    let tc = listed(VARIANTS[1].0);
    assert_eq!(tc["variant"]["board"], "6x5");
    assert_eq!(tc["variant"]["soldiers"], 3);
    assert_eq!(tc["variant"]["threshold"], 2);
    for (spec, points) in VARIANTS {
        let (s, g) = get(&app, &format!("/api/v1/games/{spec}")).await;
        assert_eq!(s, StatusCode::OK, "{g}");
        assert_eq!(
            g["geometry"]["points"].as_array().unwrap().len(),
            points,
            "{spec}"
        );
        let start = g["start"].as_str().unwrap().replace(' ', "_");
        let (s, q) = get(&app, &format!("/api/v1/{spec}/query?pos={start}")).await;
        assert_eq!(s, StatusCode::OK, "{q}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[tokio::test]
async fn annotate_answers_as_the_command_line() {
    let dir = crate::common::root().join("tablebases");
    let app = router(&dir);
    // The first moves of the principal variation, then the worst move.
    let (_, q) = get(&app, "/api/v1/weiming/query?pos=XXX/S../OOO_X_-").await;
    let mut moves: Vec<String> = q["pv"].as_array().unwrap()[..2]
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect();
    let pos = q["pv"][1]["position"].as_str().unwrap().replace(' ', "_");
    let (_, after) = get(&app, &format!("/api/v1/weiming/query?pos={pos}")).await;
    let worst = after["moves"].as_array().unwrap().last().unwrap();
    moves.push(worst["move"].as_str().unwrap().to_string());
    let (s, j) = get(
        &app,
        &format!("/api/v1/weiming/annotate?moves={}", moves.join(",")),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{j}");
    assert_eq!(j["start"], "XXX/S../OOO X -");
    let mut args = vec!["annotate", "weiming", "--json"];
    args.extend(moves.iter().map(String::as_str));
    let o = qibase(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cli: Vec<Json> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(j["plies"].as_array().unwrap(), &cli);
    let worse = worst["category"] != after["category"];
    assert_eq!(cli[2]["mistake"], Json::Bool(worse));

    // From a given position, and the errors.
    let (s, j) = get(
        &app,
        &format!("/api/v1/weiming/annotate?pos={pos}&moves={}", moves[2]),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{j}");
    assert_eq!(j["plies"][0]["mistake"], cli[2]["mistake"]);
    let e = expect_error(
        &app,
        &format!("/api/v1/weiming/annotate?moves={},zz-zz", moves[0]),
        StatusCode::BAD_REQUEST,
        "bad_move",
    )
    .await;
    assert!(e.starts_with("ply 2"), "{e}");
    expect_error(
        &app,
        "/api/v1/weiming/annotate",
        StatusCode::BAD_REQUEST,
        "bad_move",
    )
    .await;
    expect_error(
        &app,
        "/api/v1/weiming/annotate?pos=XXX/S../OO_X_-&moves=tl-tm",
        StatusCode::BAD_REQUEST,
        "bad_position",
    )
    .await;
}
