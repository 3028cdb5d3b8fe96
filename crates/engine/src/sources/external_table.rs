//! Tables whose rows are kept outside Strata's parts, in a ClickHouse format:
//! `File(format[, path[, compression]])`, one local file (`data.<format>` in
//! the table's directory unless a path inside `user_files_path` is given,
//! which DROP TABLE leaves in place), and `S3(url [, credentials] [, format
//! [, compression]])`, the objects a key or pattern names. Each query reads
//! them anew. An insert appends to the file (its header, if the format has
//! one, written once) or writes a new object (as `INSERT INTO FUNCTION s3`
//! does, under `s3_truncate_on_insert` and `s3_create_new_file_on_insert`).
//!
//! As in ClickHouse, an insert appends to a file in place: a process killed
//! during one leaves the rows written so far, possibly ending in a partial
//! row. An object is stored only once its upload completes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::MemTable;
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan};
use futures::StreamExt;
use parking_lot::RwLock;
use strata_common::{ErrorCode, StrataError};
use strata_formats::encoding::Encoding;
use strata_formats::input::{InputFormat, InputTarget};
use strata_formats::{FormatOptions, OutputFormat, Statistics, format_name_of_file, new_writer};
use strata_storage::disk::ObjectDisk;

use super::file_function::{UserFiles, has_glob};
use super::input_stream::{InputStream, Location, ObjectInput, Source};
use super::inputs_table::InputsTable;
use super::parquet_object::Footer;
use super::s3_function::{S3Arguments, matching_keys, object_key_to_write};
use crate::query_context::QueryContext;
use crate::session::file_sink::{FileSink, open_for_insert};
use crate::table_definition::{ExternalDefinition, ExternalEngine, TableIdentity};

/// Rows per block read from a file or an object.
const BLOCK_ROWS: usize = 65_536;

/// Where an external table's rows are.
#[derive(Debug)]
enum Store {
    /// One local file.
    File(PathBuf),
    /// The objects `pattern` names in `bucket`.
    Objects {
        bucket: Arc<ObjectDisk>,
        pattern: String,
        /// Shown as `[HIDDEN]`.
        secret: Option<String>,
    },
}

/// What reads and inserts share: where the rows are and in what format.
#[derive(Debug)]
struct Files {
    store: Store,
    format_name: String,
    /// The format as read and as written: a table may have only one.
    input: std::result::Result<InputFormat, StrataError>,
    output: std::result::Result<OutputFormat, StrataError>,
    /// The compression given; else each name's own.
    compression: Option<Encoding>,
    /// One insert writes at a time, so rows of two never interleave.
    writing: tokio::sync::Mutex<()>,
}

impl Files {
    fn encoding(&self, name: &str) -> Option<Encoding> {
        self.compression.or_else(|| Encoding::from_file_name(name))
    }
}

#[derive(Debug)]
pub struct ExternalTable {
    schema: SchemaRef,
    identity: RwLock<TableIdentity>,
    /// `DEFAULT` expressions by column, for inserts that leave columns out.
    defaults: HashMap<String, Expr>,
    files: Arc<Files>,
}

impl ExternalTable {
    /// The table `definition` describes; a File table without a path keeps
    /// its file in `table_dir`.
    pub fn open(
        schema: SchemaRef,
        identity: TableIdentity,
        defaults: HashMap<String, Expr>,
        definition: &ExternalDefinition,
        table_dir: &Path,
        user_files: &UserFiles,
    ) -> std::result::Result<Self, StrataError> {
        let arguments = &definition.arguments;
        let (store, format, compression) = match definition.engine {
            ExternalEngine::File => {
                let format = arguments[0].clone();
                let path = match arguments.get(1) {
                    Some(path) => user_files.file_to_write(path)?,
                    None => {
                        std::fs::create_dir_all(table_dir)?;
                        table_dir.join(format!("data.{format}"))
                    }
                };
                (Store::File(path), Some(format), arguments.get(2).cloned())
            }
            ExternalEngine::S3 => {
                let s3 = S3Arguments::of_engine_texts(arguments.clone())?;
                let (bucket, pattern) = s3.bucket()?;
                let store = Store::Objects {
                    bucket,
                    pattern,
                    secret: s3.config.secret_access_key,
                };
                (store, s3.file.format, s3.file.compression)
            }
        };
        let format_name = match format {
            Some(format) => format,
            None => store_format(&store)?,
        };
        let input = InputFormat::from_name(&format_name);
        let output = OutputFormat::from_name(&format_name);
        if let (Err(error), Err(_)) = (&input, &output) {
            return Err(error.clone());
        }
        let compression = compression
            .map(|name| Encoding::from_compression_name(&name))
            .transpose()?
            .flatten();
        let files = Files {
            store,
            format_name,
            input,
            output,
            compression,
            writing: tokio::sync::Mutex::new(()),
        };
        Ok(ExternalTable {
            schema,
            identity: RwLock::new(identity),
            defaults,
            files: Arc::new(files),
        })
    }

