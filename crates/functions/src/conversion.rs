//! Type conversion functions: `toUInt8` … `toInt64`, `toFloat32/64`, `toString`,
//! `toBool`; `toDate` and `toDateTime` are in `dates::to_moment`, which
//! uses [`convert`] for what they share.
//!
//! Numbers convert with ClickHouse's wrapping semantics; strings are parsed and a
//! string that is not a value of the target type fails with CANNOT_PARSE_TEXT
//! rather than becoming NULL.

use std::sync::Arc;

use chrono::{Datelike, NaiveDate, NaiveDateTime};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Date32Array, FixedSizeBinaryArray, Int64Array,
    ListArray, MapArray, StringArray, StringBuilder, StructArray, make_array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue, exec_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::types::{
    BigInt, EnumType, clickhouse_type_name, cut_to_precision, declared_precision, enum_type,
    interval_type, is_ipv4, is_ipv6, is_uuid,
};

use crate::dates::intervals::{IntervalKind, cast_to_interval, interval_counts};
use strata_common::{ErrorCode, StrataError};
use strata_formats::value::{
    DateTimeStyle, Style, ValueOptions, declared_as_text, uuids_as_text, write_value,
};

use crate::int_cast::{narrow_from_i64, to_i64_wrapping};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ConvertTo {
    name: &'static str,
    target: DataType,
    signature: Signature,
}

impl ConvertTo {
    pub fn new(name: &'static str, target: DataType) -> Self {
        ConvertTo {
            name,
            target,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }

    /// Every conversion function with its target type.
    pub fn all() -> Vec<ConvertTo> {
        [
            ("toUInt8", DataType::UInt8),
            ("toUInt16", DataType::UInt16),
            ("toUInt32", DataType::UInt32),
            ("toUInt64", DataType::UInt64),
            ("toInt8", DataType::Int8),
            ("toInt16", DataType::Int16),
            ("toInt32", DataType::Int32),
            ("toInt64", DataType::Int64),
            ("toInt128", BigInt::Int128.data_type()),
            ("toUInt128", BigInt::UInt128.data_type()),
            ("toInt256", BigInt::Int256.data_type()),
            ("toUInt256", BigInt::UInt256.data_type()),
            ("toFloat32", DataType::Float32),
            ("toFloat64", DataType::Float64),
            ("toString", DataType::Utf8),
            // toDate and toDateTime, which take a time zone too, are in
            // `dates::to_moment` (second pass of the date functions).
            ("toBool", DataType::Boolean),
        ]
        .into_iter()
        .map(|(name, target)| ConvertTo::new(name, target))
        .collect()
    }
}

pub(crate) fn parse_error(text: &str, target: &DataType) -> datafusion::error::DataFusionError {
    let code = match target {
        DataType::Date32 => ErrorCode::CANNOT_PARSE_DATE,
        DataType::Timestamp(..) => ErrorCode::CANNOT_PARSE_DATETIME,
        _ => ErrorCode::CANNOT_PARSE_TEXT,
    };
    StrataError::new(
        code,
        format!(
            "Cannot parse string '{text}' as {}",
            clickhouse_type_name(target, false)
        ),
    )
    .into_datafusion()
}

fn parse_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .or_else(|| parse_datetime(text).map(|dt| dt.date()))
        // `20240305`, `2024-3-5`, `2024-02-30` (carried into March).
        .or_else(|| crate::numeric::accurate::parse_date_text(text).map(|dt| dt.date()))
}

fn parse_datetime(text: &str) -> Option<NaiveDateTime> {
    let text = text.trim();
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S"))
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f"))
        .ok()
        .or_else(|| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })
}

const EPOCH_DAYS_FROM_CE: i32 = 719_163;

