//! Aggregates that fold a group's values into one running value:
//! `groupBitAnd`, `groupBitOr` and `groupBitXor` (also `BIT_AND`, `BIT_OR`,
//! `BIT_XOR`) of integers, in the argument's type; `sumWithOverflow`, a
//! sum that wraps in the argument's type (a decimal's at the largest
//! precision of its width: 9, 18 or 38); and `sumCount`, the tuple of
//! `sum` (in ClickHouse's sum type: Int64, UInt64, Float64 or
//! Decimal(38, s)) and the count of values summed.
//!
//! Over no rows the bitwise AND is all ones and the others 0; a Nullable
//! argument makes the result Nullable and NULL over no values, except
//! `sumCount`'s, which stays (0, 0). Every running value is an i128: an
//! integer's bits (sign-extended, so its low bits are right whatever the
//! width), a decimal's, or a float's bit pattern.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, Float64Array, Int64Array, StructArray,
    UInt64Array,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Field, Fields, Float64Type, UInt64Type,
};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF, EmitTo, GroupsAccumulator};

use super::frame::{Aggregate, AggregateSpec, Call, expect_args, expect_params, illegal_type};
use crate::int_cast::{narrow_from_i64, to_i64_wrapping};
use crate::numeric::{is_float, is_integer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fold {
    BitAnd,
    BitOr,
    BitXor,
    SumWithOverflow,
    SumCount,
}

impl Fold {
    const ALL: [Fold; 5] = [
        Fold::BitAnd,
        Fold::BitOr,
        Fold::BitXor,
        Fold::SumWithOverflow,
        Fold::SumCount,
    ];

    fn name(self) -> &'static str {
        match self {
            Fold::BitAnd => "groupBitAnd",
            Fold::BitOr => "groupBitOr",
            Fold::BitXor => "groupBitXor",
            Fold::SumWithOverflow => "sumWithOverflow",
            Fold::SumCount => "sumCount",
        }
    }

    /// The SQL names; the lower-case ones take DataFusion's functions'
    /// place, so every spelling is ClickHouse's.
    fn aliases(self) -> &'static [&'static str] {
        match self {
            Fold::BitAnd => &["BIT_AND", "bit_and"],
            Fold::BitOr => &["BIT_OR", "bit_or"],
            Fold::BitXor => &["BIT_XOR", "bit_xor"],
            _ => &[],
        }
    }

    fn bitwise(self) -> bool {
        matches!(self, Fold::BitAnd | Fold::BitOr | Fold::BitXor)
    }

    /// The running value before any row.
    fn start(self) -> i128 {
        match self {
            Fold::BitAnd => -1,
            _ => 0,
        }
    }

    fn apply(self, domain: Domain, acc: i128, x: i128) -> i128 {
        match self {
            Fold::BitAnd => acc & x,
            Fold::BitOr => acc | x,
            Fold::BitXor => acc ^ x,
            Fold::SumWithOverflow | Fold::SumCount => domain.add(acc, x),
        }
    }
}

/// What the running value holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Domain {
    Integer,
    Float32,
    Float64,
    Decimal,
}

impl Domain {
    fn of(t: &DataType) -> Option<Domain> {
        Some(match t {
            t if is_integer(t) || *t == DataType::Boolean => Domain::Integer,
            DataType::Float32 => Domain::Float32,
            DataType::Float64 => Domain::Float64,
            DataType::Decimal128(..) => Domain::Decimal,
            _ => return None,
        })
    }

    fn add(self, acc: i128, x: i128) -> i128 {
        let float = |w: i128| f64::from_bits(w as u64);
        match self {
            Domain::Integer | Domain::Decimal => acc.wrapping_add(x),
            Domain::Float64 => (float(acc) + float(x)).to_bits() as i128,
            // Float32 values are exact in a Float64; their sum is rounded back.
            Domain::Float32 => ((float(acc) as f32 + float(x) as f32) as f64).to_bits() as i128,
        }
    }

