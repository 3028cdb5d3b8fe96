//! -State and -Merge: an aggregate's intermediate state as a value, the
//! `AggregateFunction(f, T...)` type that holds it, and what reads it back
//! (-Merge, `finalizeAggregation`, AggregatingMergeTree's merges).
//!
//! A state is the struct of the function's own state fields, the values
//! DataFusion already moves between partial and final aggregation, so it
//! needs no encoding of its own: a stored state is written as any struct
//! column is. Its Arrow type carries its ClickHouse name
//! ([`aggregate_function_type`]), from which -Merge knows the function and
//! its argument types.

use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StructArray};
use datafusion::arrow::compute::{cast, filter, is_not_null};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    Accumulator, ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::{
    aggregate_function_parts, aggregate_function_type, field_type_name, parse_clickhouse_type,
};

use super::combinators::{Combinator, Layer, Parameters, SEPARATOR, parse_chain, registry};
use super::frame::{PARAMETER_PREFIX, error};

/// `name` as a base aggregate and its combinators, outermost first, where
/// `base` knows the aggregates a chain can start from.
pub fn split_chain(
    name: &str,
    base: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, Vec<Combinator>)> {
    let mut chain = Vec::new();
    let mut rest = name;
    loop {
        let combinator = Combinator::ALL
            .into_iter()
            .find(|c| rest.len() > c.suffix().len() && rest.ends_with(c.suffix()))?;
        chain.push(combinator);
        rest = &rest[..rest.len() - combinator.suffix().len()];
        if let Some(registered) = base(rest) {
            return Some((registered, chain));
        }
    }
}

/// The chain spec (`sum+If`) of a function name as a state's type spells it.
fn chain_spec(name: &str) -> Option<String> {
    let known = |n: &str| registry().contains_key(n).then(|| n.to_string());
    if let Some(base) = known(name) {
        return Some(base);
    }
    let (base, chain) = split_chain(name, &known)?;
    let suffixes = chain.iter().rev().map(|c| c.suffix().to_string());
    Some(
        std::iter::once(base)
            .chain(suffixes)
            .collect::<Vec<_>>()
            .join(&SEPARATOR.to_string()),
    )
}

/// The Arrow type of `inner`'s state over `fields`: what `-State` returns.
pub(crate) fn state_type(
    inner: &Layer,
    name: &str,
    fields: &[FieldRef],
    params: &Parameters,
) -> Result<DataType> {
    // -MergeState: the merged states' own type.
    let (inner, fields) = match inner {
        Layer::Wrapped(Combinator::Merge, merged) => {
            (merged.as_ref(), inner.inner_fields(name, fields)?)
        }
        _ => (inner, fields.to_vec()),
    };
    // A fold of bitmaps keeps a bitmap, typed as one, as in ClickHouse.
    if let Layer::Base(base, ..) = inner
        && crate::bitmaps::FOLDS.contains(&base.as_str())
        && let Some(element) = fields
            .first()
            .and_then(|f| crate::bitmaps::element_type(f.data_type()))
    {
        return crate::bitmaps::bitmap_type(&element);
    }
    let state = inner.state_fields(name, &fields, params)?;
    let mut type_name = format!(
        "AggregateFunction({}{}",
        inner.chain_name(),
        params.written()
    );
    for field in &fields {
        type_name.push_str(", ");
        type_name.push_str(&field_type_name(field));
    }
    type_name.push(')');
    let state: Fields = state
        .iter()
        .enumerate()
        .map(|(i, f)| Field::new(format!("s{i}"), f.data_type().clone(), true))
        .collect();
    Ok(aggregate_function_type(type_name, state))
}

/// An `AggregateFunction(...)` type read back: the chain it names, its
/// parameters and its argument fields.
struct StateSignature {
    /// The function as written in the type, without parameters (`sumIf`).
    function: String,
    layer: Arc<Layer>,
    params: Parameters,
    fields: Vec<FieldRef>,
}

