//! INSERT with its rows in the statement (VALUES) or from a query; the
//! `FORMAT` form is `insert_format`.

use std::collections::HashMap;

use datafusion::arrow::datatypes::{DataType, Field, SchemaRef};
use datafusion::physical_plan::collect;
use datafusion::sql::sqlparser::ast::{
    Expr as SqlExpr, Ident, Insert, ObjectName, Query, SetExpr, Statement, TableObject, Values,
};
use strata_common::Result;
use strata_common::events::{self, Event};
use strata_common::types::field_type_name;
use strata_sql::constraints::TableConstraint;
use strata_sql::literal_text::{backquoted, quoted};
use strata_sql::parse_statement;
use strata_sql::values_cells::{CellTarget, convert_row, needs_defaults};

use crate::engine::task_context;
use crate::session::{Session, StatementOutcome, single_name};
use crate::sources::insert_checks::{InsertChecksExec, InsertTarget};
use crate::sources::materialized_view::TriggerExec;

impl Session {
    /// INSERT ... VALUES and INSERT ... SELECT, planned and run to the end.
    pub(crate) async fn insert(&mut self, mut insert: Insert) -> Result<StatementOutcome> {
        self.check_writable()?;
        strata_sql::nested_columns::join_insert_columns(&mut insert.columns);
        if Self::inserts_into_file(&insert) {
            return self.insert_into_file(insert).await;
        }
        if let TableObject::TableName(name) = &insert.table {
            let (database, table) = self.table_name(name)?;
            let columns: Vec<String> = insert.columns.iter().map(column_name).collect();
            self.require_on_table("INSERT", (&database, &table), &columns)?;
        }
        events::add(Event::InsertQuery, 1);
        // Columns map by position: a source repeating a column is fine.
        if let Some(source) = insert.source.as_mut() {
            strata_sql::repeated_columns::mark_repeated_columns(source);
        }
        self.insert_column_kinds(&mut insert).await?;
        self.name_insert_source(&mut insert).await?;
        let (triggers, target) = match &insert.table {
            TableObject::TableName(name) => {
                let (database, table) = self.table_name(name)?;
                let triggers = self.triggers_on(&database, &table).await?;
                (triggers, self.insert_target(name).await?)
            }
            _ => (Vec::new(), InsertTarget::default()),
        };
        let (plan, state, query) = self
            .plan(Statement::Insert(insert), self.settings.clone())
            .await?;
        let physical = self.physical_plan(&state, &plan).await?;
        let physical = InsertChecksExec::wrap(physical, target, &state)?;
        let physical = TriggerExec::wrap(physical, triggers, state.clone())?;
        self.log_start(&query);
        collect(physical, task_context(&state)).await?;
        Ok(StatementOutcome::Done(query))
    }

