//! `strata server`: ClickHouse's HTTP interface over one engine.
//!
//! `config` reads the configuration file (users are authenticated by
//! the engine's access control);
//! `sessions` keeps named sessions; `request` sorts a request's URL
//! parameters; `body` splits a statement from its data; `external_data`
//! reads multipart files into temporary tables; `query_params`
//! substitutes `{name:Type}`; `query` runs one query request on its own task;
//! `output` turns the outcome into a response (held, then streamed);
//! `response` holds the statuses, headers and the exception block;
//! `encoding` the HTTP compressions; `native_compression` ClickHouse's own
//! compressed blocks (`compress=1`, `decompress=1`).

pub mod body;
pub mod config;
pub use strata_formats::encoding;
pub mod external_data;
pub mod native_compression;
pub mod output;
pub mod query;
pub mod query_params;
pub mod request;
pub mod response;
pub mod sessions;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use hyper::service::service_fn;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use strata_common::settings::Settings;
use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::Engine;
use tokio::net::TcpListener;

pub use config::ServerConfig;

use crate::output::Reply;
use crate::query::{QueryRequest, handle_query};
use crate::request::HttpParams;
use crate::response::{Response, full, header};
use crate::sessions::Sessions;

/// How long a client may take to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How often idle sessions are dropped.
const SESSION_SWEEP_INTERVAL: Duration = Duration::from_secs(1);
/// How long shutdown waits for running queries to end once cancelled.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(10);

/// State every connection shares.
pub struct Server {
    pub engine: Arc<Engine>,
    /// Where queries run: apart from the runtime serving connections, so a
    /// query busy on every core cannot stall other requests (a ping, a
    /// KILL QUERY) behind it.
    queries: Option<tokio::runtime::Runtime>,
    pub settings: Settings,
    sessions: Sessions,
    running_queries: AtomicUsize,
    display_name: String,
    timezone: String,
}

impl Server {
    pub fn new(engine: Arc<Engine>, config: &ServerConfig) -> Arc<Server> {
        let display_name = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "strata".to_string());
        let queries = tokio::runtime::Builder::new_multi_thread()
            .thread_name("strata-query")
            .enable_all()
            .build()
            .expect("a runtime for queries");
        let access = &engine.instance().access;
        access.set_config_profiles(config.profiles.clone());
        access.set_config_users(config.users.clone());
        Arc::new(Server {
            engine,
            queries: Some(queries),
            settings: config.server_settings.clone(),
            sessions: Sessions::default(),
            running_queries: AtomicUsize::new(0),
            display_name,
            timezone: "UTC".to_string(),
        })
    }
}

impl Server {
    /// Runs `task` on the queries' runtime.
    fn spawn_query<F>(&self, task: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        self.queries
            .as_ref()
            .expect("the runtime lives as long as the server")
            .spawn(task);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Dropped from async code, where a runtime may not block to stop.
        if let Some(queries) = self.queries.take() {
            queries.shutdown_background();
        }
    }
}

/// Binds every `listen_host` on `http_port`.
pub async fn bind(config: &ServerConfig) -> Result<Vec<TcpListener>> {
    let mut listeners = Vec::new();
    for host in &config.listen_hosts {
        let address = format!("{host}:{}", config.http_port);
        let address = match host.parse::<std::net::IpAddr>() {
            Ok(ip) => SocketAddr::new(ip, config.http_port).to_string(),
            Err(_) => address,
        };
        let listener = TcpListener::bind(&address).await.map_err(|e| {
            StrataError::new(
                ErrorCode::NETWORK_ERROR,
                format!("Cannot listen on {address}: {e}"),
            )
        })?;
        listeners.push(listener);
    }
    Ok(listeners)
}

