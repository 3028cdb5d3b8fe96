//! ClickHouse's random numbers and strings: `rand`/`rand32` (UInt32),
//! `rand64` (UInt64), `randConstant` (one UInt32 for the whole query),
//! `randCanonical`, the distributions (`randUniform`, `randNormal`, ...,
//! Float64 or UInt64 samples; their parameters are constant unsigned
//! integers or floats), and `randomString`, `randomFixedString`,
//! `randomPrintableASCII`, `randomStringUTF8`, `fuzzBits`.
//!
//! Every function takes one more optional argument that only keeps equal
//! calls apart, as in ClickHouse.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryBuilder, FixedSizeBinaryBuilder, Float64Array, StringBuilder,
    UInt8Array, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use rand::{Rng, RngCore};
use rand_distr::Distribution;
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::{error, is_float};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Random {
    Rand32,
    Rand64,
    Constant,
    Canonical,
    Uniform,
    Normal,
    LogNormal,
    Exponential,
    ChiSquared,
    StudentT,
    FisherF,
    Bernoulli,
    Binomial,
    NegativeBinomial,
    Poisson,
}

impl Random {
    const ALL: [Random; 15] = [
        Random::Rand32,
        Random::Rand64,
        Random::Constant,
        Random::Canonical,
        Random::Uniform,
        Random::Normal,
        Random::LogNormal,
        Random::Exponential,
        Random::ChiSquared,
        Random::StudentT,
        Random::FisherF,
        Random::Bernoulli,
        Random::Binomial,
        Random::NegativeBinomial,
        Random::Poisson,
    ];

    fn name(self) -> &'static str {
        match self {
            Random::Rand32 => "rand",
            Random::Rand64 => "rand64",
            Random::Constant => "randConstant",
            Random::Canonical => "randCanonical",
            Random::Uniform => "randUniform",
            Random::Normal => "randNormal",
            Random::LogNormal => "randLogNormal",
            Random::Exponential => "randExponential",
            Random::ChiSquared => "randChiSquared",
            Random::StudentT => "randStudentT",
            Random::FisherF => "randFisherF",
            Random::Bernoulli => "randBernoulli",
            Random::Binomial => "randBinomial",
            Random::NegativeBinomial => "randNegativeBinomial",
            Random::Poisson => "randPoisson",
        }
    }

    /// How many distribution parameters the function takes.
    fn parameters(self) -> usize {
        match self {
            Random::Rand32 | Random::Rand64 | Random::Constant | Random::Canonical => 0,
            Random::Exponential
            | Random::ChiSquared
            | Random::StudentT
            | Random::Bernoulli
            | Random::Poisson => 1,
            _ => 2,
        }
    }

    fn result(self) -> DataType {
        match self {
            Random::Rand32 | Random::Constant => DataType::UInt32,
            Random::Rand64 | Random::Binomial | Random::NegativeBinomial | Random::Poisson => {
                DataType::UInt64
            }
            Random::Bernoulli => DataType::UInt8,
            _ => DataType::Float64,
        }
    }
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    let mut functions: Vec<ScalarUDF> = Random::ALL
        .into_iter()
        .map(|kind| {
            // randConstant is folded once per query, as a stable function is.
            let volatility = if kind == Random::Constant {
                Volatility::Stable
            } else {
                Volatility::Volatile
            };
            let udf = ScalarUDF::new_from_impl(RandomNumber {
                kind,
                signature: super::any_arguments(volatility),
            });
            match kind {
                Random::Rand32 => udf.with_aliases(["rand32"]),
                _ => udf,
            }
        })
        .collect();
    functions.extend(
        Text::ALL
            .into_iter()
            .map(|kind| ScalarUDF::new_from_impl(RandomText::new(kind))),
    );
    functions
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct RandomNumber {
    kind: Random,
    signature: Signature,
}

