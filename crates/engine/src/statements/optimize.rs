//! OPTIMIZE TABLE [PARTITION p] [FINAL]: merges a MergeTree table's parts now.

use datafusion::sql::sqlparser::ast::{Expr, ObjectName, Partition, Value};
use strata_common::{ErrorCode, Result, StrataError};

use crate::session::{Session, StatementOutcome, UserTable};

impl Session {
    pub(crate) async fn optimize(
        &self,
        name: &ObjectName,
        partition: Option<Partition>,
        include_final: bool,
        deduplicate: bool,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        if deduplicate {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "OPTIMIZE ... DEDUPLICATE is not supported yet",
            ));
        }
        self.require_on_name("OPTIMIZE", name, &[])?;
        let UserTable::MergeTree(table) = self.user_table(name).await? else {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "OPTIMIZE is supported only for MergeTree tables",
            ));
        };
        let partition_id = partition.map(|p| partition_id_text(&p)).transpose()?;
        // As ClickHouse's merges apply TTL, so does OPTIMIZE.
        table.apply_ttl_now()?;
        table.optimize(partition_id.as_deref(), include_final)?;
        self.done()
    }
}

/// The partition id an `OPTIMIZE ... PARTITION` names: `ID 'id'` or a value
/// written as its id reads (`PARTITION 202401`, `PARTITION tuple()`).
pub(crate) fn partition_id_text(partition: &Partition) -> Result<String> {
    match partition {
        Partition::Identifier(id) => Ok(id.value.clone()),
        Partition::Expr(Expr::Value(value)) => Ok(match &value.value {
            Value::SingleQuotedString(text) => text.replace('-', ""),
            other => other.to_string(),
        }),
        Partition::Expr(Expr::Function(f)) if f.to_string().eq_ignore_ascii_case("tuple()") => {
            Ok(strata_storage::merge_tree::keys::WHOLE_TABLE_PARTITION.to_string())
        }
        other => Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!("PARTITION {other} is not supported yet; use PARTITION ID 'id'"),
        )),
    }
}
