//! The `s3(url [, NOSIGN | key, secret [, token]] [, format [, structure
//! [, compression]]])` table function: the objects a URL or a pattern of
//! keys names, read as `file()` reads files, one stream per object.
//!
//! Which argument is which follows ClickHouse: with two or three after the
//! URL, the first is a format when it names one, else a key; with four or
//! five, the third decides between a format and a session token. Patterns
//! take `*` (within a `/`), `**`, `?`, `{a,b}` and `{1..10}`; the bucket is
//! listed only from the directory before the first wildcard.

use std::sync::Arc;

use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::Result;
use strata_common::{ErrorCode, StrataError};
use strata_formats::OutputFormat;
use strata_formats::input::InputFormat;
use strata_storage::disk::config::S3Config;
use strata_storage::disk::{ObjectDisk, StoredObject};

use super::file_function::{
    FileArguments, Input, expand_braces, has_glob, shows_input_columns, table_of_inputs,
};
use super::format_function::text_arguments;
use super::input_columns::InputFacts;
use super::input_stream::{Location, ObjectInput};
use super::parquet_object::Footer;

/// The table function's name.
pub const NAME: &str = "s3";

/// Arguments of `s3()` at most: URL, key, secret, token, format,
/// structure, compression.
const MAX_ARGUMENTS: usize = 7;

#[derive(Debug)]
pub struct S3Function;

impl TableFunctionImpl for S3Function {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        table(args).map_err(StrataError::into_datafusion)
    }
}

fn table(args: TableFunctionArgs) -> std::result::Result<Arc<dyn TableProvider>, StrataError> {
    let texts = text_arguments(NAME, &args)?;
    let arguments = S3Arguments::of_texts(texts)?;
    let (bucket, pattern) = arguments.bucket()?;
    let shows_facts = shows_input_columns(&args);
    let inputs = matching_keys(&bucket, &pattern, shows_facts)?
        .into_iter()
        .map(|(key, object)| Input {
            name: key.clone(),
            // A key named without wildcards may not exist: its read fails.
            facts: shows_facts.then(|| InputFacts {
                path: format!("{}/{key}", bucket.location()),
                size: object.as_ref().map(|object| object.size),
                modified_seconds: object.as_ref().map(|object| object.modified_seconds),
            }),
            location: Location::Object(ObjectInput {
                bucket: Arc::clone(&bucket),
                size: object.map(|object| object.size),
                key,
                footer: Footer::default(),
            }),
        })
        .collect();
    table_of_inputs(NAME, &arguments.file, inputs, shows_facts)
}

/// The keys of `bucket` that `pattern` names, sorted, with what the store
/// says of each: the listing's entry, or for a key named without
/// wildcards a HEAD where `described`. Such a key is named whether or not
/// it exists.
pub(crate) fn matching_keys(
    bucket: &ObjectDisk,
    pattern: &str,
    described: bool,
) -> std::result::Result<Vec<(String, Option<StoredObject>)>, StrataError> {
    let mut keys = Vec::new();
    for pattern in expand_braces(pattern) {
        if !has_glob(&pattern) {
            let object = match described {
                true => bucket.head(&pattern)?,
                false => None,
            };
            keys.push((pattern, object));
            continue;
        }
        let wildcard = pattern.find(['*', '?']).unwrap_or(pattern.len());
        let directory = pattern[..wildcard].rsplit_once('/').map_or("", |(d, _)| d);
        let matcher = glob::Pattern::new(&pattern).map_err(|e| {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Bad pattern of keys '{pattern}': {e}"),
            )
        })?;
        let options = glob::MatchOptions {
            require_literal_separator: true,
            ..glob::MatchOptions::new()
        };
        keys.extend(
            bucket
                .list(directory)?
                .into_iter()
                .filter(|object| matcher.matches_with(&object.key, options))
                .map(|object| (object.key.clone(), Some(object))),
        );
    }
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    keys.dedup_by(|a, b| a.0 == b.0);
    Ok(keys)
}

