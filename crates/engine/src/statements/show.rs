//! SHOW DATABASES, SHOW TABLES, SHOW CREATE TABLE, DESCRIBE and EXISTS, and
//! the FORMAT and SETTINGS clauses these and KILL may end with.

use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, StringArray, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::sql::sqlparser::ast::{
    ObjectName, ShowStatementFilter, ShowStatementFilterPosition, ShowStatementOptions, Statement,
};
use strata_common::pretty_types::{Spread, pretty_type_name};
use strata_common::{ErrorCode, Result, StrataError};
use strata_formats::OutputFormat;
use strata_sql::literal_text::quoted;
use strata_sql::{TrailingClauses, parse_object_name, parse_statement, split_trailing_clauses};

use crate::session::{
    Session, StatementOutcome, UserTable, single_name, strings_result, strip_keyword,
};
use crate::table_definition::ColumnDescription;
use crate::table_definition::inline_disk::hide_secrets;

/// A SHOW statement's `[NOT] LIKE`, `ILIKE` or `WHERE` and `LIMIT` over
/// `select`, ordered by `column`, which the filter patterns match.
fn filtered(select: String, column: &str, options: &ShowStatementOptions) -> String {
    let filter = options.filter_position.as_ref().map(|p| match p {
        ShowStatementFilterPosition::Infix(f) | ShowStatementFilterPosition::Suffix(f) => f,
    });
    let condition = match filter {
        Some(ShowStatementFilter::Like(p) | ShowStatementFilter::NoKeyword(p)) => {
            format!("{column} LIKE {}", quoted(p))
        }
        Some(ShowStatementFilter::ILike(p)) => format!("{column} ILIKE {}", quoted(p)),
        Some(ShowStatementFilter::Where(e)) => e.to_string(),
        None => "1".to_string(),
    };
    let limit = options
        .limit
        .as_ref()
        .map(|l| format!(" LIMIT {l}"))
        .unwrap_or_default();
    format!("SELECT * FROM ({select}) WHERE {condition} ORDER BY {column}{limit}")
}

impl Session {
    /// A SHOW, EXISTS or KILL statement whose trailing clauses were split
    /// off: it runs with their settings and its rows take their format.
    pub(crate) async fn with_output_clauses(
        &mut self,
        body: &str,
        clauses: TrailingClauses,
    ) -> Result<StatementOutcome> {
        let format = clauses
            .format
            .as_deref()
            .map(OutputFormat::from_name)
            .transpose()?;
        let settings = self.settings_with(&clauses.settings)?;
        let session_settings = std::mem::replace(&mut self.settings, settings);
        let outcome = Box::pin(self.execute_statement(body)).await;
        self.settings = session_settings;
        let mut outcome = outcome?;
        if let StatementOutcome::Rows(result) = &mut outcome {
            result.format = format.or(result.format.take());
        }
        Ok(outcome)
    }

