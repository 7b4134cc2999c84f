//! `qibase serve`: the HTTP API under `/api/v1` and the web page at `/`
//! (docs/http-api.md).
//!
//! * [`state`] — the games and their oracles, behind an object-safe trait;
//! * [`routes`] — the routes and handlers (lookups on the blocking pool);
//! * [`errors`] — every error as JSON with its status;
//! * [`assets`] — the page's embedded files.
//!
//! Server-wide limits: a time-out per request, a cap on the URI and the
//! body, and a panic inside a handler answered as a 500.

pub mod assets;
pub mod errors;
pub mod routes;
pub mod state;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

pub use state::AppState;

/// A request of any kind must be answered within this time.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Requests are GETs: no body is needed.
pub const MAX_BODY_BYTES: usize = 4096;

/// The whole application: routes and layers.
pub fn app(state: Arc<AppState>) -> Router {
    routes::routes(state)
        .layer(CatchPanicLayer::custom(errors::panic_response))
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(TimeoutLayer::with_status_code(
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            REQUEST_TIMEOUT,
        ))
        .layer(axum::middleware::from_fn(errors::json_errors))
}

/// Serve `state` on `listener` until `shutdown` completes (then finish the
/// requests in flight).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown)
        .await
}

/// Bind `addr` (port 0: any free port) and return the listener and the
/// address it got.
pub async fn bind(addr: SocketAddr) -> std::io::Result<(tokio::net::TcpListener, SocketAddr)> {
    let l = tokio::net::TcpListener::bind(addr).await?;
    let a = l.local_addr()?;
    Ok((l, a))
}
