//! Parquet objects read by ranges, not whole: the size from the listing
//! or a HEAD, the footer with one GET of the object's tail (once per
//! query: inference and every scan share it), then the column chunks the
//! target reads (ranges close together fetched as one) of each row group a
//! filter's statistics do not rule out, through Parquet's async reader
//! driven on the reading thread. Every request goes through the disk's
//! counted reads.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use datafusion::physical_optimizer::pruning::PruningPredicate;
use futures::StreamExt;
use futures::future::{BoxFuture, ready};
use parquet::arrow::ParquetRecordBatchStreamBuilder;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::arrow::async_reader::{AsyncFileReader, ParquetRecordBatchStream};
use parquet::errors::ParquetError;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use strata_common::{ErrorCode, Result, StrataError};
use strata_formats::input::parquet::{
    ParquetReader, parquet_error, projection, reading_footer, schema_columns, target_names,
};
use strata_formats::input::parquet_statistics::pruned;
use strata_formats::input::{InputBlocks, InputTarget};
use strata_storage::disk::ObjectDisk;

use super::input_stream::ObjectInput;

/// Bytes of an object's tail fetched for its footer: most footers fit, so
/// one GET reads them; a larger one takes a second.
const FOOTER_PREFETCH_BYTES: u64 = 64 * 1024;

/// Object `key` of `bucket`, as Parquet's async reader asks for its bytes.
struct ObjectRanges {
    bucket: Arc<ObjectDisk>,
    key: String,
    size: u64,
}

fn external(error: StrataError) -> ParquetError {
    ParquetError::External(Box::new(error))
}

impl AsyncFileReader for ObjectRanges {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, parquet::errors::Result<Bytes>> {
        let bytes = self.bucket.read_range(&self.key, range);
        Box::pin(ready(bytes.map_err(external)))
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, parquet::errors::Result<Vec<Bytes>>> {
        if ranges.is_empty() {
            // No column chunk to read: the row counts come from the footer.
            return Box::pin(ready(Ok(Vec::new())));
        }
        let parts = self.bucket.read_ranges(&self.key, ranges);
        Box::pin(ready(parts.map_err(external)))
    }

    fn get_metadata<'a>(
        &'a mut self,
        _options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, parquet::errors::Result<Arc<ParquetMetaData>>> {
        Box::pin(async move {
            let prefetch = FOOTER_PREFETCH_BYTES.min(self.size) as usize;
            let reader = ParquetMetaDataReader::new().with_prefetch_hint(Some(prefetch));
            let size = self.size;
            Ok(Arc::new(reader.load_and_finish(self, size).await?))
        })
    }
}

/// An object's size and decoded footer, read once for all the reads of
/// one query.
#[derive(Debug, Clone, Default)]
pub struct Footer(Arc<OnceLock<(u64, ArrowReaderMetadata)>>);

/// The reader of `object` with its footer read (or taken from an earlier
/// read).
fn open(object: &ObjectInput) -> Result<ParquetRecordBatchStreamBuilder<ObjectRanges>> {
    let ranges = |size: u64| ObjectRanges {
        bucket: Arc::clone(&object.bucket),
        key: object.key.clone(),
        size,
    };
    if let Some((size, metadata)) = object.footer.0.get() {
        let builder =
            ParquetRecordBatchStreamBuilder::new_with_metadata(ranges(*size), metadata.clone());
        return Ok(builder);
    }
    let size = match object.size {
        Some(size) => size,
        None => object.bucket.size(&object.key)?.ok_or_else(|| {
            StrataError::new(
                ErrorCode::S3_ERROR,
                format!("{}: The specified key does not exist.", object.key),
            )
        })?,
    };
    let mut reader = ranges(size);
    let metadata = reading_footer(|| {
        let loading = ArrowReaderMetadata::load_async(&mut reader, ArrowReaderOptions::new());
        futures::executor::block_on(loading).map_err(from_parquet)
    })?;
    // Two streams reading at once may both load it: either copy serves.
    let _ = object.footer.0.set((size, metadata.clone()));
    Ok(ParquetRecordBatchStreamBuilder::new_with_metadata(
        reader, metadata,
    ))
}

/// A reader's error: the disk's own where a read failed, else the data's.
fn from_parquet(error: ParquetError) -> StrataError {
    match error {
        ParquetError::External(inner) => match inner.downcast::<StrataError>() {
            Ok(error) => *error,
            Err(other) => parquet_error(other),
        },
        other => parquet_error(other),
    }
}

/// The blocks of Parquet `object` as `target` reads them, of the row
/// groups `filter` may match.
pub(crate) fn blocks(
    object: &ObjectInput,
    target: InputTarget,
    block_rows: usize,
    filter: Option<&PruningPredicate>,
) -> Result<Box<dyn InputBlocks>> {
    let builder = pruned(open(object)?, filter);
    let mask = projection(builder.parquet_schema(), &target_names(&target));
    let stream = builder
        .with_projection(mask)
        .with_batch_size(block_rows)
        .build()
        .map_err(parquet_error)?;
    Ok(Box::new(ParquetReader::of_batches(
        Arc::new(target),
        Box::new(Batches(stream)),
    )))
}

/// The columns of Parquet `object` and their ClickHouse types, from its
/// footer alone.
pub(crate) fn columns(object: &ObjectInput) -> Result<Vec<(String, String)>> {
    Ok(schema_columns(open(object)?.schema()))
}

/// The async stream's batches, each awaited on the reading thread.
struct Batches(ParquetRecordBatchStream<ObjectRanges>);

impl Iterator for Batches {
    type Item = Result<datafusion::arrow::record_batch::RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = futures::executor::block_on(self.0.next())?;
        Some(batch.map_err(from_parquet))
    }
}
