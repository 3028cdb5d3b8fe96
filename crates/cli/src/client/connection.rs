//! `strata client`'s link to a server: ClickHouse's HTTP interface, with
//! the statements of one run in one HTTP session (`session_id`), so `USE`
//! and `SET` carry over as they do over the native protocol.
//!
//! Besides the statements the user types, the client asks the server's
//! system tables for a running query's progress (`system.processes`), a
//! finished one's figures (`system.query_log`) and to cancel it (`KILL
//! QUERY`). Those helper queries run outside the session (a session runs
//! one query at a time) with `log_queries = 0`, so the log keeps only the
//! user's own statements.

use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::SpillFigures;
use strata_sql::literal_text::quoted;

use crate::output::Summary;
use crate::progress::Figures;

pub struct Connection {
    http: reqwest::Client,
    url: String,
    user: String,
    password: String,
    session_id: String,
    /// Settings and `param_` values sent with every statement.
    params: Vec<(String, String)>,
}

/// A statement's reply whose head has arrived and whose body is to be read.
pub struct Reply {
    pub response: reqwest::Response,
    /// What ends a body cut short by an error (`X-ClickHouse-Exception-Tag`).
    pub exception_tag: Option<String>,
}

impl Connection {
    pub fn new(
        host: &str,
        port: u16,
        user: String,
        password: String,
        params: Vec<(String, String)>,
    ) -> Connection {
        Connection {
            http: reqwest::Client::new(),
            url: format!("http://{host}:{port}/"),
            user,
            password,
            session_id: uuid::Uuid::new_v4().to_string(),
            params,
        }
    }

    /// Sends `sql` in the session, with `default_format` unless it names
    /// its own. With `data`, the statement goes in the URL and `data` is the
    /// body (an `INSERT ... FORMAT`'s rows).
    pub async fn send(
        &self,
        sql: &str,
        query_id: &str,
        default_format: &str,
        data: Option<reqwest::Body>,
    ) -> Result<Reply> {
        let mut params: Vec<(&str, &str)> = vec![
            ("query_id", query_id),
            ("session_id", &self.session_id),
            ("default_format", default_format),
        ];
        params.extend(self.params.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        let request = self.http.post(&self.url);
        let request = match data {
            Some(body) => {
                params.push(("query", sql));
                request.body(body)
            }
            None => request.body(sql.to_string()),
        };
        let response = self
            .credentials(request.query(&params))
            .send()
            .await
            .map_err(network_error)?;
        let reply = Reply {
            exception_tag: header(&response, "x-clickhouse-exception-tag"),
            response,
        };
        if reply.response.status().is_success() {
            return Ok(reply);
        }
        let code = header(&reply.response, "x-clickhouse-exception-code");
        let text = reply.response.text().await.map_err(network_error)?;
        Err(server_error(code.as_deref(), &text))
    }

    /// Runs a helper query outside the session and returns its
    /// TabSeparated text.
    pub async fn helper(&self, sql: &str) -> Result<String> {
        let request = self
            .http
            .post(&self.url)
            .query(&[("log_queries", "0"), ("default_format", "TabSeparated")])
            .body(sql.to_string());
        let response = self
            .credentials(request)
            .send()
            .await
            .map_err(network_error)?;
        let ok = response.status().is_success();
        let code = header(&response, "x-clickhouse-exception-code");
        let text = response.text().await.map_err(network_error)?;
        if ok {
            Ok(text)
        } else {
            Err(server_error(code.as_deref(), &text))
        }
    }

    /// The server's version; fails when the server cannot be reached or
    /// refuses the credentials.
    pub async fn server_version(&self) -> Result<String> {
        Ok(self.helper("SELECT version()").await?.trim().to_string())
    }

    /// A running query's figures; None when it is not running; an error
    /// when the user may not read `system.processes`.
    pub async fn progress(&self, query_id: &str) -> Result<Option<Figures>> {
        let sql = format!(
            "SELECT read_rows, read_bytes, total_rows_approx, memory_usage, elapsed \
             FROM system.processes WHERE query_id = {}",
            quoted(query_id)
        );
        let text = self.helper(&sql).await?;
        let Some(line) = text.lines().next() else {
            return Ok(None);
        };
        let fields: Vec<&str> = line.split('\t').collect();
        let number = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok());
        let elapsed = fields.get(4).and_then(|v| v.parse::<f64>().ok());
        Ok(Some(Figures {
            read_rows: number(0).unwrap_or(0),
            read_bytes: number(1).unwrap_or(0),
            total_rows_to_read: number(2).unwrap_or(0),
            memory_usage: number(3).unwrap_or(0),
            elapsed_seconds: elapsed.unwrap_or(0.0),
        }))
    }

