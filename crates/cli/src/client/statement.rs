//! One statement sent by `strata client`: its result streamed to the
//! output, the progress line drawn meanwhile, Ctrl-C turned into `KILL
//! QUERY` on the server, and an error that ends a body already under way
//! told apart from the data.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use strata_common::{ErrorCode, Result, StrataError};
use tokio::sync::watch;

use super::connection::{Connection, network_error, server_error};
use crate::output::Summary;
use crate::progress;

/// What a statement needs besides its text.
pub struct Statement<'a> {
    pub connection: &'a Arc<Connection>,
    pub default_format: &'a str,
    /// Counts Ctrl-C presses; a change while the statement runs cancels it.
    pub interrupts: &'a watch::Receiver<u64>,
    pub show_progress: bool,
    /// The body to send: an `INSERT ... FORMAT`'s rows from stdin.
    pub data: Option<reqwest::Body>,
}

/// A finished statement: its counted figures when the server has them.
pub struct Finished {
    pub elapsed: Duration,
    pub summary: Option<Summary>,
}

impl Statement<'_> {
    /// Runs `sql`, writing its result to `out`; `summary` asks the server
    /// for the figures afterwards.
    pub async fn run(self, sql: &str, out: &mut dyn Write, summary: bool) -> Result<Finished> {
        let query_id = uuid::Uuid::new_v4().to_string();
        let started = Instant::now();
        let mut interrupts = self.interrupts.clone();
        interrupts.borrow_and_update();
        let output_started = Arc::new(AtomicBool::new(false));
        let poller = self.show_progress.then(|| {
            spawn_progress(
                Arc::clone(self.connection),
                query_id.clone(),
                Arc::clone(&output_started),
            )
        });
        let connection = Arc::clone(self.connection);
        let work = transfer(
            &connection,
            sql,
            &query_id,
            self.default_format,
            self.data,
            out,
            poller.is_some().then_some(output_started.as_ref()),
        );
        let outcome = tokio::select! {
            outcome = work => Some(outcome),
            _ = interrupts.changed() => None,
        };
        if let Some(poller) = poller {
            poller.abort();
            progress::clear();
        }
        let Some(outcome) = outcome else {
            return Err(cancel(&connection, &query_id).await);
        };
        outcome?;
        let elapsed = started.elapsed();
        let summary = match summary {
            true => connection.summary(&query_id).await,
            false => None,
        };
        Ok(Finished { elapsed, summary })
    }
}

/// Sends the statement and copies its result to `out`; with a progress
/// line drawn, erases it and marks `output_started` when output begins.
async fn transfer(
    connection: &Connection,
    sql: &str,
    query_id: &str,
    default_format: &str,
    data: Option<reqwest::Body>,
    out: &mut dyn Write,
    output_started: Option<&AtomicBool>,
) -> Result<()> {
    let reply = connection.send(sql, query_id, default_format, data).await?;
    let mut scanner = ExceptionScanner::new(reply.exception_tag.as_deref());
    let mut response = reply.response;
    while let Some(chunk) = response.chunk().await.map_err(network_error)? {
        if let Some(started) = output_started
            && !started.swap(true, Ordering::Relaxed)
        {
            progress::clear();
        }
        scanner.push(&chunk, out)?;
    }
    scanner.finish(out)?;
    out.flush()?;
    Ok(())
}

/// Asks the server to stop the query and says so.
async fn cancel(connection: &Connection, query_id: &str) -> StrataError {
    eprintln!("Cancelling query.");
    if let Err(e) = connection.kill(query_id).await {
        // The dropped connection still cancels the query on the server.
        eprintln!("{e}");
    }
    StrataError::new(ErrorCode::QUERY_WAS_CANCELLED, "Query was cancelled")
}