    /// Prepares an INSERT's source for DataFusion's planning:
    /// - a UUID column is read through `toUUID`: DataFusion cannot cast text
    ///   to a UUID. In `VALUES` each value of the column is wrapped (DataFusion
    ///   types `VALUES` as the table's columns), any other source is wrapped
    ///   in a SELECT over its columns by name;
    /// - a Date or DateTime column is read from a query through ClickHouse's
    ///   CAST, which takes numbers (days, seconds) where DataFusion does not;
    /// - when a column left out has a DEFAULT that refers to other columns
    ///   (`DEFAULT id * 2`), the source is wrapped in such a SELECT too:
    ///   DataFusion computes defaults over the source's own column names.
    async fn name_insert_source(&self, insert: &mut Insert) -> Result<()> {
        use datafusion::sql::sqlparser::ast;
        let (TableObject::TableName(name), Some(source)) = (&insert.table, &mut insert.source)
        else {
            return Ok(());
        };
        self.chain_omitted_defaults(name, &insert.columns, source)
            .await?
            .into_iter()
            .for_each(|column| insert.columns.push(ObjectName::from(vec![column])));
        let table = self.user_table(name).await?.provider();
        let schema = table.schema();
        let given: Vec<String> = if insert.columns.is_empty() {
            schema.fields().iter().map(|f| f.name().clone()).collect()
        } else {
            insert
                .columns
                .iter()
                .map(single_name)
                .collect::<Result<_>>()?
        };
        let defaults_need_names = !insert.columns.is_empty()
            && schema.fields().iter().any(|field| {
                !given.contains(field.name())
                    && table
                        .get_column_default(field.name())
                        .is_some_and(|default| !default.column_refs().is_empty())
            });
        // Columns whose type DataFusion cannot cast text to are read by
        // Strata's own function for the type.
        let text_reader = |column: &String| {
            let field = schema.field_with_name(column).ok()?;
            match field.data_type() {
                _ if strata_common::types::is_uuid(field) => {
                    Some(strata_sql::ast_rewrite::TextReader::Uuid)
                }
                _ if strata_common::types::enum_type(field).is_some()
                    || strata_common::types::is_ipv4(field)
                    || strata_common::types::is_ipv6(field)
                    || strata_common::types::interval_type(field).is_some()
                    || strata_common::types::declared_precision(field).is_some() =>
                {
                    Some(strata_sql::ast_rewrite::TextReader::Named(field_type_name(
                        field,
                    )))
                }
                DataType::FixedSizeBinary(width) => Some(
                    strata_sql::ast_rewrite::TextReader::FixedString(*width as u64),
                ),
                _ => None,
            }
        };
        // A Date, DateTime or Map column reads a query's values by
        // ClickHouse's CAST (DataFusion casts no integer to a date, nor an
        // array of pairs to a Map). A NULL date passes as NULL, for
        // `insert_null_as_default` to decide.
        let cast_type = |column: &String| {
            let field = schema.field_with_name(column).ok()?;
            match field.data_type() {
                DataType::Date32 | DataType::Timestamp(..) => {
                    Some(field_type_name(&field.clone().with_nullable(true)))
                }
                DataType::Map(..) => Some(field_type_name(field)),
                _ => None,
            }
        };
        let mut texts_read = !given.iter().any(|c| text_reader(c).is_some());
        let casts = !matches!(source.body.as_ref(), SetExpr::Values(_))
            && given.iter().any(|c| cast_type(c).is_some());
        if let SetExpr::Values(values) = source.body.as_mut() {
            let targets = self.cell_targets(name, &schema, &given, values).await?;
            for row in &mut values.rows {
                let defaulted = match &targets {
                    Some(targets) => convert_row(&mut row.content, targets)?,
                    None => Vec::new(),
                };
                for (i, (value, column)) in row.content.iter_mut().zip(&given).enumerate() {
                    if defaulted.get(i).copied().unwrap_or(false) {
                        continue;
                    }
                    if let Some(reader) = text_reader(column) {
                        *value = reader.read(value.clone());
                    }
                }
            }
            texts_read = true;
        }
        if texts_read && !defaults_need_names && !casts {
            return Ok(());
        }
        let quote = |c: &String| backquoted(c);
        let columns: Vec<String> = given.iter().map(quote).collect();
        let items: Vec<String> = given
            .iter()
            .map(|c| match (text_reader(c), cast_type(c)) {
                (Some(reader), _) if !texts_read => {
                    format!(
                        "{} AS {}",
                        reader.read(ast::Expr::Identifier(ast::Ident::with_quote(
                            '"',
                            c.as_str()
                        ))),
                        quote(c)
                    )
                }
                (_, Some(type_name)) if casts => {
                    format!("CAST({}, {}) AS {}", quote(c), quoted(&type_name), quote(c))
                }
                _ => quote(c),
            })
            .collect();
        let wrapped = format!(
            "SELECT {} FROM ({source}) AS _insert({})",
            items.join(", "),
            columns.join(", ")
        );
        let Statement::Query(query) = parse_statement(&wrapped)?.statement else {
            unreachable!("a SELECT parses as a query");
        };
        insert.source = Some(query);
        Ok(())
    }
}

