//! One query request, from its parameters to the response: authenticate,
//! take a session, apply settings, split the statement from its data, run
//! it on its own task (so a client that goes away cannot cut an INSERT in
//! half), and answer through [`crate::output`].

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{HeaderMap, Method};
use strata_common::settings::Settings;
use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::access::Login;
use strata_engine::query_context::{ClientInfo, Interface};
use strata_engine::{Session, StatementOutcome};
use strata_formats::OutputFormat;
use tokio::sync::oneshot;

use crate::Server;
use crate::body::{BodyReader, Request, body_reader, decoded_body, split_request};
use crate::encoding::{Encoding, request_encoding};
use crate::external_data::{self, multipart_boundary, read_form};
use crate::output::{Held, Reply, ReplyOptions, error_reply, send_outcome};
use crate::query_params::substitute;
use crate::request::{HttpParams, credentials};
use crate::sessions::{SessionGuard, SessionRequest};

/// ClickHouse's HTTP write buffer: a `buffer_size` up to it holds nothing
/// back (the head goes out with the first block of the result); a larger
/// one holds that many bytes, so an error within them gets its HTTP status.
const HTTP_BUFFER_SIZE: usize = 1 << 20;

/// The session a request runs in: its own, or a named one it holds.
enum SessionHandle {
    Own(Box<Session>),
    Named(SessionGuard),
}

impl std::ops::Deref for SessionHandle {
    type Target = Session;
    fn deref(&self) -> &Session {
        match self {
            SessionHandle::Own(s) => s,
            SessionHandle::Named(s) => s,
        }
    }
}

impl std::ops::DerefMut for SessionHandle {
    fn deref_mut(&mut self) -> &mut Session {
        match self {
            SessionHandle::Own(s) => s,
            SessionHandle::Named(s) => s,
        }
    }
}

/// A slot under `max_concurrent_queries`, given back when dropped.
pub struct QuerySlot(Arc<Server>);

impl QuerySlot {
    fn take(server: &Arc<Server>) -> Result<QuerySlot> {
        let limit = server.settings.max_concurrent_queries() as usize;
        let running = server.running_queries.fetch_add(1, Ordering::SeqCst);
        let slot = QuerySlot(Arc::clone(server));
        if limit > 0 && running >= limit {
            return Err(StrataError::new(
                ErrorCode::TOO_MANY_SIMULTANEOUS_QUERIES,
                format!("Too many simultaneous queries. Maximum: {limit}"),
            ));
        }
        Ok(slot)
    }
}

impl Drop for QuerySlot {
    fn drop(&mut self) {
        let before = self.0.running_queries.fetch_sub(1, Ordering::SeqCst);
        debug_assert!(before > 0, "running query count underflow");
    }
}

/// Everything a request brings, taken off the HTTP request.
pub struct QueryRequest {
    pub method: Method,
    pub headers: HeaderMap,
    pub peer: SocketAddr,
    pub params: HttpParams,
    pub body: Incoming,
}

/// Answers a query request; the reply comes back through a channel, since
/// the query runs on its own task.
pub async fn handle_query(server: Arc<Server>, request: QueryRequest) -> Reply {
    let tag = crate::response::exception_tag();
    let (reply_tx, reply_rx) = oneshot::channel();
    // An empty query_id asks for a fresh one, as clients send it.
    let query_id = request
        .params
        .query_id
        .clone()
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let options = ReplyOptions {
        query_id: query_id.clone(),
        tag,
        display_name: server.display_name.clone(),
        timezone: server.timezone.clone(),
        format: OutputFormat::TabSeparated,
        encoding: None,
        buffer_size: 0,
        progress_header: false,
        native_compression: false,
        client_protocol_version: 0,
    };
    let job_options = options.clone();
    let runner = Arc::clone(&server);
    runner.spawn_query(async move {
        let mut options = job_options;
        let outcome = prepare_and_run(&server, request, query_id, &mut options).await;
        match outcome {
            Ok((outcome, held)) => send_outcome(outcome, options, reply_tx, held).await,
            Err(error) => {
                let _ = reply_tx.send(error_reply(&error, &options));
            }
        }
    });
    match reply_rx.await {
        Ok(reply) => reply,
        Err(_) => error_reply(
            &StrataError::new(ErrorCode::LOGICAL_ERROR, "The query ended without a reply"),
            &options,
        ),
    }
}

/// What a request holds until its result is complete: its session (its
/// own or a named one), its slot under `max_concurrent_queries`, and the
/// external tables it loaded, removed when it ends.
struct RequestHold {
    session: SessionHandle,
    _slot: QuerySlot,
    external_tables: Vec<String>,
}

