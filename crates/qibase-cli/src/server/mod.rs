//! `qibase serve`: the HTTP API under `/api/v1` and the web page at `/`
//! (docs/http-api.md).
//!
//! * [`state`] — the games and their oracles, behind an object-safe trait;
//! * [`routes`] — the routes and handlers (lookups on the blocking pool);
//! * [`errors`] — every error as JSON with its status;
//! * [`assets`] — the page's embedded files;
//! * [`puzzles`] — the embedded puzzle sets.
//!
//! Server-wide limits: a client must send its request headers within
//! [`HEADER_TIMEOUT`] (so that idle or half-open connections cannot use up
//! the file descriptors), a time-out per request, a cap on the URI and the
//! body, and a panic inside a handler answered as a 500.

pub mod assets;
pub mod errors;
pub mod puzzles;
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

/// A client that has not sent a whole request head within this time (a
/// new connection, or an idle keep-alive one) is disconnected.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
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
/// requests in flight), dropping clients that do not send their request
/// headers within [`HEADER_TIMEOUT`].
///
/// # Errors
///
/// None today: accept errors (out of file descriptors, a connection reset
/// before it was accepted) are waited out, not returned.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, app(state), HEADER_TIMEOUT, shutdown).await
}

/// [`serve`] for any router and header time-out (the tests use a short one).
///
/// axum's own `serve` sets no timer on hyper's connections, so hyper's
/// header read time-out never fires there: a client could hold a
/// connection open forever by sending half a request line. This accept
/// loop builds each HTTP/1 connection with a timer and the time-out.
///
/// # Errors
///
/// As [`serve`].
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    router: Router,
    header_timeout: Duration,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper::server::conn::http1;
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;

    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of descriptors or a connection gone before it was
                    // accepted: wait a little rather than spin, then go on.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Small JSON answers: send them at once rather than wait for more.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            // A client that goes away or times out ends its connection;
            // that is no error of the server's.
            let _ = connection.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// Bind `addr` (port 0: any free port) and return the listener and the
/// address it got.
pub async fn bind(addr: SocketAddr) -> std::io::Result<(tokio::net::TcpListener, SocketAddr)> {
    let l = tokio::net::TcpListener::bind(addr).await?;
    let a = l.local_addr()?;
    Ok((l, a))
}
