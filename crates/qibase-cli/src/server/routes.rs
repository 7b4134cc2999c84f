//! The routes of `/api/v1` and the page, and the handlers behind them.
//! Every lookup runs on tokio's blocking pool ([`blocking`]) so page
//! faults and block decoding never stall the reactor, under a time limit.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

use super::assets;
use super::state::{AppState, GameDetail, GameService};
use crate::api::{self, code, ApiError};
use qibase::ai::Difficulty;

/// Time one lookup may take before the request answers 503 `timeout`.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);

/// The query string of the position endpoints (everything optional here:
/// the handlers say what is missing).
#[derive(Deserialize, Debug, Default)]
pub struct PosParams {
    pub pos: Option<String>,
    #[serde(rename = "move")]
    pub mv: Option<String>,
    pub difficulty: Option<String>,
    pub seed: Option<String>,
    /// `query` only: `false` or `0` leaves the principal variation out.
    pub pv: Option<String>,
    /// `annotate` only: the moves, separated by commas or spaces.
    pub moves: Option<String>,
}

type Shared = Arc<AppState>;

/// Run a lookup on the blocking pool under [`LOOKUP_TIMEOUT`]; a panic in
/// it becomes a 500 `internal` error.
async fn blocking<T, F>(f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ApiError> + Send + 'static,
{
    match tokio::time::timeout(LOOKUP_TIMEOUT, tokio::task::spawn_blocking(f)).await {
        Err(_) => Err(ApiError::new(
            code::TIMEOUT,
            format!("the lookup took more than {} s", LOOKUP_TIMEOUT.as_secs()),
        )),
        Ok(Err(_)) => Err(ApiError::new(
            code::INTERNAL,
            "internal error (the lookup panicked)",
        )),
        Ok(Ok(r)) => r,
    }
}

fn json<T: Serialize>(v: &T) -> Response {
    let mut r = Json(v).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn params(q: Result<Query<PosParams>, QueryRejection>) -> Result<PosParams, ApiError> {
    q.map(|Query(p)| p)
        .map_err(|e| ApiError::new(code::BAD_REQUEST, format!("bad query string: {e}")))
}

fn required_pos(p: &PosParams) -> Result<String, ApiError> {
    p.pos
        .clone()
        .ok_or_else(|| ApiError::new(code::BAD_POSITION, "missing ?pos= (a position string)"))
}

async fn games(State(st): State<Shared>) -> Response {
    let list: Vec<_> = st.games.iter().map(|(_, s)| s.summary()).collect();
    json(&list)
}

async fn game(State(st): State<Shared>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let d = blocking(move || {
        let s = st.service(&id)?;
        Ok(GameDetail {
            summary: s.summary(),
            geometry: s.geometry(),
        })
    })
    .await?;
    Ok(json(&d))
}

/// Look the game up and run `f` on it, on the blocking pool.
async fn with_service<T, F>(st: Shared, id: String, f: F) -> Result<Response, ApiError>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&dyn GameService) -> Result<T, ApiError> + Send + 'static,
{
    let v = blocking(move || f(st.service(&id)?.as_ref())).await?;
    Ok(json(&v))
}

async fn query(
    State(st): State<Shared>,
    Path(id): Path<String>,
    q: Result<Query<PosParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let p = params(q)?;
    let pos = required_pos(&p)?;
    let with_pv = match p.pv.as_deref() {
        None | Some("") | Some("1") | Some("true") => true,
        Some("0") | Some("false") => false,
        Some(other) => {
            return Err(ApiError::new(
                code::BAD_REQUEST,
                format!("bad pv '{other}': true or false"),
            ))
        }
    };
    with_service(st, id, move |s| s.query(&pos, p.mv.as_deref(), with_pv)).await
}

async fn moves(
    State(st): State<Shared>,
    Path(id): Path<String>,
    q: Result<Query<PosParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let p = params(q)?;
    let pos = required_pos(&p)?;
    with_service(st, id, move |s| s.moves(&pos, p.mv.as_deref())).await
}

async fn bestmove(
    State(st): State<Shared>,
    Path(id): Path<String>,
    q: Result<Query<PosParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let p = params(q)?;
    let pos = required_pos(&p)?;
    let level = match p.difficulty.as_deref() {
        None | Some("") => Difficulty::Perfect,
        Some(d) => api::parse_difficulty(d)?,
    };
    let seed = match p.seed.as_deref() {
        None | Some("") => None,
        Some(s) => Some(s.parse::<u64>().map_err(|_| {
            ApiError::new(
                code::BAD_SEED,
                format!("bad seed '{s}': a non-negative integer below 2^64"),
            )
        })?),
    };
    with_service(st, id, move |s| {
        s.bestmove(&pos, p.mv.as_deref(), level, seed)
    })
    .await
}

async fn annotate(
    State(st): State<Shared>,
    Path(id): Path<String>,
    q: Result<Query<PosParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let p = params(q)?;
    let Some(text) = p.moves.as_deref() else {
        return Err(ApiError::new(
            code::BAD_MOVE,
            "missing ?moves= (moves separated by commas)",
        ));
    };
    let moves: Vec<String> = api::annotate::split_moves(text)
        .into_iter()
        .map(str::to_string)
        .collect();
    let pos = p.pos.filter(|s| !s.is_empty());
    with_service(st, id, move |s| s.annotate(pos.as_deref(), &moves)).await
}

async fn not_found() -> ApiError {
    ApiError::new(code::NOT_FOUND, "no such route (see /api/v1/games)")
}

/// The API and the page, without the server-wide layers (see
/// [`super::app`]).
pub fn routes(state: Shared) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{*name}", get(assets::asset))
        .route("/api/v1/games", get(games))
        .route("/api/v1/games/{game}", get(game))
        .route("/api/v1/{game}/query", get(query))
        .route("/api/v1/{game}/moves", get(moves))
        .route("/api/v1/{game}/bestmove", get(bestmove))
        .route("/api/v1/{game}/annotate", get(annotate))
        .route("/api/v1/{game}/puzzles", get(super::puzzles::puzzles))
        .fallback(not_found)
        .with_state(state)
}
