//! The result stream of a query: counts result rows and writes the query's
//! last system.query_log entry when it ends, fails, or is dropped unfinished.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use strata_common::{ErrorCode, StrataError, events};

use crate::access::quotas::QuotaTicket;
use crate::instance::Instance;
use crate::query_context::QueryContext;
use crate::query_log::LogType;

/// A query's result stream, logged when it ends.
pub(super) struct LoggedStream {
    pub(super) inner: SendableRecordBatchStream,
    pub(super) query: Arc<QueryContext>,
    pub(super) instance: Arc<Instance>,
    /// Where the query's usage is counted, if a quota applies.
    pub(super) quota: Option<QuotaTicket>,
}

impl LoggedStream {
    fn finish(&self, error: Option<&StrataError>) {
        let kind = match error {
            Some(_) => LogType::ExceptionWhileProcessing,
            None => LogType::QueryFinish,
        };
        self.instance
            .finish_query(kind, &self.query, error, self.quota.as_ref());
    }
}

impl futures::Stream for LoggedStream {
    type Item = datafusion::common::Result<RecordBatch>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        // The query's work done while its result is pulled counts for it.
        let this = &mut *self;
        let polled = events::in_scope(Some(&this.query.events), || this.inner.poll_next_unpin(cx));
        match polled {
            std::task::Poll::Ready(Some(Ok(batch))) => {
                let bytes = batch.get_array_memory_size() as u64;
                self.query.add_result(batch.num_rows() as u64, bytes);
                std::task::Poll::Ready(Some(Ok(batch)))
            }
            std::task::Poll::Ready(Some(Err(e))) => {
                // Classified once here, so the log and the caller see the same error.
                let error = StrataError::from_datafusion(e);
                self.finish(Some(&error));
                std::task::Poll::Ready(Some(Err(error.into_datafusion())))
            }
            std::task::Poll::Ready(None) => {
                self.finish(None);
                std::task::Poll::Ready(None)
            }
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

impl datafusion::physical_plan::RecordBatchStream for LoggedStream {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }
}

impl Drop for LoggedStream {
    fn drop(&mut self) {
        if self.query.is_cancelled() {
            let error = StrataError::new(ErrorCode::QUERY_WAS_CANCELLED, "Query was cancelled");
            self.finish(Some(&error));
        } else {
            self.finish(None);
        }
    }
}
