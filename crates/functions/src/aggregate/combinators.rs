//! ClickHouse's aggregate-function combinators over any aggregate: -If,
//! -Distinct, -OrNull, -OrDefault, -Array, -ForEach, -Map, -Resample,
//! -ArgMin, -ArgMax, -State and -Merge, chained in any order.
//!
//! One function, [`COMBINED`], carries them: its first argument is a
//! constant struct whose one field is named by the chain, `sum+Array+If` for
//! ClickHouse's `sumArrayIf` (the base's registered name, then each
//! combinator from the innermost out). The SQL front writes that call; here
//! the chain becomes nested accumulators around the base's own.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, StructArray, UInt32Array};
use datafusion::arrow::compute::{cast, filter, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema};
use datafusion::arrow::row::{OwnedRow, RowConverter, SortField};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, GroupsAccumulator, Signature, Volatility,
};
use datafusion::logical_expr_common::signature::Arity;
use datafusion::physical_expr::expressions::{Column, Literal};
use datafusion::physical_expr::{GroupsAccumulatorAdapter, PhysicalExpr};
use strata_common::ErrorCode;

use super::frame::{
    Absent, SkipNulls, can_be_null, count_parameter, error, float_parameter, is_parameters,
    list_rows, list_type, list_value, parameter_values, state_list_of, state_list_scalar,
};
use super::states;

/// The registered name of the function that carries combinators.
pub const COMBINED: &str = "__aggregate_combinators";

/// The separator between the base name and each combinator in the chain.
pub const SEPARATOR: char = '+';

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combinator {
    If,
    Distinct,
    OrNull,
    OrDefault,
    Array,
    ForEach,
    Map,
    Resample,
    ArgMin,
    ArgMax,
    State,
    Merge,
}

impl Combinator {
    /// Longest suffixes first, so `OrDefault` is not read as `...Default`.
    pub const ALL: [Combinator; 12] = [
        Combinator::OrDefault,
        Combinator::Distinct,
        Combinator::Resample,
        Combinator::ForEach,
        Combinator::OrNull,
        Combinator::ArgMin,
        Combinator::ArgMax,
        Combinator::State,
        Combinator::Merge,
        Combinator::Array,
        Combinator::Map,
        Combinator::If,
    ];

    pub fn suffix(self) -> &'static str {
        match self {
            Combinator::If => "If",
            Combinator::Distinct => "Distinct",
            Combinator::OrNull => "OrNull",
            Combinator::OrDefault => "OrDefault",
            Combinator::Array => "Array",
            Combinator::ForEach => "ForEach",
            Combinator::Map => "Map",
            Combinator::Resample => "Resample",
            Combinator::ArgMin => "ArgMin",
            Combinator::ArgMax => "ArgMax",
            Combinator::State => "State",
            Combinator::Merge => "Merge",
        }
    }

    fn parse(name: &str) -> Option<Combinator> {
        Combinator::ALL.into_iter().find(|c| c.suffix() == name)
    }
}

/// Every aggregate by registered name and alias: Strata's, then DataFusion's.
pub(crate) fn registry() -> &'static HashMap<String, Arc<AggregateUDF>> {
    static REGISTRY: OnceLock<HashMap<String, Arc<AggregateUDF>>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut map = HashMap::new();
        let all = crate::aggregate_functions()
            .into_iter()
            .chain(datafusion::functions_aggregate::all_default_aggregate_functions());
        for udaf in all {
            for name in
                std::iter::once(udaf.name()).chain(udaf.aliases().iter().map(String::as_str))
            {
                map.entry(name.to_string())
                    .or_insert_with(|| Arc::clone(&udaf));
            }
        }
        map
    })
}

/// A chain: the base aggregate (with the name it was called by), wrapped by
/// combinators from the innermost out. A chain's base always gets the same
/// argument fields, so it keeps them coerced once: a GROUP BY makes an
/// accumulator per group.
#[derive(Debug)]
pub(crate) enum Layer {
    Base(String, Arc<AggregateUDF>, OnceLock<Vec<FieldRef>>),
    Wrapped(Combinator, Arc<Layer>),
}

pub(crate) fn parse_chain(spec: &str) -> Result<Layer> {
    let mut parts = spec.split(SEPARATOR);
    let base = parts.next().unwrap_or_default();
    let udaf = registry().get(base).ok_or_else(|| {
        error(
            ErrorCode::UNKNOWN_AGGREGATE_FUNCTION,
            format!("Unknown aggregate function {base}"),
        )
    })?;
    let mut layer = Layer::Base(base.to_string(), Arc::clone(udaf), OnceLock::new());
    for part in parts {
        let combinator = Combinator::parse(part).ok_or_else(|| {
            error(
                ErrorCode::UNKNOWN_AGGREGATE_FUNCTION,
                format!("Unknown combinator {part}"),
            )
        })?;
        layer = Layer::Wrapped(combinator, Arc::new(layer));
    }
    Ok(layer)
}

/// The function name in ClickHouse's spelling, for messages.
fn display_name(spec: &str) -> String {
    spec.split(SEPARATOR).collect()
}

/// Parameters: the values and their fields, in the order written, and
/// their text as written (`0.5, 0.9`), which names a state's type.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parameters {
    fields: Vec<FieldRef>,
    values: Vec<ScalarValue>,
    text: String,
}

impl Parameters {
    pub(crate) fn from_field(
        field: Option<&FieldRef>,
        values: Vec<ScalarValue>,
        text: &str,
    ) -> Self {
        let fields = match field.map(|f| f.data_type()) {
            Some(DataType::Struct(fields)) => fields.iter().cloned().collect(),
            _ => Vec::new(),
        };
        Parameters {
            fields,
            values,
            text: text.to_string(),
        }
    }

