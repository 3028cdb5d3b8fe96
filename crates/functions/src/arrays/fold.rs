//! `arrayFold((acc, x[, y...]) -> body, a[, b...], initial)`: the lambda
//! applied to the accumulator and each element in turn, starting from
//! `initial`; the result has the accumulator's type.
//!
//! The SQL front passes it here as `strata_array_fold(a[, b...], initial,
//! lambda)`, a DataFusion higher-order function. The lambda is evaluated
//! once per element position over every row still that long, so a fold
//! costs as many lambda evaluations as the longest array has elements.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, ListArray, UInt32Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::compute::{concat, take, take_arrays};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, HigherOrderFunctionArgs, HigherOrderReturnFieldArgs, HigherOrderSignature,
    HigherOrderUDF, HigherOrderUDFImpl, LambdaArgument, LambdaParametersProgress, ValueOrLambda,
    Volatility,
};

use super::{array_item, as_list, check_sizes};

const NAME: &str = "arrayFold";

/// The function's name for DataFusion's planner.
pub const PLANNED_NAME: &str = "strata_array_fold";

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayFold {
    signature: HigherOrderSignature,
}

impl Default for ArrayFold {
    fn default() -> Self {
        Self {
            signature: HigherOrderSignature::variadic_any(Volatility::Immutable),
        }
    }
}

/// The function, for registration.
pub fn higher_order_function() -> Arc<HigherOrderUDF> {
    Arc::new(HigherOrderUDF::new_from_impl(ArrayFold::default()))
}

/// The value arguments (the arrays, then the initial accumulator), checked.
fn values<V: Clone, L>(fields: &[ValueOrLambda<V, L>]) -> Result<Vec<V>> {
    let Some((ValueOrLambda::Lambda(_), values)) = fields.split_last() else {
        return plan_err!("{NAME} expects its lambda last");
    };
    if values.len() < 2 {
        return plan_err!("{NAME} expects an array and an initial accumulator");
    }
    values
        .iter()
        .map(|v| match v {
            ValueOrLambda::Value(v) => Ok(v.clone()),
            ValueOrLambda::Lambda(_) => plan_err!("{NAME} takes one lambda"),
        })
        .collect()
}

impl HigherOrderUDFImpl for ArrayFold {
    fn name(&self) -> &str {
        PLANNED_NAME
    }

    fn signature(&self) -> &HigherOrderSignature {
        &self.signature
    }

    /// The accumulator first, as ClickHouse's lambda takes it, then one
    /// element of each array.
    fn lambda_parameters(
        &self,
        _step: usize,
        fields: &[ValueOrLambda<FieldRef, Option<FieldRef>>],
    ) -> Result<LambdaParametersProgress> {
        let values = values(fields)?;
        let (initial, arrays) = values.split_last().expect("checked above");
        // Nullable whatever the initial value: planning may see it as a
        // constant that cannot be NULL where evaluation does not.
        let mut parameters = vec![Arc::new(initial.as_ref().clone().with_nullable(true))];
        for array in arrays {
            parameters.push(array_item(NAME, array.data_type())?);
        }
        Ok(LambdaParametersProgress::Complete(vec![parameters]))
    }

    fn return_field_from_args(&self, args: HigherOrderReturnFieldArgs) -> Result<FieldRef> {
        let values = values(args.arg_fields)?;
        let initial = values.last().expect("checked above");
        Ok(Arc::new(initial.as_ref().clone().with_name(NAME)))
    }

    fn invoke_with_args(&self, args: HigherOrderFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let Some((ValueOrLambda::Lambda(lambda), values)) = args.args.split_last() else {
            return plan_err!("{NAME} expects its lambda last");
        };
        let mut arrays = Vec::with_capacity(values.len());
        for value in values {
            let ValueOrLambda::Value(value) = value else {
                return plan_err!("{NAME} takes one lambda");
            };
            arrays.push(value.to_array(rows)?);
        }
        let initial = arrays.pop().expect("an initial accumulator");
        let lists = arrays.iter().map(as_list).collect::<Result<Vec<_>>>()?;
        for row in 0..rows {
            check_sizes(NAME, &lists, row)?;
        }
        let acc_type = args.return_type().clone();
        let acc = fold(lambda, &lists, cast::cast(&initial, &acc_type)?, &acc_type)?;
        Ok(ColumnarValue::Array(acc))
    }
}

/// The fold over every row: step `k` evaluates the lambda over the rows
/// with more than `k` elements and puts its values in their accumulators.
fn fold(
    lambda: &LambdaArgument,
    lists: &[ListArray],
    mut acc: ArrayRef,
    acc_type: &DataType,
) -> Result<ArrayRef> {
    let lengths: Vec<usize> = (0..acc.len())
        .map(|row| lists[0].value_length(row) as usize)
        .collect();
    for k in 0.. {
        let active: Vec<u32> = (0..lengths.len())
            .filter(|&row| lengths[row] > k)
            .map(|row| row as u32)
            .collect();
        if active.is_empty() {
            break;
        }
        let rows = UInt32Array::from(active.clone());
        let acc_now = take(&acc, &rows, None)?;
        let elements = lists
            .iter()
            .map(|list| {
                let offsets = list.value_offsets();
                let at = active
                    .iter()
                    .map(|&r| offsets[r as usize] as u32 + k as u32);
                Ok(take(
                    list.values(),
                    &UInt32Array::from_iter_values(at),
                    None,
                )?)
            })
            .collect::<Result<Vec<_>>>()?;
        let acc_param = || -> Result<ArrayRef> { Ok(Arc::clone(&acc_now)) };
        let element_params: Vec<_> = elements
            .iter()
            .map(|e| move || -> Result<ArrayRef> { Ok(Arc::clone(e)) })
            .collect();
        let mut params: Vec<&dyn Fn() -> Result<ArrayRef>> = vec![&acc_param];
        params.extend(
            element_params
                .iter()
                .map(|p| p as &dyn Fn() -> Result<ArrayRef>),
        );
        let next = lambda
            .evaluate(&params, |captured| Ok(take_arrays(captured, &rows, None)?))?
            .into_array(active.len())?;
        let next = cast::cast(&next, acc_type)?;
        acc = scatter(&acc, &next, &active)?;
    }
    Ok(acc)
}

/// `acc` with row `active[i]` replaced by `next[i]`.
fn scatter(acc: &ArrayRef, next: &ArrayRef, active: &[u32]) -> Result<ArrayRef> {
    let both = concat(&[acc.as_ref(), next.as_ref()])?;
    let mut indices: Vec<u32> = (0..acc.len() as u32).collect();
    for (i, &row) in active.iter().enumerate() {
        indices[row as usize] = (acc.len() + i) as u32;
    }
    Ok(take(&both, &UInt32Array::from(indices), None)?)
}
