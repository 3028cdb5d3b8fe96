//! Parquet: typed columns matched to the target by name; a column the file
//! lacks takes the target column's default. The whole file is read first,
//! since Parquet's metadata is at its end.

use std::io::Read;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use strata_common::{ErrorCode, Result, StrataError};

use super::convert::{missing_column, to_target};
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
        mut source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Self> {
        let mut bytes = Vec::new();
        source.read_to_end(&mut bytes).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
                format!("Cannot read the data to insert: {e}"),
            )
        })?;
        let batches = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
            .map_err(parquet_error)?
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

impl InputBlocks for ParquetReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        let Some(batch) = self.batches.next() else {
            return Ok(None);
        };
        let batch = batch.map_err(parquet_error)?;
        let rows = batch.num_rows();
        let mut arrays: Vec<ArrayRef> = Vec::new();
        let mut masks: Vec<ArrayRef> = Vec::new();
        for (index, field) in self.target.fields.iter().enumerate() {
            let source = batch.column_by_name(field.name());
            let values = match source {
                Some(values) => Arc::clone(values),
                None => missing_column(field, rows),
            };
            arrays.push(to_target(&values, field, index, self.next_row)?);
            if self.target.has_default[index] {
                let omitted: BooleanArray = match source {
                    Some(_) if field.is_nullable() => vec![false; rows].into(),
                    Some(values) => (0..rows).map(|i| Some(values.is_null(i))).collect(),
                    None => vec![true; rows].into(),
                };
                masks.push(Arc::new(omitted));
            }
        }
        arrays.extend(masks);
        self.next_row += rows as u64;
        Ok(Some(RecordBatch::try_new(
            Arc::clone(&self.schema),
            arrays,
        )?))
    }
}
