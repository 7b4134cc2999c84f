//! The puzzle sets of the page's puzzle mode: the files of
//! `crates/qibase-cli/puzzles/` (made by `qibase puzzles`), embedded at
//! build time and served as they are at `/api/v1/{game}/puzzles`.

use axum::extract::Path;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

use crate::api::{code, ApiError};
use qibase::games::{SpecError, GAME_IDS};

include!(concat!(env!("OUT_DIR"), "/puzzles.rs"));

/// The embedded set of game `id` (its JSON text), if there is one.
pub fn set(id: &str) -> Option<&'static [u8]> {
    PUZZLE_SETS
        .iter()
        .find(|(g, _)| *g == id)
        .map(|(_, bytes)| *bytes)
}

/// The ids of the games that have a puzzle set.
pub fn games() -> impl Iterator<Item = &'static str> {
    PUZZLE_SETS.iter().map(|(g, _)| *g)
}

/// `GET /api/v1/{game}/puzzles`: the set, or `404 unknown_game` for no
/// such game and `404 not_found` for a game without a set.
pub async fn puzzles(Path(id): Path<String>) -> Response {
    if let Some(bytes) = set(&id) {
        let mut r = bytes.into_response();
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        return r;
    }
    // Only the preset id is looked at (building a variant can take long,
    // and no variant has a set).
    let base = id.split(':').next().unwrap_or_default().trim();
    if !GAME_IDS.contains(&base) {
        return ApiError::from(SpecError::UnknownGame {
            id: base.to_string(),
        })
        .into_response();
    }
    ApiError::new(
        code::NOT_FOUND,
        format!("no puzzles for '{id}' (puzzle sets exist for: {})", {
            let v: Vec<_> = games().collect();
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        }),
    )
    .into_response()
}
