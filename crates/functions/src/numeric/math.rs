//! ClickHouse's mathematical functions: every result is Float64, whatever
//! the width of the numbers passed (`sqrt(toFloat32(2))` is Float64 where
//! DataFusion keeps Float32); `log` is the natural logarithm; `e()`;
//! `intExp2`/`intExp10` as saturating UInt64; `widthBucket`; `factorial`;
//! `isPrime`/`isProbablePrime` of unsigned integers (exact for 64 bits).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, UInt64Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, FieldRef, Float64Type, UInt64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;

use super::{arity_error, error, illegal_type, is_float, is_integer};

/// What a Float64 function computes from its arguments.
#[derive(Debug, Clone, Copy)]
enum Kernel {
    Constant(u64),
    Unary(fn(f64) -> f64),
    Binary(fn(f64, f64) -> f64),
}

impl Kernel {
    fn arity(self) -> usize {
        match self {
            Kernel::Constant(_) => 0,
            Kernel::Unary(_) => 1,
            Kernel::Binary(_) => 2,
        }
    }
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    let unary: [(&'static str, &[&'static str], fn(f64) -> f64); 25] = [
        ("sqrt", &[], f64::sqrt),
        ("cbrt", &[], f64::cbrt),
        ("exp", &[], f64::exp),
        ("exp2", &[], f64::exp2),
        ("exp10", &[], exp10),
        ("log", &["ln"], f64::ln),
        ("log2", &[], f64::log2),
        ("log10", &[], libm::log10),
        ("log1p", &[], f64::ln_1p),
        ("sin", &[], f64::sin),
        ("cos", &[], f64::cos),
        ("tan", &[], f64::tan),
        ("asin", &[], f64::asin),
        ("acos", &[], f64::acos),
        ("atan", &[], f64::atan),
        ("sinh", &[], f64::sinh),
        ("cosh", &[], f64::cosh),
        ("asinh", &[], libm::asinh),
        ("acosh", &[], libm::acosh),
        ("atanh", &[], libm::atanh),
        ("erf", &[], c_math::erf),
        ("erfc", &[], c_math::erfc),
        ("tgamma", &[], c_math::tgamma),
        ("lgamma", &[], c_math::lgamma),
        ("sigmoid", &[], |x| 1.0 / (1.0 + (-x).exp())),
    ];
    let mut functions: Vec<ScalarUDF> = unary
        .into_iter()
        .map(|(name, aliases, f)| float_function(name, aliases, Kernel::Unary(f)))
        .collect();
    functions.extend([
        float_function("degrees", &[], Kernel::Unary(f64::to_degrees)),
        float_function("radians", &[], Kernel::Unary(f64::to_radians)),
        float_function("pow", &["power"], Kernel::Binary(f64::powf)),
        float_function("atan2", &[], Kernel::Binary(f64::atan2)),
        float_function("hypot", &[], Kernel::Binary(f64::hypot)),
        float_function("e", &[], Kernel::Constant(std::f64::consts::E.to_bits())),
        ScalarUDF::new_from_impl(IntExp::new("intExp2", 2)),
        ScalarUDF::new_from_impl(IntExp::new("intExp10", 10)),
        ScalarUDF::new_from_impl(Factorial::default()),
        ScalarUDF::new_from_impl(WidthBucket::default()).with_aliases(["width_bucket"]),
        ScalarUDF::new_from_impl(Primality::new("isPrime")),
        ScalarUDF::new_from_impl(Primality::new("isProbablePrime")),
    ]);
    functions
}

/// 10 to the power `x`; a whole power is the double nearest to it (`1e23`,
/// where `powf` is one bit off), as ClickHouse gives.
fn exp10(x: f64) -> f64 {
    const WHOLE: i32 = 400;
    static POWERS: std::sync::LazyLock<Vec<f64>> = std::sync::LazyLock::new(|| {
        (-WHOLE..=WHOLE)
            .map(|n| format!("1e{n}").parse().expect("a float literal"))
            .collect()
    });
    if x.fract() == 0.0 && x.abs() <= f64::from(WHOLE) {
        return POWERS[(x as i32 + WHOLE) as usize];
    }
    10f64.powf(x)
}

