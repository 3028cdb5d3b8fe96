//! `SYSTEM ...` commands.

use strata_common::{ErrorCode, Result, StrataError};
use strata_storage::cache::CacheTier;

use crate::access::privileges::catalog;
use crate::session::{Session, StatementOutcome};

impl Session {
    /// `SYSTEM ...` commands. System logs are written as queries end, so
    /// FLUSH LOGS has nothing to wait for; it is accepted because ClickHouse
    /// users run it before reading system.query_log.
    pub(crate) fn system_command(&self, rest: &str) -> Result<StatementOutcome> {
        let words: Vec<String> = rest.split_whitespace().map(str::to_uppercase).collect();
        self.require(system_privilege(&words), &[])?;
        match words
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["FLUSH", "LOGS", ..] => self.done(),
            ["DROP", "MARK", "CACHE"] => self.drop_cache(CacheTier::Mark),
            ["DROP", "UNCOMPRESSED", "CACHE"] => self.drop_cache(CacheTier::Uncompressed),
            ["DROP", "PAGE", "CACHE"] => self.drop_cache(CacheTier::Page),
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

    fn drop_cache(&self, tier: CacheTier) -> Result<StatementOutcome> {
        self.engine.instance().cache.clear(tier);
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
