//! Data in an input format as a one-partition stream: an insert's body
//! (read once), or a file of `file()` or an object of `s3()` (opened by
//! each execution), read and parsed on a blocking thread, a block at a
//! time, so data of any size is held only a few blocks at a time (a row
//! group of the columns read, for Parquet).

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{Field, FieldRef, Schema, SchemaRef};
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::common::internal_err;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_optimizer::pruning::PruningPredicate;
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::streaming::PartitionStream;
use parking_lot::Mutex;
use strata_common::events::{self, QueryEvents};
use strata_common::{ErrorCode, StrataError};
use strata_formats::encoding::{Encoding, decoder};
use strata_formats::input::infer::{Inferred, infer};
use strata_formats::input::parquet::{ParquetReader, footer_columns};
use strata_formats::input::{InputBlocks, InputFormat, InputTarget};
use strata_storage::disk::ObjectDisk;

use super::input_columns::{self, InputFacts};
use super::parquet_object::{self, Footer};

/// Blocks handed from the reading thread to the consumer before it waits.
const BLOCKS_IN_FLIGHT: usize = 2;

/// Where a stream's bytes come from.
pub enum Source {
    /// An insert's body, taken by the one execution it allows.
    Once(Mutex<Option<Box<dyn Read + Send>>>),
    /// A file or an object, read anew by each execution.
    Stored {
        location: Location,
        encoding: Option<Encoding>,
    },
}

/// Where a table function's input is kept.
#[derive(Debug, Clone)]
pub enum Location {
    File(PathBuf),
    Object(ObjectInput),
}

/// An object a table function reads.
#[derive(Debug, Clone)]
pub struct ObjectInput {
    pub bucket: Arc<ObjectDisk>,
    pub key: String,
    /// Its size, where a listing or a HEAD gave it (no HEAD to read it).
    pub size: Option<u64>,
    /// Its Parquet footer once read, so inference and the read (and every
    /// scan of the same query) fetch it once.
    pub footer: Footer,
}

impl Location {
    /// Its bytes from the start, as stored.
    pub fn open(&self) -> Result<Box<dyn Read + Send>, StrataError> {
        match self {
            Location::File(path) => Ok(Box::new(open_file(path)?)),
            Location::Object(object) => Ok(Box::new(object.bucket.reader(&object.key)?)),
        }
    }

    /// Its bytes from the start, decoded.
    pub fn open_decoded(
        &self,
        encoding: Option<Encoding>,
    ) -> Result<Box<dyn Read + Send>, StrataError> {
        decoder(encoding, self.open()?)
    }

    /// Where Parquet in `format` and `encoding` can be read by ranges:
    /// stored uncompressed, in a regular file (not a pipe) or an object.
    fn parquet_ranges(
        &self,
        format: InputFormat,
        encoding: Option<Encoding>,
    ) -> Option<Ranges<'_>> {
        if format != InputFormat::Parquet || encoding.is_some() {
            return None;
        }
        match self {
            Location::File(path) => {
                let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
                regular.then_some(Ranges::File(path))
            }
            Location::Object(object) => Some(Ranges::Object(object)),
        }
    }

    /// Its blocks as `target` reads them, in `format`. Parquet stored
    /// uncompressed is read by ranges: its footer, then the column chunks
    /// the target reads, a row group at a time, of the row groups `filter`
    /// may match.
    pub fn blocks(
        &self,
        format: InputFormat,
        encoding: Option<Encoding>,
        target: InputTarget,
        block_rows: usize,
        filter: Option<&PruningPredicate>,
    ) -> Result<Box<dyn InputBlocks>, StrataError> {
        match self.parquet_ranges(format, encoding) {
            Some(Ranges::File(path)) => {
                let (target, file) = (Arc::new(target), open_file(path)?);
                let reader = ParquetReader::of_chunks(target, file, block_rows, filter);
                Ok(Box::new(reader?))
            }
            Some(Ranges::Object(object)) => {
                parquet_object::blocks(object, target, block_rows, filter)
            }
            None => format.open(target, self.open_decoded(encoding)?, block_rows),
        }
    }

    /// The columns of its data in `format` and their ClickHouse types, with
    /// the format to read it in: for Parquet read by ranges, from the
    /// footer alone.
    pub fn infer(
        &self,
        format: InputFormat,
        encoding: Option<Encoding>,
    ) -> Result<Inferred, StrataError> {
        let columns = match self.parquet_ranges(format, encoding) {
            Some(Ranges::File(path)) => footer_columns(open_file(path)?)?,
            Some(Ranges::Object(object)) => parquet_object::columns(object)?,
            None => return infer(format, self.open_decoded(encoding)?),
        };
        Ok(Inferred { format, columns })
    }
}

