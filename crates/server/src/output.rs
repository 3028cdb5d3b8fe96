//! A statement's outcome as an HTTP response.
//!
//! As in ClickHouse, the head goes out with the result's first block and
//! the rest streams, unless the request holds output back (`buffer_size`
//! over 1 MiB, or `wait_end_of_query`): until the head is sent an error
//! still gets its own HTTP status and the summary header holds the final
//! figures. After it, an error ends the body with the `__exception__` block.
//! A client that goes away cancels its query.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use datafusion::arrow::record_batch::RecordBatch;
use futures::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::StatusCode;
use hyper::body::Frame;
use hyper::header::{HeaderName, HeaderValue};
use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::{QueryContext, QueryResult, StatementOutcome};
use strata_formats::{FormatOptions, OutputFormat, ResultWriter, Statistics, new_writer};
use tokio::sync::{mpsc, oneshot};

use crate::encoding::{ChunkWriter, Encoding, encoder};
use crate::native_compression::BlockWriter;
use crate::response::{
    Body, error_text, exception_block, full, header, http_status, progress, summary,
};

/// Response chunks in flight to a slow client before the query waits.
const CHUNKS_IN_FLIGHT: usize = 4;

#[derive(Debug, Clone)]
pub struct ReplyOptions {
    pub query_id: String,
    pub tag: String,
    pub display_name: String,
    pub timezone: String,
    /// The format when the statement names none.
    pub format: OutputFormat,
    pub encoding: Option<Encoding>,
    /// Bytes held before the headers are sent: 0 sends them with the first
    /// block, `usize::MAX` waits for the end.
    pub buffer_size: usize,
    pub progress_header: bool,
    /// `compress=1`: the body in ClickHouse's compressed blocks.
    pub native_compression: bool,
    /// The URL's `client_protocol_version`, for Native output.
    pub client_protocol_version: u64,
}

/// The response's head and body.
pub struct Reply {
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub body: Body,
}

impl Reply {
    pub fn into_response(self) -> crate::response::Response {
        let mut response = hyper::Response::new(self.body);
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        for (name, value) in self.headers {
            headers.append(name, value);
        }
        response
    }
}

/// Headers every query response carries.
fn common_headers(options: &ReplyOptions) -> Vec<(HeaderName, HeaderValue)> {
    vec![
        header("x-clickhouse-query-id", &options.query_id),
        header("x-clickhouse-server-display-name", &options.display_name),
        header("x-clickhouse-timezone", &options.timezone),
        header("x-clickhouse-exception-tag", &options.tag),
        header(
            "access-control-expose-headers",
            "X-ClickHouse-Query-Id,X-ClickHouse-Summary,X-ClickHouse-Server-Display-Name,\
             X-ClickHouse-Format,X-ClickHouse-Timezone,X-ClickHouse-Exception-Code,\
             X-ClickHouse-Exception-Tag",
        ),
    ]
}

pub fn error_reply(error: &StrataError, options: &ReplyOptions) -> Reply {
    log::error!(target: "executeQuery", "{error} (query_id: {})", options.query_id);
    let mut headers = common_headers(options);
    headers.push(header(
        "x-clickhouse-exception-code",
        &error.code.code.to_string(),
    ));
    headers.push(header("content-type", "text/plain; charset=UTF-8"));
    let text = error_text(error);
    // ClickHouse compresses an error as it would have the result.
    let body = if options.native_compression {
        let mut sink = BlockWriter::new(Box::new(Vec::new()));
        let _ = sink.write_all(text.as_bytes());
        Box::new(sink).finish().unwrap_or_default()
    } else {
        text.into_bytes()
    };
    Reply {
        status: http_status(error.code),
        headers,
        body: full(body),
    }
}

/// Where a response's bytes go: ClickHouse's compressed blocks (`compress=1`)
/// under the HTTP encoding the client accepts.
fn response_sink(options: &ReplyOptions) -> Box<dyn ChunkWriter> {
    let sink = encoder(options.encoding);
    if options.native_compression {
        Box::new(BlockWriter::new(sink))
    } else {
        sink
    }
}

fn done_reply(query: &QueryContext, options: &ReplyOptions) -> Reply {
    let mut headers = common_headers(options);
    headers.push(header("x-clickhouse-summary", &summary(query, 0)));
    headers.push(header("content-type", "text/plain; charset=UTF-8"));
    Reply {
        status: StatusCode::OK,
        headers,
        body: full(Bytes::new()),
    }
}

/// What a request holds while its query runs (its named session, its slot
/// under `max_concurrent_queries`).
pub type Held = Box<dyn Send>;