    /// `(0.5, 0.9)` as a state's type names them, or nothing.
    pub(crate) fn written(&self) -> String {
        match self.text.is_empty() {
            true => String::new(),
            false => format!("({})", self.text),
        }
    }

    /// Splits off the last `n` (a combinator's own, written after the nested function's).
    fn split_last(&self, n: usize) -> (Parameters, Parameters) {
        let at = self.fields.len().saturating_sub(n);
        let values_at = self.values.len().saturating_sub(n);
        (
            Parameters {
                fields: self.fields[..at].to_vec(),
                values: self.values[..values_at].to_vec(),
                text: self.text.clone(),
            },
            Parameters {
                fields: self.fields[at..].to_vec(),
                values: self.values[values_at..].to_vec(),
                text: String::new(),
            },
        )
    }

    fn field(&self) -> Option<FieldRef> {
        (!self.fields.is_empty()).then(|| {
            Arc::new(Field::new(
                "parameters",
                DataType::Struct(Fields::from(self.fields.clone())),
                false,
            ))
        })
    }

    fn literal(&self) -> Result<Option<ScalarValue>> {
        if self.fields.is_empty() || self.values.len() != self.fields.len() {
            return Ok(None);
        }
        let columns: Vec<ArrayRef> = self
            .values
            .iter()
            .map(|v| v.to_array())
            .collect::<Result<_>>()?;
        let array = StructArray::try_new(Fields::from(self.fields.clone()), columns, None)?;
        Ok(Some(ScalarValue::Struct(Arc::new(array))))
    }
}

fn items(function: &str, fields: &[FieldRef]) -> Result<Vec<FieldRef>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| match f.data_type() {
            DataType::List(item) | DataType::LargeList(item) => Ok(Arc::clone(item)),
            _ => Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Argument {i} for function {function} must be array."),
            )),
        })
        .collect()
}

fn split_last_arg(function: &str, fields: &[FieldRef]) -> Result<(Vec<FieldRef>, FieldRef)> {
    match fields.split_last() {
        Some((last, rest)) => Ok((rest.to_vec(), Arc::clone(last))),
        None => Err(error(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Aggregate function {function} requires at least one argument"),
        )),
    }
}

impl Layer {
    /// The chain's name as ClickHouse spells it: `sum`, `sumIf`.
    pub(crate) fn chain_name(&self) -> String {
        match self {
            Layer::Base(name, ..) => name.clone(),
            Layer::Wrapped(combinator, inner) => inner.chain_name() + combinator.suffix(),
        }
    }

