//! `count()` and `count(x)` returning UInt64, as ClickHouse does (DataFusion's
//! count is Int64, which would change result types users see).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, UInt64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::functions_aggregate::count::count_udaf;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, TypeSignature, Volatility,
};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Count {
    signature: Signature,
}

impl Default for Count {
    fn default() -> Self {
        Count {
            signature: Signature::one_of(
                vec![TypeSignature::Nullary, TypeSignature::Any(1)],
                Volatility::Immutable,
            ),
        }
    }
}

impl AggregateUDFImpl for Count {
    fn name(&self) -> &str {
        "count"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::UInt64)
    }

    fn is_nullable(&self) -> bool {
        false
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        if args.is_distinct {
            return count_udaf().state_fields(args);
        }
        Ok(vec![Arc::new(Field::new(
            format!("{}[count]", args.name),
            DataType::UInt64,
            false,
        ))])
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        if args.is_distinct {
            // DataFusion's distinct counting, with the result as UInt64.
            return Ok(Box::new(DistinctCount {
                inner: count_udaf().accumulator(args)?,
            }));
        }
        Ok(Box::new(CountAccumulator { count: 0 }))
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        !args.is_distinct
    }

    fn create_groups_accumulator(
        &self,
        _args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(CountGroups { counts: Vec::new() }))
    }

    fn default_value(&self, _data_type: &DataType) -> Result<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(0)))
    }
}

/// `count(DISTINCT x)`: DataFusion's accumulator, whose Int64 result is
/// given as ClickHouse's UInt64.
#[derive(Debug)]
struct DistinctCount {
    inner: Box<dyn Accumulator>,
}

impl Accumulator for DistinctCount {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.inner.update_batch(values)
    }

    delegate_to_inner!(merge_batch, state, size);

    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.inner.evaluate()?.cast_to(&DataType::UInt64)
    }
}

/// Rows that count: all of them for `count()`, the non-NULL ones for `count(x)`.
fn counted(values: &[ArrayRef], filter: Option<&BooleanArray>, row: usize) -> bool {
    values.first().is_none_or(|v| v.is_valid(row)) && super::filter_keeps(filter, row)
}

#[derive(Debug)]
struct CountAccumulator {
    count: u64,
}

impl Accumulator for CountAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        if let Some(v) = values.first() {
            self.count += (v.len() - v.logical_null_count()) as u64;
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(self.count)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::UInt64(Some(self.count))])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let counts = states[0].as_primitive::<UInt64Type>();
        self.count += counts.iter().flatten().sum::<u64>();
        Ok(())
    }

    /// Rows leaving a sliding window frame.
    fn retract_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        if let Some(v) = values.first() {
            let leaving = (v.len() - v.logical_null_count()) as u64;
            debug_assert!(
                leaving <= self.count,
                "a frame retracts rows it never added"
            );
            self.count -= leaving;
        }
        Ok(())
    }

    fn supports_retract_batch(&self) -> bool {
        true
    }
}

struct CountGroups {
    counts: Vec<u64>,
}

impl CountGroups {
    fn emit(&mut self, emit_to: EmitTo) -> ArrayRef {
        Arc::new(UInt64Array::from(emit_to.take_needed(&mut self.counts)))
    }
}

impl GroupsAccumulator for CountGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.counts.resize(total_num_groups, 0);
        let all_count = values.first().is_none_or(|v| v.null_count() == 0) && opt_filter.is_none();
        if all_count {
            for &g in group_indices {
                self.counts[g] += 1;
            }
        } else {
            for (row, &g) in group_indices.iter().enumerate() {
                if counted(values, opt_filter, row) {
                    self.counts[g] += 1;
                }
            }
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        Ok(self.emit(emit_to))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        Ok(vec![self.emit(emit_to)])
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.counts.resize(total_num_groups, 0);
        let partial = values[0].as_primitive::<UInt64Type>();
        for (row, &g) in group_indices.iter().enumerate() {
            self.counts[g] += partial.value(row);
        }
        Ok(())
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let rows = values.first().map_or(0, |v| v.len());
        let counts: UInt64Array = (0..rows)
            .map(|row| Some(u64::from(counted(values, opt_filter, row))))
            .collect();
        Ok(vec![Arc::new(counts)])
    }

    fn size(&self) -> usize {
        self.counts.capacity() * std::mem::size_of::<u64>()
    }
}
