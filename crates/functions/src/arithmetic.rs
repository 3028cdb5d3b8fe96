//! ClickHouse arithmetic: `plus`, `minus`, `multiply`, `divide`, `modulo`,
//! `intDiv`, `intDivOrZero`, `negate`.
//!
//! ClickHouse widens integer results by one size (`UInt8 + UInt8` is `UInt16`),
//! makes subtraction signed, keeps the divisor's width for `%`, and wraps on
//! overflow. Later layers (the aggregation method choice above all) depend on
//! those result types, so the SQL front rewrites `+ - * / %` on numbers into these
//! functions. Integers are computed in 64 bits with wrapping and narrowed to the
//! result type, which gives the same bits as computing in the result type.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, new_null_array};
use datafusion::arrow::compute::kernels::{cast, numeric};
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

use crate::int_cast::{narrow_from_i64, narrow_from_u64, to_i64_wrapping, to_u64_wrapping};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArithmeticOp {
    Plus,
    Minus,
    Multiply,
    Divide,
    Modulo,
    IntDiv,
    IntDivOrZero,
}

impl ArithmeticOp {
    pub fn name(self) -> &'static str {
        match self {
            ArithmeticOp::Plus => "plus",
            ArithmeticOp::Minus => "minus",
            ArithmeticOp::Multiply => "multiply",
            ArithmeticOp::Divide => "divide",
            ArithmeticOp::Modulo => "modulo",
            ArithmeticOp::IntDiv => "intDiv",
            ArithmeticOp::IntDivOrZero => "intDivOrZero",
        }
    }

    pub const ALL: [ArithmeticOp; 7] = [
        ArithmeticOp::Plus,
        ArithmeticOp::Minus,
        ArithmeticOp::Multiply,
        ArithmeticOp::Divide,
        ArithmeticOp::Modulo,
        ArithmeticOp::IntDiv,
        ArithmeticOp::IntDivOrZero,
    ];
}

/// Integer shape of a type: (signed, size in bytes).
pub(crate) fn int_shape(t: &DataType) -> Option<(bool, u8)> {
    Some(match t {
        DataType::UInt8 | DataType::Boolean => (false, 1),
        DataType::UInt16 => (false, 2),
        DataType::UInt32 => (false, 4),
        DataType::UInt64 => (false, 8),
        DataType::Int8 => (true, 1),
        DataType::Int16 => (true, 2),
        DataType::Int32 => (true, 4),
        DataType::Int64 => (true, 8),
        _ => return None,
    })
}

fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float32 | DataType::Float64 | DataType::Float16)
}

pub fn int_type(signed: bool, size: u8) -> DataType {
    match (signed, size) {
        (false, 1) => DataType::UInt8,
        (false, 2) => DataType::UInt16,
        (false, 4) => DataType::UInt32,
        (false, _) => DataType::UInt64,
        (true, 1) => DataType::Int8,
        (true, 2) => DataType::Int16,
        (true, 4) => DataType::Int32,
        (true, _) => DataType::Int64,
    }
}

fn next_size(size: u8) -> u8 {
    (size * 2).min(8)
}

/// True if ClickHouse arithmetic applies to this pair (numbers, and dates with integers).
pub fn supports(op: ArithmeticOp, left: &DataType, right: &DataType) -> bool {
    // A Decimal operation ClickHouse refuses is planned, to be refused so.
    result_type(op, left, right).is_ok()
        || crate::decimal_arithmetic::result_type(op, left, right).is_some()
}