impl Session {
    /// Where a left-out column's DEFAULT reads another left-out column
    /// (`c DEFAULT a + b`, `b DEFAULT 7`), which DataFusion cannot compute:
    /// the source gives every left-out column with a DEFAULT itself, as
    /// `DEFAULT` cells in VALUES or as the expressions over a SELECT's
    /// columns, so ClickHouse's chains work. Returns the columns added.
    async fn chain_omitted_defaults(
        &self,
        name: &ObjectName,
        listed: &[ObjectName],
        source: &mut Query,
    ) -> Result<Vec<Ident>> {
        if listed.is_empty() {
            return Ok(Vec::new());
        }
        let given: Vec<String> = listed.iter().map(single_name).collect::<Result<_>>()?;
        let table = self.user_table(name).await?;
        let identity = table.identity();
        let provider = table.provider();
        let omitted = |field: &Field| !given.contains(field.name());
        let chained = provider.schema().fields().iter().any(|field| {
            omitted(field)
                && provider
                    .get_column_default(field.name())
                    .is_some_and(|default| {
                        default
                            .column_refs()
                            .iter()
                            .any(|c| !given.contains(&c.name))
                    })
        });
        if !chained {
            return Ok(Vec::new());
        }
        let defaults: Vec<(Ident, SqlExpr)> = identity
            .declared_columns()?
            .into_iter()
            .filter(|(field, _)| omitted(field))
            .filter_map(|(field, extra)| Some((Ident::new(field.name()), extra.default?)))
            .collect();
        if let SetExpr::Values(values) = source.body.as_mut() {
            let keyword = SqlExpr::Identifier(Ident::new("DEFAULT"));
            for row in &mut values.rows {
                row.content.extend(defaults.iter().map(|_| keyword.clone()));
            }
        } else {
            let quote = |c: &String| backquoted(c);
            let columns: Vec<String> = given.iter().map(quote).collect();
            let computed: Vec<String> = defaults
                .iter()
                .map(|(column, default)| format!("{default} AS {}", quote(&column.value)))
                .collect();
            let wrapped = format!(
                "SELECT _chained.*, {} FROM ({source}) AS _chained({})",
                computed.join(", "),
                columns.join(", ")
            );
            let Statement::Query(query) = parse_statement(&wrapped)?.statement else {
                unreachable!("a SELECT parses as a query");
            };
            *source = *query;
        }
        Ok(defaults.into_iter().map(|(column, _)| column).collect())
    }

    /// The columns VALUES cells go to, for reading each cell as its
    /// column's type; None when a column given is not stored (EPHEMERAL).
    /// DEFAULT expressions are read only when a cell takes one.
    async fn cell_targets<'a>(
        &self,
        name: &ObjectName,
        schema: &'a SchemaRef,
        given: &'a [String],
        values: &Values,
    ) -> Result<Option<Vec<CellTarget<'a>>>> {
        let Some(fields) = given
            .iter()
            .map(|c| schema.field_with_name(c).ok())
            .collect::<Option<Vec<&Field>>>()
        else {
            return Ok(None);
        };
        let mut defaults: HashMap<String, SqlExpr> = HashMap::new();
        let rows = values.rows.iter().map(|row| row.content.as_slice());
        if needs_defaults(rows, &fields) {
            let declared = self.user_table(name).await?.identity().declared_columns()?;
            for (field, extra) in declared {
                if let Some(default) = extra.default {
                    defaults.insert(field.name().clone(), default);
                }
            }
        }
        let targets = given
            .iter()
            .zip(fields)
            .map(|(column, field)| CellTarget {
                name: column,
                field,
                default: defaults.get(column).cloned(),
            })
            .collect();
        Ok(Some(targets))
    }
}

impl Session {
    /// What an INSERT into the table `name` checks its rows for.
    pub(crate) async fn insert_target(&self, name: &ObjectName) -> Result<InsertTarget> {
        let identity = self.user_table(name).await?.identity();
        let constraints: Vec<TableConstraint> = identity
            .constraints()?
            .into_iter()
            .filter(|c| !c.assume)
            .collect();
        let mut exprs: Vec<SqlExpr> = constraints.iter().map(|c| c.expr.clone()).collect();
        self.rewrite_exprs(&mut exprs)?;
        Ok(InsertTarget {
            name: format!("{} ({})", identity.qualified_name(), identity.uuid),
            constraints: constraints.into_iter().zip(exprs).collect(),
        })
    }
}

/// An insert's column as named, without quotes.
pub(crate) fn column_name(name: &ObjectName) -> String {
    name.0
        .last()
        .map(|part| part.to_string().trim_matches(['`', '"']).to_string())
        .unwrap_or_default()
}
