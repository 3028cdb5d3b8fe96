//! An INSERT's own SETTINGS, which ClickHouse reads in two places: between
//! the table and the data (`INSERT INTO t SETTINGS k = v VALUES ...`, also
//! before `SELECT` or `FORMAT`), and after an `INSERT ... SELECT`'s query.

use strata_common::{ErrorCode, Result, StrataError};

use crate::insert_format::top_level_word;
use crate::parser::split_trailing_clauses;

/// Where an INSERT's data or query starts.
const BODY_WORDS: [&str; 4] = ["VALUES", "SELECT", "WITH", "FORMAT"];

/// The settings (name, value as written) of an INSERT, and the statement
/// without them; None when `text` is not an INSERT with SETTINGS.
pub fn split_insert_settings(text: &str) -> Result<Option<(String, Vec<(String, String)>)>> {
    let text = text.trim_start();
    let is_insert = text
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("INSERT"));
    if !is_insert {
        return Ok(None);
    }
    let mut words = vec!["SETTINGS"];
    words.extend(BODY_WORDS);
    match top_level_word(text, &words) {
        Some((at, "SETTINGS")) => settings_before_body(text, at),
        Some((_, "SELECT" | "WITH")) => settings_after_query(text),
        _ => Ok(None),
    }
}

/// `INSERT INTO t SETTINGS ... <body>`.
fn settings_before_body(text: &str, at: usize) -> Result<Option<(String, Vec<(String, String)>)>> {
    let Some((length, _)) = top_level_word(&text[at..], &BODY_WORDS) else {
        return Ok(None);
    };
    let clause = &text[at..at + length];
    let (rest, clauses) = split_trailing_clauses(clause)?;
    if !rest.is_empty() || clauses.settings.is_empty() || clauses.format.is_some() {
        return Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Syntax error: expected SETTINGS name = value, ... in INSERT, got: {clause}"),
        ));
    }
    let statement = format!("{} {}", text[..at].trim_end(), &text[at + length..]);
    Ok(Some((statement, clauses.settings)))
}

/// `INSERT INTO t SELECT ... SETTINGS ...`: the query's trailing settings
/// are the INSERT's.
fn settings_after_query(text: &str) -> Result<Option<(String, Vec<(String, String)>)>> {
    let (statement, clauses) = split_trailing_clauses(text)?;
    if clauses.settings.is_empty() || clauses.format.is_some() {
        return Ok(None);
    }
    Ok(Some((statement, clauses.settings)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Option<(String, Vec<(String, String)>)> {
        split_insert_settings(text).unwrap()
    }

    fn setting(name: &str, value: &str) -> (String, String) {
        (name.to_string(), value.to_string())
    }

    #[test]
    fn settings_between_table_and_data() {
        assert_eq!(
            split("INSERT INTO t (a) SETTINGS max_threads = 1, x = 'v' VALUES (1)"),
            Some((
                "INSERT INTO t (a) VALUES (1)".to_string(),
                vec![setting("max_threads", "1"), setting("x", "v")]
            ))
        );
        assert_eq!(
            split("insert into t settings a=1 format CSV\n1,'\n"),
            Some((
                "insert into t format CSV\n1,'\n".to_string(),
                vec![setting("a", "1")]
            ))
        );
    }

    #[test]
    fn settings_after_the_query() {
        assert_eq!(
            split("INSERT INTO t SELECT 1 SETTINGS a = 2"),
            Some((
                "INSERT INTO t SELECT 1".to_string(),
                vec![setting("a", "2")]
            ))
        );
    }

    #[test]
    fn other_statements_are_left_alone() {
        assert_eq!(split("INSERT INTO t VALUES ('SETTINGS a = 1')"), None);
        assert_eq!(split("INSERT INTO t (settings) VALUES (1)"), None);
        assert_eq!(split("SELECT 1 SETTINGS a = 1"), None);
        assert!(split_insert_settings("INSERT INTO t SETTINGS VALUES (1)").is_err());
    }
}
