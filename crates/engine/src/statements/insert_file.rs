//! `INSERT INTO FUNCTION file(path [, format [, structure [, compression]]])
//! SELECT ...`: the rows written to a file in an output format, appended
//! after what the file holds (its header left out) where the format allows,
//! as ClickHouse does. `INSERT INTO FUNCTION s3(url, ...)` writes a new
//! object; one that exists is replaced (`s3_truncate_on_insert`) or kept
//! beside a new one numbered `name.1.ext` (`s3_create_new_file_on_insert`),
//! else the insert is refused.

use datafusion::sql::sqlparser::ast::{
    Expr as SqlExpr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Insert, Statement,
    TableObject, Value,
};
use std::path::PathBuf;
use std::sync::Arc;

use strata_common::{ErrorCode, Result, StrataError};
use strata_formats::{OutputFormat, format_name_of_file};
use strata_sql::TrailingClauses;
use strata_sql::literal_text::backquoted;
use strata_storage::disk::ObjectDisk;

use crate::session::file_sink::{FileSink, open_for_insert};
use crate::session::{Session, StatementOutcome};
use crate::sources::file_function::{self, FileArguments, UserFiles};
use crate::sources::s3_function::{self, S3Arguments, object_key_to_write};

/// A table function's arguments in an INSERT, formats as bare words or
/// strings.
fn argument_texts(function: &Function) -> Result<Vec<String>> {
    let FunctionArguments::List(list) = &function.args else {
        return Ok(Vec::new());
    };
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(SqlExpr::Identifier(word))) => {
                Ok(word.value.clone())
            }
            FunctionArg::Unnamed(FunctionArgExpr::Expr(SqlExpr::Value(value))) => {
                match &value.value {
                    Value::SingleQuotedString(text) => Ok(text.clone()),
                    other => Err(not_a_string(function, other)),
                }
            }
            other => Err(not_a_string(function, other)),
        })
        .collect()
}

fn not_a_string(function: &Function, arg: &impl std::fmt::Display) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!(
            "Table function '{}': the argument {arg} is not a constant string",
            function.name
        ),
    )
}

/// Where an INSERT INTO FUNCTION writes.
enum Target {
    File(PathBuf),
    Object {
        bucket: Arc<ObjectDisk>,
        key: String,
    },
}

impl Target {
    /// The file's path or the object's key, which names the compression.
    fn name(&self) -> String {
        match self {
            Target::File(path) => path.to_string_lossy().into_owned(),
            Target::Object { key, .. } => key.clone(),
        }
    }
}

/// The output format the arguments give, else the one the path's name gives.
fn output_format(arguments: &FileArguments) -> Result<(OutputFormat, String)> {
    let name = match &arguments.format {
        Some(name) => name.as_str(),
        None => format_name_of_file(&arguments.path).ok_or_else(|| {
            StrataError::new(
                ErrorCode::CANNOT_DETECT_FORMAT,
                format!(
                    "The format of '{}' cannot be told from the file name: give it, file(path, CSV)",
                    arguments.path
                ),
            )
        })?,
    };
    Ok((OutputFormat::from_name(name)?, name.to_string()))
}

impl Session {
    /// Whether `insert` writes into `file()` or `s3()` rather than a table.
    pub(crate) fn inserts_into_file(insert: &Insert) -> bool {
        matches!(&insert.table, TableObject::TableFunction(function)
            if [file_function::NAME, s3_function::NAME]
                .iter()
                .any(|name| function.name.to_string().eq_ignore_ascii_case(name)))
    }

    pub(crate) async fn insert_into_file(&mut self, insert: Insert) -> Result<StatementOutcome> {
        let TableObject::TableFunction(function) = &insert.table else {
            return Err(StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                "an insert into file() names file()",
            ));
        };
        let texts = argument_texts(function)?;
        let (arguments, target) = if function
            .name
            .to_string()
            .eq_ignore_ascii_case(s3_function::NAME)
        {
            let s3 = S3Arguments::of_texts(texts)?;
            let (bucket, key) = s3.bucket()?;
            (s3.file, Target::Object { bucket, key })
        } else {
            let arguments = FileArguments::of_texts(texts)?;
            let user_files =
                UserFiles::from_setting(&self.engine.instance.server_settings.user_files_path());
            let path = user_files.file_to_write(&arguments.path)?;
            (arguments, Target::File(path))
        };
        if !insert.columns.is_empty() {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "INSERT INTO FUNCTION with a column list: give the columns in the structure",
            ));
        }
        let source = insert.source.ok_or_else(|| {
            StrataError::new(
                ErrorCode::NO_DATA_TO_INSERT,
                format!("No data to insert into {}()", function.name),
            )
        })?;
        let (format, format_name) = output_format(&arguments)?;
        let encoding = arguments.encoding(&target.name())?;
        let query = match &arguments.structure {
            Some(structure) => self.cast_to_structure(*source, structure).await?,
            None => source,
        };
        let StatementOutcome::Rows(rows) = self.select(query, &TrailingClauses::default()).await?
        else {
            return Err(StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                "a SELECT has rows",
            ));
        };
        let context = std::sync::Arc::clone(&rows.query);
        let (mut sink, appending) = match target {
            Target::File(path) => open_for_insert(
                &path,
                format,
                &format_name,
                encoding,
                self.settings.engine_file_truncate_on_insert(),
            )?,
            Target::Object { bucket, key } => {
                let key = object_key_to_write(
                    &bucket,
                    key,
                    self.settings.s3_truncate_on_insert(),
                    self.settings.s3_create_new_file_on_insert(),
                )?;
                (FileSink::object(bucket.writer(key), encoding), false)
            }
        };
        rows.write_rows(format, &mut sink, appending).await?;
        sink.finish()?;
        Ok(StatementOutcome::Done(context))
    }

    /// `source` under a SELECT that casts its columns, by position, to the
    /// structure's names and types.
    async fn cast_to_structure(
        &self,
        source: datafusion::sql::sqlparser::ast::Query,
        structure: &str,
    ) -> Result<Box<datafusion::sql::sqlparser::ast::Query>> {
        let columns = strata_sql::values_function::structure(file_function::NAME, structure)?;
        let (plan, _, _) = self
            .plan(
                Statement::Query(Box::new(source.clone())),
                self.settings.clone(),
            )
            .await?;
        let width = plan.schema().fields().len();
        if width != columns.len() {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_COLUMNS_DOESNT_MATCH,
                format!(
                    "Number of columns doesn't match (source: {width} and result: {})",
                    columns.len()
                ),
            ));
        }
        let positions: Vec<String> = (1..=width).map(|i| format!("_{i}")).collect();
        let casts: Vec<String> = columns
            .iter()
            .zip(&positions)
            .map(|((name, type_name), position)| {
                format!("CAST({position} AS {type_name}) AS {}", backquoted(name))
            })
            .collect();
        let sql = format!(
            "SELECT {} FROM ({source}) AS _source({})",
            casts.join(", "),
            positions.join(", ")
        );
        match strata_sql::parse_statement(&sql)?.statement {
            Statement::Query(query) => Ok(query),
            _ => Err(StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                "a SELECT parses as a query",
            )),
        }
    }
}
