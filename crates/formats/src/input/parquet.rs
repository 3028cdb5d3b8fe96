//! Parquet: typed columns matched to the target by name; a column the file
//! lacks takes the target column's default, and one the target lacks is
//! not read. A file is read a row group at a time through its footer
//! ([`ParquetReader::of_chunks`]), skipping those a filter rules out by
//! their statistics, an object by its owner's reader
//! ([`ParquetReader::of_batches`]); a stream (an insert's body, compressed
//! data) is read whole first, since Parquet's metadata is at its end.

use std::io::Read;
use std::sync::Arc;

use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::physical_optimizer::pruning::PruningPredicate;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::ChunkReader;
use parquet::schema::types::SchemaDescriptor;
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};

use super::convert::block_by_name;
use super::parquet_statistics::pruned;
use super::{InputBlocks, InputTarget};

/// Batches of Parquet data as decoded, before they are matched to the
/// target.
pub type ParquetBatches = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

pub struct ParquetReader {
    target: Arc<InputTarget>,
    schema: SchemaRef,
    batches: ParquetBatches,
    next_row: u64,
}

/// ClickHouse's error for Parquet data that cannot be read.
pub fn parquet_error(error: impl std::fmt::Display) -> StrataError {
    StrataError::new(
        ErrorCode::INCORRECT_DATA,
        format!("Error while reading Parquet data: {error}"),
    )
}

impl ParquetReader {
    /// A reader of a stream of Parquet data, read whole first.
    pub(crate) fn new(
        target: Arc<InputTarget>,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Self> {
        Self::of_chunks(target, read_whole(source)?, block_rows, None)
    }

    /// A reader of Parquet data read by ranges (a file), its column chunks
    /// read as decoded, of the row groups `filter` may match.
    pub fn of_chunks<T: ChunkReader + 'static>(
        target: Arc<InputTarget>,
        data: T,
        block_rows: usize,
        filter: Option<&PruningPredicate>,
    ) -> Result<Self> {
        let builder = pruned(open(data)?, filter);
        let batches = decoded(builder, &target_names(&target), block_rows)?;
        Ok(Self::of_batches(target, batches))
    }

    /// A reader of batches a Parquet reader decodes.
    pub fn of_batches(target: Arc<InputTarget>, batches: ParquetBatches) -> Self {
        ParquetReader {
            schema: target.schema(),
            target,
            batches,
            next_row: 1,
        }
    }
}

/// The names of the target's columns.
pub fn target_names(target: &InputTarget) -> Vec<&str> {
    target.fields.iter().map(|f| f.name().as_str()).collect()
}

/// The columns of a Parquet file with `schema` that a target with columns
/// `names` reads: its top-level columns of those names.
pub fn projection(schema: &SchemaDescriptor, names: &[&str]) -> ProjectionMask {
    let fields = schema.root_schema().get_fields();
    let roots = (0..fields.len()).filter(|&i| names.contains(&fields[i].name()));
    ProjectionMask::roots(schema, roots)
}

/// The batches of `builder`'s file, the target's columns only.
fn decoded<T: ChunkReader + 'static>(
    builder: ParquetRecordBatchReaderBuilder<T>,
    names: &[&str],
    block_rows: usize,
) -> Result<ParquetBatches> {
    let mask = projection(builder.parquet_schema(), names);
    let batches = builder
        .with_projection(mask)
        .with_batch_size(block_rows)
        .build()
        .map_err(parquet_error)?;
    Ok(Box::new(batches.map(|batch| batch.map_err(parquet_error))))
}

/// `data` as Parquet, its footer read.
fn open<T: ChunkReader + 'static>(data: T) -> Result<ParquetRecordBatchReaderBuilder<T>> {
    reading_footer(|| ParquetRecordBatchReaderBuilder::try_new(data).map_err(parquet_error))
}

/// Runs `open`, which reads a footer. The footer's embedded Arrow schema is
/// decoded by arrow-ipc, which panics on some malformed schemas
/// (apache/arrow-rs#10437): a panic there is the data's fault.
pub fn reading_footer<T>(open: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(open))
        .map_err(|_| parquet_error("the file's metadata is malformed"))?
}

/// The columns of a Parquet stream and their ClickHouse types, from its
/// footer.
pub(crate) fn columns(source: Box<dyn Read + Send>) -> Result<Vec<(String, String)>> {
    footer_columns(read_whole(source)?)
}

/// All of a stream's bytes, which Parquet needs before its footer.
fn read_whole(mut source: Box<dyn Read + Send>) -> Result<bytes::Bytes> {
    let mut bytes = Vec::new();
    source.read_to_end(&mut bytes).map_err(|e| {
        StrataError::new(
            ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
            format!("Cannot read the Parquet data: {e}"),
        )
    })?;
    Ok(bytes::Bytes::from(bytes))
}

/// The columns of Parquet data read by ranges (a file) and their
/// ClickHouse types, from its footer.
pub fn footer_columns<T: ChunkReader + 'static>(data: T) -> Result<Vec<(String, String)>> {
    Ok(schema_columns(open(data)?.schema()))
}

/// The columns of a Parquet file's Arrow schema and their ClickHouse types.
pub fn schema_columns(schema: &Schema) -> Vec<(String, String)> {
    schema
        .fields()
        .iter()
        .map(|field| (field.name().clone(), field_type_name(field)))
        .collect()
}

impl InputBlocks for ParquetReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        let Some(batch) = self.batches.next() else {
            return Ok(None);
        };
        let batch = batch?;
        let block = block_by_name(&self.target, &self.schema, &batch, self.next_row)?;
        self.next_row += batch.num_rows() as u64;
        Ok(Some(block))
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::datatypes::{DataType, Field, Fields};
    use parquet::arrow::ArrowSchemaConverter;

    use super::*;

    #[test]
    fn the_projection_takes_whole_top_level_columns_by_name() {
        // Leaves: s.x (0), s.y (1), b (2); top-level columns: s, b.
        let inner = Fields::from(vec![
            Field::new("x", DataType::Int32, true),
            Field::new("y", DataType::Int32, true),
        ]);
        let schema = Schema::new(vec![
            Field::new("s", DataType::Struct(inner), true),
            Field::new("b", DataType::Utf8, true),
        ]);
        let parquet = ArrowSchemaConverter::new().convert(&schema).unwrap();
        let leaves =
            |mask: ProjectionMask| (0..3).map(|i| mask.leaf_included(i)).collect::<Vec<_>>();
        assert_eq!(leaves(projection(&parquet, &["b"])), [false, false, true]);
        assert_eq!(leaves(projection(&parquet, &["s"])), [true, true, false]);
        assert_eq!(leaves(projection(&parquet, &[])), [false, false, false]);
    }
}