impl StateSignature {
    /// Reads `f[(p...)], T1, ...`, the text between the type's parentheses.
    fn parse(arguments: &str) -> Result<Self> {
        let parts = top_level(arguments, ',');
        let (head, types) = parts.split_first().expect("split gives one part");
        let call = FunctionCall::parse(head)?;
        let fields = types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let parsed = parse_clickhouse_type(t.trim()).map_err(datafusion_error)?;
                Ok(Arc::new(parsed.field(format!("c{i}"))))
            })
            .collect::<Result<Vec<FieldRef>>>()?;
        Ok(StateSignature {
            function: call.function,
            layer: call.layer,
            params: call.params,
            fields,
        })
    }

    fn state_type(&self) -> Result<DataType> {
        state_type(&self.layer, &self.function, &self.fields, &self.params)
    }
}

/// An aggregate named as text: `sum`, `sumIf`, `quantiles(0.5, 0.9)`.
#[derive(Debug)]
pub(crate) struct FunctionCall {
    /// The name without parameters.
    function: String,
    layer: Arc<Layer>,
    params: Parameters,
}

impl FunctionCall {
    /// The aggregate the first argument of `function` names, which must be a
    /// constant string (`initializeAggregation('sumState', x)`).
    pub(crate) fn named(function: &str, name: Option<&ScalarValue>) -> Result<Self> {
        match name {
            Some(ScalarValue::Utf8(Some(name)) | ScalarValue::Utf8View(Some(name))) => {
                FunctionCall::parse(name)
            }
            _ => Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "The first argument of {function} must be a constant string: the name of an aggregate function"
                ),
            )),
        }
    }

    pub(crate) fn parse(text: &str) -> Result<Self> {
        let (function, parameter_text) = match text.split_once('(') {
            Some((name, rest)) => {
                let inner = rest
                    .trim_end()
                    .strip_suffix(')')
                    .ok_or_else(|| bad_type(text))?;
                (name.trim(), inner.trim())
            }
            None => (text.trim(), ""),
        };
        let spec = chain_spec(function).ok_or_else(|| {
            error(
                ErrorCode::UNKNOWN_AGGREGATE_FUNCTION,
                format!("Unknown aggregate function {function}"),
            )
        })?;
        Ok(FunctionCall {
            function: function.to_string(),
            layer: Arc::new(parse_chain(&spec)?),
            params: parameters(parameter_text)?,
        })
    }

    /// The call's result field for arguments of `fields`.
    pub(crate) fn return_field(&self, fields: &[FieldRef]) -> Result<FieldRef> {
        self.layer
            .return_field(&self.function, fields, &self.params)
    }

    /// The call's result over each range of rows of `args`, whose fields
    /// are `fields`.
    pub(crate) fn over_ranges(
        &self,
        args: &[ArrayRef],
        fields: &[FieldRef],
        ranges: impl Iterator<Item = Range<usize>>,
    ) -> Result<ArrayRef> {
        let values = ranges
            .map(|range| {
                let mut accumulator =
                    self.layer
                        .accumulator(&self.function, fields, &self.params)?;
                let rows: Vec<ArrayRef> = args
                    .iter()
                    .map(|a| a.slice(range.start, range.len()))
                    .collect();
                accumulator.update_batch(&rows)?;
                accumulator.evaluate()
            })
            .collect::<Result<Vec<ScalarValue>>>()?;
        match values.is_empty() {
            true => {
                let field = self.return_field(fields)?;
                Ok(datafusion::arrow::array::new_empty_array(field.data_type()))
            }
            false => ScalarValue::iter_to_array(values),
        }
    }
}

/// `array` in `data_type`, cast where it is not already.
pub(crate) fn as_type(array: ArrayRef, data_type: &DataType) -> Result<ArrayRef> {
    match array.data_type() == data_type {
        true => Ok(array),
        false => Ok(cast(&array, data_type)?),
    }
}