    /// A finished query's counted figures from `system.query_log`; None
    /// when the server has no entry for it (or the user may not read the log).
    pub async fn summary(&self, query_id: &str) -> Option<Summary> {
        let sql = format!(
            "SELECT result_rows, read_rows, read_bytes, peak_memory_usage, \
             temporary_data_bytes, temporary_data_compressed_bytes, \
             temporary_data_warm_peak_bytes, temporary_data_disk_written_bytes, \
             temporary_data_disk_read_bytes \
             FROM system.query_log WHERE query_id = {} AND type != 'QueryStart' LIMIT 1",
            quoted(query_id)
        );
        let text = self.helper(&sql).await.ok()?;
        let numbers: Vec<u64> = text
            .lines()
            .next()?
            .split('\t')
            .map(|v| v.parse().ok())
            .collect::<Option<_>>()?;
        let [
            result_rows,
            rows_read,
            bytes_read,
            peak_memory,
            bytes_spilled,
            bytes_compressed,
            warm_peak,
            disk_bytes_written,
            disk_bytes_read,
        ] = numbers[..]
        else {
            return None;
        };
        Some(Summary {
            result_rows: Some(result_rows),
            elapsed: std::time::Duration::ZERO,
            rows_read,
            bytes_read,
            peak_memory: peak_memory as usize,
            spill: SpillFigures {
                bytes_spilled,
                bytes_compressed,
                warm_peak,
                disk_bytes_written,
                disk_bytes_read,
            },
        })
    }

    /// Cancels a running query on the server and waits until it stopped.
    pub async fn kill(&self, query_id: &str) -> Result<()> {
        let sql = format!("KILL QUERY WHERE query_id = {} SYNC", quoted(query_id));
        self.helper(&sql).await.map(drop)
    }

    fn credentials(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        request
            .header("X-ClickHouse-User", &self.user)
            .header("X-ClickHouse-Key", &self.password)
    }
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    let value = response.headers().get(name)?;
    value.to_str().ok().map(str::to_string)
}

/// The server's error as it sent it: `Code: N. DB::Exception: ...`.
pub fn server_error(code: Option<&str>, text: &str) -> StrataError {
    let text = text.trim();
    let code = code
        .and_then(|c| c.parse().ok())
        .or_else(|| {
            let digits = text.strip_prefix("Code: ")?.split('.').next()?;
            digits.parse().ok()
        })
        .and_then(ErrorCode::by_code)
        .unwrap_or(ErrorCode::UNKNOWN_EXCEPTION);
    // ClickHouse ends the text with ` (version ...)`.
    let text = match text.rfind(" (version ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => text,
    };
    // The text reads `Code: N. DB::Exception: ... (NAME)`; the message is its middle.
    let message = text
        .strip_prefix(&format!("Code: {}. DB::Exception: ", code.code))
        .unwrap_or(text);
    let message = message
        .strip_suffix(&format!(" ({})", code.name))
        .unwrap_or(message);
    StrataError::new(code, message)
}

pub fn network_error(error: reqwest::Error) -> StrataError {
    StrataError::new(
        ErrorCode::NETWORK_ERROR,
        format!("Cannot reach the server: {error}"),
    )
}