    pub fn identity(&self) -> TableIdentity {
        self.identity.read().clone()
    }

    pub fn set_identity(&self, identity: TableIdentity) {
        *self.identity.write() = identity;
    }

    pub fn engine_name(&self) -> &'static str {
        match self.files.store {
            Store::File(_) => "File",
            Store::Objects { .. } => "S3",
        }
    }

    /// The table's CREATE statement with its secret key as `[HIDDEN]`, as
    /// SHOW CREATE TABLE and system.tables show it.
    pub fn shown_statement(&self) -> String {
        let statement = self.identity.read().create_statement.clone();
        match &self.files.store {
            Store::Objects {
                secret: Some(secret),
                ..
            } => {
                let quoted = strata_sql::literal_text::quoted(secret);
                statement.replace(&quoted, "'[HIDDEN]'")
            }
            _ => statement,
        }
    }

    /// Removes every row (TRUNCATE): the file is emptied, the object
    /// removed; a pattern of keys is refused, as ClickHouse does.
    pub async fn truncate(&self) -> std::result::Result<(), StrataError> {
        let _writing = self.files.writing.lock().await;
        match &self.files.store {
            Store::File(path) => match std::fs::File::options().write(true).open(path) {
                Ok(file) => {
                    file.set_len(0)?;
                    file.sync_data()?;
                    Ok(())
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e.into()),
            },
            Store::Objects {
                bucket, pattern, ..
            } => {
                refuse_pattern(pattern)?;
                bucket.remove(vec![pattern.clone()])
            }
        }
    }

    /// The inputs a query reads: the file unless it is empty, or each
    /// object the pattern names.
    fn inputs(&self, query: Option<&QueryContext>) -> Result<Vec<(String, Location)>> {
        match &self.files.store {
            Store::File(path) => {
                let size = match path.metadata() {
                    Ok(metadata) => Some(metadata.len()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(e) => return Err(StrataError::from(e).into_datafusion()),
                };
                let empty_if_missing =
                    query.is_some_and(|query| query.settings.engine_file_empty_if_not_exists());
                if size.is_none() && !empty_if_missing {
                    return Err(StrataError::new(
                        ErrorCode::FILE_DOESNT_EXIST,
                        format!("File {} doesn't exist", path.display()),
                    )
                    .into_datafusion());
                }
                Ok(match size.unwrap_or(0) {
                    0 => Vec::new(),
                    _ => vec![(
                        path.to_string_lossy().into_owned(),
                        Location::File(path.clone()),
                    )],
                })
            }
            Store::Objects {
                bucket, pattern, ..
            } => Ok(matching_keys(bucket, pattern, false)
                .map_err(StrataError::into_datafusion)?
                .into_iter()
                .map(|(key, object)| {
                    let location = Location::Object(ObjectInput {
                        bucket: Arc::clone(bucket),
                        key: key.clone(),
                        size: object.map(|object| object.size),
                        footer: Footer::default(),
                    });
                    (key, location)
                })
                .collect()),
        }
    }
}

/// The format a store's file or key names by its extension.
fn store_format(store: &Store) -> std::result::Result<String, StrataError> {
    let name = match store {
        Store::File(path) => path.to_string_lossy().into_owned(),
        Store::Objects { pattern, .. } => pattern.clone(),
    };
    format_name_of_file(&name)
        .map(str::to_string)
        .ok_or_else(|| {
            StrataError::new(
                ErrorCode::CANNOT_DETECT_FORMAT,
                format!("The format of '{name}' cannot be told from its name: give it"),
            )
        })
}