/// ClickHouse's spellings of a Bool in text, any case.
fn parse_bool(text: &str) -> Option<bool> {
    const TRUE: &[&str] = &["true", "t", "y", "yes", "on", "enable", "enabled", "1"];
    const FALSE: &[&str] = &["false", "f", "n", "no", "off", "disable", "disabled", "0"];
    let text = text.trim().to_ascii_lowercase();
    if TRUE.contains(&text.as_str()) {
        Some(true)
    } else if FALSE.contains(&text.as_str()) {
        Some(false)
    } else {
        None
    }
}

fn convert_strings(strings: &dyn Array, target: &DataType) -> Result<ArrayRef> {
    let texts = cast::cast(strings, &DataType::Utf8)?;
    let strings = texts.as_string::<i32>();
    match target {
        DataType::Boolean => {
            let bools = strings
                .iter()
                .map(|s| {
                    s.map(|s| {
                        parse_bool(s).ok_or_else(|| {
                            StrataError::new(
                                ErrorCode::CANNOT_PARSE_BOOL,
                                format!("Cannot parse boolean value here: '{s}', should be 'true' or 'false'"),
                            )
                            .into_datafusion()
                        })
                    })
                    .transpose()
                })
                .collect::<Result<BooleanArray>>()?;
            Ok(Arc::new(bools))
        }
        DataType::Date32 => {
            let mut out = Vec::with_capacity(strings.len());
            for s in strings.iter() {
                out.push(match s {
                    None => None,
                    Some(s) => Some(
                        parse_date(s)
                            .ok_or_else(|| parse_error(s, target))?
                            .num_days_from_ce()
                            - EPOCH_DAYS_FROM_CE,
                    ),
                });
            }
            Ok(Arc::new(Date32Array::from(out)))
        }
        // Read as toDateTime64 reads text: on the zone's clock, Unix times too.
        DataType::Timestamp(unit, zone) => {
            crate::dates::to_moment::text_moments(&texts, *unit, zone.clone())
        }
        DataType::Float32 | DataType::Float64 => {
            let mut out = Vec::with_capacity(strings.len());
            for s in strings.iter() {
                out.push(match s {
                    None => None,
                    Some(s) => Some(parse_float(s).ok_or_else(|| parse_error(s, target))?),
                });
            }
            let floats: ArrayRef = Arc::new(datafusion::arrow::array::Float64Array::from(out));
            Ok(cast::cast(&floats, target)?)
        }
        _ => {
            let mut out = Vec::with_capacity(strings.len());
            for s in strings.iter() {
                out.push(match s {
                    None => None,
                    Some(s) => Some(parse_integer(s).ok_or_else(|| parse_error(s, target))?),
                });
            }
            let wide = datafusion::arrow::array::Int64Array::from(out);
            narrow_from_i64(&wide, target)
        }
    }
}

/// Texts converted as ClickHouse converts a Nullable(String): a text that
/// does not parse, or a number outside the target, is NULL.
pub(crate) fn convert_strings_or_null(strings: &dyn Array, target: &DataType) -> Result<ArrayRef> {
    let texts = cast::cast(strings, &DataType::Utf8)?;
    let strings = texts.as_string::<i32>();
    let null = ScalarValue::try_from(target)?;
    let parsed = |parse: &dyn Fn(&str) -> Option<ScalarValue>| -> Result<ArrayRef> {
        let values = strings
            .iter()
            .map(|s| s.and_then(parse).unwrap_or_else(|| null.clone()))
            .collect::<Vec<_>>();
        match values.is_empty() {
            true => Ok(datafusion::arrow::array::new_empty_array(target)),
            false => ScalarValue::iter_to_array(values),
        }
    };
    match target {
        DataType::Boolean => parsed(&|s| parse_bool(s).map(|b| ScalarValue::Boolean(Some(b)))),
        DataType::Date32 => parsed(&|s| {
            let days = parse_date(s)?.num_days_from_ce() - EPOCH_DAYS_FROM_CE;
            Some(ScalarValue::Date32(Some(days)))
        }),
        DataType::Float32 | DataType::Float64 => parsed(&|s| {
            ScalarValue::Float64(Some(parse_float(s)?))
                .cast_to(target)
                .ok()
        }),
        DataType::Timestamp(..) => parsed(&|s| {
            let one: ArrayRef = Arc::new(StringArray::from(vec![s]));
            let moment = convert_strings(one.as_ref(), target).ok()?;
            ScalarValue::try_from_array(&moment, 0).ok()
        }),
        // Converted through Int64 with an overflow check, not wrapping.
        t if t.is_integer() && BigInt::of(t).is_none() => parsed(&|s| {
            let wide = ScalarValue::Int64(Some(parse_integer(s)?));
            let narrow = wide.cast_to(target).ok()?;
            (narrow.cast_to(&DataType::Int64).ok()? == wide).then_some(narrow)
        }),
        _ => convert_strings(strings, target),
    }
}

fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim();
    match t.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => t.parse().ok(),
    }
}

/// Parses an integer; like ClickHouse, a value outside the target type keeps
/// its low bits (`toUInt8('300')` is 44), so only the 64-bit range is checked here.
fn parse_integer(s: &str) -> Option<i64> {
    let v: i128 = s.trim().parse().ok()?;
    (i128::from(i64::MIN)..=i128::from(u64::MAX))
        .contains(&v)
        .then_some(v as i64)
}

/// Renders any value as `toString` does: like TabSeparated, without escaping.
pub(crate) fn to_strings(array: &dyn Array) -> Result<ArrayRef> {
    // Arrow writes integers exactly as ClickHouse does, many times faster
    // than formatting value by value.
    if array.data_type().is_integer() {
        return Ok(cast::cast(array, &DataType::Utf8)?);
    }
    let mut out = StringBuilder::with_capacity(array.len(), array.len() * 8);
    let mut text = String::new();
    // A column of type Null has no validity buffer, so `is_null` is false.
    let all_null = array.data_type() == &DataType::Null;
    for row in 0..array.len() {
        if all_null || array.is_null(row) {
            out.append_null();
        } else {
            text.clear();
            write_value(array, row, Style::Raw, ValueOptions::default(), &mut text);
            out.append_value(&text);
        }
    }
    Ok(Arc::new(out.finish()))
}

/// `toString` of a FixedString: its bytes without the zero padding.
fn fixed_strings_as_text(array: &FixedSizeBinaryArray) -> ArrayRef {
    let texts: StringArray = (0..array.len())
        .map(|row| {
            array.is_valid(row).then(|| {
                let bytes = array.value(row);
                let end = bytes
                    .iter()
                    .rposition(|&b| b != 0)
                    .map_or(0, |last| last + 1);
                String::from_utf8_lossy(&bytes[..end]).into_owned()
            })
        })
        .collect();
    Arc::new(texts)
}

