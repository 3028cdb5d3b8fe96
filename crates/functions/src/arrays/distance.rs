//! Distances, norms and dot products of numeric arrays, the vector-search
//! functions: `L1Distance`, `L2Distance`, `L2SquaredDistance`,
//! `LinfDistance`, `LpDistance(a, b, p)` and `cosineDistance`; `L1Norm`,
//! `L2Norm`, `L2SquaredNorm`, `LinfNorm` and `LpNorm(a, p)`;
//! `L1Normalize`, `L2Normalize`, `LinfNormalize` and `LpNormalize(a, p)`
//! (the array divided by its norm); and `arrayDotProduct`. Each but the
//! last also answers to its `distanceL1` / `normL1` / `normalizeL1` name.
//!
//! As ClickHouse computes them: elements must be numbers, none NULL;
//! the result is Float32, computed in Float32, when the elements' common
//! type is Float32, and Float64 otherwise. `arrayDotProduct` has the type
//! of the elements' product instead (Float32 for two Float32 arrays), in
//! which integers wrap. `p` is a constant of at least 1; an `Lp` term is
//! raised to `p` and the sum to `1 / p` in Float64. The arrays of one row
//! must be of equal sizes; a NULL argument makes the result NULL.

use std::ops::{Add, Div, Mul, Sub};
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float32Array, Float64Array, Int64Array, ListArray, new_null_array,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float32Type, Float64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::{
    array_item, arrays_of, as_list, check_sizes, error, illegal_type, item, list_from_lengths,
    no_common_type, row_range, supertype,
};
use crate::arithmetic::{ArithmeticOp, result_type};
use crate::int_cast::{narrow_from_i64, to_i64_wrapping};
use crate::numeric::{is_float, is_integer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    L1,
    L2,
    L2Squared,
    Linf,
    Lp,
    Cosine,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vector {
    Distance(Metric),
    Norm(Metric),
    Normalize(Metric),
    DotProduct,
}

/// Every function: what it computes, its name and its alias.
pub const ALL: [(Vector, &str, Option<&str>); 16] = {
    use Metric::*;
    use Vector::*;
    [
        (Distance(L1), "L1Distance", Some("distanceL1")),
        (Distance(L2), "L2Distance", Some("distanceL2")),
        (
            Distance(L2Squared),
            "L2SquaredDistance",
            Some("distanceL2Squared"),
        ),
        (Distance(Linf), "LinfDistance", Some("distanceLinf")),
        (Distance(Lp), "LpDistance", Some("distanceLp")),
        (Distance(Cosine), "cosineDistance", Some("distanceCosine")),
        (Norm(L1), "L1Norm", Some("normL1")),
        (Norm(L2), "L2Norm", Some("normL2")),
        (Norm(L2Squared), "L2SquaredNorm", Some("normL2Squared")),
        (Norm(Linf), "LinfNorm", Some("normLinf")),
        (Norm(Lp), "LpNorm", Some("normLp")),
        (Normalize(L1), "L1Normalize", Some("normalizeL1")),
        (Normalize(L2), "L2Normalize", Some("normalizeL2")),
        (Normalize(Linf), "LinfNormalize", Some("normalizeLinf")),
        (Normalize(Lp), "LpNormalize", Some("normalizeLp")),
        (DotProduct, "arrayDotProduct", None),
    ]
};

impl Vector {
    pub(crate) fn arrays(self) -> usize {
        match self {
            Vector::Distance(_) | Vector::DotProduct => 2,
            Vector::Norm(_) | Vector::Normalize(_) => 1,
        }
    }

    pub(crate) fn metric(self) -> Option<Metric> {
        match self {
            Vector::Distance(m) | Vector::Norm(m) | Vector::Normalize(m) => Some(m),
            Vector::DotProduct => None,
        }
    }

    /// Whether the constant `p` follows the arrays.
    pub(crate) fn takes_p(self) -> bool {
        self.metric() == Some(Metric::Lp)
    }
}

/// The float type a function computes in.
trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn max(self, other: Self) -> Self;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            // NaN is passed over, as ClickHouse's running maximum passes it.
            fn max(self, other: Self) -> Self {
                <$t>::max(self, other)
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}

real!(f32);
real!(f64);

impl Metric {
    /// The size of a vector of `terms` (the elements, or their differences).
    fn measure<T: Real>(self, terms: impl Iterator<Item = T>, p: f64) -> T {
        match self {
            Metric::L1 => terms.fold(T::ZERO, |sum, t| sum + t.abs()),
            Metric::L2 => squares(terms).sqrt(),
            Metric::L2Squared => squares(terms),
            Metric::Linf => terms.fold(T::ZERO, |most, t| most.max(t.abs())),
            Metric::Lp => {
                let sum = terms.fold(T::ZERO, |sum, t| {
                    sum + T::from_f64(t.abs().to_f64().powf(p))
                });
                T::from_f64(sum.to_f64().powf(1.0 / p))
            }
            Metric::Cosine => unreachable!("cosine measures two vectors together"),
        }
    }
}

fn squares<T: Real>(terms: impl Iterator<Item = T>) -> T {
    terms.fold(T::ZERO, |sum, t| sum + t * t)
}

fn dot<T: Real>(x: &[T], y: &[T]) -> T {
    x.iter().zip(y).fold(T::ZERO, |sum, (&a, &b)| sum + a * b)
}

/// One row's result from its elements `x` (and `y`) in the computing type.
fn compute<T: Real>(vector: Vector, x: &[T], y: &[T], p: f64) -> T {
    match vector {
        Vector::Distance(Metric::Cosine) => {
            let (nx, ny) = (squares(x.iter().copied()), squares(y.iter().copied()));
            T::ONE - dot(x, y) / (nx * ny).sqrt()
        }
        Vector::Distance(metric) => metric.measure(x.iter().zip(y).map(|(&a, &b)| a - b), p),
        Vector::Norm(metric) | Vector::Normalize(metric) => metric.measure(x.iter().copied(), p),
        Vector::DotProduct => dot(x, y),
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayVector {
    vector: Vector,
    name: &'static str,
    aliases: Vec<String>,
    signature: Signature,
}

impl ArrayVector {
    pub fn new(vector: Vector, name: &'static str, alias: Option<&str>) -> Self {
        ArrayVector {
            vector,
            name,
            aliases: alias.iter().map(|a| a.to_string()).collect(),
            signature: crate::numeric::any_arguments(Volatility::Immutable),
        }
    }

    /// The type the function computes in, Null when an argument is NULL.
    fn computing_type(&self, types: &[DataType]) -> Result<DataType> {
        let (name, arrays) = (self.name, self.vector.arrays());
        let expected = arrays + usize::from(self.vector.takes_p());
        if types.len() != expected {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of arguments for function {name} doesn't match: passed {}, should be {expected}",
                    types.len()
                ),
            ));
        }
        if types.contains(&DataType::Null) {
            return Ok(DataType::Null);
        }
        let mut items = Vec::with_capacity(arrays);
        for t in &types[..arrays] {
            let element = array_item(name, t)?;
            if !(supported(element.data_type()) || is_decimal(element.data_type())) {
                return Err(unsupported_elements(name, &element));
            }
            items.push(element.data_type().clone());
        }
        // DataFusion first types an array literal that mixes UInt64 with
        // other integers as a decimal; the final typing has ClickHouse's
        // type, and execution refuses a real decimal.
        if items.iter().any(is_decimal) {
            return Ok(DataType::Float64);
        }
        if let Some(p) = types.get(arrays)
            && !(is_integer(p) || is_float(p))
        {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Argument p of function {name} must be a numeric constant"),
            ));
        }
        let common = match items.as_slice() {
            [x, y] => supertype(x, y).ok_or_else(|| no_common_type(x, y))?,
            _ => items[0].clone(),
        };
        Ok(match self.vector {
            Vector::DotProduct if items.iter().all(|t| *t == DataType::Float32) => {
                DataType::Float32
            }
            Vector::DotProduct => result_type(ArithmeticOp::Multiply, &items[0], &items[1])
                .map_err(|_| illegal_type(name, &common))?,
            _ if common == DataType::Float32 => DataType::Float32,
            _ => DataType::Float64,
        })
    }

    fn output_type(&self, computing: DataType) -> DataType {
        match self.vector {
            Vector::Normalize(_) if computing != DataType::Null => {
                DataType::List(item(computing, false))
            }
            _ => computing,
        }
    }

    /// Each row's result in `T`, and the rows whose arrays are NULL.
    fn rows<T: Real>(
        &self,
        lists: &[ListArray],
        values: &[Vec<T>],
        p: f64,
    ) -> Result<(Vec<T>, Option<NullBuffer>)> {
        let rows = lists[0].len();
        let mut out = Vec::with_capacity(rows);
        for row in 0..rows {
            check_sizes(self.name, lists, row)?;
            let x = &values[0][row_range(&lists[0], row)];
            let y = values
                .get(1)
                .map_or(&[][..], |v| &v[row_range(&lists[1], row)]);
            out.push(compute(self.vector, x, y, p));
        }
        let nulls = lists
            .iter()
            .fold(None, |acc, l| NullBuffer::union(acc.as_ref(), l.nulls()));
        Ok((out, nulls))
    }

    /// The result in a float type: one value per row, or for a normalize
    /// the row's elements divided by it.
    fn floats<T: Real>(
        &self,
        lists: &[ListArray],
        p: f64,
        read: impl Fn(&ArrayRef) -> Result<Vec<T>>,
        build: impl Fn(Vec<T>, Option<NullBuffer>) -> ArrayRef,
    ) -> Result<ArrayRef> {
        let values: Vec<Vec<T>> = lists
            .iter()
            .map(|l| read(l.values()))
            .collect::<Result<_>>()?;
        let (results, nulls) = self.rows(lists, &values, p)?;
        let Vector::Normalize(_) = self.vector else {
            return Ok(build(results, nulls));
        };
        let list = &lists[0];
        let mut scaled = Vec::new();
        for (row, norm) in results.into_iter().enumerate() {
            scaled.extend(values[0][row_range(list, row)].iter().map(|&v| v / norm));
        }
        let lengths = (0..list.len()).map(|row| list.value_length(row) as usize);
        let elements = build(scaled, None);
        let field = item(elements.data_type().clone(), false);
        list_from_lengths(field, lengths, elements, list.nulls().cloned())
    }

    /// An integer dot product: products and sums wrap in the result type.
    fn integer_dot(&self, lists: &[ListArray], output: &DataType) -> Result<ArrayRef> {
        let values: Vec<Vec<i64>> = lists
            .iter()
            .map(|l| Ok(to_i64_wrapping(l.values())?.values().to_vec()))
            .collect::<Result<_>>()?;
        let mut sums = Vec::with_capacity(lists[0].len());
        for row in 0..lists[0].len() {
            check_sizes(self.name, lists, row)?;
            let x = &values[0][row_range(&lists[0], row)];
            let y = &values[1][row_range(&lists[1], row)];
            let sum = x
                .iter()
                .zip(y)
                .fold(0i64, |sum, (&a, &b)| sum.wrapping_add(a.wrapping_mul(b)));
            sums.push(sum);
        }
        let nulls = NullBuffer::union(lists[0].nulls(), lists[1].nulls());
        narrow_from_i64(&Int64Array::new(sums.into(), nulls), output)
    }
}

