//! The frame this family's functions share: a table entry ([`Spec`]) gives a
//! function's name, aliases, parameters and result type; [`Udf`] checks
//! calls against it with ClickHouse's error codes (42 for the argument
//! count, 43 for a type) and hands the evaluation a [`Call`], whose
//! accessors read constant and column arguments alike.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BinaryBuilder, GenericListArray, Int64Array,
    StringBuilder,
};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, StrataError};
use strata_formats::value::{DateTimeStyle, Style, ValueOptions, declared_as_text, write_value};

use crate::int_cast::to_i64_wrapping;

/// What one argument must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Param {
    /// String or FixedString.
    Text,
    /// Any integer.
    Int,
    /// Array(String).
    TextArray,
    /// Any integer or float.
    Number,
    /// Anything.
    Any,
    /// String or Array(String).
    TextOrArray,
    /// Any number or text.
    Value,
}

/// The result type of a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    Text,
    /// Bytes that need not be UTF-8: Binary, shown as String.
    Bytes,
    UInt8,
    /// Nullable(UInt8), NULL for arguments the function rejects.
    UInt8OrNull,
    UInt16,
    UInt32,
    Int32,
    UInt64,
    Float32,
    Float64,
    TextList,
    UInt64List,
    /// Array(Array(String)).
    NestedTextList,
    /// Map(String, String).
    TextMap,
}

impl Output {
    pub(crate) fn data_type(self) -> DataType {
        let list = |item: DataType| DataType::List(Arc::new(Field::new("item", item, false)));
        match self {
            Output::Text => DataType::Utf8,
            Output::Bytes => DataType::Binary,
            Output::UInt8 | Output::UInt8OrNull => DataType::UInt8,
            Output::UInt16 => DataType::UInt16,
            Output::UInt32 => DataType::UInt32,
            Output::Int32 => DataType::Int32,
            Output::UInt64 => DataType::UInt64,
            Output::Float32 => DataType::Float32,
            Output::Float64 => DataType::Float64,
            Output::TextList => list(DataType::Utf8),
            Output::UInt64List => list(DataType::UInt64),
            Output::NestedTextList => list(list(DataType::Utf8)),
            Output::TextMap => strata_common::types::parse_clickhouse_type("Map(String, String)")
                .expect("a type Strata knows")
                .field("")
                .data_type()
                .clone(),
        }
    }
}

/// One function of the family.
pub(crate) struct Spec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub params: &'static [Param],
    /// How many of `params` a call must pass; the rest are optional.
    pub required: usize,
    pub output: Output,
    pub eval: fn(&Call) -> Result<ArrayRef>,
}

#[derive(Debug)]
pub(crate) struct Udf {
    spec: &'static Spec,
    aliases: Vec<String>,
    signature: Signature,
}

impl std::fmt::Debug for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for Udf {
    fn eq(&self, other: &Self) -> bool {
        self.spec.name == other.spec.name
    }
}

impl Eq for Udf {}

impl Hash for Udf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.spec.name.hash(state);
    }
}

/// The functions of a table of specs.
pub(crate) fn register(specs: &'static [Spec]) -> impl Iterator<Item = ScalarUDF> {
    specs.iter().map(|spec| {
        ScalarUDF::new_from_impl(Udf {
            spec,
            aliases: spec.aliases.iter().map(|a| a.to_string()).collect(),
            signature: Signature::variadic_any(Volatility::Immutable),
        })
    })
}

pub(crate) fn is_text(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => true,
        DataType::Dictionary(_, value) => is_text(value),
        _ => false,
    }
}