/// Parquet data read by ranges.
enum Ranges<'a> {
    File(&'a PathBuf),
    Object(&'a ObjectInput),
}

impl Source {
    pub fn once(source: Box<dyn Read + Send>) -> Self {
        Source::Once(Mutex::new(Some(source)))
    }

    /// The source of one execution: the body taken (it can be read only
    /// once), the location copied.
    fn for_execution(&self) -> Result<Source, StrataError> {
        match self {
            Source::Once(pending) => {
                let body = pending.lock().take().ok_or_else(|| {
                    StrataError::new(
                        ErrorCode::LOGICAL_ERROR,
                        "The data to insert was already read",
                    )
                })?;
                Ok(Source::once(body))
            }
            Source::Stored { location, encoding } => Ok(Source::Stored {
                location: location.clone(),
                encoding: *encoding,
            }),
        }
    }

    /// Its blocks as `target` reads them, in `format`.
    fn blocks(
        self,
        format: InputFormat,
        target: InputTarget,
        block_rows: usize,
        filter: Option<&PruningPredicate>,
    ) -> Result<Box<dyn InputBlocks>, StrataError> {
        match self {
            Source::Once(pending) => {
                let body = pending.into_inner().expect("taken for this execution");
                format.open(target, body, block_rows)
            }
            Source::Stored { location, encoding } => {
                location.blocks(format, encoding, target, block_rows, filter)
            }
        }
    }
}

/// `path` opened for reading, with ClickHouse's error for a missing file.
pub fn open_file(path: &std::path::Path) -> Result<std::fs::File, StrataError> {
    std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => StrataError::new(
            ErrorCode::FILE_DOESNT_EXIST,
            format!("File {} doesn't exist", path.display()),
        ),
        _ => StrataError::new(
            ErrorCode::CANNOT_OPEN_FILE,
            format!("Cannot open file {}: {e}", path.display()),
        ),
    })
}

pub struct InputStream {
    schema: SchemaRef,
    block_rows: usize,
    format: InputFormat,
    target: InputTarget,
    source: Source,
    /// The virtual columns' values, where the stream shows them after the
    /// data's columns.
    facts: Option<InputFacts>,
    /// The query's filter, to skip Parquet row groups by their statistics.
    filter: Option<Arc<PruningPredicate>>,
}

impl std::fmt::Debug for InputStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputStream")
            .field("schema", &self.schema)
            .finish()
    }
}

impl InputStream {
    pub fn new(
        format: InputFormat,
        target: InputTarget,
        source: Source,
        block_rows: usize,
    ) -> Self {
        InputStream {
            schema: target.schema(),
            block_rows,
            format,
            target,
            source,
            facts: None,
            filter: None,
        }
    }

    /// The stream with `file()`'s and `s3()`'s virtual columns after the
    /// data's, valued from `facts`.
    pub fn with_virtual_columns(mut self, facts: InputFacts) -> Self {
        self.schema = with_virtual_fields(&self.schema);
        self.facts = Some(facts);
        self
    }

    /// The stream of the columns of its schema at `projection`: a reader
    /// that matches columns by name (Parquet) reads only those, and only
    /// the row groups `filter` may match.
    pub fn projected(
        &self,
        projection: &[usize],
        filter: Option<Arc<PruningPredicate>>,
    ) -> Result<Self, StrataError> {
        let schema = self.schema.project(projection)?;
        Ok(InputStream {
            schema: Arc::new(schema),
            block_rows: self.block_rows,
            format: self.format,
            target: self.target.clone(),
            source: self.source.for_execution()?,
            facts: self.facts.clone(),
            filter,
        })
    }