impl Drop for RequestHold {
    fn drop(&mut self) {
        for table in &self.external_tables {
            self.session.remove_temporary_table(table);
        }
    }
}

async fn prepare_and_run(
    server: &Arc<Server>,
    request: QueryRequest,
    query_id: String,
    options: &mut ReplyOptions,
) -> Result<(Result<StatementOutcome>, Held)> {
    let QueryRequest {
        method,
        headers,
        peer,
        mut params,
        body,
    } = request;
    params.take_headers(&headers);
    let (user_name, password) = credentials(&params, &headers)?;
    let user = server
        .engine
        .instance()
        .access
        .authenticate(&user_name, &password, peer.ip())?;
    let slot = QuerySlot::take(server)?;
    let mut session = open_session(server, &params, &user)?;
    session.client = Arc::new(client_info(&user.name, peer, &headers));
    let content_type = headers.get("content-type").and_then(|v| v.to_str().ok());
    let (body, external_tables) = match multipart_boundary(content_type) {
        Some(boundary) if method == Method::POST => {
            let limit = session.settings.http_max_multipart_form_data_size();
            let length = headers
                .get("content-length")
                .and_then(|v| v.to_str().ok()?.parse().ok());
            let tables = read_form(body, boundary, &mut params, limit, length).await?;
            (None, tables)
        }
        _ => (
            (method == Method::POST).then(|| body_reader(body)),
            Vec::new(),
        ),
    };
    let request_settings = request_settings(&session, &params, &method)?;
    choose_reply_options(options, &params, &headers, &request_settings)?;
    let database = params
        .database
        .clone()
        .unwrap_or_else(|| session.current_database.clone());
    let mut hold = RequestHold {
        session,
        _slot: slot,
        external_tables: external_tables.iter().map(|t| t.name.clone()).collect(),
    };
    external_data::load(&mut hold.session, &external_tables).await?;
    let split = read_statement(&headers, &params, &request_settings, body).await?;
    let statement = single_statement(&split.statement, &params)?;
    let outcome = run_in_session(
        &mut hold.session,
        &statement,
        split.data,
        (request_settings, database),
        query_id,
    )
    .await;
    Ok((outcome, Box::new(hold)))
}

/// The statement (the `query` parameter and the body's start) and the data
/// of an INSERT, the body read through its encodings.
async fn read_statement(
    headers: &HeaderMap,
    params: &HttpParams,
    settings: &Settings,
    body: Option<BodyReader>,
) -> Result<Request> {
    let encoding = request_encoding(
        headers
            .get("content-encoding")
            .and_then(|v| v.to_str().ok()),
    )?;
    let native_blocks = params
        .decompress
        .then(|| !settings.http_native_compression_disable_checksumming_on_decompress());
    let max_query_size = settings.max_query_size() as usize;
    let url_query = params.query.clone();
    // Decoders read their headers as they are made: on the blocking thread.
    tokio::task::spawn_blocking(move || {
        let body = body
            .map(|body| decoded_body(body, encoding, native_blocks))
            .transpose()?;
        split_request(url_query, body, max_query_size)
    })
    .await
    .map_err(|e| StrataError::new(ErrorCode::LOGICAL_ERROR, e.to_string()))?
}

/// The statement text with its query parameters substituted; several
/// statements in one request are refused, as in ClickHouse.
fn single_statement(text: &str, params: &HttpParams) -> Result<String> {
    if text.trim().is_empty() {
        return Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            "Syntax error: Empty query",
        ));
    }
    if strata_sql::split_insert_format(text).is_some() {
        return substitute(text, &params.params);
    }
    // Substituted first: a `$` in a parameter's name is no dollar quote.
    let statements = strata_sql::split_statements(&substitute(text, &params.params)?)?;
    if statements.len() > 1 {
        return Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            "Syntax error: Multi-statements are not allowed",
        ));
    }
    Ok(statements.into_iter().next().unwrap_or_default())
}

/// Runs `statement` with the request's settings and database; what the
/// statement itself changes (`SET`, `USE`) stays in the session, the
/// request's own changes do not.
async fn run_in_session(
    session: &mut Session,
    statement: &str,
    data: Option<BodyReader>,
    (settings, database): (Settings, String),
    query_id: String,
) -> Result<StatementOutcome> {
    if database != session.current_database {
        session.engine().database_exists(&database)?;
    }
    let saved_settings = std::mem::replace(&mut session.settings, settings.clone());
    let saved_database = std::mem::replace(&mut session.current_database, database.clone());
    if let Some(data) = data {
        session.set_input(Box::new(SyncReader(parking_lot::Mutex::new(data))));
    }
    session.set_query_id(query_id);
    let outcome = session.execute(statement).await;
    let mut kept = saved_settings;
    for name in settings.differences(&session.settings) {
        if let Ok(value) = session.settings.get(name) {
            kept.set(name, &value.to_string())?;
        }
    }
    session.settings = kept;
    if session.current_database == database {
        session.current_database = saved_database;
    }
    outcome
}