/// Draws the query's progress from `system.processes` until its output
/// starts; stops for good if the user may not read that table.
fn spawn_progress(
    connection: Arc<Connection>,
    query_id: String,
    output_started: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        tokio::time::sleep(progress::FIRST_DRAW_AFTER).await;
        loop {
            match connection.progress(&query_id).await {
                Ok(Some(figures)) if !output_started.load(Ordering::Relaxed) => {
                    progress::draw(&figures)
                }
                Ok(_) => {}
                Err(_) => return,
            }
            tokio::time::sleep(progress::REDRAW_EVERY).await;
        }
    })
}

/// Passes a body through to the output until the block that ends it on an
/// error (`__exception__`, the response's tag, the message, its length, the
/// tag, `__exception__`), which becomes the statement's error.
struct ExceptionScanner {
    /// `__exception__\r\n<tag>\r\n`; None when the server gave no tag.
    marker: Option<Vec<u8>>,
    /// Bytes that may be the start of the marker, held back.
    pending: Vec<u8>,
    /// What followed the marker.
    exception: Option<Vec<u8>>,
}

impl ExceptionScanner {
    fn new(tag: Option<&str>) -> ExceptionScanner {
        ExceptionScanner {
            marker: tag.map(|tag| format!("__exception__\r\n{tag}\r\n").into_bytes()),
            pending: Vec::new(),
            exception: None,
        }
    }

    fn push(&mut self, chunk: &[u8], out: &mut dyn Write) -> std::io::Result<()> {
        if let Some(exception) = &mut self.exception {
            exception.extend_from_slice(chunk);
            return Ok(());
        }
        let Some(marker) = &self.marker else {
            return out.write_all(chunk);
        };
        self.pending.extend_from_slice(chunk);
        if let Some(at) = find(&self.pending, marker) {
            out.write_all(&self.pending[..at])?;
            self.exception = Some(self.pending[at + marker.len()..].to_vec());
            self.pending.clear();
            return Ok(());
        }
        let keep = self.pending.len().min(marker.len() - 1);
        let ready = self.pending.len() - keep;
        out.write_all(&self.pending[..ready])?;
        self.pending.drain(..ready);
        Ok(())
    }

    /// Writes what was held back; the server's error if the body ended with one.
    fn finish(self, out: &mut dyn Write) -> Result<()> {
        out.write_all(&self.pending)?;
        let Some(exception) = self.exception else {
            return Ok(());
        };
        let text = String::from_utf8_lossy(&exception);
        // The message is followed by its length, a space and the tag.
        let message = text
            .rsplit_once("\r\n__exception__")
            .map_or(text.as_ref(), |(head, _)| head);
        let message = message.rsplit_once(' ').map_or(message, |(head, _)| head);
        let message = message.trim_end_matches(|c: char| c.is_ascii_digit());
        Err(server_error(None, message))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exception_block_split_over_chunks_is_told_from_data() {
        let body = "1\n2\n__exception__\r\nabcd\r\nCode: 395. DB::Exception: Value passed to 'throwIf' \
                    function is non-zero. (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO)\n96 abcd\r\n__exception__\r\n";
        for split in 1..body.len() {
            let mut scanner = ExceptionScanner::new(Some("abcd"));
            let mut out = Vec::new();
            scanner.push(&body.as_bytes()[..split], &mut out).unwrap();
            scanner.push(&body.as_bytes()[split..], &mut out).unwrap();
            let error = scanner.finish(&mut out).unwrap_err();
            assert_eq!(out, b"1\n2\n");
            assert_eq!(error.code, ErrorCode::FUNCTION_THROW_IF_VALUE_IS_NON_ZERO);
            assert_eq!(
                error.message,
                "Value passed to 'throwIf' function is non-zero."
            );
        }
    }

    #[test]
    fn data_that_only_starts_like_the_marker_passes_through() {
        let mut scanner = ExceptionScanner::new(Some("abcd"));
        let mut out = Vec::new();
        scanner
            .push(b"__exception__\r\nother\r\n", &mut out)
            .unwrap();
        scanner.finish(&mut out).unwrap();
        assert_eq!(out, b"__exception__\r\nother\r\n");
    }
}