    /// The nested function's argument fields for this layer's.
    pub(crate) fn inner_fields(&self, name: &str, fields: &[FieldRef]) -> Result<Vec<FieldRef>> {
        let Layer::Wrapped(combinator, inner) = self else {
            return Ok(fields.to_vec());
        };
        match combinator {
            Combinator::Merge => states::merged_arguments(name, &inner.chain_name(), fields),
            Combinator::If | Combinator::Resample | Combinator::ArgMin | Combinator::ArgMax => {
                Ok(split_last_arg(name, fields)?.0)
            }
            Combinator::Array | Combinator::ForEach => items(name, fields),
            Combinator::Map => match fields {
                [map] => match map.data_type() {
                    DataType::Map(entries, _) => match entries.data_type() {
                        DataType::Struct(kv) => Ok(vec![Arc::clone(&kv[1])]),
                        _ => Err(error(
                            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                            "Map entries must be a tuple",
                        )),
                    },
                    _ => Err(error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!("Aggregate function {name} requires map as argument"),
                    )),
                },
                _ => Err(error(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    format!("Aggregate function {name} requires one map argument"),
                )),
            },
            Combinator::Distinct
            | Combinator::OrNull
            | Combinator::OrDefault
            | Combinator::State => Ok(fields.to_vec()),
        }
    }

    fn inner_parameters(&self, params: &Parameters) -> Parameters {
        match self {
            Layer::Wrapped(Combinator::Resample, _) => params.split_last(3).0,
            _ => params.clone(),
        }
    }

    /// The result field for these argument fields.
    pub(crate) fn return_field(
        &self,
        name: &str,
        fields: &[FieldRef],
        params: &Parameters,
    ) -> Result<FieldRef> {
        let Layer::Wrapped(combinator, inner) = self else {
            return self.base_result(fields, params);
        };
        if *combinator == Combinator::State {
            let state = states::state_type(inner, name, fields, params)?;
            return Ok(Arc::new(Field::new(name, state, false)));
        }
        let nested = inner.return_field(
            name,
            &self.inner_fields(name, fields)?,
            &self.inner_parameters(params),
        )?;
        let t = nested.data_type().clone();
        Ok(match combinator {
            Combinator::OrNull => Arc::new(Field::new(
                name,
                t.clone(),
                can_be_null(&t) || nested.is_nullable(),
            )),
            Combinator::ForEach | Combinator::Resample => {
                Arc::new(Field::new(name, list_type(t, nested.is_nullable()), false))
            }
            Combinator::Map => {
                let DataType::Map(entries, _) = fields[0].data_type() else {
                    unreachable!("checked")
                };
                let DataType::Struct(kv) = entries.data_type() else {
                    unreachable!("checked")
                };
                let value = Field::new("value", t, nested.is_nullable());
                let entries = Fields::from(vec![Arc::clone(&kv[0]), Arc::new(value)]);
                let entries = Field::new("entries", DataType::Struct(entries), false);
                Arc::new(Field::new(
                    name,
                    DataType::Map(Arc::new(entries), false),
                    false,
                ))
            }
            _ => nested,
        })
    }

    fn base_result(&self, fields: &[FieldRef], params: &Parameters) -> Result<FieldRef> {
        let (udaf, coerced, _) = self.base_call(fields, params)?;
        Ok(clickhouse_result(&udaf, udaf.return_field(&coerced)?, fields).0)
    }

    /// The base function with its arguments coerced to what it takes.
    fn base_call(
        &self,
        fields: &[FieldRef],
        params: &Parameters,
    ) -> Result<(Arc<AggregateUDF>, Vec<FieldRef>, Option<ScalarValue>)> {
        let Layer::Base(_, udaf, cache) = self else {
            unreachable!("the base")
        };
        if let Some(fields) = cache.get() {
            return Ok((Arc::clone(udaf), fields.clone(), params.literal()?));
        }
        if let Arity::Fixed(n) = udaf.signature().type_signature.arity()
            && fields.len() > n
        {
            let expected = if n == 1 {
                "single argument".to_string()
            } else {
                format!("{n} arguments")
            };
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Aggregate function {} requires {expected}", udaf.name()),
            ));
        }
        let mut all = fields.to_vec();
        all.extend(params.field());
        let types: Vec<DataType> = all.iter().map(|f| f.data_type().clone()).collect();
        let coerced = match udaf.signature().type_signature {
            datafusion::logical_expr::TypeSignature::UserDefined => udaf.coerce_types(&types)?,
            _ => {
                #[allow(deprecated)]
                let fields =
                    datafusion::logical_expr::type_coercion::functions::fields_with_aggregate_udf(
                        &all, udaf,
                    )?;
                fields.iter().map(|f| f.data_type().clone()).collect()
            }
        };
        let fields: Vec<FieldRef> = all
            .iter()
            .zip(coerced)
            .map(|(f, t)| Arc::new(f.as_ref().clone().with_data_type(t)))
            .collect();
        Ok((
            Arc::clone(udaf),
            cache.get_or_init(|| fields).clone(),
            params.literal()?,
        ))
    }

    pub(crate) fn state_fields(
        &self,
        name: &str,
        fields: &[FieldRef],
        params: &Parameters,
    ) -> Result<Vec<FieldRef>> {
        let Layer::Wrapped(combinator, inner) = self else {
            let (udaf, fields, _) = self.base_call(fields, params)?;
            let return_field = udaf.return_field(&fields)?;
            return udaf.state_fields(StateFieldsArgs {
                name,
                input_fields: &fields,
                return_field,
                ordering_fields: &[],
                is_distinct: false,
            });
        };
        let inner_fields = self.inner_fields(name, fields)?;
        let nested = inner.state_fields(name, &inner_fields, &self.inner_parameters(params))?;
        let field =
            |suffix: &str, t: DataType| Arc::new(Field::new(format!("{name}[{suffix}]"), t, true));
        Ok(match combinator {
            Combinator::If | Combinator::State | Combinator::Merge => nested,
            Combinator::OrNull | Combinator::OrDefault => {
                let mut out = nested;
                out.push(field("seen", DataType::Boolean));
                out
            }
            Combinator::Distinct => inner_fields
                .iter()
                .map(|f| field("distinct", state_list_of(f.data_type().clone())))
                .collect(),
            Combinator::Array => nested,
            Combinator::ForEach | Combinator::Resample => nested
                .iter()
                .map(|f| field(f.name(), state_list_of(f.data_type().clone())))
                .collect(),
            Combinator::Map => {
                let DataType::Map(entries, _) = fields[0].data_type() else {
                    unreachable!("checked")
                };
                let DataType::Struct(kv) = entries.data_type() else {
                    unreachable!("checked")
                };
                let mut out = vec![field("keys", state_list_of(kv[0].data_type().clone()))];
                out.extend(
                    nested
                        .iter()
                        .map(|f| field(f.name(), state_list_of(f.data_type().clone()))),
                );
                out
            }
            Combinator::ArgMin | Combinator::ArgMax => {
                let (_, by) = split_last_arg(name, fields)?;
                let mut out = nested;
                out.push(field("best", by.data_type().clone()));
                out
            }
        })
    }

    pub(crate) fn accumulator(
        self: &Arc<Self>,
        name: &str,
        fields: &[FieldRef],
        params: &Parameters,
    ) -> Result<Box<dyn Accumulator>> {
        let Layer::Wrapped(combinator, inner) = self.as_ref() else {
            return self.base_accumulator(name, fields, params);
        };
        let inner = Arc::new(Factory {
            layer: Arc::clone(inner),
            name: name.to_string(),
            fields: self.inner_fields(name, fields)?,
            params: self.inner_parameters(params),
        });
        let result = self.return_field(name, fields, params)?;
        let args = fields.len();
        Ok(match combinator {
            Combinator::If => Box::new(IfAccumulator {
                inner: inner.make()?,
            }),
            Combinator::State => Box::new(states::StateAccumulator::new(
                inner.make()?,
                result.data_type(),
            )?),
            Combinator::Merge => Box::new(states::MergeAccumulator::new(inner.make()?)),
            Combinator::OrNull | Combinator::OrDefault => {
                let absent = match combinator {
                    Combinator::OrNull => Absent::Null(result.data_type().clone()),
                    _ => Absent::Default(result.data_type().clone(), result.is_nullable()),
                };
                let skip = SkipNulls::new(inner.make()?, args, absent);
                // Over -If, a row counts only where its condition holds;
                // ClickHouse's counts (`countIfOrNull`) keep 0 regardless.
                let counts = inner.layer.chain_name().starts_with("count")
                    || inner.layer.chain_name().starts_with("uniq");
                match inner.layer.as_ref() {
                    Layer::Wrapped(Combinator::If, _) if !counts => Box::new(skip.over_condition()),
                    _ => Box::new(skip),
                }
            }
            Combinator::Distinct => Box::new(DistinctAccumulator::new(inner)?),
            Combinator::Array => Box::new(ArrayAccumulator {
                name: name.to_string(),
                inner: inner.make()?,
            }),
            Combinator::ForEach => Box::new(Positional::new(
                inner,
                Positions::ForEach(name.to_string()),
            )?),
            Combinator::Resample => {
                let own = params.split_last(3).1;
                Box::new(Positional::new(
                    inner,
                    Positions::resample(name, &own.values)?,
                )?)
            }
            Combinator::Map => {
                let DataType::Map(entries, _) = fields[0].data_type() else {
                    unreachable!("checked")
                };
                let DataType::Struct(kv) = entries.data_type() else {
                    unreachable!("checked")
                };
                Box::new(MapAccumulator::new(inner, kv[0].data_type().clone())?)
            }
            Combinator::ArgMin | Combinator::ArgMax => {
                let (_, by) = split_last_arg(name, fields)?;
                Box::new(ArgAccumulator::new(
                    inner,
                    by.data_type().clone(),
                    *combinator == Combinator::ArgMax,
                ))
            }
        })
    }

    fn base_accumulator(
        &self,
        name: &str,
        fields: &[FieldRef],
        params: &Parameters,
    ) -> Result<Box<dyn Accumulator>> {
        let (udaf, coerced, literal) = self.base_call(fields, params)?;
        let return_field = udaf.return_field(&coerced)?;
        let schema = Schema::new(
            coerced
                .iter()
                .enumerate()
                .map(|(i, f)| f.as_ref().clone().with_name(format!("c{i}")))
                .collect::<Vec<_>>(),
        );
        let exprs: Vec<Arc<dyn PhysicalExpr>> = coerced
            .iter()
            .enumerate()
            .map(|(i, _)| match (&literal, i + 1 == coerced.len()) {
                (Some(value), true) => {
                    Arc::new(Literal::new(value.clone())) as Arc<dyn PhysicalExpr>
                }
                _ => Arc::new(Column::new(&format!("c{i}"), i)) as Arc<dyn PhysicalExpr>,
            })
            .collect();
        let (result, empty) = clickhouse_result(&udaf, Arc::clone(&return_field), fields);
        let widened =
            (result.data_type() != return_field.data_type()).then(|| result.data_type().clone());
        let inner = udaf.accumulator(AccumulatorArgs {
            return_field,
            schema: &schema,
            ignore_nulls: false,
            order_bys: &[],
            is_reversed: false,
            name,
            is_distinct: false,
            exprs: &exprs,
            expr_fields: &coerced,
        })?;
        let types = coerced
            .iter()
            .take(fields.len())
            .map(|f| f.data_type().clone())
            .collect();
        Ok(Box::new(Casting {
            inner,
            types,
            literal,
            empty,
            widened,
        }))
    }
}

