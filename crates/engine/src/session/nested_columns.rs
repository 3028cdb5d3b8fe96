//! The dotted column names (Nested structures' arrays, `n.a`) of the
//! tables a statement reads, for strata-sql's `nested_columns` rewrite.

use datafusion::sql::sqlparser::ast::Statement;
use futures::FutureExt;
use strata_sql::nested_columns::NestedNames;
use strata_sql::virtual_columns::tables_read;

use super::Session;

impl Session {
    /// The dotted column names of the tables `statement` reads. Databases
    /// are in-memory catalogs whose lookups are ready at once; a table not
    /// found gives no names and fails later, in planning, as usual.
    pub(crate) fn nested_names(&self, statement: &Statement) -> NestedNames {
        let mut columns = Vec::new();
        for name in tables_read(statement) {
            let Ok((database, table)) = self.table_name(&name) else {
                continue;
            };
            let Some(database) = self.engine.catalog.schema(&database) else {
                continue;
            };
            let Some(Ok(Some(provider))) = database.table(&table).now_or_never() else {
                continue;
            };
            let schema = provider.schema();
            columns.extend(schema.fields().iter().map(|f| f.name().clone()));
        }
        NestedNames::new(columns)
    }
}