/// A reader usable from any thread (the session's input must be `Sync`);
/// only the insert's reading thread ever locks it.
struct SyncReader(parking_lot::Mutex<BodyReader>);

impl std::io::Read for SyncReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.get_mut().read(buf)
    }
}

fn open_session(server: &Arc<Server>, params: &HttpParams, user: &Login) -> Result<SessionHandle> {
    let create = || -> Result<Session> {
        let mut session = server.engine.new_session();
        for (name, value) in &user.settings.values {
            session.settings.set(name, value)?;
        }
        session.constraints = Arc::new(user.settings.constraints.clone());
        if let Some(database) = &user.default_database {
            session.current_database = database.clone();
        }
        Ok(session)
    };
    let Some(id) = &params.session_id else {
        return Ok(SessionHandle::Own(Box::new(create()?)));
    };
    let timeout = session_timeout(server, params)?;
    let request = SessionRequest {
        user: &user.name,
        id,
        timeout,
        check: params.session_check,
    };
    // Profile settings are valid (checked when the configuration loaded or
    // their statement ran).
    let guard = server.sessions.acquire(&request, || {
        create().unwrap_or_else(|_| server.engine.new_session())
    })?;
    Ok(SessionHandle::Named(guard))
}

fn session_timeout(server: &Server, params: &HttpParams) -> Result<Duration> {
    let max = server.settings.max_session_timeout();
    let seconds = match &params.session_timeout {
        None => server.settings.default_session_timeout(),
        Some(text) => text.trim().parse::<u64>().map_err(|_| {
            StrataError::new(
                ErrorCode::INVALID_SESSION_TIMEOUT,
                format!("Invalid session timeout: '{text}'"),
            )
        })?,
    };
    if seconds > max {
        return Err(StrataError::new(
            ErrorCode::INVALID_SESSION_TIMEOUT,
            format!(
                "Session timeout '{seconds}' is larger than max_session_timeout: {max}. Maximum session timeout could be modified in configuration file."
            ),
        ));
    }
    Ok(Duration::from_secs(seconds))
}

fn client_info(user: &str, peer: SocketAddr, headers: &HeaderMap) -> ClientInfo {
    let agent = headers
        .get("user-agent")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    ClientInfo {
        user: user.to_string(),
        address: peer.ip().to_string(),
        interface: Interface::Http,
        client_name: agent.split(['/', ' ']).next().unwrap_or("").to_string(),
        http_user_agent: agent,
    }
}

/// The session's settings with the request's: URL settings (checked against
/// the constraints and `readonly` as a `SET` would be), then `readonly = 2` for a GET, whose
/// queries must not write.
fn request_settings(session: &Session, params: &HttpParams, method: &Method) -> Result<Settings> {
    let base = &session.settings;
    let mut settings = base.clone();
    for (name, value) in &params.settings {
        settings.set(name, value)?;
    }
    session.constraints.check(base, &settings)?;
    if *method == Method::GET && settings.readonly() == 0 {
        settings.set("readonly", "2")?;
    }
    Ok(settings)
}

fn choose_reply_options(
    options: &mut ReplyOptions,
    params: &HttpParams,
    headers: &HeaderMap,
    settings: &Settings,
) -> Result<()> {
    if let Some(name) = &params.default_format {
        options.format = OutputFormat::from_name(name)?;
    }
    if settings.enable_http_compression() {
        options.encoding = headers
            .get("accept-encoding")
            .and_then(|v| v.to_str().ok())
            .and_then(Encoding::accepted);
    }
    let wait = params.wait_end_of_query || settings.http_wait_end_of_query();
    options.buffer_size = if wait {
        usize::MAX
    } else {
        let size = params
            .buffer_size
            .unwrap_or(settings.http_response_buffer_size()) as usize;
        if size > HTTP_BUFFER_SIZE { size } else { 0 }
    };
    options.progress_header = settings.send_progress_in_http_headers();
    options.native_compression = params.compress;
    options.client_protocol_version = params.client_protocol_version;
    Ok(())
}