/// Sends the reply for `outcome`. `held` is let go once the result is
/// complete and before its last bytes leave, so a client that sends its
/// next request as soon as it has read the response finds the session free.
pub async fn send_outcome(
    outcome: Result<StatementOutcome>,
    options: ReplyOptions,
    reply: oneshot::Sender<Reply>,
    held: Held,
) {
    match outcome {
        Err(error) => {
            drop(held);
            let _ = reply.send(error_reply(&error, &options));
        }
        Ok(StatementOutcome::Done(query)) => {
            drop(held);
            let _ = reply.send(done_reply(&query, &options));
        }
        Ok(StatementOutcome::Rows(result)) => {
            let query = Arc::clone(&result.query);
            let mut stream = RowStream::new(result, options, reply, held);
            if let Err(error) = stream.run().await {
                stream.fail(&error).await;
            }
            if stream.client_gone {
                query.cancel();
            }
        }
    }
}

/// Where the response stands: head not sent yet, or streaming.
enum Phase {
    Holding(oneshot::Sender<Reply>),
    Streaming(mpsc::Sender<std::io::Result<Bytes>>),
    Ended,
}

struct RowStream {
    result: Option<QueryResult>,
    query: Arc<QueryContext>,
    options: ReplyOptions,
    format: OutputFormat,
    sink: Option<Box<dyn ChunkWriter>>,
    /// Output produced while holding.
    held: Vec<u8>,
    result_bytes: u64,
    phase: Phase,
    /// `X-ClickHouse-Progress` snapshots taken while the head was held.
    progress: Vec<String>,
    client_gone: bool,
    /// Released when the result is complete (see [`send_outcome`]).
    holds: Option<Held>,
}

impl RowStream {
    fn new(
        result: QueryResult,
        options: ReplyOptions,
        reply: oneshot::Sender<Reply>,
        held: Held,
    ) -> Self {
        RowStream {
            query: Arc::clone(&result.query),
            format: result.format.unwrap_or(options.format),
            sink: Some(response_sink(&options)),
            result: Some(result),
            options,
            held: Vec::new(),
            result_bytes: 0,
            phase: Phase::Holding(reply),
            progress: Vec::new(),
            client_gone: false,
            holds: Some(held),
        }
    }

    async fn run(&mut self) -> Result<()> {
        let mut result = self.result.take().expect("run once");
        let options = FormatOptions {
            client_protocol_version: self.options.client_protocol_version,
            ..FormatOptions::from_settings(&self.query.settings)
        };
        let sink = self.sink.as_mut().expect("sink until the end");
        let mut writer: Box<dyn ResultWriter> = new_writer(
            self.format,
            Arc::clone(&result.schema),
            options,
            sink.as_mut(),
        )?;
        // A format's prefix goes out with the first block, not before it.
        while let Some(batch) = self.next_batch(&mut result).await {
            let batch = batch?;
            self.query.check()?;
            let sink = self.sink.as_mut().expect("sink until the end");
            writer.write_batch(sink.as_mut(), &batch)?;
            // Each block leaves the encoder at once, as ClickHouse flushes it.
            sink.flush()?;
            self.forward().await;
            if self.client_gone {
                return Ok(());
            }
        }
        if let Some(totals) = &result.totals {
            let sink = self.sink.as_mut().expect("sink until the end");
            writer.write_totals(sink.as_mut(), totals)?;
        }
        let statistics = Statistics {
            elapsed_seconds: self.query.started.elapsed().as_secs_f64(),
            rows_read: self.query.rows_read(),
            bytes_read: self.query.bytes_read(),
        };
        let sink = self.sink.as_mut().expect("sink until the end");
        writer.finish(sink.as_mut(), &statistics)?;
        sink.flush()?;
        let last = self.sink.take().expect("sink until the end").finish()?;
        self.holds = None;
        self.send(last).await;
        self.end();
        Ok(())
    }

    /// The next batch; while the head is held and progress headers are
    /// asked for, a snapshot of the figures every
    /// `http_headers_progress_interval_ms` meanwhile.
    async fn next_batch(
        &mut self,
        result: &mut QueryResult,
    ) -> Option<datafusion::common::Result<RecordBatch>> {
        let interval = Duration::from_millis(
            self.query
                .settings
                .http_headers_progress_interval_ms()
                .max(1),
        );
        loop {
            if !(self.options.progress_header && matches!(self.phase, Phase::Holding(_))) {
                return result.stream.next().await;
            }
            tokio::select! {
                batch = result.stream.next() => return batch,
                () = tokio::time::sleep(interval) => self.note_progress(),
            }
        }
    }

