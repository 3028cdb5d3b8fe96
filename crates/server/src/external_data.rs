//! External data: a `multipart/form-data` request sends files with its
//! query, and each file becomes a temporary table of that query, named by
//! its form field. Its columns come from `<name>_structure` (`a UInt64, s
//! String`) or `<name>_types` (`UInt64,String`, columns `_1`, `_2`, ...),
//! its format from `<name>_format` (TabSeparated by default), as URL
//! parameters or form fields. Other form fields are read as URL parameters.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use futures::TryStreamExt;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::Session;
use strata_sql::literal_text::backquoted;

use crate::query_params::top_level_args;
use crate::request::HttpParams;

/// A file of a multipart request, before its columns are known.
struct File {
    name: String,
    data: Bytes,
}

/// A file with its columns and format, ready to load.
pub struct ExternalTable {
    pub name: String,
    columns: String,
    format: String,
    data: Bytes,
}

/// The boundary of a `multipart/form-data` content type, if it is one.
pub fn multipart_boundary(content_type: Option<&str>) -> Option<String> {
    multer::parse_boundary(content_type?).ok()
}

/// Reads the form: fields go into `params`, files are returned as tables.
/// The whole form is held in memory, at most `max_bytes` of it;
/// `content_length` is the request's, for messages.
pub async fn read_form(
    body: Incoming,
    boundary: String,
    params: &mut HttpParams,
    max_bytes: u64,
    content_length: Option<u64>,
) -> Result<Vec<ExternalTable>> {
    let received = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&received);
    let stream = body.into_data_stream().inspect_ok(move |chunk| {
        counted.fetch_add(chunk.len() as u64, Ordering::Relaxed);
    });
    let constraints =
        multer::Constraints::new().size_limit(multer::SizeLimit::new().whole_stream(max_bytes));
    let mut form = multer::Multipart::with_constraints(stream, boundary, constraints);
    let fail = |e| form_error(e, received.load(Ordering::Relaxed), content_length);
    let mut files = Vec::new();
    while let Some(field) = form.next_field().await.map_err(fail)? {
        let name = field.name().unwrap_or_default().to_string();
        let is_file = field.file_name().is_some();
        let data = field.bytes().await.map_err(fail)?;
        if is_file {
            files.push(File { name, data });
        } else {
            params.add(&name, String::from_utf8_lossy(&data).into_owned())?;
        }
    }
    files
        .into_iter()
        .map(|file| describe(file, params))
        .collect()
}

/// Says how much of the body came, so that a body cut short can be told
/// from a malformed one.
fn form_error(e: multer::Error, received: u64, content_length: Option<u64>) -> StrataError {
    let expected = content_length.map_or(String::new(), |n| format!(" of {n}"));
    StrataError::new(
        ErrorCode::CANNOT_READ_ALL_DATA,
        format!("Cannot read the multipart/form-data body: {e} (after {received}{expected} bytes)"),
    )
}

/// The file's columns and format, taken out of the request's settings.
fn describe(file: File, params: &mut HttpParams) -> Result<ExternalTable> {
    let structure = params.take_setting(&format!("{}_structure", file.name));
    let types = params.take_setting(&format!("{}_types", file.name));
    let format = params
        .take_setting(&format!("{}_format", file.name))
        .unwrap_or_else(|| "TabSeparated".to_string());
    let columns = match (structure, types) {
        (Some(structure), _) => structure,
        (None, Some(types)) => top_level_args(&types)
            .iter()
            .enumerate()
            .map(|(i, t)| format!("_{} {t}", i + 1))
            .collect::<Vec<_>>()
            .join(", "),
        (None, None) => {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Neither structure nor types have not been provided for external table {0}. Use fields {0}_structure or {0}_types to do so.",
                    file.name
                ),
            ));
        }
    };
    Ok(ExternalTable {
        name: file.name,
        columns,
        format,
        data: file.data,
    })
}

/// Creates the tables in `session` and loads their data.
pub async fn load(session: &mut Session, tables: &[ExternalTable]) -> Result<()> {
    for table in tables {
        let name = backquoted(&table.name);
        session
            .execute(&format!(
                "CREATE TEMPORARY TABLE {name} ({}) ENGINE = Memory",
                table.columns
            ))
            .await?;
        session.set_input(Box::new(std::io::Cursor::new(table.data.clone())));
        session
            .execute(&format!("INSERT INTO {name} FORMAT {}", table.format))
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_split_at_the_top_level() {
        assert_eq!(
            top_level_args("UInt64, Tuple(a UInt8, b String),Array(Nullable(Int8))"),
            [
                "UInt64",
                "Tuple(a UInt8, b String)",
                "Array(Nullable(Int8))"
            ]
        );
    }

    #[test]
    fn a_file_without_columns_is_refused() {
        let mut params = HttpParams::default();
        let file = File {
            name: "t".into(),
            data: Bytes::new(),
        };
        let error = describe(file, &mut params).err().expect("an error");
        assert_eq!(error.code, ErrorCode::BAD_ARGUMENTS);
    }
}