pub(crate) fn convert(array: &ArrayRef, target: &DataType) -> Result<ArrayRef> {
    let source = array.data_type();
    if source == target {
        return Ok(Arc::clone(array));
    }
    if *target == DataType::Utf8 {
        if let DataType::FixedSizeBinary(_) = source {
            return Ok(fixed_strings_as_text(array.as_fixed_size_binary()));
        }
        return to_strings(array.as_ref());
    }
    if let Some(big) = BigInt::of(target) {
        return crate::big_int::convert_to(array, big);
    }
    if let Some(big) = BigInt::of(source) {
        return crate::big_int::convert_from(array, big, target);
    }
    if matches!(
        source,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return convert_strings(array.as_ref(), target);
    }
    match target {
        // Arrow's numeric cast to Boolean is ClickHouse's: non-zero is true.
        DataType::Float32 | DataType::Float64 | DataType::Boolean => Ok(cast::cast(array, target)?),
        DataType::Date32 => match source {
            DataType::Timestamp(..) => Ok(cast::cast(array, target)?),
            _ => {
                let days = to_i64_wrapping(array)?;
                Ok(cast::cast(
                    &narrow_from_i64(&days, &DataType::Int32)?,
                    target,
                )?)
            }
        },
        DataType::Timestamp(unit, tz) => match source {
            DataType::Date32 | DataType::Timestamp(..) => {
                Ok(cast::cast(array, &DataType::Timestamp(*unit, tz.clone()))?)
            }
            _ => {
                let seconds = to_i64_wrapping(array)?;
                let per_second = match unit {
                    TimeUnit::Second => 1,
                    TimeUnit::Millisecond => 1_000,
                    TimeUnit::Microsecond => 1_000_000,
                    TimeUnit::Nanosecond => 1_000_000_000,
                };
                let ticks: Int64Array = seconds.unary(|s| s.wrapping_mul(per_second));
                Ok(cast::cast(&ticks, &DataType::Timestamp(*unit, tz.clone()))?)
            }
        },
        _ => match source {
            DataType::Timestamp(unit, _) if *unit != TimeUnit::Second => {
                let seconds = cast::cast(array, &DataType::Timestamp(TimeUnit::Second, None))?;
                narrow_from_i64(&to_i64_wrapping(&seconds)?, target)
            }
            DataType::Decimal128(..) => decimal_to_integer(array, target),
            // Past Int64's range a float still fits UInt64
            // (`toUInt64(1e19)`); Int64 and narrower wrap from Int64.
            DataType::Float64 if *target == DataType::UInt64 => Ok(Arc::new(
                array
                    .as_primitive::<Float64Type>()
                    .unary::<_, UInt64Type>(|v| match v >= 9_223_372_036_854_775_808.0 {
                        true => v as u64,
                        false => v as i64 as u64,
                    }),
            )),
            _ => narrow_from_i64(&to_i64_wrapping(array)?, target),
        },
    }
}

/// A decimal's integer part, which must fit the integer type: ClickHouse
/// does not wrap decimals as it wraps integers.
fn decimal_to_integer(array: &ArrayRef, target: &DataType) -> Result<ArrayRef> {
    let DataType::Decimal128(_, scale) = array.data_type() else {
        unreachable!("called for decimals");
    };
    let divisor = 10i128.pow(u32::from(scale.unsigned_abs()));
    let (low, high) = strata_common::types::integer_range(target).expect("an integer target");
    let decimals = array.as_primitive::<Decimal128Type>();
    if decimals
        .iter()
        .flatten()
        .any(|v| !(low..=high).contains(&(v / divisor)))
    {
        return Err(
            StrataError::new(ErrorCode::DECIMAL_OVERFLOW, "Convert overflow").into_datafusion(),
        );
    }
    narrow_from_i64(&to_i64_wrapping(array)?, target)
}

impl ConvertTo {
    /// A UUID converts to its text and to nothing else, as in ClickHouse.
    fn convert_uuids(&self, args: &ScalarFunctionArgs) -> Result<ColumnarValue> {
        if self.target != DataType::Utf8 {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("Conversion from UUID with {} is not supported", self.name),
            )
            .into_datafusion());
        }
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let uuids = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        crate::columnar(uuids_as_text(uuids.as_ref()), scalar)
    }
}