/// Makes fresh accumulators of a nested chain.
#[derive(Debug)]
struct Factory {
    layer: Arc<Layer>,
    name: String,
    fields: Vec<FieldRef>,
    params: Parameters,
}

impl Factory {
    fn make(&self) -> Result<Box<dyn Accumulator>> {
        self.layer
            .accumulator(&self.name, &self.fields, &self.params)
    }

    fn state_types(&self) -> Result<Vec<DataType>> {
        let fields = self
            .layer
            .state_fields(&self.name, &self.fields, &self.params)?;
        Ok(fields.iter().map(|f| f.data_type().clone()).collect())
    }

    fn result_field(&self) -> Result<FieldRef> {
        self.layer
            .return_field(&self.name, &self.fields, &self.params)
    }
}

/// The base's result field, not Nullable where ClickHouse's is not (no
/// argument is), and what it returns over no rows in place of NULL.
fn clickhouse_result(
    udaf: &AggregateUDF,
    field: FieldRef,
    args: &[FieldRef],
) -> (FieldRef, Option<ScalarValue>) {
    // ClickHouse sums Decimals into the widest Decimal of their width.
    let field = match field.data_type() {
        DataType::Decimal128(precision, scale) if udaf.name() == "sum" && *precision != 38 => {
            Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(DataType::Decimal128(38, *scale)),
            )
        }
        _ => field,
    };
    let empty = empty_result(udaf.name(), field.data_type())
        .filter(|_| field.is_nullable() && args.iter().all(|f| !f.is_nullable()));
    match empty {
        Some(_) => (Arc::new(field.as_ref().clone().with_nullable(false)), empty),
        None => (field, None),
    }
}

/// What ClickHouse's aggregates that DataFusion provides return over no
/// rows, where DataFusion's return NULL (as the SQL front gives top-level calls).
fn empty_result(function: &str, t: &DataType) -> Option<ScalarValue> {
    match function {
        "avg" if *t == DataType::Float64 => Some(ScalarValue::Float64(Some(f64::NAN))),
        "sum" | "min" | "max" | "first_value" | "last_value" | "argMin" | "argMax" => {
            strata_common::types::default_value(t).ok()
        }
        _ => None,
    }
}

/// The base's accumulator, given its arguments in the types it coerced them
/// to, and its parameter struct where it takes one.
#[derive(Debug)]
struct Casting {
    inner: Box<dyn Accumulator>,
    types: Vec<DataType>,
    literal: Option<ScalarValue>,
    /// The result over no rows, in place of the inner's NULL.
    empty: Option<ScalarValue>,
    /// ClickHouse's result type, where it is wider than the inner's.
    widened: Option<DataType>,
}

impl Accumulator for Casting {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let mut cast_values: Vec<ArrayRef> = if self.types.is_empty() {
            // `count()`: the column that carries the rows, see `row_carrier`.
            values.to_vec()
        } else {
            values
                .iter()
                .zip(&self.types)
                .map(|(v, t)| {
                    if v.data_type() == t {
                        Ok(Arc::clone(v))
                    } else {
                        cast(v, t)
                    }
                })
                .collect::<std::result::Result<_, _>>()?
        };
        if let Some(literal) = &self.literal {
            let rows = values.first().map_or(0, |v| v.len());
            cast_values.push(literal.to_array_of_size(rows)?);
        }
        self.inner.update_batch(&cast_values)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let value = self.inner.evaluate()?;
        let value = match &self.empty {
            Some(empty) if value.is_null() => empty.clone(),
            _ => value,
        };
        match &self.widened {
            Some(widened) => value.cast_to(widened),
            None => Ok(value),
        }
    }

    delegate_to_inner!(size, state, merge_batch);
}