/// Refuses to write or remove by a pattern of keys.
fn refuse_pattern(pattern: &str) -> std::result::Result<(), StrataError> {
    if has_glob(pattern) || pattern.contains('{') {
        return Err(StrataError::new(
            ErrorCode::DATABASE_ACCESS_DENIED,
            format!("S3 key '{pattern}' contains globs, so the table is in readonly mode"),
        ));
    }
    Ok(())
}

#[async_trait]
impl TableProvider for ExternalTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.defaults.get(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let query = state.config().get_extension::<QueryContext>();
        let inputs = self.inputs(query.as_deref())?;
        if inputs.is_empty() {
            let empty = MemTable::try_new(self.schema(), vec![Vec::new()])?;
            return empty.scan(state, projection, filters, limit).await;
        }
        let format = self
            .files
            .input
            .clone()
            .map_err(StrataError::into_datafusion)?;
        let target = InputTarget {
            fields: self.schema.fields().iter().cloned().collect(),
            has_default: vec![false; self.schema.fields().len()],
            allow_errors: Default::default(),
        };
        let streams = inputs
            .into_iter()
            .map(|(name, location)| {
                let encoding = self.files.encoding(&name);
                let source = Source::Stored { location, encoding };
                InputStream::new(format, target.clone(), source, BLOCK_ROWS)
            })
            .collect();
        InputsTable::new(self.schema(), streams)
            .scan(state, projection, filters, limit)
            .await
    }

    async fn insert_into(
        &self,
        _: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        _: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let format = self
            .files
            .output
            .clone()
            .map_err(StrataError::into_datafusion)?;
        if let Store::Objects { pattern, .. } = &self.files.store {
            refuse_pattern(pattern).map_err(StrataError::into_datafusion)?;
        }
        let sink = Arc::new(WritingSink {
            schema: self.schema(),
            files: Arc::clone(&self.files),
            format,
        });
        Ok(Arc::new(DataSinkExec::new(input, sink, None)))
    }
}

/// An insert into an external table: its rows appended to the file or
/// written as a new object in the table's format.
#[derive(Debug)]
struct WritingSink {
    schema: SchemaRef,
    files: Arc<Files>,
    format: OutputFormat,
}

impl WritingSink {
    /// The sink the rows go to, and whether it appends after rows already
    /// there (so the format's header is left out).
    fn open(
        &self,
        query: Option<&QueryContext>,
    ) -> std::result::Result<(FileSink, bool), StrataError> {
        let setting = |read: fn(&QueryContext) -> bool| query.is_some_and(read);
        match &self.files.store {
            Store::File(path) => open_for_insert(
                path,
                self.format,
                &self.files.format_name,
                self.files.encoding(&path.to_string_lossy()),
                setting(|q| q.settings.engine_file_truncate_on_insert()),
            ),
            Store::Objects {
                bucket, pattern, ..
            } => {
                let key = object_key_to_write(
                    bucket,
                    pattern.clone(),
                    setting(|q| q.settings.s3_truncate_on_insert()),
                    setting(|q| q.settings.s3_create_new_file_on_insert()),
                )?;
                let encoding = self.files.encoding(&key);
                Ok((FileSink::object(bucket.writer(key), encoding), false))
            }
        }
    }
}

impl DisplayAs for WritingSink {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "WritingSink: {}", self.files.format_name)
    }
}

#[async_trait]
impl DataSink for WritingSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let query = context.session_config().get_extension::<QueryContext>();
        let options = query.as_ref().map_or_else(FormatOptions::default, |q| {
            FormatOptions::from_settings(&q.settings)
        });
        let _writing = self.files.writing.lock().await;
        let (mut sink, appending) = self
            .open(query.as_deref())
            .map_err(StrataError::into_datafusion)?;
        let mut no_header = std::io::sink();
        let header: &mut dyn std::io::Write = match appending {
            true => &mut no_header,
            false => &mut sink,
        };
        let mut writer = new_writer(self.format, Arc::clone(&self.schema), options, header)?;
        let mut rows = 0u64;
        while let Some(batch) = data.next().await {
            let batch = batch?;
            rows += batch.num_rows() as u64;
            writer.write_batch(&mut sink, &batch)?;
        }
        writer.finish(&mut sink, &Statistics::default())?;
        sink.finish().map_err(StrataError::into_datafusion)?;
        Ok(rows)
    }
}
