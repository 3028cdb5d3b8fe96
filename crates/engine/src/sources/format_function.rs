//! The `format(Format, 'structure', data)` table function: rows written in
//! the query as text (or bytes) of an input format, read by the same readers
//! as `INSERT ... FORMAT`, into a table of the structure's columns.
//!
//! Without a structure the columns are inferred from the data, as ClickHouse
//! infers them.

use std::io::Cursor;
use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{Result, ScalarValue};
use datafusion::datasource::MemTable;
use datafusion::logical_expr::Expr;
use strata_common::types::parse_clickhouse_type;
use strata_common::{ErrorCode, StrataError};
use strata_formats::input::infer::infer;
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
            .map(|expr| text_argument(FormatFunction::NAME, expr))
            .collect::<std::result::Result<Vec<_>, StrataError>>()
            .map_err(StrataError::into_datafusion)?;
        let table = match texts.as_slice() {
            [format, structure, data] => read(format, Some(structure), data.clone()),
            [format, data] => read(format, None, data.clone()),
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

/// A constant string (or bytes) argument of the table function `function`.
pub(crate) fn text_argument(
    function: &str,
    expr: &Expr,
) -> std::result::Result<Vec<u8>, StrataError> {
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
        other => Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Table function '{function}': the argument {other} is not a constant string"),
        )),
    }
}

/// Every argument of the table function `function`, each a constant
/// string (`file()` and `s3()` take nothing else).
pub(crate) fn text_arguments(
    function: &str,
    args: &TableFunctionArgs,
) -> std::result::Result<Vec<String>, StrataError> {
    args.exprs()
        .iter()
        .map(|expr| text_argument(function, expr).map(|t| String::from_utf8_lossy(&t).into_owned()))
        .collect()
}

/// The columns of a structure (`'x UInt8, s String'`), as the target of a
/// reader of the table function `function`.
pub(crate) fn target_of_structure(
    function: &str,
    structure: &str,
) -> std::result::Result<InputTarget, StrataError> {
    target_of_columns(&strata_sql::values_function::structure(
        function, structure,
    )?)
}

/// The target of columns given by name and ClickHouse type name.
pub(crate) fn target_of_columns(
    columns: &[(String, String)],
) -> std::result::Result<InputTarget, StrataError> {
    let fields = columns
        .iter()
        .map(|(name, type_name)| Ok(Arc::new(parse_clickhouse_type(type_name)?.field(name))))
        .collect::<std::result::Result<Vec<_>, StrataError>>()?;
    Ok(InputTarget {
        has_default: vec![false; fields.len()],
        fields,
        allow_errors: AllowErrors::default(),
    })
}

/// The table of `data` read as `format` into the columns of `structure`,
/// or of the structure inferred from the data.
fn read(
    format: &[u8],
    structure: Option<&Vec<u8>>,
    data: Vec<u8>,
) -> std::result::Result<Arc<dyn TableProvider>, StrataError> {
    let format = InputFormat::from_name(&String::from_utf8_lossy(format))?;
    let (format, target) = match structure {
        Some(structure) => (
            format,
            target_of_structure(FormatFunction::NAME, &String::from_utf8_lossy(structure))?,
        ),
        None => {
            let inferred = infer(format, Box::new(Cursor::new(data.clone())))?;
            (inferred.format, target_of_columns(&inferred.columns)?)
        }
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
