//! The functions that apply element functions to tuples: `tuplePlus` and
//! the rest of tuple arithmetic, `dotProduct`, `tupleHammingDistance`, and
//! the norms and distances of `arrays::distance` on tuples. Each is a
//! [`Composition`] of registered functions, so its types are exactly the
//! element functions' (`tuplePlus` of two `UInt8` elements is `UInt16`,
//! `L1Norm` of `Int8`s `UInt16`, through `abs` and `plus`).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::operand::{Mode, Operand, elements, tuple};
use crate::arrays::distance::{self, Metric, Vector, p_argument};
use crate::numeric::error;
use crate::other::frame::literal_typed;

/// The registered element functions compositions apply, by name.
pub(crate) struct Elements(HashMap<&'static str, ScalarUDF>);

/// The element functions, which [`super::register`] must find registered.
const ELEMENT_FUNCTIONS: [&str; 10] = [
    "plus",
    "minus",
    "multiply",
    "divide",
    "modulo",
    "intDiv",
    "intDivOrZero",
    "positiveModulo",
    "negate",
    "abs",
];

impl From<&[ScalarUDF]> for Elements {
    fn from(registered: &[ScalarUDF]) -> Self {
        let mut found = HashMap::new();
        for name in ELEMENT_FUNCTIONS {
            let function = registered
                .iter()
                .find(|f| f.name() == name)
                .unwrap_or_else(|| panic!("{name} is registered before the tuple functions"));
            found.insert(name, function.clone());
        }
        Elements(found)
    }
}

impl Elements {
    fn get(&self, name: &str) -> &ScalarUDF {
        &self.0[name]
    }
}

/// What an elementwise function's arguments are besides its first tuple.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Shape {
    /// A second tuple of the same size: `tuplePlus(a, b)`.
    Pairwise,
    /// A number applied to every element: `tupleMultiplyByNumber(a, n)`.
    ByNumber,
    /// Nothing: `tupleNegate(a)`.
    Unary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Composition {
    Elementwise { element: &'static str, shape: Shape },
    DotProduct,
    HammingDistance,
    Vector(Vector),
}

/// How a function picks its composition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Dispatch {
    /// Always the one composition, unless the first argument is no tuple
    /// and the function has another form (`L2Norm` of an array).
    Fixed(Composition),
    /// An arithmetic function (`plus`, `multiply`, ...): the composition
    /// follows from which arguments are tuples, and without one the
    /// function is the number function it wraps.
    Operator,
}

/// The composition of arithmetic `name` on arguments of which those marked
/// in `tuples` are tuples, and whether the two arguments swap: `t + u` is
/// `tuplePlus`, `t * u` the dot product, `2 * t` `t * 2`.
fn operator_composition(name: &'static str, tuples: &[bool]) -> Option<(Composition, bool)> {
    use Shape::*;
    let elementwise = |element, shape| Composition::Elementwise { element, shape };
    Some(match (name, tuples) {
        ("plus", [true, true]) => (elementwise("plus", Pairwise), false),
        ("minus", [true, true]) => (elementwise("minus", Pairwise), false),
        ("multiply", [true, true]) => (Composition::DotProduct, false),
        ("multiply", [false, true]) => (elementwise("multiply", ByNumber), true),
        ("negate", [true]) => (elementwise("negate", Unary), false),
        ("multiply" | "divide" | "modulo" | "intDiv" | "intDivOrZero", [true, false]) => {
            (elementwise(name, ByNumber), false)
        }
        _ => return None,
    })
}

/// The arithmetic functions that take tuples.
const OPERATORS: [&str; 8] = [
    "plus",
    "minus",
    "multiply",
    "divide",
    "modulo",
    "intDiv",
    "intDivOrZero",
    "negate",
];

const ELEMENTWISE: [(&str, &str, Shape); 14] = [
    ("tuplePlus", "plus", Shape::Pairwise),
    ("tupleMinus", "minus", Shape::Pairwise),
    ("tupleMultiply", "multiply", Shape::Pairwise),
    ("tupleDivide", "divide", Shape::Pairwise),
    ("tupleModulo", "modulo", Shape::Pairwise),
    ("tupleIntDiv", "intDiv", Shape::Pairwise),
    ("tupleIntDivOrZero", "intDivOrZero", Shape::Pairwise),
    ("tupleMultiplyByNumber", "multiply", Shape::ByNumber),
    ("tupleDivideByNumber", "divide", Shape::ByNumber),
    ("tupleModuloByNumber", "modulo", Shape::ByNumber),
    ("tupleIntDivByNumber", "intDiv", Shape::ByNumber),
    ("tupleIntDivOrZeroByNumber", "intDivOrZero", Shape::ByNumber),
    (
        "tuplePositiveModuloByNumber",
        "positiveModulo",
        Shape::ByNumber,
    ),
    ("tupleNegate", "negate", Shape::Unary),
];

/// Every function; those that share a name with a function in
/// `registered` (`L2Norm` of arrays, `plus` of numbers) take it along as
/// their other form.
pub(crate) fn all(elements: &Arc<Elements>, registered: &[ScalarUDF]) -> Vec<TupleFunction> {
    let other = |name: &str| registered.iter().find(|f| f.name() == name).cloned();
    let fixed = |name, aliases: &[&str], composition, other| {
        TupleFunction::new(name, aliases, Dispatch::Fixed(composition), elements, other)
    };
    let mut functions: Vec<TupleFunction> = ELEMENTWISE
        .iter()
        .map(|&(name, element, shape)| {
            fixed(name, &[], Composition::Elementwise { element, shape }, None)
        })
        .collect();
    functions.push(fixed(
        "tupleHammingDistance",
        &[],
        Composition::HammingDistance,
        None,
    ));
    let dot_product = Composition::DotProduct;
    functions.push(fixed(
        "dotProduct",
        &["scalarProduct"],
        dot_product,
        other("arrayDotProduct"),
    ));
    for (vector, name, alias) in distance::ALL {
        if vector == Vector::DotProduct {
            continue;
        }
        let aliases: Vec<&str> = alias.into_iter().collect();
        functions.push(fixed(
            name,
            &aliases,
            Composition::Vector(vector),
            other(name),
        ));
    }
    for name in OPERATORS {
        let number_form = other(name).expect("arithmetic is registered before tuples");
        functions.push(TupleFunction::new(
            name,
            &[],
            Dispatch::Operator,
            elements,
            Some(number_form),
        ));
    }
    functions
}

/// A tuple function, and the function of the same name for other
/// arguments where there is one (`L2Norm([3, 4])` and `L2Norm((3, 4))`).
#[derive(Debug)]
pub(crate) struct TupleFunction {
    name: &'static str,
    aliases: Vec<String>,
    dispatch: Dispatch,
    elements: Arc<Elements>,
    other: Option<ScalarUDF>,
    signature: Signature,
}

impl std::fmt::Debug for Elements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Elements")
    }
}