    /// A column's values as running values (NULL slots hold any value).
    fn words(self, array: &ArrayRef) -> Result<Vec<i128>> {
        Ok(match self {
            Domain::Integer => to_i64_wrapping(array)?
                .values()
                .iter()
                .map(|&v| v as i128)
                .collect(),
            Domain::Float32 | Domain::Float64 => cast(array, &DataType::Float64)?
                .as_primitive::<Float64Type>()
                .values()
                .iter()
                .map(|v| v.to_bits() as i128)
                .collect(),
            Domain::Decimal => array.as_primitive::<Decimal128Type>().values().to_vec(),
        })
    }
}

/// Running values as a column of `result`: integers and decimals keep
/// their low bits, floats are read back from their bits.
fn column(words: &[i128], result: &DataType) -> Result<ArrayRef> {
    Ok(match result {
        DataType::Float32 | DataType::Float64 => {
            let floats: Float64Array = words.iter().map(|&w| f64::from_bits(w as u64)).collect();
            cast(&(Arc::new(floats) as ArrayRef), result)?
        }
        DataType::Decimal128(precision, scale) => {
            // A ClickHouse decimal wraps at its own width: 32, 64 or 128 bits.
            let wrapped = words.iter().map(|&w| match precision {
                0..=9 => w as i32 as i128,
                10..=18 => w as i64 as i128,
                _ => w,
            });
            Arc::new(
                Decimal128Array::from_iter_values(wrapped)
                    .with_precision_and_scale(*precision, *scale)?,
            )
        }
        _ => {
            let integers: Int64Array = words.iter().map(|&w| w as i64).collect();
            narrow_from_i64(&integers, result)?
        }
    })
}

/// The fields of `sumCount`'s tuple: its sum, of type `sum`, and the count.
fn sum_and_count(sum: DataType) -> Fields {
    Fields::from(vec![
        Field::new("c0", sum, false),
        Field::new("c1", DataType::UInt64, false),
    ])
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Folded {
    fold: Fold,
}

pub fn functions() -> Vec<AggregateUDF> {
    Fold::ALL
        .into_iter()
        .map(|fold| Aggregate::udaf(Folded { fold }, fold.aliases()))
        .collect()
}

impl Folded {
    /// The type of the running value's column: the sum's for `sumCount`,
    /// else the argument's, a Bool as UInt8 and a decimal at the largest
    /// precision of its width.
    fn value_type(&self, arg: &DataType) -> DataType {
        match (self.fold, arg) {
            (Fold::SumCount, DataType::Decimal128(_, scale)) => DataType::Decimal128(38, *scale),
            (Fold::SumCount, t) if is_float(t) => DataType::Float64,
            (Fold::SumCount, t) if t.is_signed_integer() => DataType::Int64,
            (Fold::SumCount, _) => DataType::UInt64,
            (_, DataType::Boolean) => DataType::UInt8,
            (_, DataType::Decimal128(precision, scale)) => {
                let widest = match precision {
                    0..=9 => 9,
                    10..=18 => 18,
                    _ => 38,
                };
                DataType::Decimal128(widest, *scale)
            }
            (_, t) => t.clone(),
        }
    }

    fn groups(&self, call: &Call) -> FoldGroups {
        let value = self.value_type(&call.args[0]);
        FoldGroups {
            fold: self.fold,
            domain: Domain::of(&call.args[0]).unwrap_or(Domain::Integer),
            value,
            words: Vec::new(),
            counts: Vec::new(),
        }
    }
}

impl AggregateSpec for Folded {
    fn name(&self) -> &str {
        self.fold.name()
    }

    fn nullable_result(&self) -> bool {
        self.fold != Fold::SumCount
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let name = self.name();
        expect_args(name, args, &[1])?;
        expect_params(name, params.len(), 0..=0)?;
        let arg = &args[0];
        let accepted = match self.fold.bitwise() {
            true => is_integer(arg) || *arg == DataType::Boolean,
            false => Domain::of(arg).is_some(),
        };
        if !accepted {
            return Err(illegal_type(name, arg));
        }
        let value = self.value_type(arg);
        Ok(match self.fold {
            Fold::SumCount => DataType::Struct(sum_and_count(value)),
            _ => value,
        })
    }

    fn state_types(&self, _call: &Call) -> Vec<DataType> {
        let words = DataType::Decimal128(38, 0);
        match self.fold {
            Fold::SumCount => vec![words, DataType::UInt64],
            _ => vec![words],
        }
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(FoldAccumulator(self.groups(call))))
    }

    fn groups_accumulator(&self, call: &Call) -> Option<Box<dyn GroupsAccumulator>> {
        Some(Box::new(self.groups(call)))
    }
}

