//! Writing results and summaries the way clickhouse-local does.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use datafusion::execution::memory_pool::MemoryPool;
use strata_common::Result;
use strata_common::readable::{
    readable_decimal_size as decimal_size, readable_quantity, readable_size,
};
use strata_engine::{QueryContext, QueryResult, SpillFigures};
use strata_formats::OutputFormat;

use crate::progress;

/// What a finished statement reports.
#[derive(Clone)]
pub struct Summary {
    pub result_rows: Option<u64>,
    pub elapsed: Duration,
    pub rows_read: u64,
    pub bytes_read: u64,
    pub peak_memory: usize,
    pub spill: SpillFigures,
}

impl Summary {
    pub fn of(query: &QueryContext, result_rows: Option<u64>) -> Self {
        Summary {
            result_rows,
            elapsed: query.started.elapsed(),
            rows_read: query.rows_read(),
            bytes_read: query.bytes_read(),
            peak_memory: query.memory.peak(),
            spill: query.spill.figures(),
        }
    }

    /// `N rows in set. Elapsed: X sec. Processed R rows, B (r rows/s., b/s.)` and the peak line.
    pub fn render(&self) -> String {
        let seconds = self.elapsed.as_secs_f64();
        let mut text = match self.result_rows {
            Some(1) => "1 row in set. ".to_string(),
            Some(n) => format!("{n} rows in set. "),
            None => "Ok. ".to_string(),
        };
        text.push_str(&format!("Elapsed: {seconds:.3} sec."));
        if self.rows_read > 0 {
            let per_second = |v: f64| if seconds > 0.0 { v / seconds } else { 0.0 };
            text.push_str(&format!(
                " Processed {} rows, {} ({} rows/s., {}/s.)",
                readable_quantity(self.rows_read as f64),
                decimal_size(self.bytes_read as f64),
                readable_quantity(per_second(self.rows_read as f64)),
                decimal_size(per_second(self.bytes_read as f64)),
            ));
        }
        text.push_str(&format!(
            "\nPeak memory usage: {}.",
            readable_size(self.peak_memory as f64)
        ));
        let spill = &self.spill;
        if spill.bytes_spilled > 0 || spill.disk_bytes_written > 0 {
            text.push_str("\nTemporary data: ");
            if spill.bytes_spilled > 0 {
                text.push_str(&format!(
                    "{} spilled, {} compressed ({:.2}x), warm tier peak {}, ",
                    readable_size(spill.bytes_spilled as f64),
                    readable_size(spill.bytes_compressed as f64),
                    spill.bytes_spilled as f64 / spill.bytes_compressed.max(1) as f64,
                    readable_size(spill.warm_peak as f64),
                ));
            }
            text.push_str(&format!(
                "{} written to disk, {} read back.",
                readable_size(spill.disk_bytes_written as f64),
                readable_size(spill.disk_bytes_read as f64),
            ));
        }
        text
    }
}

/// Streams `result` to `out` in `format`; returns the number of rows written.
/// A progress line is drawn on stderr while the query runs longer than half a
/// second, when stderr is a terminal.
pub async fn write_result(
    result: QueryResult,
    default_format: OutputFormat,
    mut out: &mut dyn Write,
) -> Result<u64> {
    let query = Arc::clone(&result.query);
    let drawing = std::io::stderr()
        .is_terminal()
        .then(|| spawn_progress(Arc::clone(&query)));
    let outcome = match result.outfile.clone() {
        Some(outfile) => result.write_to_outfile(&outfile, out).await,
        None => result.write_to(default_format, &mut out).await,
    };
    if let Some(handle) = drawing {
        handle.abort();
        progress::clear();
    }
    outcome
}

fn spawn_progress(query: Arc<QueryContext>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        tokio::time::sleep(progress::FIRST_DRAW_AFTER).await;
        loop {
            progress::draw(&progress::Figures {
                read_rows: query.rows_read(),
                read_bytes: query.bytes_read(),
                total_rows_to_read: query.rows_to_read(),
                memory_usage: query.memory.reserved() as u64,
                elapsed_seconds: query.started.elapsed().as_secs_f64(),
            });
            tokio::time::sleep(progress::REDRAW_EVERY).await;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_matches_clickhouse_wording() {
        let summary = Summary {
            result_rows: Some(10),
            elapsed: Duration::from_millis(2000),
            rows_read: 1_000_000_000,
            bytes_read: 8_000_000_000,
            peak_memory: 1536,
            spill: SpillFigures::default(),
        };
        assert_eq!(
            summary.render(),
            "10 rows in set. Elapsed: 2.000 sec. Processed 1.00 billion rows, 8.00 GB (500.00 million rows/s., 4.00 GB/s.)\nPeak memory usage: 1.50 KiB."
        );
    }
}
