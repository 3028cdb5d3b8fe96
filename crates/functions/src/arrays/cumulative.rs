//! Running sums and differences along an array of numbers:
//! `arrayCumSum(a)`, `arrayCumSumNonNegative(a)` (a running sum that
//! restarts from 0 whenever it drops below 0) and `arrayDifference(a)`
//! (each element minus the one before, 0 first). Integers widen as
//! ClickHouse widens them (sums to Int64/UInt64, differences to the next
//! signed width) and wrap on overflow; floats compute in Float64; sums of
//! Decimal(P, S) are Decimal(38, S).

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Decimal128Array, Float64Array, Int64Array, ListArray, UInt64Array,
};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Field, FieldRef, Float64Type, Int64Type, TimeUnit, UInt64Type,
};
use datafusion::common::Result;
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::{array_item, arrays_of, as_list, check_arity, error, item};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Running {
    Sum,
    SumNonNegative,
    Difference,
}

impl Running {
    pub const ALL: [Running; 3] = [Running::Sum, Running::SumNonNegative, Running::Difference];

    fn name(self) -> &'static str {
        match self {
            Running::Sum => "arrayCumSum",
            Running::SumNonNegative => "arrayCumSumNonNegative",
            Running::Difference => "arrayDifference",
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Cumulative {
    kind: Running,
    signature: Signature,
}

impl Cumulative {
    pub fn new(kind: Running) -> Self {
        Cumulative {
            kind,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }

    fn element_type(&self, arg: &DataType) -> Result<DataType> {
        let item = array_item(self.name(), arg)?;
        let t = item.data_type();
        if self.kind == Running::Difference
            && let Some(difference) = moment_difference(&item)
        {
            return Ok(difference);
        }
        if !(t.is_integer() || t.is_floating() || decimal_scale(t).is_some()) {
            return Err(refused(self.name(), &item));
        }
        Ok(match (self.kind, t) {
            (Running::Difference, t) if decimal_scale(t).is_some() => t.clone(),
            (_, t) if let Some(scale) = decimal_scale(t) => DataType::Decimal128(38, scale),
            (_, t) if t.is_floating() => DataType::Float64,
            (Running::Difference, DataType::UInt8 | DataType::Int8) => DataType::Int16,
            (Running::Difference, DataType::UInt16 | DataType::Int16) => DataType::Int32,
            (Running::Difference, _) => DataType::Int64,
            (_, t) if t.is_unsigned_integer() => DataType::UInt64,
            _ => DataType::Int64,
        })
    }
}

/// ClickHouse's difference of Dates and DateTimes: days (Int32 for a Date,
/// Int64 for a Date32), seconds (Int64), or a DateTime64's seconds with its
/// fraction (Decimal(18, precision)).
fn moment_difference(item: &Field) -> Option<DataType> {
    Some(match item.data_type() {
        DataType::Date32 if strata_common::types::field_type_name(item) == "Date32" => {
            DataType::Int64
        }
        DataType::Date32 => DataType::Int32,
        DataType::Timestamp(TimeUnit::Second, _) => DataType::Int64,
        DataType::Timestamp(unit, _) => {
            let precision = (crate::dates::ticks_per_second(*unit) as f64).log10() as i8;
            DataType::Decimal128(18, precision)
        }
        _ => return None,
    })
}

/// ClickHouse refuses elements it cannot add, NULLs among them; DataFusion
/// marks many items nullable that hold no NULL, so those are refused only
/// when a NULL is there.
fn refused(function: &str, item: &Field) -> DataFusionError {
    error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "{function} cannot process values of type {}",
            strata_common::types::field_type_name(item)
        ),
    )
}

fn decimal_scale(data_type: &DataType) -> Option<i8> {
    match data_type {
        DataType::Decimal32(_, s)
        | DataType::Decimal64(_, s)
        | DataType::Decimal128(_, s)
        | DataType::Decimal256(_, s) => Some(*s),
        _ => None,
    }
}

/// The integers (or decimals' unscaled integers) of `values`, widened;
/// results truncated back to 64 bits wrap as ClickHouse's do.
fn words(values: &ArrayRef) -> Result<Vec<i128>> {
    if let DataType::Timestamp(..) | DataType::Date32 = values.data_type() {
        let ticks = cast::cast(values, &DataType::Int64)?;
        let ticks = ticks.as_primitive::<Int64Type>();
        return Ok(ticks.values().iter().map(|&v| i128::from(v)).collect());
    }
    if let Some(scale) = decimal_scale(values.data_type()) {
        let wide = cast::cast(values, &DataType::Decimal128(38, scale))?;
        return Ok(wide.as_primitive::<Decimal128Type>().values().to_vec());
    }
    if values.data_type() == &DataType::UInt64 {
        let unsigned = values.as_primitive::<UInt64Type>();
        return Ok(unsigned.values().iter().map(|&v| i128::from(v)).collect());
    }
    let wide = cast::cast(values, &DataType::Int64)?;
    let wide = wide.as_primitive::<Int64Type>();
    Ok(wide.values().iter().map(|&v| i128::from(v)).collect())
}

fn run_integers(kind: Running, row: &[i128], out: &mut Vec<i128>) {
    let mut acc: i128 = 0;
    for (i, &v) in row.iter().enumerate() {
        acc = match kind {
            Running::Sum => acc.wrapping_add(v),
            Running::SumNonNegative => acc.wrapping_add(v).max(0),
            Running::Difference if i == 0 => 0,
            Running::Difference => v.wrapping_sub(row[i - 1]),
        };
        out.push(acc);
    }
}

/// The computed words as a column of `element` type.
fn integer_column(words: Vec<i128>, element: &DataType) -> Result<ArrayRef> {
    Ok(match element {
        DataType::UInt64 => Arc::new(words.into_iter().map(|v| v as u64).collect::<UInt64Array>()),
        t if let Some(scale) = decimal_scale(t) => {
            let decimals = Decimal128Array::from(words).with_precision_and_scale(38, scale)?;
            cast::cast(&decimals, t)?
        }
        t => cast::cast(
            &words.into_iter().map(|v| v as i64).collect::<Int64Array>(),
            t,
        )?,
    })
}

fn run_floats(kind: Running, row: &[f64], out: &mut Vec<f64>) {
    let mut acc = 0.0;
    for (i, &v) in row.iter().enumerate() {
        acc = match kind {
            Running::Sum => acc + v,
            Running::SumNonNegative if acc + v < 0.0 => 0.0,
            Running::SumNonNegative => acc + v,
            Running::Difference if i == 0 => 0.0,
            Running::Difference => v - row[i - 1],
        };
        out.push(acc);
    }
}

fn compute(kind: Running, list: &ListArray, element: &DataType) -> Result<ArrayRef> {
    let offsets = list.value_offsets();
    let base = offsets[0] as usize;
    let end = offsets[list.len()] as usize;
    let values = list.values().slice(base, end - base);
    if values.null_count() > 0 {
        let item = Field::new("", values.data_type().clone(), true);
        return Err(refused(kind.name(), &item));
    }
    let rows = (0..list.len()).map(|r| offsets[r] as usize - base..offsets[r + 1] as usize - base);
    let computed: ArrayRef = if element == &DataType::Float64 {
        let floats = cast::cast(&values, &DataType::Float64)?;
        let floats = floats.as_primitive::<Float64Type>();
        let mut out = Vec::with_capacity(floats.len());
        rows.for_each(|r| run_floats(kind, &floats.values()[r], &mut out));
        Arc::new(Float64Array::from(out))
    } else {
        let words = words(&values)?;
        let mut out = Vec::with_capacity(words.len());
        rows.for_each(|r| run_integers(kind, &words[r], &mut out));
        integer_column(out, element)?
    };
    let lengths = (0..list.len()).map(|r| list.value_length(r) as usize);
    super::list_from_lengths(
        item(element.clone(), false),
        lengths,
        computed,
        list.nulls().cloned(),
    )
}

impl ScalarUDFImpl for Cumulative {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        check_arity(self.name(), arg_types.len(), 1..=1)?;
        Ok(DataType::List(item(
            self.element_type(&arg_types[0])?,
            false,
        )))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let element = self.element_type(arrays[0].data_type())?;
        let out = compute(self.kind, &as_list(&arrays[0])?, &element)?;
        crate::columnar(out, scalar)
    }
}