/// `p`, which must be a constant (None for a column) finite number of
/// at least 1; a NULL `p` is a NULL result, whatever it is taken as.
pub(crate) fn p_argument(name: &str, value: Option<&ScalarValue>) -> Result<f64> {
    let Some(value) = value else {
        return Err(error(
            ErrorCode::ILLEGAL_COLUMN,
            format!("Argument p of function {} must be constant", name),
        ));
    };
    let Ok(ScalarValue::Float64(Some(p))) = value.cast_to(&DataType::Float64) else {
        return Ok(0.0);
    };
    if !p.is_finite() || p < 1.0 {
        return Err(error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!(
                "Second argument for function {} must be a finite number not less than one",
                name
            ),
        ));
    }
    Ok(p)
}

fn supported(element: &DataType) -> bool {
    is_integer(element) || is_float(element)
}

fn is_decimal(element: &DataType) -> bool {
    matches!(element, DataType::Decimal128(..))
}

fn unsupported_elements(name: &str, element: &Field) -> datafusion::error::DataFusionError {
    error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Arguments of function {name} have nested type {}: supported types are integers and floats",
            strata_common::types::field_type_name(element)
        ),
    )
}

fn read_f64(values: &ArrayRef) -> Result<Vec<f64>> {
    let cast = cast::cast(values, &DataType::Float64)?;
    Ok(cast.as_primitive::<Float64Type>().values().to_vec())
}