/// The key an insert into `s3()` writes: `key` if no object has it or
/// `truncate` (`s3_truncate_on_insert`) replaces it, else the first
/// numbered key free where `create_new` (`s3_create_new_file_on_insert`).
pub(crate) fn object_key_to_write(
    bucket: &ObjectDisk,
    key: String,
    truncate: bool,
    create_new: bool,
) -> std::result::Result<String, StrataError> {
    if has_glob(&key) || key.contains('{') {
        return Err(StrataError::new(
            ErrorCode::DATABASE_ACCESS_DENIED,
            format!(
                "Non partitioned table with path '{key}' that contains globs, the table is in readonly mode"
            ),
        ));
    }
    if truncate || bucket.size(&key)?.is_none() {
        return Ok(key);
    }
    if !create_new {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Object in bucket {} with key {key} already exists. If you want to overwrite it, enable setting s3_truncate_on_insert, if you want to create a new file on each insert, enable setting s3_create_new_file_on_insert",
                bucket.location()
            ),
        ));
    }
    let mut n = 1;
    while bucket.size(&numbered_key(&key, n))?.is_some() {
        n += 1;
    }
    Ok(numbered_key(&key, n))
}

/// `key` numbered `n` before its extensions: `d.csv.gz` is `d.1.csv.gz`.
fn numbered_key(key: &str, n: u64) -> String {
    let (directory, name) = match key.rsplit_once('/') {
        Some((directory, name)) => (format!("{directory}/"), name),
        None => (String::new(), key),
    };
    match name.split_once('.') {
        Some((stem, extensions)) => format!("{directory}{stem}.{n}.{extensions}"),
        None => format!("{directory}{name}.{n}"),
    }
}

/// `s3()`'s arguments: where the objects are, and how to read them.
pub(crate) struct S3Arguments {
    pub config: S3Config,
    /// The pattern of keys as the path, with the format, structure and
    /// compression.
    pub file: FileArguments,
}

impl S3Arguments {
    pub(crate) fn of_texts(texts: Vec<String>) -> std::result::Result<Self, StrataError> {
        if texts.is_empty() || texts.len() > MAX_ARGUMENTS {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Table function '{NAME}' takes 1 to {MAX_ARGUMENTS} arguments: url [, NOSIGN | access_key_id, secret_access_key [, session_token]] [, format [, structure [, compression_method]]], got {}",
                    texts.len()
                ),
            ));
        }
        let (url, rest) = texts.split_first().expect("one argument at least");
        let (endpoint, region) = path_style(url);
        let mut config = S3Config::new(&endpoint);
        config.region = region;
        let reading = match rest.first() {
            Some(word) if word.eq_ignore_ascii_case("NOSIGN") => &rest[1..],
            _ => {
                let credentials = credentials_count(rest);
                let given = |i: usize| rest.get(i).cloned();
                config.access_key_id = given(0).filter(|_| credentials > 0);
                config.secret_access_key = given(1).filter(|_| credentials > 1);
                config.session_token = given(2).filter(|_| credentials > 2);
                &rest[credentials..]
            }
        };
        if reading.len() > 3 {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Table function '{NAME}': after the URL and credentials come at most a format, a structure and a compression, got {} arguments",
                    reading.len()
                ),
            ));
        }
        let mut file = vec![url.clone()];
        file.extend(reading.iter().cloned());
        Ok(S3Arguments {
            config,
            file: FileArguments::of_texts(file)?,
        })
    }

    /// The `S3` table engine's arguments: `s3()`'s without the structure,
    /// which the table's columns give (`S3(url [, credentials] [, format
    /// [, compression]])`).
    pub(crate) fn of_engine_texts(texts: Vec<String>) -> std::result::Result<Self, StrataError> {
        let mut arguments = Self::of_texts(texts)?;
        if arguments.file.compression.is_some() {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Storage S3 requires 1 to 6 arguments: url, [NOSIGN | access_key_id, secret_access_key, [session_token]], [format], [compression]",
            ));
        }
        arguments.file.compression = arguments.file.structure.take();
        Ok(arguments)
    }

    /// The bucket the URL names, and the pattern of keys in it.
    pub(crate) fn bucket(&self) -> std::result::Result<(Arc<ObjectDisk>, String), StrataError> {
        let (bucket, pattern) = ObjectDisk::bucket(&self.config)?;
        Ok((Arc::new(bucket), pattern))
    }
}

/// How many of the arguments after the URL are credentials (0, 2 or 3),
/// told from where a format name stands, as ClickHouse tells them.
fn credentials_count(rest: &[String]) -> usize {
    let is_format = |i: usize| rest.get(i).is_some_and(|word| names_format(word));
    match rest.len() {
        0 | 1 => 0,
        2 | 3 if is_format(0) => 0,
        2 | 3 => 2,
        4 | 5 if is_format(2) => 2,
        _ => 3,
    }
}

