//! What the HTTP interface answers: the status an error code maps to, the
//! content type of a format, the `X-ClickHouse-Summary` figures and the
//! `__exception__` block written into a body whose headers already went out.

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::StatusCode;
use hyper::header::{HeaderName, HeaderValue};
use strata_common::{ErrorCode, StrataError};
use strata_engine::QueryContext;

pub type Body = BoxBody<Bytes, std::io::Error>;
pub type Response = hyper::Response<Body>;

pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed()
}

/// The HTTP status ClickHouse gives a failed query with `code`.
pub fn http_status(code: ErrorCode) -> StatusCode {
    const FORBIDDEN: &[ErrorCode] = &[
        ErrorCode::UNKNOWN_USER,
        ErrorCode::AUTHENTICATION_FAILED,
        ErrorCode::ACCESS_DENIED,
    ];
    const BAD_REQUEST: &[ErrorCode] = &[
        ErrorCode::BAD_ARGUMENTS,
        ErrorCode::CANNOT_PARSE_TEXT,
        ErrorCode::CANNOT_PARSE_QUOTED_STRING,
        ErrorCode::CANNOT_PARSE_DATE,
        ErrorCode::CANNOT_PARSE_DATETIME,
        ErrorCode::CANNOT_PARSE_NUMBER,
        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
        ErrorCode::CANNOT_PARSE_UUID,
        ErrorCode::DUPLICATE_COLUMN,
        ErrorCode::ILLEGAL_COLUMN,
        ErrorCode::THERE_IS_NO_COLUMN,
        ErrorCode::TOO_DEEP_AST,
        ErrorCode::SYNTAX_ERROR,
        ErrorCode::INCORRECT_DATA,
        ErrorCode::TYPE_MISMATCH,
    ];
    const NOT_FOUND: &[ErrorCode] = &[
        ErrorCode::UNKNOWN_TABLE,
        ErrorCode::UNKNOWN_FUNCTION,
        ErrorCode::UNKNOWN_IDENTIFIER,
        ErrorCode::UNKNOWN_TYPE,
        ErrorCode::UNKNOWN_STORAGE,
        ErrorCode::UNKNOWN_DATABASE,
        ErrorCode::UNKNOWN_SETTING,
        ErrorCode::UNKNOWN_AGGREGATE_FUNCTION,
        ErrorCode::UNKNOWN_FORMAT,
    ];
    match code {
        ErrorCode::REQUIRED_PASSWORD => StatusCode::UNAUTHORIZED,
        c if FORBIDDEN.contains(&c) => StatusCode::FORBIDDEN,
        c if BAD_REQUEST.contains(&c) => StatusCode::BAD_REQUEST,
        c if NOT_FOUND.contains(&c) => StatusCode::NOT_FOUND,
        ErrorCode::QUERY_IS_TOO_LARGE => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::NOT_IMPLEMENTED => StatusCode::NOT_IMPLEMENTED,
        ErrorCode::CANNOT_OPEN_FILE => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::HTTP_LENGTH_REQUIRED => StatusCode::LENGTH_REQUIRED,
        ErrorCode::TIMEOUT_EXCEEDED => StatusCode::REQUEST_TIMEOUT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The error as ClickHouse writes it in a response body.
pub fn error_text(error: &StrataError) -> String {
    format!("{error}\n")
}

/// The block that ends a body whose status was already sent as 200 when the
/// query fails: the marker, the response's tag, the message and its length,
/// so a client can tell it from data that happens to hold the marker.
pub fn exception_block(tag: &str, error: &StrataError) -> Bytes {
    let message = error_text(error);
    Bytes::from(format!(
        "__exception__\r\n{tag}\r\n{message}{} {tag}\r\n__exception__\r\n",
        message.len()
    ))
}

/// A tag of 16 lower-case letters, fresh for each response.
pub fn exception_tag() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..16)
        .map(|_| char::from(b'a' + rng.random_range(0..26u8)))
        .collect()
}

/// Figures as ClickHouse's headers carry them: a JSON object of strings.
fn figures_json(figures: &[(&str, u64)]) -> String {
    let map: serde_json::Map<String, serde_json::Value> = figures
        .iter()
        .map(|(name, value)| {
            (
                name.to_string(),
                serde_json::Value::String(value.to_string()),
            )
        })
        .collect();
    serde_json::Value::Object(map).to_string()
}

/// `X-ClickHouse-Summary`: the query's counted figures.
pub fn summary(query: &QueryContext, result_bytes: u64) -> String {
    figures_json(&[
        ("read_rows", query.rows_read()),
        ("read_bytes", query.bytes_read()),
        ("written_rows", query.written_rows()),
        ("written_bytes", query.written_bytes()),
        ("total_rows_to_read", query.rows_to_read()),
        ("result_rows", query.result_rows()),
        ("result_bytes", result_bytes),
        ("elapsed_ns", query.started.elapsed().as_nanos() as u64),
        ("memory_usage", query.memory.peak() as u64),
    ])
}

/// `X-ClickHouse-Progress`: the figures so far.
pub fn progress(query: &QueryContext) -> String {
    figures_json(&[
        ("read_rows", query.rows_read()),
        ("read_bytes", query.bytes_read()),
        ("written_rows", query.written_rows()),
        ("written_bytes", query.written_bytes()),
        ("total_rows_to_read", query.rows_to_read()),
        ("result_rows", query.result_rows()),
        ("elapsed_ns", query.started.elapsed().as_nanos() as u64),
    ])
}

pub fn header(name: &'static str, value: &str) -> (HeaderName, HeaderValue) {
    let value = HeaderValue::from_str(value).unwrap_or_else(|_| {
        // A value with bytes a header cannot carry keeps its visible part.
        let visible: String = value
            .chars()
            .filter(|c| c.is_ascii_graphic() || *c == ' ')
            .collect();
        HeaderValue::from_str(&visible).expect("visible ASCII is a valid header value")
    });
    (HeaderName::from_static(name), value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_clickhouse() {
        assert_eq!(
            http_status(ErrorCode::SYNTAX_ERROR),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(http_status(ErrorCode::UNKNOWN_TABLE), StatusCode::NOT_FOUND);
        assert_eq!(
            http_status(ErrorCode::UNKNOWN_SETTING),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            http_status(ErrorCode::AUTHENTICATION_FAILED),
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            http_status(ErrorCode::READONLY),
            StatusCode::INTERNAL_SERVER_ERROR
        );
        assert_eq!(
            http_status(ErrorCode::TIMEOUT_EXCEEDED),
            StatusCode::REQUEST_TIMEOUT
        );
    }

    #[test]
    fn the_exception_block_names_its_tag_and_length() {
        let error = StrataError::new(ErrorCode::QUERY_WAS_CANCELLED, "Query was cancelled");
        let block = exception_block("abcdefghijklmnop", &error);
        let text = std::str::from_utf8(&block).unwrap();
        let parts: Vec<&str> = text.split("__exception__\r\n").collect();
        assert_eq!(parts.len(), 3);
        let message = error_text(&error);
        assert_eq!(
            parts[1],
            format!(
                "abcdefghijklmnop\r\n{message}{} abcdefghijklmnop\r\n",
                message.len()
            )
        );
    }
}