fn accepts(param: Param, data_type: &DataType) -> bool {
    match (param, data_type) {
        (_, DataType::Null) => true,
        (Param::Text, t) => is_text(t),
        (Param::Int, t) => t.is_integer(),
        (Param::TextArray, DataType::List(item) | DataType::LargeList(item)) => {
            is_text(item.data_type()) || item.data_type() == &DataType::Null
        }
        (Param::TextArray, _) => false,
        (Param::Any, _) => true,
        (Param::TextOrArray, t) => is_text(t) || accepts(Param::TextArray, t),
        (Param::Number, t) => t.is_integer() || t.is_floating(),
        (Param::Value, t) => t.is_integer() || t.is_floating() || is_text(t),
    }
}

pub(crate) fn arity_error(name: &str, passed: usize, expected: &str) -> StrataError {
    StrataError::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function {name} doesn't match: passed {passed}, should be {expected}"
        ),
    )
}

pub(crate) fn type_error(name: &str, field: &Field, position: usize) -> StrataError {
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument {} of function {name}",
            field_type_name(field),
            position + 1
        ),
    )
}

/// A failure while evaluating, with ClickHouse's code.
pub(crate) fn failure(code: ErrorCode, message: String) -> datafusion::error::DataFusionError {
    StrataError::new(code, message).into_datafusion()
}

impl Udf {
    fn check(&self, fields: &[FieldRef]) -> Result<()> {
        let spec = self.spec;
        if fields.len() < spec.required || fields.len() > spec.params.len() {
            let expected = if spec.required == spec.params.len() {
                spec.required.to_string()
            } else {
                format!("{} to {}", spec.required, spec.params.len())
            };
            return Err(arity_error(spec.name, fields.len(), &expected).into_datafusion());
        }
        for (i, (field, param)) in fields.iter().zip(spec.params).enumerate() {
            if !accepts(*param, field.data_type()) {
                return Err(type_error(spec.name, field, i).into_datafusion());
            }
        }
        Ok(())
    }
}

impl ScalarUDFImpl for Udf {
    fn name(&self) -> &str {
        self.spec.name
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.spec.output.data_type())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        self.check(args.arg_fields)?;
        let field = crate::null_propagating_field(self, &args)?;
        Ok(match self.spec.output {
            Output::UInt8OrNull => Arc::new(field.as_ref().clone().with_nullable(true)),
            _ => field,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = if scalar { 1 } else { args.number_rows };
        let arrays = args
            .args
            .iter()
            .zip(args.arg_fields.iter())
            .map(|(a, field)| {
                let array = match a {
                    ColumnarValue::Scalar(s) => s.to_array_of_size(1)?,
                    ColumnarValue::Array(a) => Arc::clone(a),
                };
                // A UUID, an address or an interval reads as its text, as
                // `toString` writes it (`concat('', toIPv4('1.2.3.4'))`).
                Ok(declared_as_text(field, array.as_ref(), DateTimeStyle::Simple).unwrap_or(array))
            })
            .collect::<Result<Vec<_>>>()?;
        let constant = args
            .args
            .iter()
            .map(|a| matches!(a, ColumnarValue::Scalar(_)))
            .collect();
        let call = Call {
            name: self.spec.name,
            arrays,
            constant,
            rows,
        };
        let out = (self.spec.eval)(&call)?;
        crate::columnar(out, scalar)
    }
}

/// One evaluation: the arguments and the number of rows to compute.
pub(crate) struct Call {
    pub name: &'static str,
    arrays: Vec<ArrayRef>,
    constant: Vec<bool>,
    pub rows: usize,
}

impl Call {
    /// How many arguments were passed.
    pub(crate) fn len(&self) -> usize {
        self.arrays.len()
    }

    /// Whether argument `i` is an array.
    pub(crate) fn is_list(&self, i: usize) -> bool {
        matches!(
            self.arrays[i].data_type(),
            DataType::List(_) | DataType::LargeList(_)
        )
    }

    /// Whether any argument is NULL at `row`.
    pub(crate) fn any_null(&self, row: usize) -> bool {
        self.arrays
            .iter()
            .zip(&self.constant)
            .any(|(a, &c)| a.data_type() == &DataType::Null || a.is_null(if c { 0 } else { row }))
    }

