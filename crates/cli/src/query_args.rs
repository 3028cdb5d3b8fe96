//! The query flags `strata local` and `strata client` share, as
//! clickhouse-local and clickhouse-client do.

use std::path::PathBuf;

use clap::Args;
use strata_common::{ErrorCode, Result, StrataError};

#[derive(Args)]
pub struct QueryArgs {
    /// Queries to run, separated by semicolons.
    #[arg(short = 'q', long = "query")]
    pub query: Vec<String>,
    /// Accepted for compatibility: several statements are always allowed.
    #[arg(short = 'n', long = "multiquery")]
    pub multiquery: bool,
    /// Files with queries to run, separated by semicolons.
    #[arg(long = "queries-file")]
    pub queries_file: Vec<PathBuf>,
    /// Output format when the query has no FORMAT clause.
    #[arg(long = "format", visible_alias = "output-format", short = 'f')]
    pub format: Option<String>,
    /// Print each statement's elapsed seconds to stderr.
    #[arg(short = 't', long = "time")]
    pub time: bool,
    /// Go on with the next statement after one fails.
    #[arg(long = "ignore-error")]
    pub ignore_error: bool,
}

impl QueryArgs {
    /// `-q` and `--queries-file` together, in order.
    pub fn batch_text(&self) -> Result<String> {
        let mut batch = self.query.join(";\n");
        for file in &self.queries_file {
            let text = std::fs::read_to_string(file).map_err(|e| {
                StrataError::new(
                    ErrorCode::FILE_DOESNT_EXIST,
                    format!("Cannot read queries file {}: {e}", file.display()),
                )
            })?;
            batch.push_str(";\n");
            batch.push_str(&text);
        }
        Ok(batch)
    }
}