/// The C library's special functions, which give ClickHouse's values to the
/// last bit where the `libm` crate's do not. Each is a pure function of its
/// argument, so calling them is sound.
mod c_math {
    unsafe extern "C" {
        #[link_name = "erf"]
        fn c_erf(x: f64) -> f64;
        #[link_name = "erfc"]
        fn c_erfc(x: f64) -> f64;
        #[link_name = "tgamma"]
        fn c_tgamma(x: f64) -> f64;
        // The reentrant form: plain `lgamma` writes the sign to a global.
        #[link_name = "lgamma_r"]
        fn c_lgamma_r(x: f64, sign: *mut i32) -> f64;
    }

    pub fn erf(x: f64) -> f64 {
        // SAFETY: a pure function of a float.
        unsafe { c_erf(x) }
    }

    pub fn erfc(x: f64) -> f64 {
        // SAFETY: a pure function of a float.
        unsafe { c_erfc(x) }
    }

    pub fn tgamma(x: f64) -> f64 {
        // SAFETY: a pure function of a float.
        unsafe { c_tgamma(x) }
    }

    /// The logarithm of the gamma function's absolute value; NaN at the
    /// poles below zero, as ClickHouse gives (the C library's is infinity).
    pub fn lgamma(x: f64) -> f64 {
        if x < 0.0 && x == x.floor() {
            return f64::NAN;
        }
        let mut sign = 0;
        // SAFETY: a function of a float that writes the sign to a local.
        unsafe { c_lgamma_r(x, &mut sign) }
    }
}

fn float_function(name: &'static str, aliases: &[&'static str], kernel: Kernel) -> ScalarUDF {
    ScalarUDF::new_from_impl(FloatFunction {
        name,
        kernel,
        signature: super::any_arguments(Volatility::Immutable),
    })
    .with_aliases(aliases.iter().copied())
}

/// Numbers a Float64 function takes: integers, floats, decimals, Bool.
fn takes_number(name: &str, t: &DataType) -> Result<()> {
    if super::is_number(t) {
        Ok(())
    } else {
        Err(illegal_type(name, t))
    }
}

/// Any number as Float64 values.
pub(crate) fn as_f64(array: &ArrayRef) -> Result<ArrayRef> {
    Ok(cast::cast(array, &DataType::Float64)?)
}

/// Each name computes one kernel, so the name alone tells two apart.
#[derive(Debug)]
struct FloatFunction {
    name: &'static str,
    kernel: Kernel,
    signature: Signature,
}

impl PartialEq for FloatFunction {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for FloatFunction {}

impl std::hash::Hash for FloatFunction {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl ScalarUDFImpl for FloatFunction {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let arity = self.kernel.arity();
        if arg_types.len() != arity {
            return Err(arity_error(self.name, arg_types.len(), &arity.to_string()));
        }
        for t in arg_types {
            takes_number(self.name, t)?;
        }
        Ok(DataType::Float64)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let inputs = args
            .args
            .iter()
            .map(|a| as_f64(&a.to_array(rows)?))
            .collect::<Result<Vec<_>>>()?;
        let out: Float64Array = match self.kernel {
            Kernel::Constant(bits) => {
                return Ok(ColumnarValue::Scalar(ScalarValue::Float64(Some(
                    f64::from_bits(bits),
                ))));
            }
            Kernel::Unary(f) => inputs[0].as_primitive::<Float64Type>().unary(f),
            Kernel::Binary(f) => datafusion::arrow::compute::binary(
                inputs[0].as_primitive::<Float64Type>(),
                inputs[1].as_primitive::<Float64Type>(),
                f,
            )?,
        };
        crate::columnar(Arc::new(out), scalar)
    }
}

/// `intExp2(x)`, `intExp10(x)`: the base to the power of `x` truncated, as
/// UInt64; 0 below zero, saturating above the largest UInt64.
#[derive(Debug, PartialEq, Eq, Hash)]
struct IntExp {
    name: &'static str,
    base: u64,
    signature: Signature,
}

impl IntExp {
    fn new(name: &'static str, base: u64) -> Self {
        IntExp {
            name,
            base,
            signature: super::any_arguments(Volatility::Immutable),
        }
    }