/// A constant distribution parameter: an unsigned integer or a float.
fn parameter(name: &str, index: usize, value: &ColumnarValue) -> Result<Option<f64>> {
    let ColumnarValue::Scalar(value) = value else {
        return Err(error(
            ErrorCode::ILLEGAL_COLUMN,
            format!("Parameter number {index} of function {name} must be constant"),
        ));
    };
    if value.is_null() {
        return Ok(None);
    }
    match value.cast_to(&DataType::Float64)? {
        ScalarValue::Float64(v) => Ok(v),
        _ => Ok(None),
    }
}

fn bad(message: String) -> datafusion::error::DataFusionError {
    error(ErrorCode::BAD_ARGUMENTS, message)
}

impl ScalarUDFImpl for RandomNumber {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let wanted = self.kind.parameters();
        let name = self.kind.name();
        if !(wanted..=wanted + 1).contains(&arg_types.len()) {
            let expected = format!("{wanted} or {}", wanted + 1);
            return Err(super::arity_error(name, arg_types.len(), &expected));
        }
        for t in &arg_types[..wanted] {
            let unsigned = matches!(
                t,
                DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64
            );
            if !(unsigned || is_float(t) || *t == DataType::Null) {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Illegal type {} of argument of function {name}, expected Float64 or integer",
                        clickhouse_type_name(t, false)
                    ),
                ));
            }
        }
        Ok(self.kind.result())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let wanted = self.kind.parameters();
        let nullable = args.arg_fields[..wanted.min(args.arg_fields.len())]
            .iter()
            .any(|f| f.is_nullable());
        let data_type = super::literal_aware_type(self, &args)?;
        Ok(Arc::new(datafusion::arrow::datatypes::Field::new(
            self.name(),
            data_type,
            nullable,
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let name = self.kind.name();
        let mut parameters = Vec::new();
        for (i, value) in args.args.iter().take(self.kind.parameters()).enumerate() {
            match parameter(name, i, value)? {
                Some(p) => parameters.push(p),
                None => {
                    let nulls = ScalarValue::try_from(self.kind.result())?;
                    return Ok(ColumnarValue::Array(nulls.to_array_of_size(rows)?));
                }
            }
        }
        if self.kind == Random::Constant {
            return Ok(ColumnarValue::Scalar(ScalarValue::UInt32(Some(
                rand::rng().next_u32(),
            ))));
        }
        Ok(ColumnarValue::Array(sample(self.kind, &parameters, rows)?))
    }
}

/// `rows` samples of the distribution `kind` with `p` its parameters.
fn sample(kind: Random, p: &[f64], rows: usize) -> Result<ArrayRef> {
    let mut rng = rand::rng();
    let name = kind.name();
    let floats = |d: &dyn Fn(&mut rand::rngs::ThreadRng) -> f64,
                  rng: &mut rand::rngs::ThreadRng| {
        Arc::new((0..rows).map(|_| d(rng)).collect::<Float64Array>()) as ArrayRef
    };
    let counts = |d: &dyn Fn(&mut rand::rngs::ThreadRng) -> u64,
                  rng: &mut rand::rngs::ThreadRng| {
        Arc::new((0..rows).map(|_| d(rng)).collect::<UInt64Array>()) as ArrayRef
    };
    let positive = |v: f64, what: &str| {
        if v > 0.0 {
            Ok(v)
        } else {
            Err(bad(format!(
                "Argument ({what}) of function {name} should be greater than zero"
            )))
        }
    };
    let stddev = |v: f64| {
        if v >= 0.0 {
            Ok(v)
        } else {
            Err(bad(format!(
                "Argument stddev of function {name} should be non-negative"
            )))
        }
    };
    let probability = |v: f64| {
        if (0.0..=1.0).contains(&v) {
            Ok(v)
        } else {
            Err(bad(format!(
                "Argument of function {name} should be inside [0, 1] because it is a probability"
            )))
        }
    };
    let failed = |e: &dyn std::fmt::Display| bad(format!("{name}: {e}"));
    Ok(match kind {
        Random::Rand32 => Arc::new((0..rows).map(|_| rng.next_u32()).collect::<UInt32Array>()),
        Random::Rand64 => Arc::new((0..rows).map(|_| rng.next_u64()).collect::<UInt64Array>()),
        Random::Constant => unreachable!("randConstant is one value"),
        Random::Canonical => floats(&|r| r.random::<f64>(), &mut rng),
        Random::Uniform => {
            let (min, max) = (p[0], p[1]);
            if min > max {
                return Err(bad(format!(
                    "Argument min ({min}) of function {name} should not be greater than max ({max})"
                )));
            }
            floats(&|r| min + (max - min) * r.random::<f64>(), &mut rng)
        }
        Random::Normal | Random::LogNormal => {
            let normal = rand_distr::Normal::new(p[0], stddev(p[1])?).map_err(|e| failed(&e))?;
            let log = kind == Random::LogNormal;
            floats(
                &|r| {
                    let v = normal.sample(r);
                    if log { v.exp() } else { v }
                },
                &mut rng,
            )
        }
        Random::Exponential => {
            let d = rand_distr::Exp::new(positive(p[0], "lambda")?).map_err(|e| failed(&e))?;
            floats(&|r| d.sample(r), &mut rng)
        }
        Random::ChiSquared => {
            let dof = positive(p[0], "degrees of freedom")?;
            let d = rand_distr::ChiSquared::new(dof).map_err(|e| failed(&e))?;
            floats(&|r| d.sample(r), &mut rng)
        }
        Random::StudentT => {
            let dof = positive(p[0], "degrees of freedom")?;
            let d = rand_distr::StudentT::new(dof).map_err(|e| failed(&e))?;
            floats(&|r| d.sample(r), &mut rng)
        }
        Random::FisherF => {
            let (m, n) = (
                positive(p[0], "degrees of freedom")?,
                positive(p[1], "degrees of freedom")?,
            );
            let d = rand_distr::FisherF::new(m, n).map_err(|e| failed(&e))?;
            floats(&|r| d.sample(r), &mut rng)
        }
        Random::Bernoulli => {
            let chance = probability(p[0])?;
            Arc::new(
                (0..rows)
                    .map(|_| u8::from(rng.random_bool(chance)))
                    .collect::<UInt8Array>(),
            )
        }
        Random::Binomial => {
            let d = rand_distr::Binomial::new(p[0] as u64, probability(p[1])?)
                .map_err(|e| failed(&e))?;
            counts(&|r| d.sample(r), &mut rng)
        }
        Random::NegativeBinomial => negative_binomial(p[0], probability(p[1])?, rows, &mut rng)?,
        Random::Poisson => {
            let lambda = p[0];
            if lambda == 0.0 {
                return Ok(Arc::new(UInt64Array::from(vec![0u64; rows])));
            }
            let d = rand_distr::Poisson::new(lambda).map_err(|e| failed(&e))?;
            counts(&|r| d.sample(r) as u64, &mut rng)
        }
    })
}

/// Failures before the `n`th success with chance `p`: Poisson of a Gamma
/// sample; with `p` zero there is no success, and the count saturates.
fn negative_binomial(
    n: f64,
    p: f64,
    rows: usize,
    rng: &mut rand::rngs::ThreadRng,
) -> Result<ArrayRef> {
    if n == 0.0 || p == 1.0 {
        return Ok(Arc::new(UInt64Array::from(vec![0u64; rows])));
    }
    if p == 0.0 {
        return Ok(Arc::new(UInt64Array::from(vec![u64::MAX; rows])));
    }
    let gamma = rand_distr::Gamma::new(n, (1.0 - p) / p)
        .map_err(|e| bad(format!("randNegativeBinomial: {e}")))?;
    let out: UInt64Array = (0..rows)
        .map(|_| {
            let lambda = gamma.sample(rng);
            if lambda <= 0.0 {
                return 0;
            }
            rand_distr::Poisson::new(lambda).map_or(0, |d| d.sample(rng) as u64)
        })
        .collect();
    Ok(Arc::new(out))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Text {
    Bytes,
    Fixed,
    PrintableAscii,
    Utf8,
    FuzzBits,
}

impl Text {
    const ALL: [Text; 5] = [
        Text::Bytes,
        Text::Fixed,
        Text::PrintableAscii,
        Text::Utf8,
        Text::FuzzBits,
    ];

    fn name(self) -> &'static str {
        match self {
            Text::Bytes => "randomString",
            Text::Fixed => "randomFixedString",
            Text::PrintableAscii => "randomPrintableASCII",
            Text::Utf8 => "randomStringUTF8",
            Text::FuzzBits => "fuzzBits",
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct RandomText {
    kind: Text,
    signature: Signature,
}

impl RandomText {
    fn new(kind: Text) -> Self {
        RandomText {
            kind,
            signature: super::any_arguments(Volatility::Volatile),
        }
    }
}

/// The constant FixedString width of `randomFixedString`.
fn fixed_width(args: &ReturnFieldArgs) -> Result<i32> {
    let Some(Some(value)) = args.scalar_arguments.first() else {
        return Err(error(
            ErrorCode::ILLEGAL_COLUMN,
            "First argument for function randomFixedString must be constant",
        ));
    };
    match value.cast_to(&DataType::Int64)? {
        ScalarValue::Int64(Some(n)) if n > 0 && n <= i64::from(i32::MAX) => Ok(n as i32),
        _ => Err(error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            "FixedString size must be positive",
        )),
    }
}

impl ScalarUDFImpl for RandomText {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let name = self.kind.name();
        let (first, extra) = match self.kind {
            Text::FuzzBits => (2, 0),
            _ => (1, 1),
        };
        if !(first..=first + extra).contains(&arg_types.len()) {
            let expected = if extra == 0 {
                first.to_string()
            } else {
                format!("{first} or {}", first + extra)
            };
            return Err(super::arity_error(name, arg_types.len(), &expected));
        }
        if self.kind == Text::FuzzBits {
            if !is_float(&arg_types[1]) {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    "Second argument of function fuzzBits must be constant float",
                ));
            }
            return Ok(match &arg_types[0] {
                DataType::FixedSizeBinary(n) => DataType::FixedSizeBinary(*n),
                DataType::Null => DataType::Null,
                t if crate::hashing::is_text(t) => DataType::Binary,
                t => return Err(super::illegal_type(name, t)),
            });
        }
        let t = &arg_types[0];
        if !(super::is_integer(t) || *t == DataType::Null) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "A value of illegal type was provided as 1st argument 'length' to function '{name}'. Expected: (U)Int*, got: {}",
                    clickhouse_type_name(t, false)
                ),
            ));
        }
        Ok(match self.kind {
            Text::Bytes => DataType::Binary,
            _ => DataType::Utf8,
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let mut data_type = super::literal_aware_type(self, &args)?;
        if self.kind == Text::Fixed {
            data_type = DataType::FixedSizeBinary(fixed_width(&args)?);
        }
        Ok(Arc::new(datafusion::arrow::datatypes::Field::new(
            self.name(),
            data_type,
            args.arg_fields[0].is_nullable(),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let first = args.args[0].to_array(rows)?;
        if self.kind == Text::FuzzBits {
            let chance = match &args.args[1] {
                ColumnarValue::Scalar(v) => match v.cast_to(&DataType::Float64)? {
                    ScalarValue::Float64(Some(p)) => p,
                    _ => 0.0,
                },
                ColumnarValue::Array(_) => {
                    return Err(error(
                        ErrorCode::ILLEGAL_COLUMN,
                        "Second argument of function fuzzBits must be constant float",
                    ));
                }
            };
            return Ok(ColumnarValue::Array(fuzz_bits(
                &first,
                chance,
                args.return_type(),
            )?));
        }
        let lengths = datafusion::arrow::compute::kernels::cast::cast(&first, &DataType::Int64)?;
        let lengths = lengths.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
        if lengths
            .iter()
            .flatten()
            .any(|n| !(0..=(1 << 30)).contains(&n))
        {
            return Err(error(
                ErrorCode::TOO_LARGE_STRING_SIZE,
                format!("Too large string size in function {}", self.kind.name()),
            ));
        }
        let lengths: Vec<Option<usize>> = lengths.iter().map(|n| n.map(|n| n as usize)).collect();
        Ok(ColumnarValue::Array(
            self.strings(&lengths, args.return_type())?,
        ))
    }
}

impl RandomText {
    fn strings(&self, lengths: &[Option<usize>], result: &DataType) -> Result<ArrayRef> {
        let mut rng = rand::rng();
        match (self.kind, result) {
            (Text::Fixed, DataType::FixedSizeBinary(width)) => {
                let mut out = FixedSizeBinaryBuilder::with_capacity(lengths.len(), *width);
                let mut bytes = vec![0u8; *width as usize];
                for _ in lengths {
                    rng.fill_bytes(&mut bytes);
                    out.append_value(&bytes)?;
                }
                Ok(Arc::new(out.finish()))
            }
            (Text::Bytes, _) => {
                let mut out = BinaryBuilder::new();
                for length in lengths {
                    match length {
                        Some(n) => {
                            let mut bytes = vec![0u8; *n];
                            rng.fill_bytes(&mut bytes);
                            out.append_value(&bytes);
                        }
                        None => out.append_null(),
                    }
                }
                Ok(Arc::new(out.finish()))
            }
            _ => {
                let mut out = StringBuilder::new();
                for length in lengths {
                    match length {
                        Some(n) => out.append_value(self.text(*n, &mut rng)),
                        None => out.append_null(),
                    }
                }
                Ok(Arc::new(out.finish()))
            }
        }
    }

    /// `n` printable ASCII characters, or `n` code points of any plane but
    /// the surrogates.
    fn text(&self, n: usize, rng: &mut rand::rngs::ThreadRng) -> String {
        if self.kind == Text::PrintableAscii {
            return (0..n)
                .map(|_| rng.random_range(b' '..=b'~') as char)
                .collect();
        }
        (0..n)
            .map(|_| {
                loop {
                    if let Some(c) = char::from_u32(rng.random_range(0..=0x10FFFF)) {
                        break c;
                    }
                }
            })
            .collect()
    }
}

/// Each bit of the string flipped with chance `chance`.
fn fuzz_bits(values: &ArrayRef, chance: f64, result: &DataType) -> Result<ArrayRef> {
    if *result == DataType::Null {
        return Ok(Arc::clone(values));
    }
    if !(0.0..=1.0).contains(&chance) {
        return Err(error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            "Second argument of function fuzzBits must be a probability in [0, 1]",
        ));
    }
    let mut rng = rand::rng();
    let mut fuzz = |bytes: &[u8]| -> Vec<u8> {
        bytes
            .iter()
            .map(|b| {
                (0..8).fold(*b, |b, bit| {
                    if rng.random_bool(chance) {
                        b ^ (1 << bit)
                    } else {
                        b
                    }
                })
            })
            .collect()
    };
    if let DataType::FixedSizeBinary(width) = result {
        let fixed = values.as_fixed_size_binary();
        let mut out = FixedSizeBinaryBuilder::with_capacity(fixed.len(), *width);
        for row in 0..fixed.len() {
            if fixed.is_null(row) {
                out.append_null();
            } else {
                out.append_value(fuzz(fixed.value(row)))?;
            }
        }
        return Ok(Arc::new(out.finish()));
    }
    let bytes = datafusion::arrow::compute::kernels::cast::cast(values, &DataType::Binary)?;
    let mut out = BinaryBuilder::new();
    for value in bytes.as_binary::<i32>().iter() {
        match value {
            Some(v) => out.append_value(fuzz(v)),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}
