//! `INSERT INTO t [(columns)] FORMAT <name>`: data written inline after the
//! statement, or given to the session as its input (stdin for the CLI), read
//! in the named format and inserted as one statement, all or nothing.

use std::io::{Cursor, Read};
use std::sync::Arc;

use datafusion::arrow::datatypes::FieldRef;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::common::ScalarValue;
use datafusion::datasource::provider_as_source;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, LogicalPlanBuilder, ident, lit, when};
use datafusion::physical_plan::collect;
use datafusion::sql::sqlparser::ast::{Statement, TableObject};
use strata_common::events::{self, Event};
use strata_common::{ErrorCode, Result, StrataError};
use strata_formats::input::{AllowErrors, InputFormat, InputTarget, omitted_mask_name};
use strata_sql::{FormattedInsert, parse_statement};

use crate::engine::task_context;
use crate::session::{Session, StatementOutcome, single_name};
use crate::sources::input_stream::{InputStream, Source};
use crate::sources::insert_checks::InsertChecksExec;
use crate::sources::materialized_view::TriggerExec;
use crate::table_definition::ColumnKind;

/// Rows per parsed block; the insert gathers blocks into parts of
/// `max_insert_block_size` rows.
const INPUT_BLOCK_ROWS: usize = 65_536;

impl Session {
    /// Data for the next `INSERT ... FORMAT` that has none inline.
    pub fn set_input(&mut self, source: Box<dyn Read + Send + Sync>) {
        self.input = Some(source);
    }

    pub(crate) async fn insert_formatted(
        &mut self,
        insert: FormattedInsert,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        if insert.format == "Values" {
            // Counted as it runs as INSERT ... VALUES.
            let data = match insert.inline_data {
                Some(data) => data,
                None => read_text(self.input.take().ok_or_else(no_data)?).await?,
            };
            return Box::pin(self.execute_statement(&format!("{} VALUES {data}", insert.head)))
                .await;
        }
        events::add(Event::InsertQuery, 1);
        let format = InputFormat::from_name(&insert.format)?;
        let Statement::Insert(mut parsed) =
            parse_statement(&format!("{} SELECT 1", insert.head))?.statement
        else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!(
                    "Syntax error: expected INSERT INTO <table>: {}",
                    insert.head
                ),
            ));
        };
        let TableObject::TableName(name) = &parsed.table else {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "INSERT INTO a table function is not supported",
            ));
        };
        let (database, table_name) = self.table_name(name)?;
        strata_sql::nested_columns::join_insert_columns(&mut parsed.columns);
        let columns: Vec<String> = parsed
            .columns
            .iter()
            .map(crate::statements::insert::column_name)
            .collect();
        self.require_on_table("INSERT", (&database, &table_name), &columns)?;
        let user_table = self.user_table(name).await?;
        let materialized: Vec<String> = user_table
            .identity()
            .special_columns()?
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, extra)| extra.kind == ColumnKind::Materialized)
            .map(|(field, _)| field.name().clone())
            .collect();
        let table = user_table.provider();
        let schema = table.schema();
        let mut fields: Vec<FieldRef> = Vec::new();
        for column in &parsed.columns {
            let column = single_name(column)?;
            if materialized.contains(&column) {
                return Err(StrataError::new(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("Cannot insert column {column}, because it is MATERIALIZED column"),
                ));
            }
            let field = schema.field_with_name(&column).map_err(|_| {
                StrataError::new(
                    ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                    format!("No such column {column} in table {database}.{table_name}"),
                )
            })?;
            if fields.iter().any(|f| f.name() == field.name()) {
                return Err(StrataError::new(
                    ErrorCode::DUPLICATE_COLUMN,
                    format!(
                        "Column {column} in table {database}.{table_name} specified more than once"
                    ),
                ));
            }
            fields.push(Arc::new(field.clone()));
        }
        if fields.is_empty() {
            fields = schema
                .fields()
                .iter()
                .filter(|f| !materialized.contains(f.name()))
                .cloned()
                .collect();
        }
        // Conversion already gives an omitted value its type's default; a
        // mask is needed only where the column's default is something else.
        let has_default = fields
            .iter()
            .map(|f| match table.get_column_default(f.name()) {
                Some(Expr::Literal(value, _)) => {
                    strata_common::types::field_default_value(f).ok().as_ref() != Some(value)
                }
                Some(_) => true,
                None => false,
            })
            .collect();
        let target = InputTarget {
            fields,
            has_default,
            allow_errors: AllowErrors {
                num: self.settings.input_format_allow_errors_num(),
                ratio: self.settings.input_format_allow_errors_ratio(),
            },
        };
        let source: Box<dyn Read + Send> = match insert.inline_data {
            Some(data) => Box::new(Cursor::new(data.into_bytes())),
            None => self.input.take().ok_or_else(no_data)?,
        };

        // Each table column from the data, from its DEFAULT where the data
        // omitted it, or the type's default value.
        let mut columns: Vec<Expr> = Vec::with_capacity(schema.fields().len());
        for field in schema.fields() {
            let name = field.name();
            let default = table.get_column_default(name).cloned();
            let given = target.fields.iter().position(|f| f.name() == name);
            let masked = given.is_some_and(|i| target.has_default[i]);
            let value = match (given.is_some(), default) {
                (true, Some(default)) if masked => {
                    when(ident(omitted_mask_name(name)), default).otherwise(ident(name))?
                }
                (true, _) => ident(name),
                (false, Some(default)) => default,
                (false, None) if field.is_nullable() => {
                    lit(ScalarValue::try_from(field.data_type())?)
                }
                (false, None) => lit(strata_common::types::field_default_value(field)?),
            };
            columns.push(value.alias(name));
        }
        let stream = InputStream::new(
            format,
            target.clone(),
            Source::once(source),
            INPUT_BLOCK_ROWS,
        );
        let input = StreamingTable::try_new(target.schema(), vec![Arc::new(stream)])?;
        let plan = LogicalPlanBuilder::scan("input", provider_as_source(Arc::new(input)), None)?
            .project(columns)?
            .build()?;
        let plan = LogicalPlanBuilder::insert_into(
            plan,
            format!("{database}.{table_name}"),
            provider_as_source(Arc::clone(&table)),
            InsertOp::Append,
        )?
        .build()?;
        let triggers = self.triggers_on(&database, &table_name).await?;
        let query = self.new_query(self.settings.clone());
        let state = self.engine.query_state(&query)?;
        let physical = self.physical_plan(&state, &plan).await?;
        let target = self.insert_target(name).await?;
        let physical = InsertChecksExec::wrap(physical, target, &state)?;
        let physical = TriggerExec::wrap(physical, triggers, state.clone())?;
        self.log_start(&query);
        collect(physical, task_context(&state)).await?;
        Ok(StatementOutcome::Done(query))
    }
}

/// All of `source` as text, read on a blocking thread: an HTTP body's
/// reader blocks on the runtime, which an async task must not do.
async fn read_text(mut source: Box<dyn Read + Send + Sync>) -> Result<String> {
    let read = tokio::task::spawn_blocking(move || {
        let mut data = String::new();
        source.read_to_string(&mut data).map(|_| data)
    })
    .await
    .map_err(|e| StrataError::new(ErrorCode::LOGICAL_ERROR, e.to_string()))?;
    read.map_err(|e| {
        StrataError::new(
            ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
            format!("Cannot read the data to insert: {e}"),
        )
    })
}

fn no_data() -> StrataError {
    StrataError::new(ErrorCode::NO_DATA_TO_INSERT, "No data to insert")
}