/// The arguments left after a combinator took its own last one; where none
/// are left (`countIf(c)`), that one stays to carry the rows to count.
fn row_carrier<'a>(args: &'a [ArrayRef], own: &'a ArrayRef) -> &'a [ArrayRef] {
    if args.is_empty() {
        std::slice::from_ref(own)
    } else {
        args
    }
}

/// -If: the rows where the last argument is true.
#[derive(Debug)]
struct IfAccumulator {
    inner: Box<dyn Accumulator>,
}

fn as_condition(column: &ArrayRef) -> Result<BooleanArray> {
    let condition = cast(column, &DataType::Boolean)?;
    let condition = condition.as_boolean();
    // NULL is false.
    Ok(match condition.nulls() {
        Some(nulls) => BooleanArray::new(condition.values() & nulls.inner(), None),
        None => condition.clone(),
    })
}

impl Accumulator for IfAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let (condition, args) = values.split_last().expect("a condition");
        let args = row_carrier(args, condition);
        let condition = as_condition(condition)?;
        let kept: Vec<ArrayRef> = args
            .iter()
            .map(|a| filter(a, &condition))
            .collect::<std::result::Result<_, _>>()?;
        self.inner.update_batch(&kept)
    }

    delegate_to_inner!(evaluate, size, state, merge_batch);
}

/// -Array: every element of the array arguments, which must be of equal sizes.
#[derive(Debug)]
struct ArrayAccumulator {
    name: String,
    inner: Box<dyn Accumulator>,
}

/// Each list column's elements for the batch's rows, after checking that
/// every row's arrays have one size.
fn flattened(name: &str, values: &[ArrayRef]) -> Result<Vec<ArrayRef>> {
    let lists: Vec<_> = values.iter().map(|v| v.as_list::<i32>()).collect();
    if let Some((first, rest)) = lists.split_first() {
        for row in 0..first.len() {
            let size = first.value_length(row);
            if rest.iter().any(|l| l.value_length(row) != size) {
                return Err(error(
                    ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
                    format!("All arrays must be of the same size for aggregate function {name}"),
                ));
            }
        }
    }
    Ok(lists
        .iter()
        .map(|l| {
            let offsets = l.value_offsets();
            let start = offsets[0] as usize;
            let end = offsets[offsets.len() - 1] as usize;
            l.values().slice(start, end - start)
        })
        .collect())
}

impl Accumulator for ArrayAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let flat = flattened(&self.name, values)?;
        self.inner.update_batch(&flat)
    }

    delegate_to_inner!(evaluate, size, state, merge_batch);
}

/// -Distinct: each distinct row of arguments once, in the order they first
/// came, as ClickHouse passes them on; the state is the rows.
#[derive(Debug)]
struct DistinctAccumulator {
    inner: Arc<Factory>,
    converter: RowConverter,
    /// Each row with its place in arrival order.
    rows: HashMap<OwnedRow, usize>,
    bytes: usize,
}

impl DistinctAccumulator {
    fn new(inner: Arc<Factory>) -> Result<Self> {
        let fields = inner
            .fields
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect();
        Ok(DistinctAccumulator {
            converter: RowConverter::new(fields)?,
            inner,
            rows: HashMap::new(),
            bytes: 0,
        })
    }

    fn columns(&self) -> Result<Vec<ArrayRef>> {
        let mut ordered: Vec<(&OwnedRow, &usize)> = self.rows.iter().collect();
        ordered.sort_unstable_by_key(|(_, place)| **place);
        Ok(self
            .converter
            .convert_rows(ordered.into_iter().map(|(r, _)| r.row()))?)
    }
}

impl Accumulator for DistinctAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let n = self.inner.fields.len();
        let rows = self.converter.convert_columns(&values[..n])?;
        for row in rows.iter() {
            let place = self.rows.len();
            if let Entry::Vacant(entry) = self.rows.entry(row.owned()) {
                self.bytes += row.as_ref().len();
                entry.insert(place);
            }
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let mut accumulator = self.inner.make()?;
        if !self.rows.is_empty() {
            accumulator.update_batch(&self.columns()?)?;
        }
        accumulator.evaluate()
    }

    fn size(&self) -> usize {
        let entry = std::mem::size_of::<(OwnedRow, usize)>();
        std::mem::size_of_val(self) + self.bytes + self.rows.capacity() * entry
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let columns = if self.rows.is_empty() {
            self.inner
                .fields
                .iter()
                .map(|f| datafusion::arrow::array::new_empty_array(f.data_type()))
                .collect()
        } else {
            self.columns()?
        };
        Ok(columns.into_iter().map(state_list_scalar).collect())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists: Vec<Vec<ArrayRef>> = states.iter().map(list_rows).collect();
        for row in 0..lists.first().map_or(0, Vec::len) {
            let columns: Vec<ArrayRef> = lists.iter().map(|l| Arc::clone(&l[row])).collect();
            self.update_batch(&columns)?;
        }
        Ok(())
    }
}

/// How -ForEach and -Resample place rows: by array position, or by the
/// resampling key's bucket.
#[derive(Debug)]
enum Positions {
    ForEach(String),
    Resample { start: i64, end: i64, step: i64 },
}