/// Serves `listeners` until `shutdown` resolves; then stops accepting,
/// cancels running queries and waits (bounded) for connections to end.
pub async fn serve(
    server: Arc<Server>,
    listeners: Vec<TcpListener>,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let (accepted_tx, mut accepted) = tokio::sync::mpsc::channel(64);
    for listener in listeners {
        let sender = accepted_tx.clone();
        tokio::spawn(async move {
            loop {
                match listener.accept().await {
                    Ok(connection) => {
                        if sender.send(connection).await.is_err() {
                            return;
                        }
                    }
                    Err(e) => log::warn!("accept failed: {e}"),
                }
            }
        });
    }
    let sweeper = {
        let server = Arc::clone(&server);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(SESSION_SWEEP_INTERVAL).await;
                server.sessions.sweep();
            }
        })
    };
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            Some((stream, peer)) = accepted.recv() => {
                let _ = stream.set_nodelay(true);
                let server = Arc::clone(&server);
                let keep_alive = server.settings.keep_alive_timeout();
                let service = service_fn(move |request| {
                    let server = Arc::clone(&server);
                    async move { Ok::<_, Infallible>(route(server, peer, request).await) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(keep_alive.max(1)).min(HEADER_READ_TIMEOUT))
                    .keep_alive(true)
                    .serve_connection(TokioIo::new(stream), service);
                let watched = graceful.watch(connection);
                tokio::spawn(async move {
                    if let Err(e) = watched.await {
                        log::debug!("connection from {peer} ended: {e}");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    sweeper.abort();
    log::info!("shutting down: cancelling running queries");
    for query in server.engine.instance().processes.running() {
        query.cancel();
    }
    if tokio::time::timeout(SHUTDOWN_WAIT, graceful.shutdown())
        .await
        .is_err()
    {
        log::warn!("connections still open after {SHUTDOWN_WAIT:?}; closing them");
    }
}

async fn route(
    server: Arc<Server>,
    peer: SocketAddr,
    request: Request<hyper::body::Incoming>,
) -> Response {
    let path = request.uri().path().to_string();
    let method = request.method().clone();
    let has_query = request
        .uri()
        .query()
        .is_some_and(|q| form_urlencoded::parse(q.as_bytes()).any(|(k, _)| k == "query"));
    match (&method, path.as_str()) {
        (&Method::GET | &Method::HEAD, "/ping" | "/replicas_status") => {
            text(StatusCode::OK, "Ok.\n")
        }
        (&Method::GET | &Method::HEAD, "/") if !has_query => text(StatusCode::OK, "Ok.\n"),
        (&Method::GET | &Method::HEAD, "/play") => text(StatusCode::OK, PLAY_PAGE),
        (&Method::OPTIONS, _) => cors_preflight(),
        (&Method::GET | &Method::POST, "/") => {
            let params = match HttpParams::parse(request.uri().query()) {
                Ok(params) => params,
                Err(e) => return text(response::http_status(e.code), &response::error_text(&e)),
            };
            let (parts, body) = request.into_parts();
            let query = QueryRequest {
                method,
                headers: parts.headers,
                peer,
                params,
                body,
            };
            handle_query(server, query).await.into_response()
        }
        _ => text(
            StatusCode::NOT_FOUND,
            &format!(
                "There is no handle {path}\n\nUse / or /ping for health checks, /play to run \
                 queries in a browser.\nSend queries with POST, or GET /?query=...\n"
            ),
        ),
    }
}

/// The query page at `/play`, all in one file.
const PLAY_PAGE: &str = include_str!("play.html");

fn text(status: StatusCode, body: &str) -> Response {
    Reply {
        status,
        headers: vec![header("content-type", "text/html; charset=UTF-8")],
        body: full(body.to_string()),
    }
    .into_response()
}

fn cors_preflight() -> Response {
    Reply {
        status: StatusCode::NO_CONTENT,
        headers: vec![
            header("access-control-allow-origin", "*"),
            header("access-control-allow-methods", "POST, GET, OPTIONS"),
            header(
                "access-control-allow-headers",
                "origin, x-requested-with, x-clickhouse-format, x-clickhouse-user, \
                 x-clickhouse-key, authorization",
            ),
            header("access-control-max-age", "86400"),
        ],
        body: full(""),
    }
    .into_response()
}