/// Splits `text` at `separator`s outside parentheses and quotes.
fn top_level(text: &str, separator: char) -> Vec<&str> {
    let (mut parts, mut start, mut depth, mut quoted) = (Vec::new(), 0, 0usize, false);
    for (i, c) in text.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth = depth.saturating_sub(1),
            c if c == separator && !quoted && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Parameters written in a type (`0.5, 0.9`), typed as literals are.
fn parameters(text: &str) -> Result<Parameters> {
    if text.is_empty() {
        return Ok(Parameters::default());
    }
    let written: Vec<&str> = top_level(text, ',').into_iter().map(str::trim).collect();
    let values = written
        .iter()
        .map(|p| {
            if let Some(s) = p.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                Ok(ScalarValue::Utf8(Some(s.to_string())))
            } else if let Ok(n) = p.parse::<u64>() {
                Ok(ScalarValue::UInt64(Some(n)))
            } else if let Ok(n) = p.parse::<i64>() {
                Ok(ScalarValue::Int64(Some(n)))
            } else if let Ok(x) = p.parse::<f64>() {
                Ok(ScalarValue::Float64(Some(x)))
            } else {
                Err(bad_type(text))
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let fields: Fields = values
        .iter()
        .enumerate()
        .map(|(i, v)| Field::new(format!("{PARAMETER_PREFIX}{}", i + 1), v.data_type(), false))
        .collect();
    let field = Arc::new(Field::new("parameters", DataType::Struct(fields), false));
    Ok(Parameters::from_field(
        Some(&field),
        values,
        &written.join(", "),
    ))
}

fn bad_type(text: &str) -> datafusion::error::DataFusionError {
    error(
        ErrorCode::UNKNOWN_TYPE,
        format!("Cannot read the type AggregateFunction({text})"),
    )
}

fn datafusion_error(e: strata_common::StrataError) -> datafusion::error::DataFusionError {
    error(e.code, e.message)
}

/// The Arrow type of `AggregateFunction(<arguments>)`, installed in the
/// type parser (`strata_common::types::set_aggregate_state_type`).
pub fn aggregate_function_of(arguments: &str) -> strata_common::Result<DataType> {
    StateSignature::parse(arguments)
        .and_then(|s| s.state_type())
        .map_err(strata_common::StrataError::from)
}

/// The signature of a state-typed `field`: its parsed type.
fn signature_of(function: &str, field: &Field) -> Result<StateSignature> {
    let Some((type_name, _)) = aggregate_function_parts(field.data_type()) else {
        return Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal type {} of argument for aggregate function {function}, expected AggregateFunction",
                field_type_name(field)
            ),
        ));
    };
    let arguments = type_name
        .strip_prefix("AggregateFunction(")
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| bad_type(type_name))?;
    StateSignature::parse(arguments)
}

/// -Merge's nested argument fields: those the state in `fields` was made
/// from, checked to be a state of `chain` (the nested function's name).
pub(crate) fn merged_arguments(
    name: &str,
    chain: &str,
    fields: &[FieldRef],
) -> Result<Vec<FieldRef>> {
    let [field] = fields else {
        return Err(error(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Aggregate function {name} requires one argument"),
        ));
    };
    let signature = signature_of(name, field)?;
    if signature.function != chain {
        return Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal type {} of argument for aggregate function with Merge suffix because it corresponds to different aggregate function: {} instead of {chain}",
                field_type_name(field),
                signature.function
            ),
        ));
    }
    Ok(signature.fields)
}

/// The state columns of an `AggregateFunction` column, without its NULL
/// rows (an outer join's missing side).
fn state_columns(column: &ArrayRef) -> Result<Vec<ArrayRef>> {
    let column = match column.null_count() {
        0 => Arc::clone(column),
        _ => filter(column, &is_not_null(column)?)?,
    };
    let state = column.as_struct().column(0).as_struct();
    Ok(state.columns().to_vec())
}

/// -State: the nested function's state as the value.
#[derive(Debug)]
pub(crate) struct StateAccumulator {
    inner: Box<dyn Accumulator>,
    outer: Fields,
    state: Fields,
}

impl StateAccumulator {
    pub(crate) fn new(inner: Box<dyn Accumulator>, data_type: &DataType) -> Result<Self> {
        let (DataType::Struct(outer), Some((_, state))) =
            (data_type, aggregate_function_parts(data_type))
        else {
            unreachable!("-State returns an AggregateFunction type")
        };
        Ok(StateAccumulator {
            inner,
            state: state.clone(),
            outer: outer.clone(),
        })
    }
}