/// One running value (and for `sumCount` one count) per group.
#[derive(Debug)]
struct FoldGroups {
    fold: Fold,
    domain: Domain,
    /// The type of the running value's result column.
    value: DataType,
    words: Vec<i128>,
    counts: Vec<u64>,
}

impl FoldGroups {
    fn resize(&mut self, groups: usize) {
        self.words.resize(groups, self.fold.start());
        self.counts.resize(groups, 0);
    }

    fn emit(&mut self, emit_to: EmitTo) -> (Vec<i128>, Vec<u64>) {
        (
            emit_to.take_needed(&mut self.words),
            emit_to.take_needed(&mut self.counts),
        )
    }

    fn results(&self, words: &[i128], counts: Vec<u64>) -> Result<ArrayRef> {
        let values = column(words, &self.value)?;
        if self.fold != Fold::SumCount {
            return Ok(values);
        }
        let counts: ArrayRef = Arc::new(UInt64Array::from(counts));
        Ok(Arc::new(StructArray::new(
            sum_and_count(self.value.clone()),
            vec![values, counts],
            None,
        )))
    }

    fn state_columns(words: Vec<i128>, counts: Vec<u64>, fold: Fold) -> Result<Vec<ArrayRef>> {
        let words: ArrayRef =
            Arc::new(Decimal128Array::from_iter_values(words).with_precision_and_scale(38, 0)?);
        Ok(match fold {
            Fold::SumCount => vec![words, Arc::new(UInt64Array::from(counts))],
            _ => vec![words],
        })
    }
}

impl GroupsAccumulator for FoldGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.resize(total_num_groups);
        let column = &values[0];
        let words = self.domain.words(column)?;
        for (row, &g) in group_indices.iter().enumerate() {
            let kept = super::filter_keeps(opt_filter, row);
            if kept && column.is_valid(row) {
                self.words[g] = self.fold.apply(self.domain, self.words[g], words[row]);
                self.counts[g] += 1;
            }
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let (words, counts) = self.emit(emit_to);
        self.results(&words, counts)
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let (words, counts) = self.emit(emit_to);
        Self::state_columns(words, counts, self.fold)
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.resize(total_num_groups);
        let words = values[0].as_primitive::<Decimal128Type>().values();
        let counts = values
            .get(1)
            .map(|c| c.as_primitive::<UInt64Type>().values());
        for (row, &g) in group_indices.iter().enumerate() {
            self.words[g] = self.fold.apply(self.domain, self.words[g], words[row]);
            if let Some(counts) = counts {
                self.counts[g] += counts[row];
            }
        }
        Ok(())
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let rows = values[0].len();
        let mut single = FoldGroups {
            words: Vec::new(),
            counts: Vec::new(),
            value: self.value.clone(),
            ..*self
        };
        let groups: Vec<usize> = (0..rows).collect();
        single.update_batch(values, &groups, opt_filter, rows)?;
        single.state(EmitTo::All)
    }

    fn size(&self) -> usize {
        self.words.capacity() * size_of::<i128>() + self.counts.capacity() * size_of::<u64>()
    }
}

/// The single-group form, for aggregates without GROUP BY.
#[derive(Debug)]
struct FoldAccumulator(FoldGroups);

impl Accumulator for FoldAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let rows = values[0].len();
        self.0.update_batch(values, &vec![0; rows], None, 1)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.0.resize(1);
        let array = self.0.results(&self.0.words, self.0.counts.clone())?;
        ScalarValue::try_from_array(&array, 0)
    }

    fn size(&self) -> usize {
        size_of_val(self) + self.0.size()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        self.0.resize(1);
        let columns =
            FoldGroups::state_columns(self.0.words.clone(), self.0.counts.clone(), self.0.fold)?;
        columns
            .iter()
            .map(|c| ScalarValue::try_from_array(c, 0))
            .collect()
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let rows = states[0].len();
        self.0.merge_batch(states, &vec![0; rows], 1)
    }
}
