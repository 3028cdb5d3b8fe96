//! The `null('structure')` table function: a table of the structure's
//! columns that reads no row (and, as ClickHouse's, drops what is written
//! to it; Strata's is only read).

use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::empty::EmptyTable;
use strata_common::{ErrorCode, StrataError};

use super::format_function::{target_of_structure, text_arguments};

pub const NAME: &str = "null";

#[derive(Debug)]
pub struct NullFunction;

impl TableFunctionImpl for NullFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let texts = text_arguments(NAME, &args).map_err(StrataError::into_datafusion)?;
        let table = match texts.as_slice() {
            [structure] => target_of_structure(NAME, structure).map(|target| {
                Arc::new(EmptyTable::new(Arc::new(Schema::clone(&target.schema()))))
                    as Arc<dyn TableProvider>
            }),
            other => Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Table function '{NAME}' takes one argument, the structure, got {}",
                    other.len()
                ),
            )),
        };
        table.map_err(StrataError::into_datafusion)
    }
}
