//! A function bound to a snapshot of keyed rows: `joinGet` over a Join
//! table, `dictGet` and its family over a dictionary. The rows are taken
//! when the statement is planned; each call looks its keys up in a hash
//! index of them, row by row.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, RecordBatch, UInt8Array, UInt32Array,
};
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::{CastOptions, cast, cast_with_options, concat, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArguments, Ident, ObjectName, VisitorMut,
};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::literal_text::string_value;
use strata_sql::parse_object_name;

/// Rows by key: the key columns' row-format bytes to a row number.
#[derive(Debug)]
pub(crate) struct KeyIndex {
    pub keys: Vec<FieldRef>,
    pub rows: HashMap<Box<[u8]>, u32>,
    /// Rows in all.
    pub len: u32,
}

impl KeyIndex {
    /// The index of `batches`' key columns; the first row of a key wins,
    /// or the last when `last_wins`.
    pub fn build(
        keys: Vec<FieldRef>,
        batches: &[RecordBatch],
        key_columns: &[usize],
        last_wins: bool,
    ) -> Result<KeyIndex> {
        let converter = converter(&keys)?;
        let mut rows = HashMap::new();
        let mut len = 0u32;
        for batch in batches {
            let columns: Vec<ArrayRef> = key_columns
                .iter()
                .map(|&i| batch.column(i).clone())
                .collect();
            for (i, key) in converter.convert_columns(&columns)?.iter().enumerate() {
                let row = len + i as u32;
                if last_wins {
                    rows.insert(key.data().into(), row);
                } else {
                    rows.entry(key.data().into()).or_insert(row);
                }
            }
            len += batch.num_rows() as u32;
        }
        Ok(KeyIndex { keys, rows, len })
    }
}

/// The table or dictionary a call's first argument names: a name, or a
/// string holding one (`'db.t'`); None for anything else.
pub(crate) fn object_argument(expr: &Expr) -> Result<Option<ObjectName>> {
    match expr {
        Expr::Identifier(ident) => Ok(Some(ObjectName::from(vec![ident.clone()]))),
        Expr::CompoundIdentifier(parts) => Ok(Some(ObjectName::from(parts.clone()))),
        other => string_value(other)
            .map(|t| parse_object_name(&t))
            .transpose(),
    }
}

/// Renames the calls `bound` picks to `<prefix><n>`, n counting them in
/// visiting order (as their binding found them), dropping the leading
/// arguments `bound` counts (those that named what the call reads).
pub(crate) struct RenameCalls<F: Fn(&Function) -> Option<usize>> {
    pub prefix: &'static str,
    pub bound: F,
    pub next: usize,
}

impl<F: Fn(&Function) -> Option<usize>> VisitorMut for RenameCalls<F> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Function(function) = expr
            && let Some(leading) = (self.bound)(function)
        {
            function.name =
                ObjectName::from(vec![Ident::new(format!("{}{}", self.prefix, self.next))]);
            if let FunctionArguments::List(list) = &mut function.args {
                list.args.drain(..leading);
            }
            self.next += 1;
        }
        ControlFlow::Continue(())
    }
}

/// Array, Map and Tuple values are never NULL in ClickHouse.
pub(crate) fn can_be_null(data_type: &DataType) -> bool {
    !matches!(
        data_type,
        DataType::List(_) | DataType::LargeList(_) | DataType::Map(..) | DataType::Struct(_)
    )
}

fn converter(keys: &[FieldRef]) -> Result<RowConverter> {
    let fields = keys
        .iter()
        .map(|k| SortField::new(k.data_type().clone()))
        .collect();
    Ok(RowConverter::new(fields)?)
}

/// What a call gives for a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Answer {
    /// The value; a missing key reads the value at the index's `len` (a
    /// default or NULL the caller put there).
    Value,
    /// The value, or the call's last argument where the key is missing.
    ValueOr,
    /// 1 where the key is there, else 0.
    Has,
}

/// How a call's key arguments are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum KeyArguments {
    /// One argument per key, of the key's type (joinGet).
    Exact,
    /// One argument per key, converted to the key's type.
    Converted,
    /// One tuple of the keys, converted (a complex-key dictionary).
    Tuple,
}

/// One bound call.
#[derive(Debug)]
pub(crate) struct KeyLookup {
    pub name: String,
    /// The function as written, for messages.
    pub function: &'static str,
    pub index: Arc<KeyIndex>,
    pub arguments: KeyArguments,
    pub answer: Answer,
    /// The values by row, with the missing key's value after them.
    pub values: ArrayRef,
    pub result: FieldRef,
    signature: Signature,
    converter: RowConverter,
}

impl KeyLookup {
    pub fn new(
        name: String,
        function: &'static str,
        index: Arc<KeyIndex>,
        (arguments, answer): (KeyArguments, Answer),
        values: ArrayRef,
        result: FieldRef,
    ) -> Result<KeyLookup> {
        let converter = converter(&index.keys)?;
        Ok(KeyLookup {
            name,
            function,
            index,
            arguments,
            answer,
            values,
            result,
            signature: Signature::variadic_any(Volatility::Stable),
            converter,
        })
    }