impl Positions {
    fn resample(name: &str, params: &[ScalarValue]) -> Result<Self> {
        if params.len() != 3 {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Aggregate function {name} requires 3 parameters: start, end and step"),
            ));
        }
        let start = float_parameter(name, &params[0])? as i64;
        let end = float_parameter(name, &params[1])? as i64;
        let step = count_parameter(name, &params[2])? as i64;
        if step == 0 || start >= end {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "The step given in function {name} should not be zero, and start should be less than end"
                ),
            ));
        }
        Ok(Positions::Resample { start, end, step })
    }

    fn fixed(&self) -> usize {
        match self {
            Positions::ForEach(_) => 0,
            Positions::Resample { start, end, step } => {
                ((end - start) as u64).div_ceil(*step as u64) as usize
            }
        }
    }

    /// The arguments the nested function gets, and per position the rows
    /// (of those arguments) that go to it.
    fn split(&self, values: &[ArrayRef]) -> Result<(Vec<ArrayRef>, Vec<Vec<u32>>)> {
        match self {
            Positions::ForEach(name) => {
                let flat = flattened(name, values)?;
                let lists = values[0].as_list::<i32>();
                let base = lists.value_offsets()[0];
                let mut positions: Vec<Vec<u32>> = Vec::new();
                for row in 0..lists.len() {
                    let start = (lists.value_offsets()[row] - base) as u32;
                    for i in 0..lists.value_length(row) as usize {
                        if positions.len() <= i {
                            positions.push(Vec::new());
                        }
                        positions[i].push(start + i as u32);
                    }
                }
                Ok((flat, positions))
            }
            Positions::Resample { start, end, step } => {
                let (key_column, args) = values.split_last().expect("a key");
                let key = cast(key_column, &DataType::Int64)?;
                let key = key.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
                let mut positions = vec![Vec::new(); self.fixed()];
                for row in 0..key.len() {
                    let k = key.value(row);
                    if key.is_valid(row) && k >= *start && k < *end {
                        positions[((k - start) / step) as usize].push(row as u32);
                    }
                }
                Ok((row_carrier(args, key_column).to_vec(), positions))
            }
        }
    }
}

/// -ForEach and -Resample: one nested accumulator per position; the state
/// is each nested state field as a list over positions.
#[derive(Debug)]
struct Positional {
    inner: Arc<Factory>,
    positions: Positions,
    accumulators: Vec<Box<dyn Accumulator>>,
    result_type: DataType,
    /// The whole result's type, whose elements are Nullable where the nested result is.
    list_type: DataType,
}

impl Positional {
    fn new(inner: Arc<Factory>, positions: Positions) -> Result<Self> {
        let accumulators = (0..positions.fixed())
            .map(|_| inner.make())
            .collect::<Result<_>>()?;
        let nested = inner.result_field()?;
        let result_type = nested.data_type().clone();
        let list_type = list_type(result_type.clone(), nested.is_nullable());
        Ok(Positional {
            inner,
            positions,
            accumulators,
            result_type,
            list_type,
        })
    }

    fn grow(&mut self, n: usize) -> Result<()> {
        while self.accumulators.len() < n {
            self.accumulators.push(self.inner.make()?);
        }
        Ok(())
    }
}

impl Accumulator for Positional {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let (args, positions) = self.positions.split(values)?;
        self.grow(positions.len())?;
        for (accumulator, rows) in self.accumulators.iter_mut().zip(positions) {
            if rows.is_empty() {
                continue;
            }
            let indices = UInt32Array::from(rows);
            let taken: Vec<ArrayRef> = args
                .iter()
                .map(|a| take(a, &indices, None))
                .collect::<std::result::Result<_, _>>()?;
            accumulator.update_batch(&taken)?;
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let results: Vec<ScalarValue> = self
            .accumulators
            .iter_mut()
            .map(|a| a.evaluate())
            .collect::<Result<_>>()?;
        let array = if results.is_empty() {
            datafusion::arrow::array::new_empty_array(&self.result_type)
        } else {
            ScalarValue::iter_to_array(results)?
        };
        let DataType::List(item) = &self.list_type else {
            unreachable!("a list")
        };
        Ok(list_value(array, item.is_nullable()))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.accumulators.iter().map(|a| a.size()).sum::<usize>()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        states_as_lists(&mut self.accumulators, &self.inner.state_types()?)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists: Vec<Vec<ArrayRef>> = states.iter().map(list_rows).collect();
        for row in 0..lists.first().map_or(0, Vec::len) {
            let count = lists[0][row].len();
            self.grow(count)?;
            for (i, accumulator) in self.accumulators.iter_mut().enumerate().take(count) {
                let slices: Vec<ArrayRef> = lists.iter().map(|l| l[row].slice(i, 1)).collect();
                accumulator.merge_batch(&slices)?;
            }
        }
        Ok(())
    }
}

/// Each nested state field as one list over the accumulators.
fn states_as_lists(
    accumulators: &mut [Box<dyn Accumulator>],
    types: &[DataType],
) -> Result<Vec<ScalarValue>> {
    let states: Vec<Vec<ScalarValue>> = accumulators
        .iter_mut()
        .map(|a| a.state())
        .collect::<Result<_>>()?;
    types
        .iter()
        .enumerate()
        .map(|(field, t)| {
            let column = if states.is_empty() {
                datafusion::arrow::array::new_empty_array(t)
            } else {
                ScalarValue::iter_to_array(states.iter().map(|s| s[field].clone()))?
            };
            Ok(state_list_scalar(column))
        })
        .collect()
}

/// -Map: one nested accumulator per key of the map argument.
#[derive(Debug)]
struct MapAccumulator {
    inner: Arc<Factory>,
    converter: RowConverter,
    accumulators: BTreeMap<OwnedRow, Box<dyn Accumulator>>,
    /// The nested result field, whose nullability the map's values take.
    result: FieldRef,
    key_type: DataType,
}

impl MapAccumulator {
    fn new(inner: Arc<Factory>, key_type: DataType) -> Result<Self> {
        let converter = RowConverter::new(vec![SortField::new(key_type.clone())])?;
        let result = inner.result_field()?;
        Ok(MapAccumulator {
            inner,
            converter,
            accumulators: BTreeMap::new(),
            result,
            key_type,
        })
    }

