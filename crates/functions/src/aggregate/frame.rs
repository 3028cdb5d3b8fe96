//! The frame Strata's ClickHouse aggregates share.
//!
//! - Parameters: ClickHouse's `f(p1, p2)(x)` arrives as
//!   `f(x, named_struct('__parameter_1', p1, '__parameter_2', p2))`; the
//!   trailing struct is a constant the accumulator reads its values from.
//! - NULLs, as ClickHouse's Null adaptor: rows with a NULL argument are
//!   skipped, and a Nullable argument makes the result Nullable, NULL when no
//!   row was aggregated.
//! - [`Aggregate`] adapts an [`AggregateSpec`] to DataFusion's `AggregateUDFImpl`.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, ListArray, MutableArrayData, make_array,
    new_empty_array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::{cast, concat, filter};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, GroupsAccumulator, Signature, Volatility,
};
use datafusion::physical_expr::expressions::Literal;
use strata_common::types::clickhouse_type_name;
use strata_common::{ErrorCode, StrataError};

/// The field-name prefix that marks the trailing parameter struct.
pub const PARAMETER_PREFIX: &str = "__parameter_";

/// Whether `t` is the parameter struct.
pub fn is_parameters(t: &DataType) -> bool {
    matches!(t, DataType::Struct(fields)
        if fields.first().is_some_and(|f| f.name().starts_with(PARAMETER_PREFIX)))
}

/// The argument count without the parameter struct.
pub fn argument_count(types: &[DataType]) -> usize {
    match types.last() {
        Some(t) if is_parameters(t) => types.len() - 1,
        _ => types.len(),
    }
}

/// The parameter values of a call, from its trailing constant struct.
pub fn parameter_values(
    exprs: &[Arc<dyn datafusion::physical_expr::PhysicalExpr>],
) -> Vec<ScalarValue> {
    let Some(literal) = exprs.last().and_then(|e| e.downcast_ref::<Literal>()) else {
        return Vec::new();
    };
    match literal.value() {
        ScalarValue::Struct(s) if is_parameters(s.data_type()) => s
            .columns()
            .iter()
            .filter_map(|c| ScalarValue::try_from_array(c, 0).ok())
            .collect(),
        _ => Vec::new(),
    }
}

pub fn error(code: ErrorCode, message: impl Into<String>) -> DataFusionError {
    StrataError::new(code, message.into()).into_datafusion()
}

pub fn illegal_type(function: &str, t: &DataType) -> DataFusionError {
    error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument for aggregate function {function}",
            clickhouse_type_name(t, false)
        ),
    )
}

pub fn arity(function: &str, passed: usize, expected: &str) -> DataFusionError {
    error(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!("Aggregate function {function} requires {expected} arguments, passed {passed}"),
    )
}

/// Fails unless the argument count is one of `counts`.
pub fn expect_args(function: &str, args: &[DataType], counts: &[usize]) -> Result<()> {
    if counts.contains(&args.len()) {
        return Ok(());
    }
    let expected: Vec<String> = counts.iter().map(usize::to_string).collect();
    Err(arity(function, args.len(), &expected.join(" or ")))
}

/// Fails unless the parameter count is within `range`.
pub fn expect_params(
    function: &str,
    params: usize,
    range: std::ops::RangeInclusive<usize>,
) -> Result<()> {
    if range.contains(&params) {
        return Ok(());
    }
    let message = if *range.end() == 0 {
        format!("Aggregate function {function} cannot have parameters")
    } else {
        format!(
            "Aggregate function {function} requires from {} to {} parameters, passed {params}",
            range.start(),
            range.end()
        )
    };
    let code = if *range.end() == 0 {
        ErrorCode::AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS
    } else {
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH
    };
    Err(error(code, message))
}

pub fn is_numeric(t: &DataType) -> bool {
    t.is_numeric() || matches!(t, DataType::Boolean)
}

/// A parameter as a float, or ClickHouse's error for one that is not a number.
pub fn float_parameter(function: &str, value: &ScalarValue) -> Result<f64> {
    let number = match value.cast_to(&DataType::Float64) {
        Ok(ScalarValue::Float64(Some(v))) if !matches!(value, ScalarValue::Utf8(_)) => Some(v),
        _ => None,
    };
    number.ok_or_else(|| {
        error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("Parameters of aggregate function {function} must be numbers, got {value}"),
        )
    })
}

/// A parameter as a non-negative integer.
pub fn count_parameter(function: &str, value: &ScalarValue) -> Result<u64> {
    let v = float_parameter(function, value)?;
    if v < 0.0 || v.fract() != 0.0 {
        return Err(error(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Parameter of aggregate function {function} must be a non-negative integer, got {value}"
            ),
        ));
    }
    Ok(v as u64)
}

