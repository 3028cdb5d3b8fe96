//! OPTIMIZE TABLE [PARTITION p] [FINAL] [DEDUPLICATE [BY columns]]: merges a
//! MergeTree table's parts now, keeping one of rows that are equal in every
//! column (or in the columns listed).

use datafusion::sql::sqlparser::ast::{Deduplicate, Expr, ObjectName, Partition, Statement, Value};
use strata_common::{ErrorCode, Result, StrataError};

use crate::session::{Session, StatementOutcome, UserTable};
use crate::sources::merge_tree_table::MergeTreeProvider;

impl Session {
    pub(crate) async fn optimize(
        &self,
        name: &ObjectName,
        partition: Option<Partition>,
        include_final: bool,
        deduplicate: Option<Deduplicate>,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        self.require_on_name("OPTIMIZE", name, &[])?;
        let table = match self.user_table(name).await? {
            UserTable::MergeTree(table) => table,
            UserTable::Buffer(buffer) => {
                buffer.flush().await?;
                return self.done();
            }
            other => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!(
                        "Method optimize is not supported by storage {}",
                        other.engine_name()
                    ),
                ));
            }
        };
        let partition_id = match partition {
            Some(partition) => Some(self.partition_id(&table.data, &partition).await?),
            None => None,
        };
        let deduplicate = match deduplicate {
            None => None,
            Some(Deduplicate::All) => Some((0..table.data.schema().fields().len()).collect()),
            Some(Deduplicate::ByExpression(list)) => {
                Some(self.deduplicate_columns(name, &table, &list).await?)
            }
        };
        // As ClickHouse's merges apply TTL, so does OPTIMIZE.
        table.apply_ttl_now()?;
        table.optimize(
            partition_id.as_deref(),
            include_final,
            deduplicate.as_deref(),
        )?;
        self.done()
    }

    /// The columns of `DEDUPLICATE BY list` (names, `*`, `* EXCEPT`,
    /// `COLUMNS('re')`), read as the select list of a query of the table;
    /// they must include every key column.
    async fn deduplicate_columns(
        &self,
        name: &ObjectName,
        table: &MergeTreeProvider,
        list: &Expr,
    ) -> Result<Vec<usize>> {
        let text = match list {
            Expr::Value(v) if let Value::SingleQuotedString(text) = &v.value => text.clone(),
            other => other.to_string(),
        };
        let query = format!("SELECT {text} FROM {name} LIMIT 0");
        let parsed = strata_sql::parser::parse_statement(&query)?;
        let Statement::Query(_) = parsed.statement else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Syntax error: DEDUPLICATE BY {text}"),
            ));
        };
        let planned = self.plan(parsed.statement, self.settings.clone()).await;
        let (plan, _, _) = planned.map_err(|e| match e.code {
            ErrorCode::UNKNOWN_IDENTIFIER => {
                StrataError::new(ErrorCode::NO_SUCH_COLUMN_IN_TABLE, e.message)
            }
            _ => e,
        })?;
        let schema = table.data.schema();
        let mut columns = Vec::new();
        for field in plan.schema().fields() {
            let column = schema.index_of(field.name()).map_err(|_| {
                StrataError::new(
                    ErrorCode::THERE_IS_NO_COLUMN,
                    format!(
                        "DEDUPLICATE BY takes columns of the table, not {}",
                        field.name()
                    ),
                )
            })?;
            columns.push(column);
        }
        let keys = table.data.keys();
        let mut key_columns = keys.sorting_columns();
        key_columns.extend(&keys.partition_columns);
        if let Some(missing) = key_columns.iter().find(|c| !columns.contains(c)) {
            let names: Vec<String> = columns
                .iter()
                .map(|&c| format!("'{}'", schema.field(c).name()))
                .collect();
            return Err(StrataError::new(
                ErrorCode::THERE_IS_NO_COLUMN,
                format!(
                    "DEDUPLICATE BY expression must include all columns used in table's ORDER BY, PRIMARY KEY, or PARTITION BY but '{}' is missing. Expanded DEDUPLICATE BY columns expression: [{}]",
                    schema.field(*missing).name(),
                    names.join(", ")
                ),
            ));
        }
        Ok(columns)
    }
}