impl PartialEq for TupleFunction {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for TupleFunction {}

impl std::hash::Hash for TupleFunction {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl TupleFunction {
    fn new(
        name: &'static str,
        aliases: &[&str],
        dispatch: Dispatch,
        elements: &Arc<Elements>,
        other: Option<ScalarUDF>,
    ) -> Self {
        // An operator keeps its number form's signature, which checks the
        // argument count before the number form is asked for a type.
        let signature = match (&dispatch, &other) {
            (Dispatch::Operator, Some(other)) => other.signature().clone(),
            _ => Signature::variadic_any(Volatility::Immutable),
        };
        TupleFunction {
            name,
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            dispatch,
            elements: Arc::clone(elements),
            other,
            signature,
        }
    }

    /// The composition for arguments of `fields` and whether the first two
    /// swap; None where the other form takes them.
    fn form(&self, fields: &[FieldRef]) -> Option<(Composition, bool)> {
        let tuples: Vec<bool> = fields
            .iter()
            .map(|f| matches!(f.data_type(), DataType::Struct(_)))
            .collect();
        match self.dispatch {
            Dispatch::Fixed(_)
                if self.other.is_some() && !tuples.first().copied().unwrap_or(false) =>
            {
                None
            }
            Dispatch::Fixed(composition) => Some((composition, false)),
            Dispatch::Operator => operator_composition(self.name, &tuples),
        }
    }

    fn other_form(&self) -> &ScalarUDF {
        self.other
            .as_ref()
            .expect("only a function with another form dispatches to it")
    }

    /// How many leading arguments are tuples, and how many arguments follow.
    fn arity(composition: Composition) -> (usize, usize) {
        match composition {
            Composition::Elementwise { shape, .. } => match shape {
                Shape::Pairwise => (2, 0),
                Shape::ByNumber => (1, 1),
                Shape::Unary => (1, 0),
            },
            Composition::DotProduct | Composition::HammingDistance => (2, 0),
            Composition::Vector(v) => (v.arrays(), usize::from(v.takes_p())),
        }
    }

