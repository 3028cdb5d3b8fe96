//! `DETACH TABLE | VIEW [IF EXISTS] t [PERMANENTLY] [SYNC]` and the short
//! `ATTACH TABLE | VIEW [IF NOT EXISTS] t`: a detached table leaves the
//! catalog with its definition and data kept; it comes back at the next
//! start, or never until ATTACH when detached PERMANENTLY (its definition
//! file set aside). A Memory table's rows do not survive, as in ClickHouse.

use datafusion::catalog::TableProvider;
use std::sync::Arc;
use strata_common::{ErrorCode, Result, StrataError};

use crate::engine::is_create_view;
use crate::session::{Session, StatementOutcome, is_temporary_database};
use crate::sources::merge_tree_table::MergeTreeProvider;
use crate::system::SYSTEM_DATABASE;

/// A DETACH or ATTACH statement, read word by word.
struct Target {
    name: datafusion::sql::sqlparser::ast::ObjectName,
    /// `IF EXISTS` (DETACH) or `IF NOT EXISTS` (ATTACH).
    lenient: bool,
    permanently: bool,
}

impl Session {
    /// `DETACH ...`, with `rest` the text after DETACH.
    pub(crate) async fn detach(&mut self, rest: &str) -> Result<StatementOutcome> {
        self.check_writable()?;
        let target = parse_target("DETACH", rest, &["IF", "EXISTS"])?;
        let (database, table) = self.detachable(&target)?;
        self.require("DROP TABLE", &[&database, &table])?;
        let Some(provider) = self.database(&database)?.deregister_table(&table)? else {
            if target.lenient {
                return self.done();
            }
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_TABLE,
                format!("Table {database}.{table} does not exist"),
            ));
        };
        close(provider);
        if target.permanently {
            self.engine.data_path.detach_table(&database, &table)?;
        }
        self.done()
    }

    /// `ATTACH TABLE | VIEW t` of a detached table.
    pub(crate) async fn attach(&mut self, rest: &str) -> Result<StatementOutcome> {
        self.check_writable()?;
        let target = parse_target("ATTACH", rest, &["IF", "NOT", "EXISTS"])?;
        let (database, table) = self.detachable(&target)?;
        self.require("CREATE TABLE", &[&database, &table])?;
        if self.database(&database)?.table_exist(&table) {
            if target.lenient {
                return self.done();
            }
            return Err(StrataError::new(
                ErrorCode::TABLE_ALREADY_EXISTS,
                format!("Table {database}.{table} already exists"),
            ));
        }
        let Some(stored) = self.engine.data_path.stored_table(&database, &table)? else {
            return Err(StrataError::new(
                ErrorCode::CANNOT_GET_CREATE_TABLE_QUERY,
                format!("There is no metadata of table `{table}` in database `{database}`"),
            ));
        };
        if is_create_view(&stored.statement) {
            self.attach_views(vec![stored]).await?;
        } else {
            let statement = stored.statement.clone();
            self.attaching = Some(stored);
            let attached = Box::pin(self.execute_statement(&statement)).await;
            self.attaching = None;
            attached?;
        }
        self.engine.data_path.attach_table(&database, &table)?;
        self.done()
    }

    /// The (database, table) of a DETACH or ATTACH: not a system or
    /// temporary table.
    fn detachable(&self, target: &Target) -> Result<(String, String)> {
        let (database, table) = self.table_name(&target.name)?;
        if database == SYSTEM_DATABASE || is_temporary_database(&database) {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Cannot detach or attach {database}.{table}"),
            ));
        }
        Ok((database, table))
    }
}

/// Retires a detached table's object: a MergeTree table stops its merges
/// and takes no more inserts.
fn close(provider: Arc<dyn TableProvider>) {
    let any: Arc<dyn std::any::Any + Send + Sync> = provider;
    if let Ok(table) = any.downcast::<MergeTreeProvider>() {
        table.close();
    }
}

/// `TABLE | VIEW [lenient words] name [PERMANENTLY] [SYNC]`.
fn parse_target(verb: &str, rest: &str, lenient_words: &[&str]) -> Result<Target> {
    let syntax = |what: &str| {
        StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Syntax error: {what} in {verb}{rest}"),
        )
    };
    let mut words = rest
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .peekable();
    match words.next().map(str::to_ascii_uppercase).as_deref() {
        Some("TABLE" | "VIEW") => {}
        Some("DICTIONARY" | "DATABASE") => {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("{verb}{rest} is not supported yet"),
            ));
        }
        _ => return Err(syntax("expected TABLE or VIEW")),
    }
    let lenient = lenient_words
        .iter()
        .all(|word| words.next_if(|w| w.eq_ignore_ascii_case(word)).is_some());
    let name = words
        .next()
        .ok_or_else(|| syntax("expected a table name"))?;
    let name = strata_sql::parse_object_name(name)?;
    let mut permanently = false;
    for word in words {
        match word.to_ascii_uppercase().as_str() {
            "PERMANENTLY" if verb == "DETACH" => permanently = true,
            "SYNC" => {}
            _ if verb == "ATTACH" => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    "ATTACH TABLE with a definition or a path is not supported yet: ATTACH a detached table by its name",
                ));
            }
            other => return Err(syntax(&format!("unexpected {other}"))),
        }
    }
    Ok(Target {
        name,
        lenient,
        permanently,
    })
}