    /// `EXISTS [TEMPORARY] [TABLE | DATABASE | VIEW | DICTIONARY] name`: one
    /// UInt8 `result`, 1 when the object exists as that kind.
    pub(crate) async fn exists(&self, rest: &str) -> Result<StatementOutcome> {
        let (temporary, rest) = match leading_word(rest, &["TEMPORARY"]) {
            Some((_, rest)) => (true, rest),
            None => (false, rest),
        };
        let kinds = ["TABLE", "DATABASE", "VIEW", "DICTIONARY"];
        let (kind, rest) = leading_word(rest, &kinds).unwrap_or(("TABLE", rest));
        let name = parse_object_name(rest.trim())?;
        let exists = match kind {
            "DATABASE" => self.engine.catalog.schema(&single_name(&name)?).is_some(),
            "VIEW" => self.view(&name).await?.is_some(),
            // Strata has no dictionaries.
            "DICTIONARY" => false,
            _ if temporary => {
                name.0.len() == 1 && self.temporary_database_of(&single_name(&name)?).is_some()
            }
            _ => {
                let (database, table) = self.table_in_database(&name)?;
                self.engine
                    .catalog
                    .schema(&database)
                    .is_some_and(|schema| schema.table_exist(&table))
            }
        };
        let schema = Arc::new(Schema::new(vec![Field::new(
            "result",
            DataType::UInt8,
            false,
        )]));
        let column = Arc::new(UInt8Array::from(vec![u8::from(exists)]));
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![column])?;
        self.rows(schema, vec![batch])
    }

    pub(crate) async fn show_databases(
        &mut self,
        options: ShowStatementOptions,
    ) -> Result<StatementOutcome> {
        let mut sql = "SELECT name FROM system.databases WHERE 1".to_string();
        if !self.sees_everything()? {
            // Only the databases the user holds some privilege in.
            let mut visible = Vec::new();
            for name in self.engine.catalog.schema_names() {
                if self.may_show(&[&name])? {
                    visible.push(name);
                }
            }
            sql.push_str(&format!(" AND {}", name_in(&visible)));
        }
        Box::pin(self.execute(&filtered(sql, "name", &options))).await
    }

    /// `SHOW [FULL] COLUMNS FROM t [FROM db]`: ClickHouse's MySQL-like view
    /// of `system.columns`.
    pub(crate) async fn show_columns(
        &mut self,
        full: bool,
        options: ShowStatementOptions,
    ) -> Result<StatementOutcome> {
        let Some(name) = options
            .show_in
            .as_ref()
            .and_then(|i| i.parent_name.as_ref())
        else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "SHOW COLUMNS expects FROM table",
            ));
        };
        let (database, table) = self.table_name(name)?;
        self.require_show(&[&database, &table])?;
        let full_columns = match full {
            true => ", CAST(NULL AS Nullable(String)) AS collation, comment, '' AS privileges",
            false => "",
        };
        let sql = format!(
            "SELECT name AS field, type, if(startsWith(type, 'Nullable('), 'YES', 'NO') AS `null`, \
             trim(concat(if(is_in_primary_key, 'PRI ', ''), if(is_in_sorting_key, 'SOR', ''))) AS key, \
             if(default_expression = '', NULL, default_expression) AS default, '' AS extra{full_columns} \
             FROM system.columns WHERE database = {} AND table = {}",
            quoted(&database),
            quoted(&table)
        );
        Box::pin(self.execute(&filtered(sql, "field", &options))).await
    }

    pub(crate) async fn show_tables(
        &mut self,
        options: ShowStatementOptions,
    ) -> Result<StatementOutcome> {
        let database = match options
            .show_in
            .as_ref()
            .and_then(|i| i.parent_name.as_ref())
        {
            Some(name) => single_name(name)?,
            None => self.current_database.clone(),
        };
        self.engine.database_exists(&database)?;
        let mut sql = format!(
            "SELECT name FROM system.tables WHERE database = {}",
            quoted(&database)
        );
        if !self.sees_everything()? {
            // Only the tables the user holds some privilege on.
            let mut visible = Vec::new();
            for table in self.database(&database)?.table_names() {
                if self.may_show(&[&database, &table])? {
                    visible.push(table);
                }
            }
            sql.push_str(&format!(" AND {}", name_in(&visible)));
        }
        Box::pin(self.execute(&filtered(sql, "name", &options))).await
    }

    pub(crate) async fn show_create_table(&self, name: &ObjectName) -> Result<StatementOutcome> {
        let (database, table) = self.table_name(name)?;
        self.require_show(&[&database, &table])?;
        let statement = match self.view(name).await? {
            Some(view) => self.view_statement(&view).await?,
            None => match self.user_table(name).await? {
                UserTable::External(table) => table.shown_statement(),
                table => hide_secrets(&table.identity().create_statement),
            },
        };
        let (schema, batches) = strings_result("statement", vec![statement])?;
        self.rows(schema, batches)
    }

    pub(crate) async fn describe(&mut self, rest: &str) -> Result<StatementOutcome> {
        let body = rest.trim();
        let mut format = None;
        let mut rows =
            if body.starts_with('(') || strip_keyword(body, &["SELECT", "WITH"]).is_some() {
                let inner = body
                    .strip_prefix('(')
                    .and_then(|b| b.strip_suffix(')'))
                    .unwrap_or(body);
                let (query, settings) = self.parse_query(
                    inner,
                    (
                        ErrorCode::SYNTAX_ERROR,
                        "DESCRIBE expects a table or a query",
                    ),
                )?;
                let (plan, _, _) = self.plan(Statement::Query(query), settings).await?;
                plain_columns(plan.schema().as_arrow())
            } else {
                let name = strip_keyword(body, &["TABLE"]).map_or(body, |(_, r)| r.trim());
                let (name, clauses) = split_trailing_clauses(name)?;
                format = clauses
                    .format
                    .as_deref()
                    .map(OutputFormat::from_name)
                    .transpose()?;
                self.describe_table(&name).await?
            };
        for row in &mut rows {
            row[1] = pretty_type_name(&row[1], 0, Spread::Named);
        }
        let columns = [
            "name",
            "type",
            "default_type",
            "default_expression",
            "comment",
            "codec_expression",
            "ttl_expression",
        ];
        let out_schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|c| Field::new(*c, DataType::Utf8, false))
                .collect::<Vec<_>>(),
        ));
        let arrays = (0..columns.len())
            .map(|i| {
                let values: Vec<&str> = rows.iter().map(|row| row[i].as_str()).collect();
                Arc::new(StringArray::from(values)) as Arc<dyn datafusion::arrow::array::Array>
            })
            .collect();
        let batch = RecordBatch::try_new(Arc::clone(&out_schema), arrays)?;
        let mut outcome = self.rows(out_schema, vec![batch])?;
        if let StatementOutcome::Rows(result) = &mut outcome {
            result.format = format;
        }
        Ok(outcome)
    }

    /// DESCRIBE's rows for a table: a user table's columns as declared (with
    /// their default kinds and codecs), any other's as a query sees them.
    async fn describe_table(&self, name: &str) -> Result<Vec<[String; 7]>> {
        // A table function (`DESCRIBE file('d.csv')`) is described by its columns.
        if name.contains('(') {
            return self.columns_of_select_from(name).await;
        }
        let object = parse_object_name(name)?;
        let (database, table) = self.table_name(&object)?;
        self.require_show(&[&database, &table])?;
        if let Ok(table) = self.user_table(&object).await {
            return Ok(ColumnDescription::of_table(&table.provider())?
                .into_iter()
                .map(|c| {
                    let kind = c.default_kind.to_string();
                    let none = String::new;
                    [
                        c.name,
                        c.type_name,
                        kind,
                        c.default_expression,
                        c.comment,
                        c.codec,
                        none(),
                    ]
                })
                .collect());
        }
        self.columns_of_select_from(name).await
    }

    /// DESCRIBE's rows for the columns `SELECT * FROM {from}` has.
    async fn columns_of_select_from(&self, from: &str) -> Result<Vec<[String; 7]>> {
        let parsed = parse_statement(&format!("SELECT * FROM {from}"))?;
        let Statement::Query(query) = parsed.statement else {
            unreachable!("a SELECT parses as a query")
        };
        let (plan, _, _) = self
            .plan(Statement::Query(query), self.settings.clone())
            .await?;
        Ok(plain_columns(plan.schema().as_arrow()))
    }
}

/// DESCRIBE's rows for columns with no defaults or codecs: a query's.
fn plain_columns(schema: &Schema) -> Vec<[String; 7]> {
    schema
        .fields()
        .iter()
        .map(|field| {
            let c = ColumnDescription::plain(field);
            let none = String::new;
            [c.name, c.type_name, none(), none(), none(), none(), none()]
        })
        .collect()
}

/// `strip_keyword` where the word must be followed by a space (`table_x`
/// is a name, not `TABLE`).
fn leading_word<'a>(text: &'a str, words: &[&'a str]) -> Option<(&'a str, &'a str)> {
    strip_keyword(text, words).filter(|(_, rest)| rest.starts_with(char::is_whitespace))
}

/// `name IN (...)` over `names`; false when there are none.
fn name_in(names: &[String]) -> String {
    if names.is_empty() {
        return "0".to_string();
    }
    let items: Vec<String> = names.iter().map(|n| quoted(n)).collect();
    format!("name IN ({})", items.join(", "))
}
