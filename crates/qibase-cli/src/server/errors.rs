//! Errors as HTTP answers: every error is JSON `{"error", "code"}` with the
//! status its code calls for, including the ones the framework makes
//! itself (unknown route, wrong method, time-out, oversized request),
//! which [`json_errors`] rewrites.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::{code, ApiError};

/// Longest request URI accepted (positions are short; this is generous).
pub const MAX_URI_LEN: usize = 2048;

/// The HTTP status of an error code. The tablebase codes come from the
/// [`TbError`](qibase::tablebase::TbError) variants: a tier not solved is
/// 503 (the server cannot answer yet; the message names the command that
/// solves it), a damaged file, a file of another game, rules or format
/// version, or an I/O failure is 500 (the message names the file).
pub fn status_of(code_: &str) -> StatusCode {
    match code_ {
        c if c.starts_with("bad_") => StatusCode::BAD_REQUEST,
        code::UNKNOWN_GAME | code::NOT_FOUND => StatusCode::NOT_FOUND,
        code::METHOD_NOT_ALLOWED => StatusCode::METHOD_NOT_ALLOWED,
        code::TOO_LARGE => StatusCode::PAYLOAD_TOO_LARGE,
        code::TIMEOUT | code::NOT_SOLVED => StatusCode::SERVICE_UNAVAILABLE,
        code::CORRUPT_TABLEBASE | code::FOREIGN_TABLEBASE | code::IO_ERROR | code::INTERNAL => {
            StatusCode::INTERNAL_SERVER_ERROR
        }
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The JSON answer of an error with a given status.
pub fn error_response(status: StatusCode, e: &ApiError) -> Response {
    let mut r = (status, axum::Json(e.json())).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        error_response(status_of(self.code), &self)
    }
}

fn is_json(r: &Response) -> bool {
    r.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// Refuse overlong URIs, and give every error the framework answers by
/// itself (empty or plain-text bodies) the JSON shape.
pub async fn json_errors(req: Request, next: Next) -> Response {
    let uri_len = req.uri().to_string().len();
    if uri_len > MAX_URI_LEN {
        let e = ApiError::new(
            code::TOO_LARGE,
            format!("request URI of {uri_len} bytes, at most {MAX_URI_LEN}"),
        );
        return error_response(StatusCode::URI_TOO_LONG, &e);
    }
    let r = next.run(req).await;
    let status = r.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&r) {
        return r;
    }
    let (code_, what) = match status {
        StatusCode::NOT_FOUND => (code::NOT_FOUND, "no such route (see /api/v1/games)"),
        StatusCode::METHOD_NOT_ALLOWED => {
            (code::METHOD_NOT_ALLOWED, "method not allowed (GET only)")
        }
        StatusCode::REQUEST_TIMEOUT | StatusCode::SERVICE_UNAVAILABLE => {
            (code::TIMEOUT, "the request took too long")
        }
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::URI_TOO_LONG => {
            (code::TOO_LARGE, "request too large")
        }
        s if s.is_client_error() => (code::BAD_REQUEST, "bad request"),
        _ => (code::INTERNAL, "internal error"),
    };
    let allow = r.headers().get(header::ALLOW).cloned();
    let mut out = error_response(status, &ApiError::new(code_, what));
    if let Some(a) = allow {
        out.headers_mut().insert(header::ALLOW, a);
    }
    out
}

/// A panic inside a handler: a 500 JSON answer, and the server goes on.
pub fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response<Body> {
    error_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        &ApiError::new(code::INTERNAL, "internal error (a lookup panicked)"),
    )
}