    /// Checks the arguments' count and that the tuples are tuples of one size.
    fn check(
        &self,
        composition: Composition,
        fields: &[FieldRef],
        scalars: &[Option<&ScalarValue>],
    ) -> Result<()> {
        let (tuples, rest) = Self::arity(composition);
        if fields.len() != tuples + rest {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of arguments for function {} doesn't match: passed {}, should be {}",
                    self.name,
                    fields.len(),
                    tuples + rest
                ),
            ));
        }
        for (i, field) in fields[..tuples].iter().enumerate() {
            if !matches!(field.data_type(), DataType::Struct(_)) {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Argument {i} of function {} should be tuple, got {}",
                        self.name,
                        clickhouse_type_name(
                            literal_typed(field, scalars[i]).data_type(),
                            field.is_nullable()
                        )
                    ),
                ));
            }
        }
        let size = |f: &FieldRef| match f.data_type() {
            DataType::Struct(fields) => fields.len(),
            _ => unreachable!("checked to be a tuple"),
        };
        if tuples == 2 && size(&fields[0]) != size(&fields[1]) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Expected tuples of the same size as arguments 0 and 1 of function {}, got {} and {}",
                    self.name,
                    clickhouse_type_name(fields[0].data_type(), false),
                    clickhouse_type_name(fields[1].data_type(), false)
                ),
            ));
        }
        Ok(())
    }

    /// The call's result, typed always and evaluated in `mode`.
    fn compose(
        &self,
        composition: Composition,
        mode: &Mode,
        args: Vec<Operand>,
    ) -> Result<Operand> {
        let (tuples, _) = Self::arity(composition);
        let mut args = args.into_iter();
        let tuples: Vec<Vec<Operand>> = (0..tuples)
            .map(|_| elements(&args.next().expect("checked arity")))
            .collect::<Result<_>>()?;
        let rest: Vec<Operand> = args.collect();
        match composition {
            Composition::Elementwise { element, shape } => {
                let function = self.elements.get(element);
                let results = (0..tuples[0].len())
                    .map(|i| {
                        let operands = match shape {
                            Shape::Pairwise => vec![tuples[0][i].clone(), tuples[1][i].clone()],
                            Shape::ByNumber => vec![tuples[0][i].clone(), rest[0].clone()],
                            Shape::Unary => vec![tuples[0][i].clone()],
                        };
                        mode.apply(function, &operands)
                    })
                    .collect::<Result<Vec<_>>>()?;
                tuple(mode, results)
            }
            Composition::DotProduct => self.dot(mode, &tuples[0], &tuples[1]),
            Composition::HammingDistance => {
                let unequal = tuples[0]
                    .iter()
                    .zip(&tuples[1])
                    .map(|(a, b)| mode.unequal(a, b))
                    .collect::<Result<_>>()?;
                self.sum(mode, unequal)
            }
            Composition::Vector(vector) => {
                let p = match rest.first() {
                    Some(p) => p_argument(self.name, p.value.as_ref().and_then(constant))?,
                    None => 0.0,
                };
                self.vector(mode, vector, &tuples, p)
            }
        }
    }

    fn pairwise(
        &self,
        mode: &Mode,
        element: &str,
        a: &[Operand],
        b: &[Operand],
    ) -> Result<Vec<Operand>> {
        let function = self.elements.get(element);
        a.iter()
            .zip(b)
            .map(|(x, y)| mode.apply(function, &[x.clone(), y.clone()]))
            .collect()
    }

    /// The `plus` of `operands`, a UInt8 zero for none, as ClickHouse's.
    fn sum(&self, mode: &Mode, operands: Vec<Operand>) -> Result<Operand> {
        if operands.is_empty() {
            return Ok(mode.constant(ScalarValue::UInt8(Some(0))));
        }
        mode.fold(self.elements.get("plus"), operands)
    }

    fn dot(&self, mode: &Mode, a: &[Operand], b: &[Operand]) -> Result<Operand> {
        let products = self.pairwise(mode, "multiply", a, b)?;
        self.sum(mode, products)
    }

    fn vector(
        &self,
        mode: &Mode,
        vector: Vector,
        tuples: &[Vec<Operand>],
        p: f64,
    ) -> Result<Operand> {
        match vector {
            Vector::Norm(metric) => self.norm(mode, metric, &tuples[0], p),
            Vector::Distance(Metric::Cosine) => {
                let (a, b) = (&tuples[0], &tuples[1]);
                let n = a.len();
                let all: Vec<Operand> = a.iter().chain(b).cloned().collect();
                mode.real(&all, |v| {
                    let (x, y) = v.split_at(n);
                    let dot: f64 = x.iter().zip(y).map(|(x, y)| x * y).sum();
                    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
                    1.0 - dot / (norm(x) * norm(y))
                })
            }
            Vector::Distance(metric) => {
                let differences = self.pairwise(mode, "minus", &tuples[0], &tuples[1])?;
                self.norm(mode, metric, &differences, p)
            }
            Vector::Normalize(metric) => {
                let norm = self.norm(mode, metric, &tuples[0], p)?;
                let divide = self.elements.get("divide");
                let parts = tuples[0]
                    .iter()
                    .map(|x| mode.apply(divide, &[x.clone(), norm.clone()]))
                    .collect::<Result<Vec<_>>>()?;
                tuple(mode, parts)
            }
            Vector::DotProduct => self.dot(mode, &tuples[0], &tuples[1]),
        }
    }

    fn norm(&self, mode: &Mode, metric: Metric, xs: &[Operand], p: f64) -> Result<Operand> {
        match metric {
            Metric::L1 => {
                let abs = self.elements.get("abs");
                let terms = xs
                    .iter()
                    .map(|x| mode.apply(abs, &[x.clone()]))
                    .collect::<Result<_>>()?;
                self.sum(mode, terms)
            }
            Metric::L2Squared => self.dot(mode, xs, xs),
            Metric::L2 => mode.real(xs, |v| v.iter().map(|x| x * x).sum::<f64>().sqrt()),
            Metric::Linf => mode.real(xs, |v| v.iter().fold(0.0, |m, x| f64::max(m, x.abs()))),
            Metric::Lp => mode.real(xs, |v| {
                v.iter().map(|x| x.abs().powf(p)).sum::<f64>().powf(1.0 / p)
            }),
            Metric::Cosine => unreachable!("cosine is a distance, not a norm"),
        }
    }
}