    /// Argument `i` as a column of every row.
    pub(crate) fn expanded(&self, i: usize) -> Result<ArrayRef> {
        let array = &self.arrays[i];
        if self.constant[i] && self.rows != array.len() {
            let value = datafusion::common::ScalarValue::try_from_array(array, 0)?;
            return value.to_array_of_size(self.rows);
        }
        Ok(Arc::clone(array))
    }

    pub(crate) fn text(&self, i: usize) -> Result<Texts> {
        Ok(Texts {
            values: as_bytes(&self.arrays[i])?,
            constant: self.constant[i],
        })
    }

    /// Argument `i` as text: a string's bytes, any other value as
    /// `toString` writes it.
    pub(crate) fn as_text(&self, i: usize) -> Result<Texts> {
        let array = &self.arrays[i];
        if is_text(array.data_type()) || array.data_type() == &DataType::Null {
            return self.text(i);
        }
        let mut out = BinaryBuilder::with_capacity(array.len(), array.len() * 8);
        let mut text = String::new();
        for row in 0..array.len() {
            if array.is_null(row) {
                out.append_null();
                continue;
            }
            text.clear();
            write_value(
                array.as_ref(),
                row,
                Style::Raw,
                ValueOptions::default(),
                &mut text,
            );
            out.append_value(&text);
        }
        Ok(Texts {
            values: out.finish(),
            constant: self.constant[i],
        })
    }

    pub(crate) fn int(&self, i: usize) -> Result<Ints> {
        let array = &self.arrays[i];
        let values = match array.data_type() {
            DataType::Null => Int64Array::new_null(array.len()),
            _ => to_i64_wrapping(array)?,
        };
        Ok(Ints {
            values,
            constant: self.constant[i],
        })
    }

    pub(crate) fn text_lists(&self, i: usize) -> Result<TextLists> {
        let array = &self.arrays[i];
        let list = match array.data_type() {
            DataType::Null => {
                let field = Arc::new(Field::new("item", DataType::Binary, true));
                GenericListArray::new_null(field, array.len())
            }
            _ => cast::cast(array, &DataType::new_list(DataType::Binary, true))?
                .as_list::<i32>()
                .clone(),
        };
        Ok(TextLists {
            values: list.values().as_binary::<i32>().clone(),
            list,
            constant: self.constant[i],
        })
    }
}

/// Any text argument as bytes: String is read in place, FixedString and
/// LowCardinality(String) are converted.
fn as_bytes(array: &ArrayRef) -> Result<BinaryArray> {
    Ok(match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().clone(),
        DataType::Null => BinaryArray::new_null(array.len()),
        DataType::Utf8 => array.as_string::<i32>().clone().into(),
        t if cast::can_cast_types(t, &DataType::Binary) => cast::cast(array, &DataType::Binary)?
            .as_binary::<i32>()
            .clone(),
        _ => cast::cast(&cast::cast(array, &DataType::Utf8)?, &DataType::Binary)?
            .as_binary::<i32>()
            .clone(),
    })
}

/// A text argument, read row by row.
pub(crate) struct Texts {
    values: BinaryArray,
    constant: bool,
}

impl Texts {
    pub(crate) fn get(&self, row: usize) -> Option<&[u8]> {
        let row = if self.constant { 0 } else { row };
        self.values.is_valid(row).then(|| self.values.value(row))
    }
}

/// An integer argument, read row by row.
pub(crate) struct Ints {
    values: Int64Array,
    constant: bool,
}

impl Ints {
    pub(crate) fn get(&self, row: usize) -> Option<i64> {
        let row = if self.constant { 0 } else { row };
        self.values.is_valid(row).then(|| self.values.value(row))
    }
}

/// An Array(String) argument, read row by row.
pub(crate) struct TextLists {
    list: GenericListArray<i32>,
    values: BinaryArray,
    constant: bool,
}