/// A call as an aggregate sees it: coerced argument types (no parameter
/// struct), parameter values and the result type.
#[derive(Debug, Clone)]
pub struct Call {
    pub args: Vec<DataType>,
    pub params: Vec<ScalarValue>,
    pub result: DataType,
}

/// One ClickHouse aggregate function, described by its parts.
pub trait AggregateSpec: Debug + PartialEq + Eq + Hash + Send + Sync + 'static {
    fn name(&self) -> &str;

    /// The result type, after checking argument and parameter counts and types.
    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType>;

    /// Whether a Nullable argument makes the result Nullable (ClickHouse's
    /// Null adaptor); rows with a NULL argument are skipped either way.
    fn nullable_result(&self) -> bool {
        true
    }

    fn state_types(&self, call: &Call) -> Vec<DataType>;

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>>;

    /// A groups accumulator, which must itself skip rows with NULL arguments.
    fn groups_accumulator(&self, _call: &Call) -> Option<Box<dyn GroupsAccumulator>> {
        None
    }
}

/// An [`AggregateSpec`] as a DataFusion aggregate function.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Aggregate<S: AggregateSpec> {
    spec: S,
    aliases: Vec<String>,
    signature: Signature,
}

impl<S: AggregateSpec> Aggregate<S> {
    pub fn udaf(spec: S, aliases: &[&str]) -> AggregateUDF {
        AggregateUDF::new_from_impl(Aggregate {
            spec,
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            signature: Signature::user_defined(Volatility::Immutable),
        })
    }