    fn power(&self, exponent: f64) -> Result<u64> {
        if exponent.is_nan() {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                format!("{} must not be called with nan", self.name),
            ));
        }
        if exponent < 0.0 {
            return Ok(0);
        }
        let exponent = exponent.min(f64::from(u32::MAX)) as u32;
        Ok(self.base.checked_pow(exponent).unwrap_or(u64::MAX))
    }
}

impl ScalarUDFImpl for IntExp {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() != 1 {
            return Err(arity_error(self.name, arg_types.len(), "1"));
        }
        let t = &arg_types[0];
        if !(is_integer(t) || is_float(t) || *t == DataType::Null) {
            return Err(illegal_type(self.name, t));
        }
        Ok(DataType::UInt64)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        // Integers pass exactly; only their sign and size matter.
        let exponents = as_f64(&input)?;
        let out = exponents
            .as_primitive::<Float64Type>()
            .iter()
            .map(|e| e.map(|e| self.power(e)).transpose())
            .collect::<Result<UInt64Array>>()?;
        crate::columnar(Arc::new(out), scalar)
    }
}

/// `factorial(n)`: UInt64, of an integer from 0 (below zero) to 20.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Factorial {
    signature: Signature,
}

impl Default for Factorial {
    fn default() -> Self {
        Factorial {
            signature: super::any_arguments(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for Factorial {
    fn name(&self) -> &str {
        "factorial"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() != 1 {
            return Err(arity_error("factorial", arg_types.len(), "1"));
        }
        let t = &arg_types[0];
        if is_float(t) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                "Illegal type of argument of function factorial, should not be floating point or big int",
            ));
        }
        if !(is_integer(t) || *t == DataType::Null || *t == DataType::Boolean) {
            return Err(illegal_type("factorial", t));
        }
        Ok(DataType::UInt64)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let wide = crate::int_cast::to_i64_wrapping(&input)?;
        let unsigned = matches!(input.data_type(), DataType::UInt64);
        let out = wide
            .iter()
            .map(|n| n.map(|n| factorial(n, unsigned)).transpose())
            .collect::<Result<datafusion::arrow::array::PrimitiveArray<UInt64Type>>>()?;
        crate::columnar(Arc::new(out), scalar)
    }
}

fn factorial(n: i64, unsigned: bool) -> Result<u64> {
    if n > 20 || (unsigned && n < 0) {
        return Err(error(
            ErrorCode::BAD_ARGUMENTS,
            "The maximum value for the input argument of function factorial is 20",
        ));
    }
    Ok((1..=n.max(0) as u64).product())
}

/// `widthBucket(x, low, high, count)`: which of `count` equal buckets between
/// `low` and `high` holds `x`, from 1; 0 below (or when `low` is not below
/// `high`), `count + 1` at or above `high`. Twice as wide as `count`'s type.
#[derive(Debug, PartialEq, Eq, Hash)]
struct WidthBucket {
    signature: Signature,
}

impl Default for WidthBucket {
    fn default() -> Self {
        WidthBucket {
            signature: super::any_arguments(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for WidthBucket {
    fn name(&self) -> &str {
        "widthBucket"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() != 4 {
            return Err(arity_error("widthBucket", arg_types.len(), "4"));
        }
        for t in &arg_types[..3] {
            if !(is_integer(t) || is_float(t) || *t == DataType::Null) {
                return Err(illegal_type("widthBucket", t));
            }
        }
        Ok(match &arg_types[3] {
            DataType::UInt8 | DataType::Null => DataType::UInt16,
            DataType::UInt16 => DataType::UInt32,
            DataType::UInt32 | DataType::UInt64 => DataType::UInt64,
            t => return Err(illegal_type("widthBucket", t)),
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        super::literal_aware_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let floats = args.args[..3]
            .iter()
            .map(|a| as_f64(&a.to_array(rows)?))
            .collect::<Result<Vec<_>>>()?;
        let counts = cast::cast(&args.args[3].to_array(rows)?, &DataType::UInt64)?;
        let counts = counts.as_primitive::<UInt64Type>();
        let [x, low, high] = [0, 1, 2].map(|i| floats[i].as_primitive::<Float64Type>());
        let buckets = (0..rows)
            .map(|row| {
                if [x, low, high].iter().any(|a| a.is_null(row)) || counts.is_null(row) {
                    return Ok(None);
                }
                let (x, low, high) = (x.value(row), low.value(row), high.value(row));
                bucket(x, low, high, counts.value(row)).map(Some)
            })
            .collect::<Result<UInt64Array>>()?;
        let out = cast::cast(&buckets, args.return_type())?;
        crate::columnar(out, scalar)
    }
}

fn bucket(x: f64, low: f64, high: f64, count: u64) -> Result<u64> {
    let bad = |message: &str| Err(error(ErrorCode::BAD_ARGUMENTS, message.to_string()));
    if x.is_nan() || low.is_nan() || high.is_nan() {
        return bad(
            "The first three arguments (operand, low, high) cannot be NaN in function widthBucket",
        );
    }
    if low.is_infinite() || high.is_infinite() {
        return bad(
            "The second and third arguments (low, high) cannot be Inf function widthBucket",
        );
    }
    if count == 0 {
        return bad("Last argument (count) for function widthBucket cannot be 0");
    }
    Ok(if low >= high || x < low {
        0
    } else if x >= high {
        count.saturating_add(1)
    } else {
        // Counted in floats, as ClickHouse does, so a huge count rounds.
        (((x - low) / (high - low) * count as f64).floor() + 1.0) as u64
    })
}

/// `isPrime(n)`, `isProbablePrime(n)`: UInt8, for unsigned integers. Below
/// 2^64 Miller-Rabin with the first twelve primes as bases is exact, so
/// both give the same answer.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Primality {
    name: &'static str,
    signature: Signature,
}

impl Primality {
    fn new(name: &'static str) -> Self {
        Primality {
            name,
            signature: super::any_arguments(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for Primality {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() != 1 {
            return Err(arity_error(self.name, arg_types.len(), "1"));
        }
        match &arg_types[0] {
            DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {}
            DataType::Null => {}
            t => return Err(illegal_type(self.name, t)),
        }
        Ok(DataType::UInt8)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        super::literal_aware_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let values = cast::cast(
            &args.args[0].to_array(crate::rows_to_evaluate(&args))?,
            &DataType::UInt64,
        )?;
        let out: datafusion::arrow::array::UInt8Array = values
            .as_primitive::<UInt64Type>()
            .unary(|n| u8::from(is_prime(n)));
        crate::columnar(Arc::new(out), scalar)
    }
}

fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    if let Some(&p) = BASES.iter().find(|&&p| n % p == 0) {
        return n == p;
    }
    let mul = |a: u64, b: u64| (u128::from(a) * u128::from(b) % u128::from(n)) as u64;
    let pow = |mut base: u64, mut exp: u64| {
        let mut result = 1;
        while exp > 0 {
            if exp & 1 == 1 {
                result = mul(result, base);
            }
            base = mul(base, base);
            exp >>= 1;
        }
        result
    };
    let shift = (n - 1).trailing_zeros();
    let odd = (n - 1) >> shift;
    BASES.iter().all(|&a| {
        let mut x = pow(a, odd);
        if x == 1 || x == n - 1 {
            return true;
        }
        (1..shift).any(|_| {
            x = mul(x, x);
            x == n - 1
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{bucket, is_prime};

    #[test]
    fn primes_are_exact_below_two_to_the_64() {
        let small: Vec<u64> = (0..30).filter(|&n| is_prime(n)).collect();
        assert_eq!(small, vec![2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
        assert!(!is_prime(561));
        assert!(is_prime(18_446_744_073_709_551_557));
        assert!(!is_prime(u64::MAX));
    }

    #[test]
    fn buckets_count_from_one() {
        assert_eq!(bucket(10.15, -8.6, 23.0, 18).unwrap(), 11);
        assert_eq!(bucket(0.3, 0.1, 0.4, 3).unwrap(), 2);
        assert_eq!(bucket(11.0, 0.0, 10.0, 5).unwrap(), 6);
        assert_eq!(bucket(5.0, 10.0, 0.0, 5).unwrap(), 0);
        assert!(bucket(f64::NAN, 0.0, 1.0, 1).is_err());
    }
}