impl ScalarUDFImpl for ConvertTo {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.target.clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        if is_uuid(&args.arg_fields[0]) {
            return self.convert_uuids(&args);
        }
        let field = Arc::clone(&args.arg_fields[0]);
        if let Some(kind) = interval_type(&field).and_then(IntervalKind::of_type_name) {
            // An interval converts as its count of its unit.
            return map_columnar(&args.args[0], |values| {
                convert(&interval_counts(values, kind), &self.target)
            });
        }
        let as_text = is_ipv4(&field) || is_ipv6(&field) || declared_precision(&field).is_some();
        if self.target == DataType::Utf8 && as_text {
            return map_columnar(&args.args[0], |values| {
                Ok(
                    declared_as_text(&field, values.as_ref(), DateTimeStyle::Simple)
                        .expect("a type shown as text"),
                )
            });
        }
        if let Some(enum_type) = enum_type(&args.arg_fields[0])
            && self.target != DataType::Utf8
        {
            // An enum converts to a number by its elements' numbers.
            return map_columnar(&args.args[0], |names| {
                let numbers: ArrayRef = Arc::new(enum_type.numbers_of(names.as_string()));
                convert(&numbers, &self.target)
            });
        }
        let nullable_text = matches!(
            field.data_type(),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        ) && field.is_nullable();
        if nullable_text && self.target != DataType::Utf8 && BigInt::of(&self.target).is_none() {
            return map_columnar(&args.args[0], |texts| {
                convert_strings_or_null(texts.as_ref(), &self.target)
            });
        }
        match &args.args[0] {
            ColumnarValue::Scalar(scalar) => {
                let array = scalar.to_array()?;
                let out = convert(&array, &self.target)?;
                Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?))
            }
            ColumnarValue::Array(array) => {
                if array.data_type().is_nested() && self.target != DataType::Utf8 {
                    return exec_err!("cannot convert {} with {}", array.data_type(), self.name);
                }
                Ok(ColumnarValue::Array(convert(array, &self.target)?))
            }
        }
    }
}

/// `_CAST(x, 'T')`: CAST to a type DataFusion's SQL types cannot name
/// (`Nullable(String)`, `LowCardinality(T)`, `Array(T)`, `Map(K, V)`,
/// `Tuple(...)`). The type comes from its ClickHouse name; values convert
/// as the `to<Type>` functions convert them, arrays element by element, and
/// through Arrow's cast where no such function exists.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CastByName {
    signature: Signature,
}

impl Default for CastByName {
    fn default() -> Self {
        CastByName {
            // Not folded into a literal at planning, which would lose a
            // Nullable type (a literal is nullable only when it is NULL).
            signature: Signature::any(2, Volatility::Volatile),
        }
    }
}

impl ScalarUDFImpl for CastByName {
    fn name(&self) -> &str {
        "_CAST"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        unreachable!("typed by return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let Some(Some(ScalarValue::Utf8(Some(name)))) = args.scalar_arguments.get(1) else {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                "The second argument of CAST must be a constant type name",
            )
            .into_datafusion());
        };
        let parsed = strata_common::types::parse_clickhouse_type(name)
            .map_err(StrataError::into_datafusion)?;
        Ok(Arc::new(parsed.field(self.name())))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        // An interval cast to a number or text is its count of its unit.
        let counted = interval_type(&args.arg_fields[0])
            .filter(|_| interval_type(&args.return_field).is_none())
            .and_then(IntervalKind::of_type_name);
        // A constant list goes through a ScalarValue that rebuilds its
        // element field without the metadata (a UUID's): keep a column.
        let value = match (&args.args[0], args.return_field.data_type()) {
            (ColumnarValue::Scalar(value), DataType::List(item)) if !item.metadata().is_empty() => {
                ColumnarValue::Array(value.to_array_of_size(args.number_rows)?)
            }
            _ => args.args[0].clone(),
        };
        map_columnar(&value, |values| match counted {
            Some(kind) => cast_to_field(&interval_counts(values, kind), &args.return_field),
            None => cast_to_field(values, &args.return_field),
        })
    }
}

/// `values` as ClickHouse's `CAST` converts them to `field`'s type; an
/// error where a value does not convert.
pub fn cast_to_field(values: &ArrayRef, field: &Field) -> Result<ArrayRef> {
    if let Some(kind) = interval_type(field).and_then(IntervalKind::of_type_name) {
        return cast_to_interval(values, kind);
    }
    if let Some(enum_type) = enum_type(field) {
        return enum_names(&enum_type, values);
    }
    if is_ipv4(field) {
        return crate::encodings::cast_to_ipv4(values);
    }
    if is_ipv6(field) {
        return crate::encodings::cast_to_ipv6(values);
    }
    if is_uuid(field) && values.data_type().is_string() {
        return crate::uuids::uuids_from_texts(values, crate::uuids::Unparsable::Fail);
    }
    if let DataType::List(item) = field.data_type()
        && values.data_type().is_string()
    {
        return arrays_from_texts(values, item);
    }
    let moments = match relabeled_moments(values, field.data_type())? {
        Some(moments) => moments,
        None => cast_to(values, field.data_type())?,
    };
    Ok(cut_to_precision(moments, field))
}