impl Accumulator for StateAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.inner.update_batch(values)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let columns = self
            .inner
            .state()?
            .iter()
            .zip(self.state.iter())
            .map(|(value, field)| as_type(value.to_array()?, field.data_type()))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let state = StructArray::try_new(self.state.clone(), columns, None)?;
        let outer = StructArray::try_new(self.outer.clone(), vec![Arc::new(state)], None)?;
        Ok(ScalarValue::Struct(Arc::new(outer)))
    }

    delegate_to_inner!(size, state, merge_batch);
}

/// -Merge: the nested function over states instead of rows.
#[derive(Debug)]
pub(crate) struct MergeAccumulator {
    inner: Box<dyn Accumulator>,
}

impl MergeAccumulator {
    pub(crate) fn new(inner: Box<dyn Accumulator>) -> Self {
        MergeAccumulator { inner }
    }
}

impl Accumulator for MergeAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.inner.merge_batch(&state_columns(&values[0])?)
    }

    delegate_to_inner!(evaluate, size, state, merge_batch);
}

/// An aggregate applied to groups of rows of one column, for merges of
/// AggregatingMergeTree: states merged into one state, or the values of a
/// `SimpleAggregateFunction(f, T)` column folded by `f`.
#[derive(Debug)]
pub struct GroupAggregate {
    call: FunctionCall,
    fields: Vec<FieldRef>,
    result: DataType,
}

impl GroupAggregate {
    /// Merges states of the `AggregateFunction` type `data_type`.
    pub fn states(data_type: &DataType) -> Result<Self> {
        let field = Arc::new(Field::new("state", data_type.clone(), false));
        let signature = signature_of("AggregatingMergeTree", &field)?;
        let spec = chain_spec(&signature.function).ok_or_else(|| {
            datafusion::error::DataFusionError::Plan(format!(
                "Unknown aggregate function {}",
                signature.function
            ))
        })?;
        let spec = [spec.as_str(), "Merge", "State"].join(&SEPARATOR.to_string());
        let call = FunctionCall {
            function: signature.function,
            layer: Arc::new(parse_chain(&spec)?),
            params: signature.params,
        };
        Ok(GroupAggregate {
            call,
            fields: vec![field],
            result: data_type.clone(),
        })
    }

    /// Folds values of `field`, a `SimpleAggregateFunction(function, T)`
    /// column, by `function`.
    pub fn simple(function: &str, field: &Field) -> Result<Self> {
        let call = FunctionCall::parse(function)?;
        let field = Arc::new(Field::new(
            "value",
            field.data_type().clone(),
            field.is_nullable(),
        ));
        Ok(GroupAggregate {
            call,
            result: field.data_type().clone(),
            fields: vec![field],
        })
    }

    /// One value per range of `column`'s rows.
    pub fn apply(&self, column: &ArrayRef, groups: &[Range<usize>]) -> Result<ArrayRef> {
        let args = std::slice::from_ref(column);
        let array = self
            .call
            .over_ranges(args, &self.fields, groups.iter().cloned())?;
        as_type(array, &self.result)
    }
}

/// `initializeAggregation('f', args...)`: `f` over each row alone, as a
/// state for `fState` (a value to insert into an `AggregateFunction` column).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct InitializeAggregation {
    signature: Signature,
}

