//! The web page's files, embedded in the binary (no CDN, no build step):
//! plain ES modules, CSS and SVG from `web/`.

use axum::extract::Path;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

use crate::api::{code, ApiError};

/// (name, content type, bytes): every file of `web/`, by its path there.
const FILES: &[(&str, &str, &[u8])] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_bytes!("../../web/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/app.js"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/api.js"),
    ),
    (
        "editor.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/editor.js"),
    ),
    (
        "review.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/review.js"),
    ),
    (
        "controller.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/controller.js"),
    ),
    (
        "clock.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/clock.js"),
    ),
    (
        "views.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/views.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/board.js"),
    ),
    (
        "chart.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/chart.js"),
    ),
    (
        "puzzle.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/puzzle.js"),
    ),
    (
        "rules.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/rules.js"),
    ),
    (
        "i18n.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/i18n.js"),
    ),
    (
        "i18n/en.json",
        "application/json",
        include_bytes!("../../web/i18n/en.json"),
    ),
    (
        "i18n/zh.json",
        "application/json",
        include_bytes!("../../web/i18n/zh.json"),
    ),
    (
        "rules/en.json",
        "application/json",
        include_bytes!("../../web/rules/en.json"),
    ),
    (
        "rules/zh.json",
        "application/json",
        include_bytes!("../../web/rules/zh.json"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_bytes!("../../web/style.css"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_bytes!("../../web/favicon.svg"),
    ),
];

fn file(name: &str) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, ty, bytes)) => {
            let mut r = bytes.into_response();
            let h = r.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ty));
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            r
        }
        None => ApiError::new(code::NOT_FOUND, format!("no such file '{name}'")).into_response(),
    }
}

/// `/`: the page.
pub async fn index() -> Response {
    file("index.html")
}

/// `/assets/{*name}` (a path such as `i18n/zh.json`).
pub async fn asset(Path(name): Path<String>) -> Response {
    file(&name)
}
