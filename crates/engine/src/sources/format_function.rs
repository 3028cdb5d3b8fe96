//! The `format(Format, 'structure', data)` table function: rows written in
//! the query as text (or bytes) of an input format, read by the same readers
//! as `INSERT ... FORMAT`, into a table of the structure's columns.
//!
//! Without a structure ClickHouse infers the columns from the data; Strata
//! has no schema inference yet and asks for the structure.

use std::io::Cursor;
use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{Result, ScalarValue};
use datafusion::datasource::MemTable;
use datafusion::logical_expr::Expr;
use strata_common::types::parse_clickhouse_type;
use strata_common::{ErrorCode, StrataError};
use strata_formats::input::{AllowErrors, InputFormat, InputTarget};

/// Rows per block read from the data.
const BLOCK_ROWS: usize = 65_536;

#[derive(Debug)]
pub struct FormatFunction;

impl FormatFunction {
    pub const NAME: &'static str = strata_sql::format_function::NAME;
}

impl TableFunctionImpl for FormatFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let texts = args
            .exprs()
            .iter()
            .map(text_argument)
            .collect::<std::result::Result<Vec<_>, StrataError>>()
            .map_err(StrataError::into_datafusion)?;
        let table = match texts.as_slice() {
            [format, structure, data] => read(format, structure, data.clone()),
            [_, _] => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "Table function 'format' without a structure needs schema inference, which \
                 Strata does not have yet: give the columns, format(CSV, 'x UInt8, s String', data)",
            )),
            _ => Err(function_error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "takes a format, a structure and the data, got {} arguments",
                    texts.len()
                ),
            )),
        };
        table.map_err(StrataError::into_datafusion)
    }
}

/// A constant string (or bytes) argument.
fn text_argument(expr: &Expr) -> std::result::Result<Vec<u8>, StrataError> {
    match expr {
        Expr::Literal(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)),
            _,
        ) => Ok(s.clone().into_bytes()),
        Expr::Literal(ScalarValue::Binary(Some(b)) | ScalarValue::LargeBinary(Some(b)), _) => {
            Ok(b.clone())
        }
        other => Err(function_error(
            ErrorCode::BAD_ARGUMENTS,
            format!("the argument {other} is not a constant string"),
        )),
    }
}

/// The table of `data` read as `format` into the columns of `structure`.
fn read(
    format: &[u8],
    structure: &[u8],
    data: Vec<u8>,
) -> std::result::Result<Arc<dyn TableProvider>, StrataError> {
    let format = InputFormat::from_name(&String::from_utf8_lossy(format))?;
    let structure = String::from_utf8_lossy(structure);
    let columns = strata_sql::values_function::structure(FormatFunction::NAME, &structure)?;
    let fields = columns
        .iter()
        .map(|(name, type_name)| Ok(Arc::new(parse_clickhouse_type(type_name)?.field(name))))
        .collect::<std::result::Result<Vec<_>, StrataError>>()?;
    let target = InputTarget {
        has_default: vec![false; fields.len()],
        fields,
        allow_errors: AllowErrors::default(),
    };
    let schema = target.schema();
    let mut blocks = format.open(target, Box::new(Cursor::new(data)), BLOCK_ROWS)?;
    let mut batches = Vec::new();
    while let Some(block) = blocks.next_block()? {
        batches.push(block);
    }
    let table = MemTable::try_new(Arc::new(Schema::clone(&schema)), vec![batches])?;
    Ok(Arc::new(table))
}

fn function_error(code: ErrorCode, why: String) -> StrataError {
    StrataError::new(
        code,
        format!("Table function '{}': {why}", FormatFunction::NAME),
    )
}