/// ClickHouse's result type for `op(left, right)`.
pub fn result_type(op: ArithmeticOp, left: &DataType, right: &DataType) -> Result<DataType> {
    if let Some(big) = crate::big_int::result_type(op, left, right) {
        return big;
    }
    if let Some(decimal) = crate::decimal_arithmetic::result_type(op, left, right) {
        return decimal;
    }
    if op == ArithmeticOp::Modulo
        && let Some((numbers_left, numbers_right)) = dates_as_numbers(left, right)
    {
        // A date's remainder has the integer divisor's type, sign included.
        if numbers_left != *left
            && let Some((signed, size)) = int_shape(right)
        {
            return Ok(int_type(signed, size));
        }
        return result_type(op, &numbers_left, &numbers_right);
    }
    let l_num = int_shape(left).is_some() || is_float(left);
    let r_num = int_shape(right).is_some() || is_float(right);
    if !(l_num && r_num) {
        return date_result_type(op, left, right);
    }
    let any_float = is_float(left) || is_float(right);
    let (ls, lsize) =
        int_shape(left).unwrap_or((true, if *left == DataType::Float32 { 4 } else { 8 }));
    let (rs, rsize) =
        int_shape(right).unwrap_or((true, if *right == DataType::Float32 { 4 } else { 8 }));
    Ok(match op {
        ArithmeticOp::Divide => DataType::Float64,
        _ if any_float && !matches!(op, ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero) => {
            DataType::Float64
        }
        ArithmeticOp::Plus | ArithmeticOp::Multiply => {
            int_type(ls || rs, next_size(lsize.max(rsize)))
        }
        ArithmeticOp::Minus => int_type(true, next_size(lsize.max(rsize))),
        ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero => {
            if is_float(left) {
                int_type(true, lsize)
            } else {
                int_type(ls || rs, lsize)
            }
        }
        ArithmeticOp::Modulo => {
            if ls {
                int_type(true, next_size(rsize))
            } else {
                int_type(false, rsize)
            }
        }
    })
}

/// The operands with a Date as the UInt16 and a DateTime as the UInt32
/// ClickHouse stores them in, which `%` reads them as; None without one.
fn dates_as_numbers(left: &DataType, right: &DataType) -> Option<(DataType, DataType)> {
    let number = |t: &DataType| match t {
        DataType::Date32 => Some(DataType::UInt16),
        DataType::Timestamp(TimeUnit::Second, _) => Some(DataType::UInt32),
        _ => None,
    };
    match (number(left), number(right)) {
        (None, None) => None,
        (l, r) => Some((l.unwrap_or(left.clone()), r.unwrap_or(right.clone()))),
    }
}

fn date_result_type(op: ArithmeticOp, left: &DataType, right: &DataType) -> Result<DataType> {
    let is_int = |t: &DataType| int_shape(t).is_some();
    match (op, left, right) {
        (ArithmeticOp::Plus | ArithmeticOp::Minus, DataType::Date32, r) if is_int(r) => {
            Ok(DataType::Date32)
        }
        (ArithmeticOp::Plus, l, DataType::Date32) if is_int(l) => Ok(DataType::Date32),
        // A DateTime64 plus or minus a number of seconds keeps its precision.
        (ArithmeticOp::Plus | ArithmeticOp::Minus, DataType::Timestamp(unit, tz), r)
            if is_int(r) =>
        {
            Ok(DataType::Timestamp(*unit, tz.clone()))
        }
        (ArithmeticOp::Plus, l, DataType::Timestamp(unit, tz)) if is_int(l) => {
            Ok(DataType::Timestamp(*unit, tz.clone()))
        }
        (ArithmeticOp::Minus, DataType::Date32, DataType::Date32) => Ok(DataType::Int32),
        (
            ArithmeticOp::Minus,
            DataType::Timestamp(TimeUnit::Second, _),
            DataType::Timestamp(TimeUnit::Second, _),
        ) => Ok(DataType::Int32),
        _ => plan_err!(
            "Illegal types {left} and {right} of arguments of function {}",
            op.name()
        ),
    }
}

/// A ClickHouse arithmetic function as a DataFusion scalar UDF.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Arithmetic {
    op: ArithmeticOp,
    signature: Signature,
}