    fn split<'a>(&self, fields: &'a [FieldRef]) -> (&'a [FieldRef], Option<&'a FieldRef>) {
        match fields.split_last() {
            Some((last, rest)) if is_parameters(last.data_type()) => (rest, Some(last)),
            _ => (fields, None),
        }
    }

    fn types(fields: &[FieldRef]) -> Vec<DataType> {
        fields.iter().map(|f| f.data_type().clone()).collect()
    }

    fn param_types(params: Option<&FieldRef>) -> Vec<DataType> {
        match params.map(|p| p.data_type()) {
            Some(DataType::Struct(fields)) => {
                fields.iter().map(|f| f.data_type().clone()).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Whether the result is Nullable and NULL over no rows: some argument is.
    fn null_wrapped(&self, args: &[FieldRef], result: &DataType) -> bool {
        self.spec.nullable_result() && can_be_null(result) && args.iter().any(|f| f.is_nullable())
    }

    fn call(&self, fields: &[FieldRef], exprs_params: Vec<ScalarValue>, result: &DataType) -> Call {
        let (args, _) = self.split(fields);
        Call {
            args: Self::types(args),
            params: exprs_params,
            result: result.clone(),
        }
    }
}

impl<S: AggregateSpec> AggregateUDFImpl for Aggregate<S> {
    fn name(&self) -> &str {
        self.spec.name()
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Leaves checking to `return_field`: DataFusion flattens an error raised
    /// here into text, losing its ClickHouse code.
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let n = argument_count(arg_types);
        let params: Vec<DataType> = match arg_types.get(n) {
            Some(DataType::Struct(fields)) => {
                fields.iter().map(|f| f.data_type().clone()).collect()
            }
            _ => Vec::new(),
        };
        self.spec.return_type(&arg_types[..n], &params)
    }

    fn return_field(&self, arg_fields: &[FieldRef]) -> Result<FieldRef> {
        let (args, params) = self.split(arg_fields);
        let data_type = self
            .spec
            .return_type(&Self::types(args), &Self::param_types(params))?;
        let nullable = self.null_wrapped(args, &data_type);
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn is_nullable(&self) -> bool {
        false
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let call = self.call(args.input_fields, Vec::new(), args.return_field.data_type());
        let mut fields: Vec<FieldRef> = self
            .spec
            .state_types(&call)
            .into_iter()
            .enumerate()
            .map(|(i, t)| Arc::new(Field::new(format!("{}[{i}]", args.name), t, true)))
            .collect();
        if self.null_wrapped(
            self.split(args.input_fields).0,
            args.return_field.data_type(),
        ) {
            fields.push(Arc::new(Field::new(
                format!("{}[seen]", args.name),
                DataType::Boolean,
                true,
            )));
        }
        Ok(fields)
    }

    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        super::sliding::sliding_accumulator(self.name(), args)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let params = parameter_values(args.exprs);
        let call = self.call(args.expr_fields, params, args.return_field.data_type());
        let inner = self.spec.accumulator(&call)?;
        let (fields, _) = self.split(args.expr_fields);
        if !fields.iter().any(|f| f.is_nullable()) {
            return Ok(inner);
        }
        let nulls = if self.null_wrapped(fields, &call.result) {
            Absent::Null(call.result.clone())
        } else {
            Absent::Inner
        };
        Ok(Box::new(SkipNulls::new(inner, fields.len(), nulls)))
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        let call = self.call(args.expr_fields, Vec::new(), args.return_field.data_type());
        !args.is_distinct
            && !self.null_wrapped(self.split(args.expr_fields).0, &call.result)
            && self.spec.groups_accumulator(&call).is_some()
    }

    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        let params = parameter_values(args.exprs);
        let call = self.call(args.expr_fields, params, args.return_field.data_type());
        self.spec.groups_accumulator(&call).ok_or_else(|| {
            DataFusionError::Internal(format!("{} has no groups accumulator", self.name()))
        })
    }
}

/// Whether ClickHouse lets the type be Nullable: arrays and maps cannot be.
pub fn can_be_null(t: &DataType) -> bool {
    !matches!(
        t,
        DataType::List(_) | DataType::LargeList(_) | DataType::Map(..)
    )
}

/// `Array(item)` as a result type: elements are not Nullable.
pub fn list_of(item: DataType) -> DataType {
    list_type(item, false)
}

/// A list type of a state: elements may be NULL.
pub fn state_list_of(item: DataType) -> DataType {
    list_type(item, true)
}

pub fn list_type(item: DataType, nullable: bool) -> DataType {
    DataType::List(Arc::new(Field::new("item", item, nullable)))
}

/// What an aggregate that saw no rows returns.
#[derive(Debug, Clone)]
pub enum Absent {
    /// NULL of the result type (ClickHouse's Null adaptor, -OrNull).
    Null(DataType),
    /// The default of the result type (-OrDefault): NULL if it is Nullable.
    Default(DataType, bool),
    /// Whatever the inner aggregate returns.
    Inner,
}

/// Skips rows with a NULL among the first `args` columns and remembers
/// whether any row was aggregated; its state is the inner state and that flag.
#[derive(Debug)]
pub struct SkipNulls {
    inner: Box<dyn Accumulator>,
    args: usize,
    seen: bool,
    absent: Absent,
    /// Whether the last column is an inner -If's condition, so that a row
    /// counts as aggregated only where it holds (`sumIfOrNull`).
    conditioned: bool,
}

impl SkipNulls {
    pub fn new(inner: Box<dyn Accumulator>, args: usize, absent: Absent) -> Self {
        SkipNulls {
            inner,
            args,
            seen: false,
            absent,
            conditioned: false,
        }
    }

    /// The same over an -If, whose condition is the last column.
    pub fn over_condition(mut self) -> Self {
        self.conditioned = true;
        self
    }

    fn keeps_flag(&self) -> bool {
        !matches!(self.absent, Absent::Inner)
    }
}

/// The rows where none of `columns` is NULL, if some row has a NULL.
pub fn non_null_rows(columns: &[ArrayRef]) -> Option<BooleanArray> {
    let nulls = columns
        .iter()
        .filter_map(|c| c.logical_nulls())
        .reduce(|a, b| NullBuffer::union(Some(&a), Some(&b)).expect("both present"))?;
    (nulls.null_count() > 0).then(|| BooleanArray::new(nulls.inner().clone(), None))
}

impl Accumulator for SkipNulls {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let args = self.args.min(values.len());
        let kept: Vec<ArrayRef> = match non_null_rows(&values[..args]) {
            Some(mask) => values
                .iter()
                .map(|v| filter(v, &mask))
                .collect::<std::result::Result<_, _>>()?,
            None => values.to_vec(),
        };
        let aggregated = match kept.last() {
            Some(condition) if self.conditioned => {
                let condition = cast(condition, &DataType::Boolean)?;
                condition.as_boolean().true_count() > 0
            }
            Some(first) => !first.is_empty(),
            None => args == 0,
        };
        self.seen |= aggregated;
        self.inner.update_batch(&kept)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        if self.seen {
            return self.inner.evaluate();
        }
        match &self.absent {
            // Arrays and maps are never NULL: theirs is the empty one.
            Absent::Null(t) if !can_be_null(t) => strata_common::types::default_value(t),
            Absent::Null(t) => ScalarValue::try_from(t),
            Absent::Default(t, true) => ScalarValue::try_from(t),
            Absent::Default(t, false) => strata_common::types::default_value(t),
            Absent::Inner => self.inner.evaluate(),
        }
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.inner.size()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let mut state = self.inner.state()?;
        if self.keeps_flag() {
            state.push(ScalarValue::Boolean(Some(self.seen)));
        }
        Ok(state)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        if !self.keeps_flag() {
            return self.inner.merge_batch(states);
        }
        let (flags, inner) = states.split_last().expect("the flag is the last state");
        self.seen |= flags.as_boolean().true_count() > 0;
        self.inner.merge_batch(inner)
    }
}