/// A constant argument's value.
fn constant(value: &ColumnarValue) -> Option<&ScalarValue> {
    match value {
        ColumnarValue::Scalar(s) => Some(s),
        ColumnarValue::Array(_) => None,
    }
}

/// The call's arguments as operands: constants' values while typing, all values while evaluating.
fn operands(fields: &[FieldRef], values: Vec<Option<ColumnarValue>>) -> Vec<Operand> {
    fields
        .iter()
        .zip(values)
        .map(|(field, value)| Operand {
            field: Arc::clone(field),
            value,
        })
        .collect()
}

impl ScalarUDFImpl for TupleFunction {
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
        let tuples = arg_types.iter().any(|t| matches!(t, DataType::Struct(_)));
        match &self.other {
            Some(other) if !tuples => other.return_type(arg_types),
            _ => {
                datafusion::common::internal_err!("{} is typed from its argument fields", self.name)
            }
        }
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let Some((composition, swap)) = self.form(args.arg_fields) else {
            return self.other_form().return_field_from_args(args);
        };
        let mut fields = args.arg_fields.to_vec();
        let mut scalars = args.scalar_arguments.to_vec();
        if swap {
            fields.swap(0, 1);
            scalars.swap(0, 1);
        }
        self.check(composition, &fields, &scalars)?;
        let values = scalars
            .iter()
            .map(|s| s.map(|s| ColumnarValue::Scalar(s.clone())))
            .collect();
        let result = self.compose(composition, &Mode::Typing, operands(&fields, values))?;
        Ok(Arc::new(Field::new(
            self.name,
            result.data_type().clone(),
            result.field.is_nullable(),
        )))
    }

    fn invoke_with_args(&self, mut args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let Some((composition, swap)) = self.form(&args.arg_fields) else {
            return self.other_form().invoke_with_args(args);
        };
        if swap {
            args.args.swap(0, 1);
            args.arg_fields.swap(0, 1);
        }
        let rows = crate::rows_to_evaluate(&args);
        let constant = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let mode = Mode::Evaluating {
            rows,
            config: Arc::clone(&args.config_options),
        };
        let values = args.args.into_iter().map(Some).collect();
        let result = self.compose(composition, &mode, operands(&args.arg_fields, values))?;
        let value = result.value.expect("an evaluated composition has values");
        match (value, constant) {
            (ColumnarValue::Array(array), true) => Ok(ColumnarValue::Scalar(
                ScalarValue::try_from_array(&array, 0)?,
            )),
            (ColumnarValue::Scalar(scalar), false) => {
                Ok(ColumnarValue::Array(scalar.to_array_of_size(rows)?))
            }
            (value, _) => Ok(value),
        }
    }
}