fn read_f32(values: &ArrayRef) -> Result<Vec<f32>> {
    let cast = cast::cast(values, &DataType::Float32)?;
    Ok(cast.as_primitive::<Float32Type>().values().to_vec())
}

impl ScalarUDFImpl for ArrayVector {
    fn name(&self) -> &str {
        self.name
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.output_type(self.computing_type(arg_types)?))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let computing = self.computing_type(&types)?;
        // A literal `p` is checked now, a constant expression when it runs.
        if let Some(Some(p)) = args.scalar_arguments.get(self.vector.arrays())
            && computing != DataType::Null
            && self.vector.takes_p()
        {
            p_argument(self.name, Some(p))?;
        }
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        let output = self.output_type(computing);
        Ok(Arc::new(Field::new(self.name, output, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let output = args.return_field.data_type().clone();
        let (arrays, scalar) = arrays_of(&args.args, crate::rows_to_evaluate(&args))?;
        if output == DataType::Null {
            return crate::columnar(new_null_array(&DataType::Null, arrays[0].len()), scalar);
        }
        let arrays_count = self.vector.arrays();
        let p = match args.args.get(arrays_count) {
            Some(ColumnarValue::Scalar(p)) => p_argument(self.name, Some(p))?,
            Some(ColumnarValue::Array(_)) => p_argument(self.name, None)?,
            None => 0.0,
        };
        let lists: Vec<ListArray> = arrays[..arrays_count]
            .iter()
            .map(as_list)
            .collect::<Result<_>>()?;
        // Checked on the values: planning cannot tell, as every array
        // literal's elements are Nullable until Strata's literals replace
        // DataFusion's, and a UNION makes them so.
        for list in &lists {
            let offsets = list.value_offsets();
            let (first, last) = (offsets[0] as usize, offsets[list.len()] as usize);
            if let DataType::List(element) = list.data_type()
                && (list.values().slice(first, last - first).null_count() > 0
                    || !supported(element.data_type()))
            {
                return Err(unsupported_elements(self.name, element));
            }
        }
        let computing = match &output {
            DataType::List(field) => field.data_type().clone(),
            other => other.clone(),
        };
        let out = match computing {
            DataType::Float32 => self.floats(&lists, p, read_f32, |v, nulls| {
                Arc::new(Float32Array::new(v.into(), nulls))
            })?,
            DataType::Float64 => self.floats(&lists, p, read_f64, |v, nulls| {
                Arc::new(Float64Array::new(v.into(), nulls))
            })?,
            integer => self.integer_dot(&lists, &integer)?,
        };
        crate::columnar(out, scalar)
    }
}