/// One result list holding `values`, none of them NULL.
pub fn list_scalar(values: ArrayRef) -> ScalarValue {
    list_value(values, false)
}

/// One state list holding `values`.
pub fn state_list_scalar(values: ArrayRef) -> ScalarValue {
    list_value(values, true)
}

pub fn list_value(values: ArrayRef, nullable: bool) -> ScalarValue {
    let field = Arc::new(Field::new("item", values.data_type().clone(), nullable));
    let list = ListArray::new(
        field,
        OffsetBuffer::from_lengths([values.len()]),
        values,
        None,
    );
    ScalarValue::List(Arc::new(list))
}

/// The values of every row of a list column, in order.
pub fn list_rows(lists: &ArrayRef) -> Vec<ArrayRef> {
    let lists = lists.as_list::<i32>();
    (0..lists.len())
        .filter(|&i| lists.is_valid(i))
        .map(|i| lists.value(i))
        .collect()
}

type Finisher = Box<dyn Fn(&[ArrayRef]) -> Result<ScalarValue> + Send + Sync>;

/// Keeps every row's argument values and computes the result from all of
/// them at the end: the exact quantiles, sorted arrays and event sequences.
/// Its state is one list per argument.
pub struct Collect {
    types: Vec<DataType>,
    parts: Vec<Vec<ArrayRef>>,
    bytes: usize,
    finish: Finisher,
}

impl Debug for Collect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collect")
            .field("types", &self.types)
            .finish()
    }
}

/// Parts kept before they are concatenated into one array.
const MAX_PARTS: usize = 32;

impl Collect {
    pub fn new(
        types: Vec<DataType>,
        finish: impl Fn(&[ArrayRef]) -> Result<ScalarValue> + Send + Sync + 'static,
    ) -> Self {
        let parts = vec![Vec::new(); types.len()];
        Collect {
            types,
            parts,
            bytes: 0,
            finish: Box::new(finish),
        }
    }

    pub fn state_types(types: &[DataType]) -> Vec<DataType> {
        types.iter().map(|t| state_list_of(t.clone())).collect()
    }

    fn push(&mut self, columns: &[ArrayRef]) -> Result<()> {
        if columns.first().is_none_or(|c| c.is_empty()) {
            return Ok(());
        }
        for (parts, column) in self.parts.iter_mut().zip(columns) {
            let column = owned(column)?;
            self.bytes += column.get_array_memory_size();
            parts.push(column);
            if parts.len() > MAX_PARTS {
                let whole = concatenated(parts)?;
                self.bytes -= parts
                    .iter()
                    .map(|p| p.get_array_memory_size())
                    .sum::<usize>();
                self.bytes += whole.get_array_memory_size();
                *parts = vec![whole];
            }
        }
        Ok(())
    }

    fn columns(&self) -> Result<Vec<ArrayRef>> {
        self.parts
            .iter()
            .zip(&self.types)
            .map(|(parts, t)| {
                if parts.is_empty() {
                    Ok(new_empty_array(t))
                } else {
                    concatenated(parts)
                }
            })
            .collect()
    }
}

/// `column`, copied when it is a slice of larger buffers: a GROUP BY hands
/// each group a slice of the whole batch (or of a state's list values), and
/// keeping the slice would hold, and count, the whole batch once per group.
pub fn owned(column: &ArrayRef) -> Result<ArrayRef> {
    let data = column.to_data();
    if 2 * data.get_slice_memory_size()? >= column.get_array_memory_size() {
        return Ok(Arc::clone(column));
    }
    let mut copy = MutableArrayData::new(vec![&data], false, column.len());
    copy.try_extend(0, 0, column.len())?;
    Ok(make_array(copy.freeze()))
}

fn concatenated(parts: &[ArrayRef]) -> Result<ArrayRef> {
    if parts.len() == 1 {
        return Ok(Arc::clone(&parts[0]));
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
    Ok(concat(&refs)?)
}

impl Accumulator for Collect {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let n = self.types.len();
        self.push(&values[..n])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        (self.finish)(&self.columns()?)
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.bytes
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(self.columns()?.into_iter().map(state_list_scalar).collect())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists: Vec<Vec<ArrayRef>> = states.iter().map(list_rows).collect();
        let rows = lists.first().map_or(0, Vec::len);
        for row in 0..rows {
            let columns: Vec<ArrayRef> = lists.iter().map(|l| Arc::clone(&l[row])).collect();
            self.push(&columns)?;
        }
        Ok(())
    }
}