/// Moments cast to another zone (or none) as the same instants: Arrow reads
/// a zone-less value cast to a zone as a wall-clock time there, but
/// Strata's zone-less values are instants like any other, so only the unit
/// is cast and the zone is a label. `None` for other casts.
fn relabeled_moments(values: &ArrayRef, target: &DataType) -> Result<Option<ArrayRef>> {
    let (DataType::Timestamp(_, from), DataType::Timestamp(unit, to)) =
        (values.data_type(), target)
    else {
        return Ok(None);
    };
    if from == to {
        return Ok(None);
    }
    let same_zone = cast::cast(values, &DataType::Timestamp(*unit, from.clone()))?;
    let relabeled = same_zone
        .to_data()
        .into_builder()
        .data_type(target.clone())
        .build()?;
    Ok(Some(make_array(relabeled)))
}

/// Texts of array literals read as arrays, as ClickHouse's CAST reads them;
/// a text that is not one fails the query.
fn arrays_from_texts(values: &ArrayRef, item: &FieldRef) -> Result<ArrayRef> {
    let texts = cast::cast(values, &DataType::Utf8)?;
    let texts = texts.as_string::<i32>();
    let arrays = strata_formats::input::parse_array_texts(texts, item)
        .map_err(StrataError::into_datafusion)?;
    if let Some(bad) = (0..texts.len()).find(|&i| texts.is_valid(i) && arrays.is_null(i)) {
        return Err(StrataError::new(
            ErrorCode::CANNOT_READ_ARRAY_FROM_TEXT,
            format!("Cannot read array from text '{}'", texts.value(bad)),
        )
        .into_datafusion());
    }
    // The element field as declared, with its metadata (a UUID's).
    let (_, offsets, elements, nulls) = arrays.as_list::<i32>().clone().into_parts();
    Ok(Arc::new(ListArray::try_new(
        Arc::clone(item),
        offsets,
        elements,
        nulls,
    )?))
}

/// `f` applied to a value, scalar or array alike.
fn map_columnar(
    value: &ColumnarValue,
    f: impl Fn(&ArrayRef) -> Result<ArrayRef>,
) -> Result<ColumnarValue> {
    match value {
        ColumnarValue::Scalar(scalar) => {
            let out = f(&scalar.to_array()?)?;
            Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?))
        }
        ColumnarValue::Array(array) => Ok(ColumnarValue::Array(f(array)?)),
    }
}

/// `values` (names, numbers or texts of numbers) as names of `enum_type`.
fn enum_names(enum_type: &EnumType, values: &ArrayRef) -> Result<ArrayRef> {
    let values = match values.data_type() {
        DataType::Utf8 | DataType::Null => Arc::clone(values),
        data_type if data_type.is_numeric() => Arc::clone(values),
        _ => cast::cast(values, &DataType::Utf8)?,
    };
    match enum_type.names_from(values.as_ref()) {
        Ok(names) => Ok(Arc::new(names)),
        Err((_, error)) => Err(error.into_datafusion()),
    }
}