    /// `values` with `missing` after them: what a missing key reads.
    pub fn with_missing(values: &[ArrayRef], missing: &dyn Array) -> Result<ArrayRef> {
        let mut parts: Vec<&dyn Array> = values.iter().map(|c| c.as_ref()).collect();
        parts.push(missing);
        Ok(concat(&parts)?)
    }

    fn key_count(&self) -> usize {
        match self.arguments {
            KeyArguments::Tuple => 1,
            KeyArguments::Exact | KeyArguments::Converted => self.index.keys.len(),
        }
    }

    fn check_arguments(&self, fields: &[FieldRef]) -> Result<()> {
        let extra = usize::from(self.answer == Answer::ValueOr);
        if fields.len() != self.key_count() + extra {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of keys for function {} doesn't match: passed {}, should be equal to {}",
                    self.function,
                    fields.len() - extra.min(fields.len()),
                    self.key_count()
                ),
            ));
        }
        if self.arguments != KeyArguments::Exact {
            return Ok(());
        }
        let shown = |f: &Field| field_type_name(&f.clone().with_nullable(false));
        for (i, (given, needed)) in fields.iter().zip(&self.index.keys).enumerate() {
            if shown(given) != shown(needed) {
                return Err(StrataError::new(
                    ErrorCode::TYPE_MISMATCH,
                    format!(
                        "Type mismatch in {} key {i}: found type {}, while the needed type is {}",
                        self.function,
                        field_type_name(given),
                        field_type_name(needed)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The key columns of a call's arguments, in the keys' types.
    fn key_columns(&self, args: &[ColumnarValue], rows: usize) -> Result<Vec<ArrayRef>> {
        let given: Vec<ArrayRef> = match self.arguments {
            KeyArguments::Tuple => {
                let tuple = args[0].to_array(rows)?;
                match tuple.data_type() {
                    DataType::Struct(_) => tuple.as_struct().columns().to_vec(),
                    // A key of one column may be given bare.
                    _ => vec![tuple],
                }
            }
            KeyArguments::Exact | KeyArguments::Converted => args[..self.key_count()]
                .iter()
                .map(|a| a.to_array(rows))
                .collect::<datafusion::common::Result<_>>()?,
        };
        if given.len() != self.index.keys.len() {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "{}'s key has {} elements, the dictionary {}",
                    self.function,
                    given.len(),
                    self.index.keys.len()
                ),
            ));
        }
        given
            .iter()
            .zip(&self.index.keys)
            .map(|(column, key)| {
                // Text that is no key fails, as ClickHouse's conversion does.
                let strict = CastOptions {
                    safe: false,
                    ..Default::default()
                };
                cast_with_options(column, key.data_type(), &strict).map_err(|e| {
                    StrataError::new(
                        ErrorCode::CANNOT_PARSE_TEXT,
                        format!(
                            "Cannot convert the key of {} to {}: {e}",
                            self.function,
                            field_type_name(key)
                        ),
                    )
                })
            })
            .collect()
    }

    fn evaluate(&self, args: &[ColumnarValue], rows: usize) -> Result<ArrayRef> {
        let keys = self.key_columns(args, rows)?;
        let encoded = self.converter.convert_columns(&keys)?;
        let found: Vec<Option<u32>> = encoded
            .iter()
            .map(|key| self.index.rows.get(key.data()).copied())
            .collect();
        match self.answer {
            Answer::Has => Ok(Arc::new(
                found
                    .iter()
                    .map(|f| Some(u8::from(f.is_some())))
                    .collect::<UInt8Array>(),
            )),
            Answer::Value => {
                let at: UInt32Array = found
                    .iter()
                    .map(|f| Some(f.unwrap_or(self.index.len)))
                    .collect();
                Ok(take(&self.values, &at, None)?)
            }
            Answer::ValueOr => {
                let at: UInt32Array = found.iter().copied().collect();
                let values = take(&self.values, &at, None)?;
                let fallback = cast(
                    &args[self.key_count()].to_array(rows)?,
                    self.result.data_type(),
                )?;
                let present: BooleanArray = found.iter().map(|f| Some(f.is_some())).collect();
                Ok(zip(&present, &values, &fallback)?)
            }
        }
    }
}

impl PartialEq for KeyLookup {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && Arc::ptr_eq(&self.index, &other.index)
    }
}

impl Eq for KeyLookup {}

impl Hash for KeyLookup {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl ScalarUDFImpl for KeyLookup {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(self.result.data_type().clone())
    }

    fn return_field_from_args(
        &self,
        args: ReturnFieldArgs,
    ) -> datafusion::common::Result<FieldRef> {
        self.check_arguments(args.arg_fields)
            .map_err(StrataError::into_datafusion)?;
        Ok(Arc::clone(&self.result))
    }

    fn invoke_with_args(
        &self,
        args: ScalarFunctionArgs,
    ) -> datafusion::common::Result<ColumnarValue> {
        let rows = args.number_rows;
        self.evaluate(&args.args, rows)
            .map(ColumnarValue::Array)
            .map_err(StrataError::into_datafusion)
    }
}