    /// The values of its virtual columns, where it shows them.
    pub fn facts(&self) -> Option<&InputFacts> {
        self.facts.as_ref()
    }

    /// Whether `name` is a column of the data (which hides a virtual
    /// column of that name).
    pub fn reads_column(&self, name: &str) -> bool {
        self.target.fields.iter().any(|field| field.name() == name)
    }

    /// The target the reader fills: for Parquet, the data's columns the
    /// stream shows (none for `count()`: the row groups' row counts alone);
    /// else all of them.
    fn read_target(&self) -> InputTarget {
        if self.format != InputFormat::Parquet {
            return self.target.clone();
        }
        let shown = |field: &FieldRef| self.schema.field_with_name(field.name()).is_ok();
        let kept: Vec<usize> = (0..self.target.fields.len())
            .filter(|&i| shown(&self.target.fields[i]))
            .collect();
        InputTarget {
            fields: kept
                .iter()
                .map(|&i| Arc::clone(&self.target.fields[i]))
                .collect(),
            has_default: kept.iter().map(|&i| self.target.has_default[i]).collect(),
            allow_errors: self.target.allow_errors,
        }
    }
}

/// `schema` followed by the virtual columns of `file()` and `s3()` that no
/// column of the data hides.
pub fn with_virtual_fields(schema: &SchemaRef) -> SchemaRef {
    let own = schema.fields().iter().map(|f| f.as_ref().clone());
    let shown = input_columns::fields()
        .into_iter()
        .filter(|field| schema.field_with_name(field.name()).is_err());
    let fields: Vec<Field> = own.chain(shown).collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The columns of `schema` from a block the reader filled, by name: the
/// data's first, then the virtual columns `facts` gives.
fn assembled(
    block: RecordBatch,
    facts: Option<&InputFacts>,
    schema: &SchemaRef,
) -> datafusion::common::Result<RecordBatch> {
    let rows = block.num_rows();
    let virtuals = facts.map(|facts| facts.columns(rows)).unwrap_or_default();
    let column = |field: &FieldRef| -> datafusion::common::Result<ArrayRef> {
        if let Some(column) = block.column_by_name(field.name()) {
            return Ok(Arc::clone(column));
        }
        let at = input_columns::NAMES
            .iter()
            .position(|name| name == field.name());
        match at.and_then(|i| virtuals.get(i)) {
            Some(column) => Ok(Arc::clone(column)),
            None => internal_err!("the input stream read no column {}", field.name()),
        }
    };
    let columns = schema
        .fields()
        .iter()
        .map(column)
        .collect::<Result<Vec<_>, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        Arc::clone(schema),
        columns,
        &options,
    )?)
}

impl PartitionStream for InputStream {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let mut builder =
            RecordBatchReceiverStream::builder(Arc::clone(&self.schema), BLOCKS_IN_FLIGHT);
        let sender = builder.tx();
        let source = self.source.for_execution();
        let (format, target, block_rows) = (self.format, self.read_target(), self.block_rows);
        let (facts, schema) = (self.facts.clone(), Arc::clone(&self.schema));
        let filter = self.filter.clone();
        let query = ctx.session_config().get_extension::<QueryEvents>();
        builder.spawn_blocking(move || {
            events::in_scope(query.as_ref(), || {
                let mut blocks = source
                    .and_then(|source| source.blocks(format, target, block_rows, filter.as_deref()))
                    .map_err(StrataError::into_datafusion)?;
                while let Some(block) = blocks.next_block().map_err(StrataError::into_datafusion)? {
                    let block = assembled(block, facts.as_ref(), &schema)?;
                    if sender.blocking_send(Ok(block)).is_err() {
                        break;
                    }
                }
                Ok(())
            })
        });
        builder.build()
    }
}
