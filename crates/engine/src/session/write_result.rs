//! A result set written out in an output format, as every front end
//! (`strata local`, `import strata`) streams one.

use std::io::Write;
use std::sync::Arc;

use futures::StreamExt;
use strata_common::Result;
use strata_formats::{FormatOptions, OutputFormat, Statistics, new_writer};

use super::QueryResult;

impl QueryResult {
    /// Streams the rows to `out` in the statement's `FORMAT`, else
    /// `default_format`, with the totals row and the format's closing
    /// statistics; returns how many rows were written. Generic over the
    /// sink so the future is `Send` when the sink is.
    pub async fn write_to<W: Write>(
        self,
        default_format: OutputFormat,
        out: &mut W,
    ) -> Result<u64> {
        self.write_rows(default_format, out, false).await
    }

    /// [`QueryResult::write_to`], leaving out the format's header where the
    /// rows go after data already in the format (a file appended to).
    pub async fn write_rows<W: Write>(
        mut self,
        default_format: OutputFormat,
        out: &mut W,
        skip_header: bool,
    ) -> Result<u64> {
        let format = self.format.unwrap_or(default_format);
        let query = Arc::clone(&self.query);
        let options = FormatOptions::from_settings(&query.settings);
        let mut sink = std::io::sink();
        let header: &mut dyn Write = if skip_header { &mut sink } else { out };
        let mut writer = new_writer(format, Arc::clone(&self.schema), options, header)?;
        let mut rows = 0u64;
        while let Some(batch) = self.stream.next().await {
            let batch = batch?;
            query.check()?;
            rows += batch.num_rows() as u64;
            writer.write_batch(out, &batch)?;
        }
        if let Some(totals) = &self.totals {
            writer.write_totals(out, totals)?;
        }
        let statistics = Statistics {
            elapsed_seconds: query.started.elapsed().as_secs_f64(),
            rows_read: query.rows_read(),
            bytes_read: query.bytes_read(),
        };
        writer.finish(out, &statistics)?;
        out.flush()?;
        Ok(rows)
    }
}