fn cast_to(array: &ArrayRef, target: &DataType) -> Result<ArrayRef> {
    let converts = matches!(
        target,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Float32
            | DataType::Float64
            | DataType::Utf8
            | DataType::Boolean
            | DataType::Date32
            | DataType::Timestamp(..)
    );
    match (array.data_type(), target) {
        // Element by element, so that an element's declared type (a UUID,
        // an enum) converts as itself.
        (DataType::List(_), DataType::List(item)) => {
            let list = array.as_list::<i32>();
            let values = cast_to_field(list.values(), item)?;
            Ok(Arc::new(datafusion::arrow::array::ListArray::try_new(
                Arc::clone(item),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )?))
        }
        (DataType::List(item), DataType::Map(entries, sorted)) if matches!(item.data_type(), DataType::Struct(pair) if pair.len() == 2) => {
            pairs_to_map(array.as_list::<i32>(), entries, *sorted)
        }
        (DataType::Struct(pair), DataType::Map(entries, sorted))
            if pair.len() == 2
                && pair
                    .iter()
                    .all(|f| matches!(f.data_type(), DataType::List(_))) =>
        {
            arrays_to_map(array.as_struct(), entries, *sorted)
        }
        (DataType::Map(..), DataType::Map(entries, sorted)) => {
            map_entries_to(array.as_map(), entries, *sorted)
        }
        (DataType::Map(..), DataType::List(item)) if matches!(item.data_type(), DataType::Struct(pair) if pair.len() == 2) => {
            map_to_pairs(array.as_map(), item)
        }
        (DataType::Null, _) => Ok(cast::cast(array, target)?),
        // Text as FixedString: its bytes padded, which Arrow's cast does not do.
        (source, DataType::FixedSizeBinary(width))
            if source.is_string() || matches!(source, DataType::Binary | DataType::LargeBinary) =>
        {
            crate::fixed_strings::fixed_strings(array, *width)
        }
        (_, target) if let Some(big) = BigInt::of(target) => crate::big_int::convert_to(array, big),
        (_, DataType::Decimal128(precision, scale)) => {
            crate::decimal_conversion::to_decimal(array, *precision, *scale)
        }
        (source, DataType::Decimal256(..)) if source.is_string() => {
            let texts = cast::cast(array, &DataType::Utf8)?;
            let plain: StringArray = texts
                .as_string::<i32>()
                .iter()
                .map(|text| text.map(crate::decimal_conversion::without_exponent))
                .collect();
            Ok(cast::cast(&plain, target)?)
        }
        _ if converts => convert(array, target),
        _ => Ok(cast::cast(array, target)?),
    }
}

/// A Map with its keys and values converted as CAST converts them (an
/// integer wraps into a narrower type, as in ClickHouse).
fn map_entries_to(map: &MapArray, entries: &FieldRef, sorted: bool) -> Result<ArrayRef> {
    let DataType::Struct(key_value) = entries.data_type() else {
        unreachable!("a Map's entries are a struct")
    };
    let columns = converted_entries(map, key_value)?;
    map_of(entries, sorted, columns, map.offsets(), map.nulls())
}

/// A Map as an array of (key, value) tuples, as ClickHouse casts it to
/// `Array(Tuple(K, V))`: each entry a pair, in order.
fn map_to_pairs(map: &MapArray, item: &FieldRef) -> Result<ArrayRef> {
    let DataType::Struct(pair) = item.data_type() else {
        unreachable!("the caller matched a struct")
    };
    let columns = converted_entries(map, pair)?;
    let pairs = StructArray::try_new(pair.clone(), columns, None)?;
    Ok(Arc::new(ListArray::try_new(
        Arc::clone(item),
        map.offsets().clone(),
        Arc::new(pairs),
        map.nulls().cloned(),
    )?))
}

/// A Map's key and value columns converted to the two `fields`, as CAST
/// converts them.
fn converted_entries(map: &MapArray, fields: &Fields) -> Result<Vec<ArrayRef>> {
    [map.keys(), map.values()]
        .into_iter()
        .zip(fields)
        .map(|(column, field)| cast_to_field(column, field))
        .collect()
}