impl TextLists {
    pub(crate) fn get(&self, row: usize) -> Option<Vec<&[u8]>> {
        let row = if self.constant { 0 } else { row };
        if self.list.is_null(row) {
            return None;
        }
        let offsets = self.list.value_offsets();
        let range = offsets[row] as usize..offsets[row + 1] as usize;
        Some(range.map(|k| self.values.value(k)).collect())
    }

    pub(crate) fn is_constant(&self) -> bool {
        self.constant
    }
}

/// Appends bytes as a String value; bytes that are not UTF-8 (a cut through a
/// character) keep their valid parts, as Strata shows all String bytes.
pub(crate) fn append_text(out: &mut StringBuilder, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => out.append_value(text),
        Err(_) => out.append_value(String::from_utf8_lossy(bytes)),
    }
}

/// A String result computed row by row from the call; `f` writes a row's
/// value into its buffer, or gives None for NULL.
pub(crate) fn text_rows(
    call: &Call,
    mut f: impl FnMut(usize, &mut Vec<u8>) -> Result<Option<()>>,
) -> Result<ArrayRef> {
    let mut out = StringBuilder::with_capacity(call.rows, call.rows * 8);
    let mut buffer = Vec::new();
    for row in 0..call.rows {
        buffer.clear();
        if call.any_null(row) {
            out.append_null();
            continue;
        }
        match f(row, &mut buffer)? {
            Some(()) => append_text(&mut out, &buffer),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// A Binary result computed row by row, as [`text_rows`].
pub(crate) fn byte_rows(
    call: &Call,
    mut f: impl FnMut(usize, &mut Vec<u8>) -> Result<Option<()>>,
) -> Result<ArrayRef> {
    let mut out = BinaryBuilder::with_capacity(call.rows, call.rows * 8);
    let mut buffer = Vec::new();
    for row in 0..call.rows {
        buffer.clear();
        if call.any_null(row) {
            out.append_null();
            continue;
        }
        match f(row, &mut buffer)? {
            Some(()) => out.append_value(&buffer),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// A numeric result computed row by row, NULL where an argument is.
pub(crate) fn number_rows<T>(
    call: &Call,
    mut f: impl FnMut(usize) -> Result<T::Native>,
) -> Result<ArrayRef>
where
    T: datafusion::arrow::datatypes::ArrowPrimitiveType,
{
    let mut out = datafusion::arrow::array::PrimitiveBuilder::<T>::with_capacity(call.rows);
    for row in 0..call.rows {
        if call.any_null(row) {
            out.append_null();
        } else {
            out.append_value(f(row)?);
        }
    }
    Ok(Arc::new(out.finish()))
}

/// A list result computed row by row: `f` pushes a row's items.
pub(crate) fn text_list_rows(
    call: &Call,
    mut f: impl FnMut(usize, &mut Vec<Vec<u8>>) -> Result<()>,
) -> Result<ArrayRef> {
    use datafusion::arrow::array::ListBuilder;
    let field = Field::new("item", DataType::Utf8, false);
    let mut out = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(field));
    let mut items = Vec::new();
    for row in 0..call.rows {
        items.clear();
        if call.any_null(row) {
            out.append_null();
            continue;
        }
        f(row, &mut items)?;
        for item in &items {
            append_text(out.values(), item);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

/// A list of UInt64 computed row by row.
pub(crate) fn u64_list_rows(
    call: &Call,
    mut f: impl FnMut(usize, &mut Vec<u64>) -> Result<()>,
) -> Result<ArrayRef> {
    use datafusion::arrow::array::{ListBuilder, UInt64Builder};
    let field = Field::new("item", DataType::UInt64, false);
    let mut out = ListBuilder::new(UInt64Builder::new()).with_field(Arc::new(field));
    let mut items = Vec::new();
    for row in 0..call.rows {
        items.clear();
        if call.any_null(row) {
            out.append_null();
            continue;
        }
        f(row, &mut items)?;
        out.values().append_slice(&items);
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}
