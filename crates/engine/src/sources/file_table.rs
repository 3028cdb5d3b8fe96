//! The `File(format[, path[, compression]])` table engine: a table whose rows
//! are one file in a ClickHouse format, read anew by each query and appended
//! to by each insert (its header, if the format has one, written once). The
//! file is `data.<format>` in the table's directory unless a path is given
//! (inside `user_files_path`), which DROP TABLE leaves in place.
//!
//! As in ClickHouse, an insert appends in place: a process killed during one
//! leaves the rows written so far, possibly ending in a partial row.

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
use strata_formats::{FormatOptions, OutputFormat, Statistics, new_writer};

use super::input_stream::{InputStream, Location, Source};
use super::inputs_table::InputsTable;
use crate::query_context::QueryContext;
use crate::session::file_sink::open_for_insert;
use crate::table_definition::{FileDefinition, TableIdentity};

/// Rows per block read from the file.
const BLOCK_ROWS: usize = 65_536;

#[derive(Debug)]
pub struct FileTable {
    schema: SchemaRef,
    identity: RwLock<TableIdentity>,
    /// `DEFAULT` expressions by column, for inserts that leave columns out.
    defaults: HashMap<String, Expr>,
    path: PathBuf,
    format_name: String,
    /// The format as read and as written: a table may have only one.
    input: std::result::Result<InputFormat, StrataError>,
    output: std::result::Result<OutputFormat, StrataError>,
    encoding: Option<Encoding>,
    /// One insert appends at a time, so rows of two never interleave.
    appending: Arc<tokio::sync::Mutex<()>>,
}

impl FileTable {
    /// The table over `path`, its formats and compression checked.
    pub fn new(
        schema: SchemaRef,
        identity: TableIdentity,
        defaults: HashMap<String, Expr>,
        definition: &FileDefinition,
        path: PathBuf,
    ) -> std::result::Result<Self, StrataError> {
        let format_name = definition.format.clone();
        let encoding = match &definition.compression {
            Some(name) => Encoding::from_compression_name(name)?,
            None => Encoding::from_file_name(&path.to_string_lossy()),
        };
        let input = InputFormat::from_name(&format_name);
        let output = OutputFormat::from_name(&format_name);
        if let (Err(error), Err(_)) = (&input, &output) {
            return Err(error.clone());
        }
        Ok(FileTable {
            input,
            output,
            schema,
            identity: RwLock::new(identity),
            defaults,
            path,
            format_name,
            encoding,
            appending: Arc::default(),
        })
    }

    pub fn identity(&self) -> TableIdentity {
        self.identity.read().clone()
    }

    pub fn set_identity(&self, identity: TableIdentity) {
        *self.identity.write() = identity;
    }

    /// The file the rows are kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes every row (TRUNCATE): the file is emptied.
    pub async fn truncate(&self) -> std::result::Result<(), StrataError> {
        let _appending = self.appending.lock().await;
        match std::fs::File::options().write(true).open(&self.path) {
            Ok(file) => {
                file.set_len(0)?;
                file.sync_data()?;
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

#[async_trait]
impl TableProvider for FileTable {
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
        let size = match self.path.metadata() {
            Ok(metadata) => Some(metadata.len()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(StrataError::from(e).into_datafusion()),
        };
        let query = state.config().get_extension::<QueryContext>();
        let empty_if_missing =
            query.is_some_and(|query| query.settings.engine_file_empty_if_not_exists());
        if size.is_none() && !empty_if_missing {
            return Err(StrataError::new(
                ErrorCode::FILE_DOESNT_EXIST,
                format!("File {} doesn't exist", self.path.display()),
            )
            .into_datafusion());
        }
        if size.unwrap_or(0) == 0 {
            let empty = MemTable::try_new(self.schema(), vec![Vec::new()])?;
            return empty.scan(state, projection, filters, limit).await;
        }
        let target = InputTarget {
            fields: self.schema.fields().iter().cloned().collect(),
            has_default: vec![false; self.schema.fields().len()],
            allow_errors: Default::default(),
        };
        let source = Source::Stored {
            location: Location::File(self.path.clone()),
            encoding: self.encoding,
        };
        let format = self.input.clone().map_err(StrataError::into_datafusion)?;
        let stream = InputStream::new(format, target, source, BLOCK_ROWS);
        InputsTable::new(self.schema(), vec![stream])
            .scan(state, projection, filters, limit)
            .await
    }

    async fn insert_into(
        &self,
        _: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        _: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let format = self.output.clone().map_err(StrataError::into_datafusion)?;
        let sink = Arc::new(AppendingSink {
            schema: self.schema(),
            path: self.path.clone(),
            format_name: self.format_name.clone(),
            format,
            encoding: self.encoding,
            appending: Arc::clone(&self.appending),
        });
        Ok(Arc::new(DataSinkExec::new(input, sink, None)))
    }
}

/// An insert into a File table: its rows appended in the table's format.
#[derive(Debug)]
struct AppendingSink {
    schema: SchemaRef,
    path: PathBuf,
    format_name: String,
    format: OutputFormat,
    encoding: Option<Encoding>,
    appending: Arc<tokio::sync::Mutex<()>>,
}

impl DisplayAs for AppendingSink {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "AppendingSink: {}", self.path.display())
    }
}

#[async_trait]
impl DataSink for AppendingSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> Result<u64> {
        let query = context.session_config().get_extension::<QueryContext>();
        let (options, truncate) = match &query {
            Some(query) => (
                FormatOptions::from_settings(&query.settings),
                query.settings.engine_file_truncate_on_insert(),
            ),
            None => (FormatOptions::default(), false),
        };
        let _appending = self.appending.lock().await;
        let (mut file, appending) = open_for_insert(
            &self.path,
            self.format,
            &self.format_name,
            self.encoding,
            truncate,
        )
        .map_err(StrataError::into_datafusion)?;
        let mut no_header = std::io::sink();
        let header: &mut dyn std::io::Write = match appending {
            true => &mut no_header,
            false => &mut file,
        };
        let mut writer = new_writer(self.format, Arc::clone(&self.schema), options, header)?;
        let mut rows = 0u64;
        while let Some(batch) = data.next().await {
            let batch = batch?;
            rows += batch.num_rows() as u64;
            writer.write_batch(&mut file, &batch)?;
        }
        writer.finish(&mut file, &Statistics::default())?;
        file.finish().map_err(StrataError::into_datafusion)?;
        Ok(rows)
    }
}

/// A File table's path given in its engine clause, or `data.<format>` in
/// its directory `table_dir`.
pub fn file_of_table(
    definition: &FileDefinition,
    table_dir: &Path,
    user_files: &super::file_function::UserFiles,
) -> std::result::Result<PathBuf, StrataError> {
    match &definition.path {
        Some(path) => user_files.file_to_write(path),
        None => {
            std::fs::create_dir_all(table_dir).map_err(|e| {
                StrataError::new(
                    ErrorCode::CANNOT_OPEN_FILE,
                    format!("Cannot create directory {}: {e}", table_dir.display()),
                )
            })?;
            Ok(table_dir.join(format!("data.{}", definition.format)))
        }
    }
}
