//! `SYSTEM ...` commands.

use std::sync::Arc;

use strata_common::{ErrorCode, Result, StrataError};
use strata_storage::cache::CacheTier;

use crate::access::privileges::catalog;
use crate::session::{Session, StatementOutcome, UserTable};

/// ClickHouse's caches that Strata has no counterpart of, by the words
/// between `SYSTEM DROP` and `CACHE`.
const NOT_KEPT_CACHES: &[&[&str]] = &[
    &["QUERY"],
    &["QUERY", "CONDITION"],
    &["DNS"],
    &["MMAP"],
    &["COMPILED", "EXPRESSION"],
    &["PRIMARY", "INDEX"],
    &["SKIPPING", "INDEX"],
    &["VECTOR", "SIMILARITY", "INDEX"],
    &["SCHEMA"],
    &["FORMAT", "SCHEMA"],
    &["ICEBERG", "METADATA"],
];

impl Session {
    /// `SYSTEM ...` commands. System logs are written as queries end, so
    /// FLUSH LOGS has nothing to wait for; it is accepted because ClickHouse
    /// users run it before reading system.query_log.
    pub(crate) async fn system_command(&self, rest: &str) -> Result<StatementOutcome> {
        let words: Vec<String> = rest.split_whitespace().map(str::to_uppercase).collect();
        self.require(system_privilege(&words), &[])?;
        match words
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["FLUSH", "LOGS", ..] => self.done(),
            // ClickHouse 25 names these CLEAR and keeps DROP.
            ["DROP" | "CLEAR", "MARK", "CACHE"] => self.drop_cache(CacheTier::Mark),
            ["DROP" | "CLEAR", "UNCOMPRESSED", "CACHE"] => self.drop_cache(CacheTier::Uncompressed),
            ["DROP" | "CLEAR", "PAGE", "CACHE"] => self.drop_cache(CacheTier::Page),
            ["DROP" | "CLEAR", "FILESYSTEM", "CACHE", ..] => self.drop_filesystem_cache(rest),
            // Caches Strata does not keep hold nothing to drop.
            ["DROP" | "CLEAR", cache @ .., "CACHE"] if NOT_KEPT_CACHES.contains(&cache) => {
                self.done()
            }
            ["STOP", "MERGES", ..] => self.stop_merges(rest, true).await,
            ["START", "MERGES", ..] => self.stop_merges(rest, false).await,
            ["SET", "SERVER", "SETTING", ..] => self.set_server_setting(rest),
            ["RELOAD", "CONFIG"] => {
                self.engine.instance().reload_config()?;
                self.done()
            }
            _ => Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!(
                    "Syntax error: unknown SYSTEM command 'SYSTEM {}'",
                    rest.trim()
                ),
            )),
        }
    }

    /// `SYSTEM STOP | START MERGES [[db.]table]`: one table's background
    /// merges, or every MergeTree table's there is when none is named.
    async fn stop_merges(&self, rest: &str, stopped: bool) -> Result<StatementOutcome> {
        let named: Vec<&str> = rest.split_whitespace().skip(2).collect();
        match named[..] {
            [] => {
                let catalog = Arc::clone(&self.engine.catalog);
                for (_, _, table) in crate::system::parts::merge_tree_tables(&catalog).await? {
                    table.set_merges_stopped(stopped);
                }
            }
            // As ClickHouse: a table that is not there, or not a MergeTree,
            // has no merges to stop.
            [name] => {
                let name = strata_sql::parse_object_name(name)?;
                if let Ok(UserTable::MergeTree(table)) = self.user_table(&name).await {
                    table.set_merges_stopped(stopped);
                }
            }
            _ => {
                return Err(StrataError::new(
                    ErrorCode::SYNTAX_ERROR,
                    format!(
                        "Syntax error: expected a table after 'SYSTEM {}'",
                        rest.trim()
                    ),
                ));
            }
        }
        self.done()
    }

    /// `SYSTEM SET SERVER SETTING name = value`, Strata's statement for
    /// what ClickHouse changes only by editing the file and reloading.
    fn set_server_setting(&self, rest: &str) -> Result<StatementOutcome> {
        let mut assignment = rest.trim();
        for _ in 0..3 {
            assignment = assignment
                .split_once(char::is_whitespace)
                .map_or("", |(_, after)| after.trim_start());
        }
        let Some((name, value)) = assignment.split_once('=') else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!(
                    "Syntax error: expected name = value after 'SYSTEM SET SERVER SETTING', got '{assignment}'"
                ),
            ));
        };
        let value = value.trim();
        let value = value
            .strip_prefix('\'')
            .and_then(|v| v.strip_suffix('\''))
            .unwrap_or(value);
        self.engine
            .instance()
            .set_server_setting(name.trim(), value)?;
        self.done()
    }

    fn drop_cache(&self, tier: CacheTier) -> Result<StatementOutcome> {
        self.engine.instance().cache.clear(tier);
        self.done()
    }

    /// `SYSTEM DROP FILESYSTEM CACHE ['disk']`: one cache disk's segments,
    /// or every cache's.
    fn drop_filesystem_cache(&self, rest: &str) -> Result<StatementOutcome> {
        let named: Vec<&str> = rest.split_whitespace().skip(3).collect();
        let name = match named[..] {
            [] => None,
            [name] => Some(name.trim_matches(['\'', '"', '`']).to_string()),
            _ => {
                return Err(StrataError::new(
                    ErrorCode::SYNTAX_ERROR,
                    format!(
                        "Syntax error: expected a cache name after 'SYSTEM {}'",
                        rest.trim()
                    ),
                ));
            }
        };
        let instance = self.engine.instance();
        let caches: Vec<_> = instance
            .disks
            .all()
            .into_iter()
            .filter_map(|disk| disk.object_store()?.file_cache().cloned())
            .filter(|cache| name.as_deref().is_none_or(|name| cache.name() == name))
            .collect();
        if let (Some(name), true) = (&name, caches.is_empty()) {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("There is no filesystem cache named {name}"),
            ));
        }
        for cache in caches {
            cache.clear();
        }
        self.done()
    }
}

/// The privilege a SYSTEM command needs: the catalog's name for its
/// longest leading words, else the whole SYSTEM group.
fn system_privilege(words: &[String]) -> &'static str {
    (1..=words.len())
        .rev()
        .find_map(|n| catalog().find(&format!("SYSTEM {}", words[..n].join(" "))))
        .map_or("SYSTEM", |privilege| privilege.name)
}