    fn note_progress(&mut self) {
        let snapshot = progress(&self.query);
        if self.progress.last() != Some(&snapshot) {
            self.progress.push(snapshot);
        }
    }

    /// Moves what the sink produced towards the client.
    async fn forward(&mut self) {
        let chunk = match self.sink.as_mut() {
            Some(sink) => sink.take(),
            None => return,
        };
        self.send(chunk).await;
    }

    async fn send(&mut self, chunk: Vec<u8>) {
        self.result_bytes += chunk.len() as u64;
        match &mut self.phase {
            Phase::Holding(reply) => {
                if reply.is_closed() {
                    self.client_gone = true;
                    return;
                }
                self.held.extend(chunk);
                if !self.held.is_empty() && self.held.len() >= self.options.buffer_size {
                    self.start_streaming();
                }
            }
            Phase::Streaming(sender) => {
                if !chunk.is_empty() && sender.send(Ok(Bytes::from(chunk))).await.is_err() {
                    self.client_gone = true;
                }
            }
            Phase::Ended => {}
        }
    }

    fn headers(&self, summary_figures: bool) -> Vec<(HeaderName, HeaderValue)> {
        let mut headers = common_headers(&self.options);
        headers.push(header("content-type", self.format.content_type()));
        headers.push(header("x-clickhouse-format", self.format.name()));
        if let Some(encoding) = self.options.encoding {
            headers.push(header("content-encoding", encoding.name()));
        }
        if self.options.progress_header {
            let last = progress(&self.query);
            let noted = self.progress.iter().filter(|p| **p != last);
            for snapshot in noted.chain(std::iter::once(&last)) {
                headers.push(header("x-clickhouse-progress", snapshot));
            }
        }
        if summary_figures {
            headers.push(header(
                "x-clickhouse-summary",
                &summary(&self.query, self.result_bytes),
            ));
        }
        headers
    }

    fn start_streaming(&mut self) {
        let (sender, receiver) = mpsc::channel(CHUNKS_IN_FLIGHT);
        let first = Bytes::from(std::mem::take(&mut self.held));
        let rest = tokio_stream_of(receiver);
        let body = StreamBody::new(
            futures::stream::once(async move { Ok(first) })
                .chain(rest)
                .map(|chunk| chunk.map(Frame::data)),
        );
        let reply = Reply {
            status: StatusCode::OK,
            headers: self.headers(true),
            body: BodyExt::boxed(body),
        };
        if let Phase::Holding(tx) = std::mem::replace(&mut self.phase, Phase::Streaming(sender))
            && tx.send(reply).is_err()
        {
            self.client_gone = true;
        }
    }

    /// Sends what is held as the whole response, or closes the stream.
    fn end(&mut self) {
        match std::mem::replace(&mut self.phase, Phase::Ended) {
            Phase::Holding(tx) => {
                let reply = Reply {
                    status: StatusCode::OK,
                    headers: self.headers(true),
                    body: full(std::mem::take(&mut self.held)),
                };
                if tx.send(reply).is_err() {
                    self.client_gone = true;
                }
            }
            Phase::Streaming(_) | Phase::Ended => {}
        }
    }

    /// Answers an error: with its status while holding, else as the
    /// exception block at the end of the body.
    async fn fail(&mut self, error: &StrataError) {
        self.holds = None;
        match std::mem::replace(&mut self.phase, Phase::Ended) {
            Phase::Holding(tx) => {
                let _ = tx.send(error_reply(error, &self.options));
            }
            Phase::Streaming(sender) => {
                log::error!(target: "executeQuery", "{error} (query_id: {})", self.query.query_id);
                let block = exception_block(&self.options.tag, error);
                let mut tail = Vec::new();
                if let Some(mut sink) = self.sink.take() {
                    let written = sink.write_all(&block).and_then(|()| sink.flush());
                    tail = sink.take();
                    if written.is_ok() {
                        tail.extend(sink.finish().unwrap_or_default());
                    }
                }
                let _ = sender.send(Ok(Bytes::from(tail))).await;
            }
            Phase::Ended => {}
        }
        log::debug!(
            "query {} failed: {}",
            self.query.query_id,
            if error.code == ErrorCode::QUERY_WAS_CANCELLED {
                "cancelled"
            } else {
                error.code.name
            }
        );
    }
}

fn tokio_stream_of(
    mut receiver: mpsc::Receiver<std::io::Result<Bytes>>,
) -> impl futures::Stream<Item = std::io::Result<Bytes>> {
    futures::stream::poll_fn(move |cx| receiver.poll_recv(cx))
}
