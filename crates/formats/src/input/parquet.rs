//! Parquet: typed columns matched to the target by name; a column the file
//! lacks takes the target column's default. The whole file is read first,
//! since Parquet's metadata is at its end.

use std::io::Read;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};

use super::convert::block_by_name;
use super::{InputBlocks, InputTarget};

pub(crate) struct ParquetReader {
    target: Arc<InputTarget>,
    schema: SchemaRef,
    batches: ParquetRecordBatchReader,
    next_row: u64,
}

fn parquet_error(error: impl std::fmt::Display) -> StrataError {
    StrataError::new(
        ErrorCode::INCORRECT_DATA,
        format!("Error while reading Parquet data: {error}"),
    )
}

impl ParquetReader {
    pub(crate) fn new(
        target: Arc<InputTarget>,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Self> {
        let batches = open(source)?
            .with_batch_size(block_rows)
            .build()
            .map_err(parquet_error)?;
        Ok(ParquetReader {
            schema: target.schema(),
            target,
            batches,
            next_row: 1,
        })
    }
}

/// The whole of `source` as Parquet, its footer read.
fn open(mut source: Box<dyn Read + Send>) -> Result<ParquetRecordBatchReaderBuilder<bytes::Bytes>> {
    let mut bytes = Vec::new();
    source.read_to_end(&mut bytes).map_err(|e| {
        StrataError::new(
            ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
            format!("Cannot read the Parquet data: {e}"),
        )
    })?;
    // The footer's embedded Arrow schema is decoded by arrow-ipc, which
    // panics on some malformed schemas (apache/arrow-rs#10437): a panic
    // there is the data's fault.
    let open = || {
        ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes)).map_err(parquet_error)
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(open))
        .map_err(|_| parquet_error("the file's metadata is malformed"))?
}

/// The columns of Parquet data and their ClickHouse types, from its footer.
pub(crate) fn columns(source: Box<dyn Read + Send>) -> Result<Vec<(String, String)>> {
    let builder = open(source)?;
    Ok(builder
        .schema()
        .fields()
        .iter()
        .map(|field| (field.name().clone(), field_type_name(field)))
        .collect())
}

impl InputBlocks for ParquetReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        let Some(batch) = self.batches.next() else {
            return Ok(None);
        };
        let batch = batch.map_err(parquet_error)?;
        let block = block_by_name(&self.target, &self.schema, &batch, self.next_row)?;
        self.next_row += batch.num_rows() as u64;
        Ok(Some(block))
    }
}