impl Arithmetic {
    pub fn new(op: ArithmeticOp) -> Self {
        Arithmetic {
            op,
            signature: Signature::any(2, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for Arithmetic {
    fn name(&self) -> &str {
        self.op.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let (l, r) = (normalize(&arg_types[0]), normalize(&arg_types[1]));
        if let Some(big) = crate::big_int::result_type(self.op, &l, &r) {
            return big;
        }
        if let Some(elementwise) = crate::arrays::elementwise::result_type(self, self.op, &l, &r) {
            return elementwise;
        }
        if let Some(decimal) = crate::decimal_arithmetic::result_type(self.op, &l, &r) {
            return decimal;
        }
        if let Ok(t) = result_type(self.op, &l, &r) {
            return Ok(t);
        }
        fallback_types(self.op, &arg_types[0], &arg_types[1])
            .map(|(_, _, result)| result)
            .map_err(|_| {
                StrataError::new(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Illegal types {} and {} of arguments of function {}",
                        strata_common::types::clickhouse_type_name(&arg_types[0], false),
                        strata_common::types::clickhouse_type_name(&arg_types[1], false),
                        self.op.name()
                    ),
                )
                .into_datafusion()
            })
    }

    /// A Date32 moved by a number of days stays a Date32.
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let field = crate::null_propagating_field(self, &args)?;
        let date32 = field.data_type() == &DataType::Date32
            && args
                .arg_fields
                .iter()
                .any(|f| crate::dates::frame::is_date32(f));
        if !date32 {
            return Ok(field);
        }
        let declared = strata_common::types::parse_clickhouse_type("Date32")
            .map_err(|e| e.into_datafusion())?
            .field(self.name());
        Ok(Arc::new(declared.with_nullable(field.is_nullable())))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let all_scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let (l_type, r_type) = (
            normalize(&args.args[0].data_type()),
            normalize(&args.args[1].data_type()),
        );
        if crate::arrays::elementwise::involves_arrays(&l_type, &r_type) {
            return crate::arrays::elementwise::evaluate(self, self.op, &args);
        }
        if self.op == ArithmeticOp::Modulo
            && let Some(types) = dates_as_numbers(&l_type, &r_type)
        {
            return self.invoke_with_args(as_numbers(args, [types.0, types.1])?);
        }
        if crate::big_int::result_type(self.op, &l_type, &r_type).is_some() {
            let left = as_arithmetic_input(&args.args[0].to_array(rows)?)?;
            let right = as_arithmetic_input(&args.args[1].to_array(rows)?)?;
            let result = crate::big_int::evaluate(self.op, &left, &right, args.return_type())?;
            return crate::columnar(result, all_scalar);
        }
        if let (ColumnarValue::Array(left), ColumnarValue::Scalar(right)) =
            (&args.args[0], &args.args[1])
        {
            if let Some(result) = by_constant_divisor(self.op, left, right, args.return_type())? {
                return Ok(ColumnarValue::Array(result));
            }
        }
        if let Some(result) = self.evaluate_decimals(&args, all_scalar)? {
            return crate::columnar(result, all_scalar);
        }
        let left = args.args[0].to_array(rows)?;
        let right = args.args[1].to_array(rows)?;
        let clickhouse = result_type(
            self.op,
            &normalize(left.data_type()),
            &normalize(right.data_type()),
        )
        .is_ok();
        let result = if clickhouse {
            evaluate(self.op, &left, &right, args.return_type())?
        } else {
            evaluate_fallback(self.op, &left, &right)?
        };
        crate::columnar(result, all_scalar)
    }
}

impl Arithmetic {
    /// ClickHouse's Decimal arithmetic, a constant operand kept a constant,
    /// and `intDiv` with a Decimal operand; None when no operand is a
    /// Decimal or the result is not a Decimal in 128 bits.
    fn evaluate_decimals(
        &self,
        args: &ScalarFunctionArgs,
        all_scalar: bool,
    ) -> Result<Option<ArrayRef>> {
        let (left, right) = (&args.args[0], &args.args[1]);
        let (l_type, r_type) = (normalize(&left.data_type()), normalize(&right.data_type()));
        let any_decimal = l_type.is_decimal() || r_type.is_decimal();
        if result_type(self.op, &l_type, &r_type).is_err() || !any_decimal {
            return Ok(None);
        }
        if matches!(self.op, ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero) {
            let (left, right) = (as_arithmetic_value(left)?, as_arithmetic_value(right)?);
            let quotients =
                crate::decimal_arithmetic::int_div(self.op, &left, &right, args.return_type())?;
            let rows = if all_scalar { 1 } else { args.number_rows };
            return Ok(Some(
                quotients.unwrap_or_else(|| new_null_array(args.return_type(), rows)),
            ));
        }
        let DataType::Decimal128(precision, scale) = *args.return_type() else {
            return Ok(None);
        };
        let (left, right) = (as_arithmetic_value(left)?, as_arithmetic_value(right)?);
        let computed =
            crate::decimal_arithmetic::evaluate(self.op, &left, &right, precision, scale)?;
        Ok(Some(match computed {
            Some(result) => Arc::new(result),
            None => {
                let rows = if all_scalar { 1 } else { args.number_rows };
                new_null_array(args.return_type(), rows)
            }
        }))
    }
}

fn datafusion_operator(op: ArithmeticOp) -> Option<datafusion::logical_expr::Operator> {
    use datafusion::logical_expr::Operator;
    Some(match op {
        ArithmeticOp::Plus => Operator::Plus,
        ArithmeticOp::Minus => Operator::Minus,
        ArithmeticOp::Multiply => Operator::Multiply,
        ArithmeticOp::Divide => Operator::Divide,
        ArithmeticOp::Modulo => Operator::Modulo,
        ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero => return None,
    })
}

/// Types outside ClickHouse's integer and float rules (decimals, intervals,
/// timestamps with intervals) follow DataFusion's arithmetic:
/// (left input type, right input type, result type).
fn fallback_types(
    op: ArithmeticOp,
    left: &DataType,
    right: &DataType,
) -> Result<(DataType, DataType, DataType)> {
    use datafusion::logical_expr::type_coercion::binary::BinaryTypeCoercer;
    let Some(operator) = datafusion_operator(op) else {
        return plan_err!(
            "Illegal types {left} and {right} of arguments of function {}",
            op.name()
        );
    };
    let coercer = BinaryTypeCoercer::new(left, &operator, right);
    let (l, r) = coercer.get_input_types()?;
    let result = BinaryTypeCoercer::new(&l, &operator, &r).get_result_type()?;
    Ok((l, r, result))
}

fn evaluate_fallback(op: ArithmeticOp, left: &ArrayRef, right: &ArrayRef) -> Result<ArrayRef> {
    let (l_type, r_type, _) = fallback_types(op, left.data_type(), right.data_type())?;
    let l = cast::cast(left, &l_type)?;
    let r = cast::cast(right, &r_type)?;
    Ok(match op {
        ArithmeticOp::Plus => numeric::add_wrapping(&l, &r)?,
        ArithmeticOp::Minus => numeric::sub_wrapping(&l, &r)?,
        ArithmeticOp::Multiply => numeric::mul_wrapping(&l, &r)?,
        ArithmeticOp::Divide => numeric::div(&l, &r).map_err(|_| division_by_zero())?,
        ArithmeticOp::Modulo => numeric::rem(&l, &r).map_err(|_| division_by_zero())?,
        ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero => {
            unreachable!("no fallback for integer division")
        }
    })
}

/// Nulls and booleans compute as UInt8; a NULL literal has type Null.
/// `args` cast to `types`.
fn as_numbers(args: ScalarFunctionArgs, types: [DataType; 2]) -> Result<ScalarFunctionArgs> {
    let cast_args = args
        .args
        .iter()
        .zip(&types)
        .map(|(arg, t)| match arg.data_type() == *t {
            true => Ok(arg.clone()),
            // Dates and times reach integers through their Int64 value.
            false => arg.cast_to(&DataType::Int64, None)?.cast_to(t, None),
        })
        .collect::<Result<Vec<_>>>()?;
    let arg_fields = args
        .arg_fields
        .iter()
        .zip(types)
        .map(|(field, t)| Arc::new(field.as_ref().clone().with_data_type(t)))
        .collect();
    Ok(ScalarFunctionArgs {
        args: cast_args,
        arg_fields,
        ..args
    })
}

fn normalize(t: &DataType) -> DataType {
    match t {
        DataType::Null => DataType::UInt8,
        DataType::Boolean => DataType::UInt8,
        other => other.clone(),
    }
}

fn as_arithmetic_input(array: &ArrayRef) -> Result<ArrayRef> {
    match array.data_type() {
        DataType::Null => Ok(cast::cast(array, &DataType::UInt8)?),
        DataType::Boolean => Ok(cast::cast(array, &DataType::UInt8)?),
        _ => Ok(Arc::clone(array)),
    }
}

fn as_arithmetic_value(value: &ColumnarValue) -> Result<ColumnarValue> {
    Ok(match value {
        ColumnarValue::Array(array) => ColumnarValue::Array(as_arithmetic_input(array)?),
        ColumnarValue::Scalar(scalar) => {
            ColumnarValue::Scalar(scalar.cast_to(&normalize(&scalar.data_type()))?)
        }
    })
}

pub(crate) fn division_by_zero() -> datafusion::error::DataFusionError {
    StrataError::new(ErrorCode::ILLEGAL_DIVISION, "Division by zero").into_datafusion()
}

fn least_by_minus_one() -> datafusion::error::DataFusionError {
    StrataError::new(
        ErrorCode::ILLEGAL_DIVISION,
        "Division of minimal signed number by minus one",
    )
    .into_datafusion()
}

pub(crate) fn evaluate(
    op: ArithmeticOp,
    left: &ArrayRef,
    right: &ArrayRef,
    result: &DataType,
) -> Result<ArrayRef> {
    let left = as_arithmetic_input(left)?;
    let right = as_arithmetic_input(right)?;
    if let Some(dates) = evaluate_dates(op, &left, &right, result)? {
        return Ok(dates);
    }
    if *result == DataType::Float64 {
        let l = cast::cast(&left, &DataType::Float64)?;
        let r = cast::cast(&right, &DataType::Float64)?;
        let l = l.as_primitive::<Float64Type>();
        let r = r.as_primitive::<Float64Type>();
        let out: PrimitiveArray<Float64Type> = match op {
            ArithmeticOp::Plus => datafusion::arrow::compute::binary(l, r, |a, b| a + b)?,
            ArithmeticOp::Minus => datafusion::arrow::compute::binary(l, r, |a, b| a - b)?,
            ArithmeticOp::Multiply => datafusion::arrow::compute::binary(l, r, |a, b| a * b)?,
            ArithmeticOp::Divide => datafusion::arrow::compute::binary(l, r, |a, b| a / b)?,
            ArithmeticOp::Modulo => datafusion::arrow::compute::binary(l, r, |a, b| a % b)?,
            ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero => {
                unreachable!("integer division has integer results")
            }
        };
        return Ok(Arc::new(out));
    }
    let (signed, _) = int_shape(result).expect("integer result type");
    let operands_signed = int_shape(left.data_type()).is_none_or(|s| s.0)
        || int_shape(right.data_type()).is_none_or(|s| s.0);
    let float_operand = is_float(left.data_type()) || is_float(right.data_type());
    if float_operand && matches!(op, ArithmeticOp::IntDiv | ArithmeticOp::IntDivOrZero) {
        return narrow_from_i64(&float_quotients(op, &left, &right)?, result);
    }
    if signed || operands_signed || float_operand {
        let (l, r) = (to_i64_wrapping(&left)?, to_i64_wrapping(&right)?);
        let mut values = integer_op(op, &l, &r)?;
        // The least value of a narrower type by -1 fits in 64 bits: found
        // here, as in 64 bits by `integer_op`.
        if let Some(least) = narrower_signed_least(result) {
            let overflows = |(a, b): (i64, i64)| a == least && b == -1;
            match op {
                ArithmeticOp::IntDiv
                    if l.iter()
                        .zip(r.iter())
                        .any(|pair| matches!(pair, (Some(a), Some(b)) if overflows((a, b)))) =>
                {
                    return Err(least_by_minus_one());
                }
                ArithmeticOp::IntDivOrZero => {
                    values = datafusion::arrow::compute::binary(&l, &r, |a, b| {
                        match overflows((a, b)) {
                            true => 0,
                            false => a.checked_div(b).unwrap_or(0),
                        }
                    })?;
                }
                _ => {}
            }
        }
        narrow_from_i64(&values, result)
    } else {
        narrow_from_u64(
            &integer_op(op, &to_u64_wrapping(&left)?, &to_u64_wrapping(&right)?)?,
            result,
        )
    }
}

/// `x % c` and `intDiv(x, c)` for unsigned `x` and a constant unsigned `c`:
/// the divisor is strength-reduced once to a multiply and shift, because a
/// hardware 64-bit division per row dominates `GROUP BY number % 10000`.
/// None when the operands are not of that shape (the general path handles them).
fn by_constant_divisor(
    op: ArithmeticOp,
    left: &ArrayRef,
    right: &datafusion::common::ScalarValue,
    result: &DataType,
) -> Result<Option<ArrayRef>> {
    use datafusion::common::ScalarValue;
    if !matches!(op, ArithmeticOp::Modulo | ArithmeticOp::IntDiv) {
        return Ok(None);
    }
    let divisor = match right {
        ScalarValue::UInt8(Some(v)) => u64::from(*v),
        ScalarValue::UInt16(Some(v)) => u64::from(*v),
        ScalarValue::UInt32(Some(v)) => u64::from(*v),
        ScalarValue::UInt64(Some(v)) => *v,
        _ => return Ok(None),
    };
    let unsigned_left = matches!(
        left.data_type(),
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64
    );
    let unsigned_result = int_shape(result).is_some_and(|(signed, _)| !signed);
    if divisor == 0 || !unsigned_left || !unsigned_result {
        return Ok(None);
    }
    let reduced = strength_reduce::StrengthReducedU64::new(divisor);
    let values = to_u64_wrapping(left)?;
    let out: PrimitiveArray<UInt64Type> = match op {
        ArithmeticOp::Modulo => values.unary(|a| a % reduced),
        _ => values.unary(|a| a / reduced),
    };
    Ok(Some(narrow_from_u64(&out, result)?))
}

/// Integer arithmetic in 64 bits with wrapping; division by zero is an error
/// except for `intDivOrZero`, which gives 0.
fn integer_op<T>(
    op: ArithmeticOp,
    l: &PrimitiveArray<T>,
    r: &PrimitiveArray<T>,
) -> Result<PrimitiveArray<T>>
where
    T: ArrowPrimitiveType,
    T::Native: ArrowNativeTypeOp,
{
    use datafusion::arrow::compute::{binary, try_binary};
    Ok(match op {
        ArithmeticOp::Plus => binary(l, r, |a, b| a.add_wrapping(b))?,
        ArithmeticOp::Minus => binary(l, r, |a, b| a.sub_wrapping(b))?,
        ArithmeticOp::Multiply => binary(l, r, |a, b| a.mul_wrapping(b))?,
        ArithmeticOp::IntDiv | ArithmeticOp::Modulo => try_binary(l, r, |a, b| {
            if b.is_zero() {
                return Err(datafusion::arrow::error::ArrowError::DivideByZero);
            }
            match op {
                // The least value by -1 overflows.
                ArithmeticOp::IntDiv => a.div_checked(b),
                _ => Ok(a.mod_wrapping(b)),
            }
        })
        .map_err(|e| match e {
            datafusion::arrow::error::ArrowError::DivideByZero => division_by_zero(),
            _ => least_by_minus_one(),
        })?,
        // Zero also where the quotient overflows (the least value by -1).
        ArithmeticOp::IntDivOrZero => {
            binary(l, r, |a, b| a.div_checked(b).unwrap_or(T::Native::ZERO))?
        }
        ArithmeticOp::Divide => unreachable!("divide returns Float64"),
    })
}

/// The least value of a signed integer type narrower than 64 bits.
fn narrower_signed_least(result: &DataType) -> Option<i64> {
    match int_shape(result)? {
        (true, bytes) if bytes < 8 => Some(-(1i64 << (u32::from(bytes) * 8 - 1))),
        _ => None,
    }
}

/// `intDiv` with a float operand: the quotient of the values as they are,
/// truncated (`intDiv(15, 5.5)` is 2, not 15 / 5). A zero divisor is an
/// error, or 0 for `intDivOrZero`, which also gives 0 where the quotient is
/// not finite.
fn float_quotients(
    op: ArithmeticOp,
    left: &ArrayRef,
    right: &ArrayRef,
) -> Result<PrimitiveArray<Int64Type>> {
    let l = cast::cast(left, &DataType::Float64)?;
    let r = cast::cast(right, &DataType::Float64)?;
    let (l, r) = (
        l.as_primitive::<Float64Type>(),
        r.as_primitive::<Float64Type>(),
    );
    let or_zero = op == ArithmeticOp::IntDivOrZero;
    datafusion::arrow::compute::try_binary(l, r, |a, b| {
        let quotient = (a / b).trunc();
        match (b == 0.0 || !quotient.is_finite(), or_zero) {
            (false, _) => Ok(quotient as i64),
            (true, true) => Ok(0),
            (true, false) => Err(datafusion::arrow::error::ArrowError::DivideByZero),
        }
    })
    .map_err(|_| division_by_zero())
}

fn evaluate_dates(
    op: ArithmeticOp,
    left: &ArrayRef,
    right: &ArrayRef,
    result: &DataType,
) -> Result<Option<ArrayRef>> {
    let l_temporal = left.data_type().is_temporal();
    let r_temporal = right.data_type().is_temporal();
    if !l_temporal && !r_temporal {
        return Ok(None);
    }
    // Dates are day counts and DateTimes counts of their unit (a number
    // added to a DateTime64 counts seconds): compute on those numbers.
    let ticks_per_second = match result {
        DataType::Timestamp(unit, _) => ticks_per_second(*unit),
        _ => 1,
    };
    let as_i64 = |a: &ArrayRef| -> Result<PrimitiveArray<Int64Type>> {
        match a.data_type() {
            DataType::Date32 => Ok(cast::cast(
                &cast::cast(a, &DataType::Int32)?,
                &DataType::Int64,
            )?
            .as_primitive()
            .clone()),
            DataType::Timestamp(..) => Ok(cast::cast(a, &DataType::Int64)?.as_primitive().clone()),
            _ => Ok(to_i64_wrapping(a)?.unary(|n| n.wrapping_mul(ticks_per_second))),
        }
    };
    let l = as_i64(left)?;
    let r = as_i64(right)?;
    let out: PrimitiveArray<Int64Type> = match op {
        ArithmeticOp::Plus => datafusion::arrow::compute::binary(&l, &r, i64::wrapping_add)?,
        ArithmeticOp::Minus => datafusion::arrow::compute::binary(&l, &r, i64::wrapping_sub)?,
        _ => return exec_err!("unsupported date arithmetic {}", op.name()),
    };
    let out: ArrayRef = match result {
        DataType::Date32 => cast::cast(&cast::cast(&out, &DataType::Int32)?, &DataType::Date32)?,
        DataType::Timestamp(TimeUnit::Second, tz) => Arc::new(
            out.reinterpret_cast::<TimestampSecondType>()
                .with_timezone_opt(tz.clone()),
        ),
        DataType::Timestamp(..) => cast::cast(&out, result)?,
        other => narrow_from_i64(&out, other)?,
    };
    Ok(Some(out))
}

fn ticks_per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// `negate(x)`, ClickHouse's unary minus: unsigned types become signed of the next size.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Negate {
    signature: Signature,
}

impl Default for Negate {
    fn default() -> Self {
        Negate {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

pub fn negate_result_type(t: &DataType) -> Option<DataType> {
    if let Some(big) = strata_common::types::BigInt::of(t) {
        return Some(crate::big_int::negate_type(big));
    }
    match t {
        DataType::Float32
        | DataType::Float64
        | DataType::Decimal128(..)
        | DataType::Decimal256(..) => Some(t.clone()),
        other => {
            let (signed, size) = int_shape(other)?;
            Some(if signed {
                other.clone()
            } else {
                int_type(true, next_size(size))
            })
        }
    }
}

impl ScalarUDFImpl for Negate {
    fn name(&self) -> &str {
        "negate"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        match negate_result_type(&normalize(&arg_types[0])) {
            Some(t) => Ok(t),
            None => plan_err!(
                "Illegal type {} of argument of function negate",
                arg_types[0]
            ),
        }
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let result_type = args.return_type().clone();
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = as_arithmetic_input(&args.args[0].to_array(crate::rows_to_evaluate(&args))?)?;
        let big = strata_common::types::BigInt::of(input.data_type());
        let out: ArrayRef = if let Some(big) = big {
            crate::big_int::negate(&input, big)
        } else if is_float(&result_type) || result_type.is_decimal() {
            numeric::neg_wrapping(&input)?
        } else {
            let wide = to_i64_wrapping(&input)?;
            let negated: PrimitiveArray<Int64Type> = wide.unary(|v: i64| v.wrapping_neg());
            narrow_from_i64(&negated, &result_type)?
        };
        crate::columnar(out, scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ArithmeticOp::*;
    use DataType::*;

    #[test]
    fn result_types_match_clickhouse() {
        assert_eq!(result_type(Modulo, &UInt64, &UInt16).unwrap(), UInt16);
        assert_eq!(result_type(Plus, &UInt8, &UInt16).unwrap(), UInt32);
        assert_eq!(result_type(Plus, &UInt8, &UInt8).unwrap(), UInt16);
        assert_eq!(result_type(Plus, &UInt64, &Int8).unwrap(), Int64);
        assert_eq!(result_type(Minus, &UInt8, &UInt8).unwrap(), Int16);
        assert_eq!(result_type(Multiply, &Float32, &Float32).unwrap(), Float64);
        assert_eq!(result_type(IntDiv, &UInt8, &Int64).unwrap(), Int8);
        assert_eq!(result_type(IntDiv, &Float32, &UInt8).unwrap(), Int32);
        assert_eq!(result_type(Modulo, &Int8, &UInt8).unwrap(), Int16);
        assert_eq!(result_type(Modulo, &Int32, &UInt16).unwrap(), Int32);
        assert_eq!(result_type(Modulo, &UInt8, &Int64).unwrap(), UInt64);
        assert_eq!(result_type(Divide, &UInt8, &UInt8).unwrap(), Float64);
        assert!(result_type(Plus, &Utf8, &UInt8).is_err());
    }
}
