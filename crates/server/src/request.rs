//! A query request's URL parameters and headers, sorted into what the HTTP
//! interface itself reads (`query`, `database`, `session_id`, ...), query
//! parameters (`param_<name>`) and settings: every other parameter.

use std::collections::HashMap;

use hyper::HeaderMap;
use strata_common::{ErrorCode, Result, StrataError};

/// Parameters the interface reads itself; none of them is a setting.
const INTERFACE_PARAMETERS: &[&str] = &[
    "query",
    "database",
    "default_format",
    "query_id",
    "session_id",
    "session_timeout",
    "session_check",
    "wait_end_of_query",
    "buffer_size",
    "compress",
    "decompress",
    "user",
    "password",
    "quota_key",
    "stacktrace",
    "role",
    "client_protocol_version",
];

#[derive(Debug, Default)]
pub struct HttpParams {
    pub query: Option<String>,
    pub database: Option<String>,
    pub default_format: Option<String>,
    pub query_id: Option<String>,
    pub session_id: Option<String>,
    pub session_timeout: Option<String>,
    pub session_check: bool,
    pub wait_end_of_query: bool,
    pub buffer_size: Option<u64>,
    pub compress: bool,
    pub decompress: bool,
    /// The client's revision; unparsable counts as none (0).
    pub client_protocol_version: u64,
    pub user: Option<String>,
    pub password: Option<String>,
    /// `param_<name>` values by name.
    pub params: HashMap<String, String>,
    /// Every other parameter, in request order.
    pub settings: Vec<(String, String)>,
}

fn flag(value: &str) -> bool {
    !matches!(value, "" | "0" | "false")
}

impl HttpParams {
    pub fn parse(query: Option<&str>) -> Result<HttpParams> {
        let mut params = HttpParams::default();
        let Some(query) = query else {
            return Ok(params);
        };
        check_escapes(query)?;
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            params.take(&name, value.into_owned())?;
        }
        Ok(params)
    }

    /// A parameter from elsewhere than the URL (a multipart form's field).
    pub fn add(&mut self, name: &str, value: String) -> Result<()> {
        self.take(name, value)
    }

    /// Takes the parameter `name` out of the settings: an external table's
    /// `<name>_structure`, `_types` and `_format` are not settings.
    pub fn take_setting(&mut self, name: &str) -> Option<String> {
        let position = self.settings.iter().position(|(n, _)| n == name)?;
        Some(self.settings.remove(position).1)
    }

    fn take(&mut self, name: &str, value: String) -> Result<()> {
        if let Some(param) = name.strip_prefix("param_") {
            self.params.insert(param.to_string(), value);
            return Ok(());
        }
        if !INTERFACE_PARAMETERS.contains(&name) {
            self.settings.push((name.to_string(), value));
            return Ok(());
        }
        match name {
            "query" => self.query = Some(value),
            "database" => self.database = Some(value),
            "default_format" => self.default_format = Some(value),
            "query_id" => self.query_id = Some(value),
            "session_id" => self.session_id = Some(value),
            "session_timeout" => self.session_timeout = Some(value),
            "session_check" => self.session_check = flag(&value),
            "wait_end_of_query" => self.wait_end_of_query = flag(&value),
            "buffer_size" => {
                self.buffer_size = Some(value.parse().map_err(|_| {
                    StrataError::new(
                        ErrorCode::BAD_ARGUMENTS,
                        format!("buffer_size must be a number of bytes, got '{value}'"),
                    )
                })?)
            }
            "compress" => self.compress = flag(&value),
            "decompress" => self.decompress = flag(&value),
            "client_protocol_version" => self.client_protocol_version = value.parse().unwrap_or(0),
            "user" => self.user = Some(value),
            "password" => self.password = Some(value),
            _ => {}
        }
        Ok(())
    }

    /// Takes what the interface also reads from headers: `X-ClickHouse-Database`,
    /// `X-ClickHouse-Format`, `X-ClickHouse-Query-Id` and `X-ClickHouse-Session-Id`
    /// where the URL did not name them.
    pub fn take_headers(&mut self, headers: &HeaderMap) {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        self.database = self
            .database
            .take()
            .or_else(|| header("x-clickhouse-database"));
        self.default_format = self
            .default_format
            .take()
            .or_else(|| header("x-clickhouse-format"));
        self.query_id = self
            .query_id
            .take()
            .or_else(|| header("x-clickhouse-query-id"));
        self.session_id = self
            .session_id
            .take()
            .or_else(|| header("x-clickhouse-session-id"));
    }
}

/// Refuses a query string with a `%` not followed by two hex digits, which
/// URL decoding would otherwise pass through silently.
fn check_escapes(query: &str) -> Result<()> {
    let bytes = query.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'%' {
            let valid = bytes.len() > i + 2
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit();
            if !valid {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Cannot decode the URL: a bad escape sequence at position {i}"),
                ));
            }
        }
    }
    Ok(())
}

/// Credentials from `X-ClickHouse-User`/`X-ClickHouse-Key`, HTTP Basic or
/// the `user`/`password` parameters; two ways at once are refused.
pub fn credentials(params: &HttpParams, headers: &HeaderMap) -> Result<(String, String)> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let from_headers = header("x-clickhouse-user").map(|user| {
        (
            user.to_string(),
            header("x-clickhouse-key").unwrap_or("").to_string(),
        )
    });
    let from_basic = header("authorization").and_then(basic_credentials);
    let from_params = params
        .user
        .as_ref()
        .map(|user| (user.clone(), params.password.clone().unwrap_or_default()));
    let given: Vec<(String, String)> = [from_headers, from_basic, from_params]
        .into_iter()
        .flatten()
        .collect();
    match given.len() {
        0 => Ok((
            "default".to_string(),
            params.password.clone().unwrap_or_default(),
        )),
        1 => Ok(given.into_iter().next().expect("one")),
        _ => Err(StrataError::new(
            ErrorCode::AUTHENTICATION_FAILED,
            "Invalid authentication: it is not allowed to use more than one authentication method at once",
        )),
    }
}

fn basic_credentials(value: &str) -> Option<(String, String)> {
    use base64::Engine;
    let encoded = value.strip_prefix("Basic ")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_string(), password.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_sorted_into_their_kinds() {
        let params = HttpParams::parse(Some(
            "query=SELECT%20%7Bx%3AUInt8%7D&param_x=7&max_threads=2&session_id=s1&wait_end_of_query=1&database=db",
        ))
        .unwrap();
        assert_eq!(params.query.as_deref(), Some("SELECT {x:UInt8}"));
        assert_eq!(params.params["x"], "7");
        assert_eq!(
            params.settings,
            vec![("max_threads".to_string(), "2".to_string())]
        );
        assert_eq!(params.session_id.as_deref(), Some("s1"));
        assert!(params.wait_end_of_query);
        assert_eq!(params.database.as_deref(), Some("db"));
        assert!(HttpParams::parse(Some("query=SELECT%2")).is_err());
        assert!(HttpParams::parse(Some("query=SELECT%zz1")).is_err());
    }

    #[test]
    fn credentials_come_from_one_place() {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", "Basic YWxpY2U6c2VjcmV0".parse().unwrap());
        let params = HttpParams::default();
        assert_eq!(
            credentials(&params, &headers).unwrap(),
            ("alice".to_string(), "secret".to_string())
        );
        headers.insert("x-clickhouse-user", "bob".parse().unwrap());
        assert!(credentials(&params, &headers).is_err());
        assert_eq!(
            credentials(&params, &HeaderMap::new()).unwrap(),
            ("default".to_string(), String::new())
        );
    }
}
