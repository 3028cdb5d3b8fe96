//! A request body as the statement and the data it carries.
//!
//! The statement is the `query` parameter followed by the start of the body
//! (ClickHouse joins them with a line break), read up to `max_query_size`.
//! An `INSERT ... FORMAT` takes the rest of the body as its data, streamed to
//! the insert on a blocking thread rather than held in memory.

use std::io::{Cursor, Read};

use bytes::Bytes;
use futures::TryStreamExt;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use strata_common::error::find_io_error;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::split_insert_format;
use tokio_util::io::{StreamReader, SyncIoBridge};

use crate::encoding::{Encoding, decoder};
use crate::native_compression::BlockReader;

/// A body read as bytes, decoded, on a blocking thread.
pub type BodyReader = Box<dyn Read + Send>;

/// The body of a request as a blocking reader. Call on the runtime; read
/// (and decode, with [`decoder`]) on a blocking thread.
pub fn body_reader(body: Incoming) -> BodyReader {
    let frames = body
        .into_data_stream()
        .map_err(|e| std::io::Error::other(format!("Cannot read the request body: {e}")));
    Box::new(SyncIoBridge::new(StreamReader::new(
        frames.map_ok(|b: Bytes| b),
    )))
}

/// The statement to run and the data of an `INSERT ... FORMAT`, if any.
pub struct Request {
    pub statement: String,
    pub data: Option<BodyReader>,
}

/// A failed read of the body: the decoder's own error (a damaged compressed
/// block) if it gave one.
fn read_error(e: std::io::Error) -> StrataError {
    find_io_error(&e).unwrap_or_else(|| {
        StrataError::new(
            ErrorCode::CANNOT_READ_ALL_DATA,
            format!("Cannot read the request: {e}"),
        )
    })
}

/// The body read through its HTTP `Content-Encoding`, then through
/// ClickHouse's compressed blocks with `decompress=1` (`Some(verify)`, where
/// `verify` checks each block's checksum).
pub fn decoded_body(
    body: BodyReader,
    encoding: Option<Encoding>,
    native_blocks: Option<bool>,
) -> Result<BodyReader> {
    let body = decoder(encoding, body)?;
    Ok(match native_blocks {
        Some(verify) => Box::new(BlockReader::new(body, verify)),
        None => body,
    })
}

/// Splits `url_query` and the (decoded) `body` into the statement and its
/// data. Blocks while reading the body: call on a blocking thread.
pub fn split_request(
    url_query: Option<String>,
    body: Option<BodyReader>,
    max_query_size: usize,
) -> Result<Request> {
    let url_query = url_query.unwrap_or_default();
    let Some(mut body) = body else {
        return Ok(Request {
            statement: url_query,
            data: None,
        });
    };
    // An INSERT ... FORMAT in the URL takes the whole body as its data.
    if split_insert_format(&url_query).is_some_and(|i| i.inline_data.is_none()) {
        return Ok(Request {
            statement: url_query,
            data: Some(body),
        });
    }
    let mut prefix = Vec::new();
    (&mut body)
        .take(max_query_size as u64 + 1)
        .read_to_end(&mut prefix)
        .map_err(read_error)?;
    let mut text = url_query.into_bytes();
    if !text.is_empty() && !prefix.is_empty() {
        text.push(b'\n');
    }
    text.extend_from_slice(&prefix);
    let valid = match std::str::from_utf8(&text) {
        Ok(all) => all,
        Err(e) => std::str::from_utf8(&text[..e.valid_up_to()]).expect("valid up to here"),
    };
    if let Some(insert) = split_insert_format(valid) {
        let statement = valid[..insert.data_at].trim_end().to_string();
        let rest = text.split_off(insert.data_at);
        return Ok(Request {
            statement,
            data: Some(Box::new(Cursor::new(rest).chain(body))),
        });
    }
    if prefix.len() > max_query_size {
        return Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Syntax error: Max query size exceeded (max_query_size = {max_query_size})"),
        ));
    }
    let statement = String::from_utf8(text).map_err(|_| {
        StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            "Syntax error: the query is not valid UTF-8",
        )
    })?;
    Ok(Request {
        statement,
        data: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(bytes: &[u8]) -> Option<BodyReader> {
        Some(Box::new(Cursor::new(bytes.to_vec())))
    }

    fn data(request: Request) -> Vec<u8> {
        let mut out = Vec::new();
        request.data.unwrap().read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn statement_and_data_are_split() {
        let only_url = split_request(Some("SELECT 1".into()), None, 100).unwrap();
        assert_eq!(only_url.statement, "SELECT 1");
        let joined = split_request(Some("SELECT".into()), body(b" 1"), 100).unwrap();
        assert_eq!(joined.statement, "SELECT\n 1");
        let url_insert =
            split_request(Some("INSERT INTO t FORMAT CSV".into()), body(b"1,2\n"), 100).unwrap();
        assert_eq!(url_insert.statement, "INSERT INTO t FORMAT CSV");
        assert_eq!(data(url_insert), b"1,2\n");
        let mut binary = b"INSERT INTO t FORMAT RowBinary\n".to_vec();
        binary.extend([0xff, 0xfe, 0x00, 0x80].repeat(50));
        let body_insert = split_request(None, body(&binary), 64).unwrap();
        assert_eq!(body_insert.statement, "INSERT INTO t FORMAT RowBinary");
        assert_eq!(data(body_insert), [0xff, 0xfe, 0x00, 0x80].repeat(50));
    }

    #[test]
    fn a_statement_past_max_query_size_is_refused() {
        let long = format!("SELECT '{}'", "x".repeat(200));
        let Err(error) = split_request(None, body(long.as_bytes()), 100) else {
            panic!("a statement past max_query_size was read");
        };
        assert_eq!(error.code, ErrorCode::SYNTAX_ERROR);
    }
}