    /// Rows of `values` grouped by their key, in key order.
    fn absorb(&mut self, keys: &ArrayRef, values: &[ArrayRef], merge: bool) -> Result<()> {
        let encoded = self.converter.convert_columns(&[Arc::clone(keys)])?;
        let mut groups: BTreeMap<OwnedRow, Vec<u32>> = BTreeMap::new();
        for (i, row) in encoded.iter().enumerate() {
            groups.entry(row.owned()).or_default().push(i as u32);
        }
        for (key, rows) in groups {
            if !self.accumulators.contains_key(&key) {
                self.accumulators.insert(key.clone(), self.inner.make()?);
            }
            let accumulator = self.accumulators.get_mut(&key).expect("inserted");
            let indices = UInt32Array::from(rows);
            let taken: Vec<ArrayRef> = values
                .iter()
                .map(|a| take(a, &indices, None))
                .collect::<std::result::Result<_, _>>()?;
            if merge {
                accumulator.merge_batch(&taken)?;
            } else {
                accumulator.update_batch(&taken)?;
            }
        }
        Ok(())
    }

    fn keys(&self) -> Result<ArrayRef> {
        if self.accumulators.is_empty() {
            return Ok(datafusion::arrow::array::new_empty_array(&self.key_type));
        }
        Ok(self
            .converter
            .convert_rows(self.accumulators.keys().map(|k| k.row()))?
            .remove(0))
    }
}

impl Accumulator for MapAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let map = values[0].as_map();
        let offsets = map.value_offsets();
        let (start, end) = (offsets[0] as usize, offsets[offsets.len() - 1] as usize);
        let keys = map.keys().slice(start, end - start);
        let values = map.values().slice(start, end - start);
        self.absorb(&keys, &[values], false)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let keys = self.keys()?;
        let results: Vec<ScalarValue> = self
            .accumulators
            .values_mut()
            .map(|a| a.evaluate())
            .collect::<Result<_>>()?;
        let values = if results.is_empty() {
            datafusion::arrow::array::new_empty_array(self.result.data_type())
        } else {
            ScalarValue::iter_to_array(results)?
        };
        let fields = Fields::from(vec![
            Field::new("key", keys.data_type().clone(), false),
            Field::new(
                "value",
                values.data_type().clone(),
                self.result.is_nullable(),
            ),
        ]);
        let entries = StructArray::new(fields.clone(), vec![keys, values], None);
        let field = Arc::new(Field::new("entries", DataType::Struct(fields), false));
        let offsets = datafusion::arrow::buffer::OffsetBuffer::from_lengths([entries.len()]);
        let map = datafusion::arrow::array::MapArray::new(field, offsets, entries, None, false);
        Ok(ScalarValue::Map(Arc::new(map)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self
                .accumulators
                .iter()
                .map(|(k, a)| k.as_ref().len() + a.size())
                .sum::<usize>()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let mut out = vec![state_list_scalar(self.keys()?)];
        let mut accumulators: Vec<&mut Box<dyn Accumulator>> =
            self.accumulators.values_mut().collect();
        let types = self.inner.state_types()?;
        let states: Vec<Vec<ScalarValue>> = accumulators
            .iter_mut()
            .map(|a| a.state())
            .collect::<Result<_>>()?;
        for (field, t) in types.iter().enumerate() {
            let column = if states.is_empty() {
                datafusion::arrow::array::new_empty_array(t)
            } else {
                ScalarValue::iter_to_array(states.iter().map(|s| s[field].clone()))?
            };
            out.push(state_list_scalar(column));
        }
        Ok(out)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists: Vec<Vec<ArrayRef>> = states.iter().map(list_rows).collect();
        for row in 0..lists.first().map_or(0, Vec::len) {
            let nested: Vec<ArrayRef> = lists[1..].iter().map(|l| Arc::clone(&l[row])).collect();
            self.absorb(&Arc::clone(&lists[0][row]), &nested, true)?;
        }
        Ok(())
    }
}

/// -ArgMin and -ArgMax: the nested function over the rows whose last
/// argument is the least or greatest.
#[derive(Debug)]
struct ArgAccumulator {
    inner: Arc<Factory>,
    accumulator: Option<Box<dyn Accumulator>>,
    best: ScalarValue,
    max: bool,
}

impl ArgAccumulator {
    fn new(inner: Arc<Factory>, by: DataType, max: bool) -> Self {
        let best = ScalarValue::try_from(&by).unwrap_or(ScalarValue::Null);
        ArgAccumulator {
            inner,
            accumulator: None,
            best,
            max,
        }
    }

    /// The best value of `by`, and whether it beats or ties the current one.
    fn consider(&mut self, candidate: ScalarValue) -> Result<bool> {
        let ordering = candidate.partial_cmp(&self.best);
        let better = self.best.is_null()
            || ordering
                == Some(if self.max {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Less
                });
        if better {
            self.best = candidate;
            self.accumulator = Some(self.inner.make()?);
            return Ok(true);
        }
        Ok(ordering == Some(std::cmp::Ordering::Equal))
    }

    fn rows_equal_to_best(&self, by: &ArrayRef) -> Result<BooleanArray> {
        let best = self.best.to_array_of_size(by.len())?;
        Ok(datafusion::arrow::compute::kernels::cmp::eq(by, &best)?)
    }

    fn batch_best(&self, by: &ArrayRef) -> Result<Option<ScalarValue>> {
        let options = datafusion::arrow::compute::SortOptions {
            descending: self.max,
            nulls_first: false,
        };
        let first = datafusion::arrow::compute::sort_to_indices(by, Some(options), Some(1))?;
        if first.is_empty() || by.is_null(first.value(0) as usize) {
            return Ok(None);
        }
        Ok(Some(ScalarValue::try_from_array(
            by,
            first.value(0) as usize,
        )?))
    }
}