/// A Map of `entries`' type from its key and value columns.
fn map_of(
    entries: &FieldRef,
    sorted: bool,
    columns: Vec<ArrayRef>,
    offsets: &OffsetBuffer<i32>,
    nulls: Option<&NullBuffer>,
) -> Result<ArrayRef> {
    let DataType::Struct(key_value) = entries.data_type() else {
        unreachable!("a Map's entries are a struct")
    };
    let entries_array = StructArray::try_new(key_value.clone(), columns, None)?;
    Ok(Arc::new(MapArray::try_new(
        Arc::clone(entries),
        offsets.clone(),
        entries_array,
        nulls.cloned(),
        sorted,
    )?))
}

/// An array of (key, value) tuples as a Map, as ClickHouse casts
/// `[('a', 1)]` to `Map(String, UInt8)`: each pair an entry, in order.
fn pairs_to_map(list: &ListArray, entries: &FieldRef, sorted: bool) -> Result<ArrayRef> {
    let DataType::Struct(key_value) = entries.data_type() else {
        unreachable!("a Map's entries are a struct")
    };
    let pairs = list.values().as_struct();
    let columns = pairs
        .columns()
        .iter()
        .zip(key_value)
        .map(|(column, field)| cast_to(column, field.data_type()))
        .collect::<Result<Vec<_>>>()?;
    map_of(entries, sorted, columns, list.offsets(), list.nulls())
}

/// A tuple of two arrays as a Map, as ClickHouse casts `([1, 2], ['a',
/// 'b'])`: each key with the value at its position. A row's arrays must be
/// as long as each other.
fn arrays_to_map(tuple: &StructArray, entries: &FieldRef, sorted: bool) -> Result<ArrayRef> {
    let DataType::Struct(key_value) = entries.data_type() else {
        unreachable!("a Map's entries are a struct")
    };
    let (keys, values) = (
        tuple.column(0).as_list::<i32>(),
        tuple.column(1).as_list::<i32>(),
    );
    if !keys.offsets().lengths().eq(values.offsets().lengths()) {
        return Err(StrataError::new(
            ErrorCode::TYPE_MISMATCH,
            "CAST AS Map can only be performed from tuple of arrays with equal sizes",
        )
        .into_datafusion());
    }
    // Each list's elements from its first row on, so that both share offsets.
    let elements = |list: &ListArray| {
        let start = list.offsets()[0] as usize;
        let end = *list.offsets().last().expect("offsets are never empty") as usize;
        list.values().slice(start, end - start)
    };
    let columns = [elements(keys), elements(values)]
        .iter()
        .zip(key_value)
        .map(|(column, field)| cast_to(column, field.data_type()))
        .collect::<Result<Vec<_>>>()?;
    let offsets = OffsetBuffer::from_lengths(keys.offsets().lengths());
    map_of(entries, sorted, columns, &offsets, tuple.nulls())
}

/// `_enumNumber(e)`: the numbers of an enum's names, by which ClickHouse
/// orders enums. Strata's plan rewrites put it where order matters.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct EnumNumber {
    signature: Signature,
}

impl Default for EnumNumber {
    fn default() -> Self {
        EnumNumber {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl EnumNumber {
    pub const NAME: &'static str = "_enumNumber";
}

impl ScalarUDFImpl for EnumNumber {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        unreachable!("typed by return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let argument = &args.arg_fields[0];
        let Some(enum_type) = enum_type(argument) else {
            return exec_err!("{} takes an enum, not {}", Self::NAME, argument.data_type());
        };
        let data_type = if enum_type.is_wide() {
            DataType::Int16
        } else {
            DataType::Int8
        };
        Ok(Arc::new(Field::new(
            Self::NAME,
            data_type,
            argument.is_nullable(),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let enum_type = enum_type(&args.arg_fields[0]).expect("checked when typed");
        let target = args.return_field.data_type().clone();
        map_columnar(&args.args[0], |names| {
            let numbers = enum_type.numbers_of(names.as_string());
            Ok(cast::cast(&numbers, &target)?)
        })
    }
}
