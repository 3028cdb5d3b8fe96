//! The progress line `strata local` and `strata client` draw on stderr while
//! a query runs, as clickhouse-client does: rows and bytes read so far, their
//! rates, memory, and a bar with the percentage when the total is known.

use std::io::Write;
use std::time::Duration;

use strata_common::readable::{
    readable_decimal_size as decimal_size, readable_quantity, readable_size,
};

/// A query runs this long before its progress is drawn, so quick ones stay quiet.
pub const FIRST_DRAW_AFTER: Duration = Duration::from_millis(500);
/// Time between redraws.
pub const REDRAW_EVERY: Duration = Duration::from_millis(100);
/// Cells of the bar at most; a narrow terminal gets a shorter one.
const BAR_CELLS_MAX: usize = 40;

/// A running query's figures, as the server counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    pub read_rows: u64,
    pub read_bytes: u64,
    /// 0 when not known.
    pub total_rows_to_read: u64,
    pub memory_usage: u64,
    pub elapsed_seconds: f64,
}

impl Figures {
    /// `Progress: 1.20 million rows, 9.60 MB (2.40 million rows/s., 19.20 MB/s.), 3.00 MiB RAM`,
    /// then the bar and percentage when the total is known.
    pub fn line(&self, width: usize) -> String {
        let seconds = self.elapsed_seconds.max(1e-9);
        let rows = self.read_rows as f64;
        let bytes = self.read_bytes as f64;
        let mut text = format!(
            "Progress: {} rows, {} ({} rows/s., {}/s.), {} RAM",
            readable_quantity(rows),
            decimal_size(bytes),
            readable_quantity(rows / seconds),
            decimal_size(bytes / seconds),
            readable_size(self.memory_usage as f64),
        );
        if self.total_rows_to_read > 0 {
            let done = (rows / self.total_rows_to_read as f64).clamp(0.0, 1.0);
            let room = width.saturating_sub(text.chars().count() + 8);
            let cells = room.min(BAR_CELLS_MAX);
            if cells > 0 {
                let filled = (done * cells as f64).round() as usize;
                text.push_str(&format!(
                    " [{}{}]",
                    "█".repeat(filled),
                    " ".repeat(cells - filled)
                ));
            }
            text.push_str(&format!(" {:.0}%", done * 100.0));
        }
        text
    }
}

/// Redraws the progress line on stderr in place.
pub fn draw(figures: &Figures) {
    let line = figures.line(terminal_width());
    eprint!("\r\x1b[K{line}");
    let _ = std::io::stderr().flush();
}

/// Erases the progress line.
pub fn clear() {
    eprint!("\r\x1b[K");
    let _ = std::io::stderr().flush();
}

/// The terminal's width from `COLUMNS`, else 80.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_rates_memory_and_a_bar_when_the_total_is_known() {
        let figures = Figures {
            read_rows: 1_000_000,
            read_bytes: 8_000_000,
            total_rows_to_read: 4_000_000,
            memory_usage: 3 << 20,
            elapsed_seconds: 2.0,
        };
        let line = figures.line(200);
        assert!(
            line.starts_with(
                "Progress: 1.00 million rows, 8.00 MB (500.00 thousand rows/s., 4.00 MB/s.), 3.00 MiB RAM ["
            ),
            "{line}"
        );
        assert!(line.ends_with("] 25%"), "{line}");
        assert_eq!(line.matches('█').count(), 10);
        let unknown = Figures {
            total_rows_to_read: 0,
            ..figures
        };
        assert!(!unknown.line(200).contains('%'));
    }
}