impl Accumulator for ArgAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let (by, args) = values.split_last().expect("a value to compare");
        let args = row_carrier(args, by);
        let Some(best) = self.batch_best(by)? else {
            return Ok(());
        };
        if !self.consider(best)? {
            return Ok(());
        }
        let rows = self.rows_equal_to_best(by)?;
        let kept: Vec<ArrayRef> = args
            .iter()
            .map(|a| filter(a, &rows))
            .collect::<std::result::Result<_, _>>()?;
        self.accumulator.as_mut().expect("made").update_batch(&kept)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        match &mut self.accumulator {
            Some(a) => a.evaluate(),
            None => self.inner.make()?.evaluate(),
        }
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.accumulator.as_ref().map_or(0, |a| a.size())
            + self.best.size()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let mut state = match &mut self.accumulator {
            Some(a) => a.state()?,
            None => self.inner.make()?.state()?,
        };
        state.push(self.best.clone());
        Ok(state)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let (bests, nested) = states.split_last().expect("the best value");
        for row in 0..bests.len() {
            let best = ScalarValue::try_from_array(bests, row)?;
            if best.is_null() || !self.consider(best)? {
                continue;
            }
            let slices: Vec<ArrayRef> = nested.iter().map(|s| s.slice(row, 1)).collect();
            self.accumulator
                .as_mut()
                .expect("made")
                .merge_batch(&slices)?;
        }
        Ok(())
    }
}

/// The function carrying combinator chains.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Combined {
    signature: Signature,
}

impl Default for Combined {
    fn default() -> Self {
        Combined {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

/// A call of [`COMBINED`]: the chain and parameter text its marker names,
/// its arguments and its parameter struct.
struct CallParts {
    spec: String,
    parameter_text: String,
    args: Vec<FieldRef>,
    params: Option<FieldRef>,
}

impl CallParts {
    /// The marker is a struct whose first field's name is the chain and
    /// whose second, if any, is the parameters as written.
    fn new(fields: &[FieldRef]) -> Result<Self> {
        let missing = || DataFusionError::Internal(format!("{COMBINED} needs its marker"));
        let (marker, rest) = fields.split_first().ok_or_else(missing)?;
        let (spec, parameter_text) = match marker.data_type() {
            DataType::Struct(f) if (1..=2).contains(&f.len()) => (
                f[0].name().clone(),
                f.get(1).map(|p| p.name().clone()).unwrap_or_default(),
            ),
            _ => return Err(missing()),
        };
        let (args, params) = match rest.split_last() {
            Some((last, args)) if is_parameters(last.data_type()) => {
                (args.to_vec(), Some(Arc::clone(last)))
            }
            _ => (rest.to_vec(), None),
        };
        Ok(CallParts {
            spec,
            parameter_text,
            args,
            params,
        })
    }

    fn parameters(&self, values: Vec<ScalarValue>) -> Parameters {
        Parameters::from_field(self.params.as_ref(), values, &self.parameter_text)
    }
}

impl AggregateUDFImpl for Combined {
    fn name(&self) -> &str {
        COMBINED
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Err(DataFusionError::Internal(format!(
            "{COMBINED} types its result from fields"
        )))
    }

    fn return_field(&self, arg_fields: &[FieldRef]) -> Result<FieldRef> {
        let call = CallParts::new(arg_fields)?;
        let layer = parse_chain(&call.spec)?;
        let params = call.parameters(Vec::new());
        let field = layer.return_field(&display_name(&call.spec), &call.args, &params)?;
        Ok(Arc::new(field.as_ref().clone().with_name(COMBINED)))
    }

    fn is_nullable(&self) -> bool {
        false
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let call = CallParts::new(args.input_fields)?;
        let params = call.parameters(Vec::new());
        let fields = parse_chain(&call.spec)?.state_fields(args.name, &call.args, &params)?;
        // Unique names: nested layers may repeat a suffix.
        Ok(fields
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                Arc::new(
                    f.as_ref()
                        .clone()
                        .with_name(format!("{}[{i}]", args.name))
                        .with_nullable(true),
                )
            })
            .collect())
    }

    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        super::sliding::sliding_accumulator(self.name(), args)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Prepared::new(&args)?.make()
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        !args.is_distinct
    }

    /// DataFusion's adapter over one accumulator per group, made from a
    /// chain parsed (and its base coerced) once rather than per group.
    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        let prepared = Prepared::new(&args)?;
        Ok(Box::new(GroupsAccumulatorAdapter::new(move || {
            prepared.make()
        })))
    }
}

/// A call's chain, ready to make accumulators.
struct Prepared {
    layer: Arc<Layer>,
    name: String,
    fields: Vec<FieldRef>,
    params: Parameters,
}

impl Prepared {
    fn new(args: &AccumulatorArgs) -> Result<Self> {
        let call = CallParts::new(args.expr_fields)?;
        let params = call.parameters(parameter_values(args.exprs));
        Ok(Prepared {
            layer: Arc::new(parse_chain(&call.spec)?),
            name: display_name(&call.spec),
            params,
            fields: call.args,
        })
    }

    fn make(&self) -> Result<Box<dyn Accumulator>> {
        let inner = self
            .layer
            .accumulator(&self.name, &self.fields, &self.params)?;
        Ok(Box::new(Unmarked {
            inner,
            args: self.fields.len(),
        }))
    }
}

/// Drops the marker column (and the parameter column past the arguments).
#[derive(Debug)]
struct Unmarked {
    inner: Box<dyn Accumulator>,
    args: usize,
}

impl Accumulator for Unmarked {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        // Without arguments (`countState()`) the marker carries the rows.
        let carried = match self.args {
            0 => &values[..1],
            args => &values[1..1 + args],
        };
        self.inner.update_batch(carried)
    }

    delegate_to_inner!(evaluate, size, state, merge_batch);
}