impl Default for InitializeAggregation {
    fn default() -> Self {
        InitializeAggregation {
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

impl InitializeAggregation {
    fn call(&self, name: Option<&ScalarValue>) -> Result<FunctionCall> {
        FunctionCall::named(self.name(), name)
    }
}

impl ScalarUDFImpl for InitializeAggregation {
    fn name(&self) -> &str {
        "initializeAggregation"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        unreachable!("typed by return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let call = self.call(args.scalar_arguments.first().copied().flatten())?;
        let result =
            call.layer
                .return_field(&call.function, &args.arg_fields[1..], &call.params)?;
        Ok(Arc::new(result.as_ref().clone().with_name(self.name())))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let name = match &args.args[0] {
            ColumnarValue::Scalar(name) => Some(name),
            ColumnarValue::Array(_) => None,
        };
        let call = self.call(name)?;
        let columns = args.args[1..]
            .iter()
            .map(|a| a.to_array(args.number_rows))
            .collect::<Result<Vec<_>>>()?;
        let rows = (0..args.number_rows).map(|row| row..row + 1);
        let array = call.over_ranges(&columns, &args.arg_fields[1..], rows)?;
        Ok(ColumnarValue::Array(as_type(
            array,
            args.return_field.data_type(),
        )?))
    }
}

/// `finalizeAggregation(state)`: each row's state evaluated.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FinalizeAggregation {
    signature: Signature,
}

impl Default for FinalizeAggregation {
    fn default() -> Self {
        FinalizeAggregation {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for FinalizeAggregation {
    fn name(&self) -> &str {
        "finalizeAggregation"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        unreachable!("typed by return_field_from_args")
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let signature = signature_of(self.name(), &args.arg_fields[0])?;
        let result = signature.layer.return_field(
            &signature.function,
            &signature.fields,
            &signature.params,
        )?;
        Ok(Arc::new(result.as_ref().clone().with_name(self.name())))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let signature = signature_of(self.name(), &args.arg_fields[0])?;
        let column = args.args[0].to_array(args.number_rows)?;
        let states = column.as_struct().column(0).as_struct();
        let values = (0..column.len())
            .map(|row| {
                let mut accumulator = signature.layer.accumulator(
                    &signature.function,
                    &signature.fields,
                    &signature.params,
                )?;
                if column.is_valid(row) {
                    let state: Vec<ArrayRef> =
                        states.columns().iter().map(|c| c.slice(row, 1)).collect();
                    accumulator.merge_batch(&state)?;
                }
                accumulator.evaluate()
            })
            .collect::<Result<Vec<ScalarValue>>>()?;
        let array = ScalarValue::iter_to_array(values)?;
        Ok(ColumnarValue::Array(as_type(
            array,
            args.return_field.data_type(),
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_parse_from_the_outside_in() {
        let base = |name: &str| {
            ["sum", "uniq", "groupArray"]
                .contains(&name)
                .then(|| name.to_string())
        };
        assert_eq!(
            split_chain("sumArrayIf", &base),
            Some(("sum".into(), vec![Combinator::If, Combinator::Array]))
        );
        assert_eq!(
            split_chain("uniqOrDefault", &base),
            Some(("uniq".into(), vec![Combinator::OrDefault]))
        );
        assert_eq!(
            split_chain("groupArrayArray", &base),
            Some(("groupArray".into(), vec![Combinator::Array]))
        );
        assert_eq!(
            split_chain("sumMergeState", &base),
            Some(("sum".into(), vec![Combinator::State, Combinator::Merge]))
        );
        assert_eq!(split_chain("nothing", &base), None);
    }

    #[test]
    fn state_types_read_back_with_their_names() {
        crate::install_types();
        for (written, shown) in [
            (
                "AggregateFunction(sum, UInt64)",
                "AggregateFunction(sum, UInt64)",
            ),
            (
                "AggregateFunction(quantiles(0.5,0.9), Nullable(UInt64))",
                "AggregateFunction(quantiles(0.5, 0.9), Nullable(UInt64))",
            ),
            (
                "AggregateFunction(sumIf, UInt32, UInt8)",
                "AggregateFunction(sumIf, UInt32, UInt8)",
            ),
            ("AggregateFunction(count)", "AggregateFunction(count)"),
        ] {
            let parsed = parse_clickhouse_type(written).unwrap();
            assert_eq!(field_type_name(&parsed.field("s")), shown);
            let again = parse_clickhouse_type(shown).unwrap();
            assert_eq!(again.data_type, parsed.data_type);
        }
        assert!(parse_clickhouse_type("AggregateFunction(noSuchFunction, UInt8)").is_err());
        assert!(parse_clickhouse_type("AggregateFunction(sum, NoSuchType)").is_err());
    }
}