fn names_format(word: &str) -> bool {
    word == "auto" || InputFormat::from_name(word).is_ok() || OutputFormat::from_name(word).is_ok()
}

/// A URL in path style (`http(s)://host/bucket/key`) and the region it
/// names: AWS's virtual-hosted URLs (`https://bucket.s3.region.amazonaws.com/key`)
/// are rewritten to path style.
fn path_style(url: &str) -> (String, Option<String>) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return (url.to_string(), None);
    };
    let (host, key) = rest.split_once('/').unwrap_or((rest, ""));
    let Some(service) = host.strip_suffix(".amazonaws.com") else {
        return (url.to_string(), None);
    };
    let labels: Vec<&str> = service.split('.').collect();
    match labels.as_slice() {
        // s3.amazonaws.com or s3.region.amazonaws.com: already path style.
        ["s3"] => (url.to_string(), None),
        ["s3", region] => (url.to_string(), Some(region.to_string())),
        [bucket @ .., "s3"] => (
            format!("{scheme}://s3.amazonaws.com/{}/{key}", bucket.join(".")),
            None,
        ),
        [bucket @ .., "s3", region] => (
            format!(
                "{scheme}://s3.{region}.amazonaws.com/{}/{key}",
                bucket.join(".")
            ),
            Some(region.to_string()),
        ),
        _ => (url.to_string(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arguments(texts: &[&str]) -> S3Arguments {
        S3Arguments::of_texts(texts.iter().map(|t| t.to_string()).collect()).unwrap()
    }

    #[test]
    fn a_format_name_tells_credentials_from_formats() {
        let url = "http://h:9000/b/k.csv";
        let plain = arguments(&[url, "CSV", "x UInt8"]);
        assert_eq!(plain.config.access_key_id, None);
        assert_eq!(plain.file.format.as_deref(), Some("CSV"));
        assert_eq!(plain.file.structure.as_deref(), Some("x UInt8"));
        let keyed = arguments(&[url, "key", "secret"]);
        assert_eq!(keyed.config.access_key_id.as_deref(), Some("key"));
        assert_eq!(keyed.config.secret_access_key.as_deref(), Some("secret"));
        assert_eq!(keyed.file.format, None);
        let with_format = arguments(&[url, "key", "secret", "Parquet"]);
        assert_eq!(with_format.file.format.as_deref(), Some("Parquet"));
        let compressed = arguments(&[url, "TSV", "x UInt8", "gzip"]);
        assert_eq!(compressed.config.access_key_id, None);
        assert_eq!(compressed.file.compression.as_deref(), Some("gzip"));
        let token = arguments(&[url, "key", "secret", "token", "CSV"]);
        assert_eq!(token.config.session_token.as_deref(), Some("token"));
        assert_eq!(token.file.format.as_deref(), Some("CSV"));
        let unsigned = arguments(&[url, "NOSIGN", "CSV", "x UInt8"]);
        assert_eq!(unsigned.config.access_key_id, None);
        assert_eq!(unsigned.file.structure.as_deref(), Some("x UInt8"));
        assert_eq!(unsigned.file.path, url);
    }

    #[test]
    fn too_many_arguments_are_refused() {
        let texts = |n: usize| vec!["http://h/b/k".to_string(); n];
        for n in [0, 8] {
            let error = S3Arguments::of_texts(texts(n)).err().unwrap();
            assert_eq!(error.code, ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH);
        }
        let error = S3Arguments::of_texts(vec![
            "http://h/b/k".into(),
            "NOSIGN".into(),
            "CSV".into(),
            "x UInt8".into(),
            "gzip".into(),
            "more".into(),
        ])
        .err()
        .unwrap();
        assert_eq!(error.code, ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH);
    }

    #[test]
    fn virtual_hosted_urls_become_path_style() {
        assert_eq!(
            path_style("https://my.bucket.s3.eu-west-1.amazonaws.com/a/b.csv"),
            (
                "https://s3.eu-west-1.amazonaws.com/my.bucket/a/b.csv".to_string(),
                Some("eu-west-1".to_string())
            )
        );
        assert_eq!(
            path_style("https://bucket.s3.amazonaws.com/k"),
            ("https://s3.amazonaws.com/bucket/k".to_string(), None)
        );
        assert_eq!(
            path_style("http://127.0.0.1:9000/bucket/k"),
            ("http://127.0.0.1:9000/bucket/k".to_string(), None)
        );
    }
}
