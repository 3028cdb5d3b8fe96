//! `INSERT INTO FUNCTION file(path [, format [, structure [, compression]]])
//! SELECT ...`: the rows written to a file in an output format, appended
//! after what the file holds (its header left out) where the format allows,
//! as ClickHouse does.

use datafusion::sql::sqlparser::ast::{
    Expr as SqlExpr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Insert, Statement,
    TableObject, Value,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_formats::{OutputFormat, format_name_of_file};
use strata_sql::TrailingClauses;
use strata_sql::literal_text::backquoted;

use crate::session::file_sink::{Existing, FileSink};
use crate::session::{Session, StatementOutcome};
use crate::sources::file_function::{self, FileArguments, UserFiles};

/// `file()`'s arguments in an INSERT, formats as bare words or strings.
fn file_arguments(function: &Function) -> Result<FileArguments> {
    let FunctionArguments::List(list) = &function.args else {
        return FileArguments::of_texts(Vec::new());
    };
    let texts = list
        .args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(SqlExpr::Identifier(word))) => {
                Ok(word.value.clone())
            }
            FunctionArg::Unnamed(FunctionArgExpr::Expr(SqlExpr::Value(value))) => {
                match &value.value {
                    Value::SingleQuotedString(text) => Ok(text.clone()),
                    other => Err(not_a_string(other)),
                }
            }
            other => Err(not_a_string(other)),
        })
        .collect::<Result<Vec<String>>>()?;
    FileArguments::of_texts(texts)
}

fn not_a_string(arg: &impl std::fmt::Display) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!(
            "Table function '{}': the argument {arg} is not a constant string",
            file_function::NAME
        ),
    )
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
    /// Whether `insert` writes into `file()` rather than a table.
    pub(crate) fn inserts_into_file(insert: &Insert) -> bool {
        matches!(&insert.table, TableObject::TableFunction(function)
            if function.name.to_string().eq_ignore_ascii_case(file_function::NAME))
    }

    pub(crate) async fn insert_into_file(&mut self, insert: Insert) -> Result<StatementOutcome> {
        let TableObject::TableFunction(function) = &insert.table else {
            return Err(StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                "an insert into file() names file()",
            ));
        };
        let arguments = file_arguments(function)?;
        if !insert.columns.is_empty() {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "INSERT INTO FUNCTION file(...) with a column list: give the columns in the structure",
            ));
        }
        let source = insert.source.ok_or_else(|| {
            StrataError::new(
                ErrorCode::NO_DATA_TO_INSERT,
                "No data to insert into file()",
            )
        })?;
        let user_files =
            UserFiles::from_setting(&self.engine.instance.server_settings.user_files_path());
        let path = user_files.file_to_write(&arguments.path)?;
        let (format, format_name) = output_format(&arguments)?;
        let encoding = arguments.encoding(&path)?;
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
        let truncate = self.settings.engine_file_truncate_on_insert();
        let appending = !truncate && path.metadata().is_ok_and(|m| m.len() > 0);
        if appending && (!format.supports_append() || encoding.is_some()) {
            return Err(StrataError::new(
                ErrorCode::CANNOT_APPEND_TO_FILE,
                format!(
                    "File {} already exists and data cannot be appended to it in format \
                     {format_name}{}. Set engine_file_truncate_on_insert = 1 to replace its contents",
                    path.display(),
                    if encoding.is_some() {
                        " with compression"
                    } else {
                        ""
                    }
                ),
            ));
        }
        let context = std::sync::Arc::clone(&rows.query);
        let existing = if truncate {
            Existing::Truncate
        } else {
            Existing::Append
        };
        let mut sink = FileSink::open(&path, existing, encoding)?;
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
