//! `uniq`, `uniqCombined` and `uniqExact` as DataFusion aggregate functions, with
//! group accumulators so GROUP BY keeps one compact state per group.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryArray, BooleanArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::hash_utils::{HLL_RANDOM_STATE, QualityRandomState, create_hashes};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility,
};

use super::sketch::{ExactSet, UniqSketch};
use crate::int_cast::to_i64_wrapping;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UniqKind {
    Uniq,
    UniqCombined,
    UniqExact,
}

impl UniqKind {
    fn precision(self) -> u8 {
        match self {
            UniqKind::UniqCombined => 17,
            _ => 14,
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Uniq {
    kind: UniqKind,
    signature: Signature,
}

impl Uniq {
    pub fn new(kind: UniqKind) -> Self {
        Uniq {
            kind,
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

/// The keys one batch contributes: a key per row, `None` where a NULL argument
/// or the filter excludes the row.
fn batch_keys(
    kind: UniqKind,
    values: &[ArrayRef],
    filter: Option<&BooleanArray>,
) -> Result<Vec<Option<u128>>> {
    let rows = values[0].len();
    let mut keys: Vec<Option<u128>> =
        if kind == UniqKind::UniqExact && values.len() == 1 && values[0].data_type().is_integer() {
            let signed = values[0].data_type().is_signed_integer();
            let wide = to_i64_wrapping(&values[0])?;
            (0..rows)
                .map(|i| {
                    let v = wide.value(i);
                    Some(if signed {
                        v as i128 as u128
                    } else {
                        v as u64 as u128
                    })
                })
                .collect()
        } else {
            let mut first = vec![0u64; rows];
            create_hashes(values, &HLL_RANDOM_STATE, &mut first)?;
            if kind == UniqKind::UniqExact {
                let mut second = vec![0u64; rows];
                create_hashes(
                    values,
                    &QualityRandomState::with_seed(0x9e37_79b9_7f4a_7c15),
                    &mut second,
                )?;
                first
                    .iter()
                    .zip(second)
                    .map(|(a, b)| Some((u128::from(*a) << 64) | u128::from(b)))
                    .collect()
            } else {
                first.into_iter().map(|h| Some(u128::from(h))).collect()
            }
        };
    for (row, key) in keys.iter_mut().enumerate() {
        let excluded = values.iter().any(|v| v.is_null(row))
            || filter.is_some_and(|f| !(f.is_valid(row) && f.value(row)));
        if excluded {
            *key = None;
        }
    }
    Ok(keys)
}

/// One group's state.
#[derive(Debug, Clone)]
enum UniqState {
    Sketch(UniqSketch),
    Exact(ExactSet),
}

impl UniqState {
    fn new(kind: UniqKind) -> Self {
        match kind {
            UniqKind::UniqExact => UniqState::Exact(ExactSet::default()),
            _ => UniqState::Sketch(UniqSketch::new(kind.precision())),
        }
    }

    fn insert(&mut self, key: u128) {
        match self {
            UniqState::Sketch(s) => s.insert(key as u64),
            UniqState::Exact(s) => s.insert(key),
        }
    }

    fn count(&self) -> u64 {
        match self {
            UniqState::Sketch(s) => s.estimate(),
            UniqState::Exact(s) => s.len(),
        }
    }

    fn serialize(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            UniqState::Sketch(s) => s.serialize(&mut out),
            UniqState::Exact(s) => s.serialize(&mut out),
        }
        out
    }

    fn merge_serialized(&mut self, bytes: &[u8]) -> Result<()> {
        match self {
            UniqState::Sketch(s) => s.merge(&UniqSketch::deserialize(bytes)?),
            UniqState::Exact(s) => s.merge(&ExactSet::deserialize(bytes)?),
        }
        Ok(())
    }

    fn size(&self) -> usize {
        match self {
            UniqState::Sketch(s) => s.size(),
            UniqState::Exact(s) => s.size(),
        }
    }
}

impl AggregateUDFImpl for Uniq {
    fn name(&self) -> &str {
        match self.kind {
            UniqKind::Uniq => "uniq",
            UniqKind::UniqCombined => "uniqCombined",
            UniqKind::UniqExact => "uniqExact",
        }
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
        Ok(vec![Arc::new(Field::new(
            format!("{}[state]", args.name),
            DataType::Binary,
            true,
        ))])
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(UniqAccumulator {
            kind: self.kind,
            state: UniqState::new(self.kind),
        }))
    }

    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }

    fn create_groups_accumulator(
        &self,
        _args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(UniqGroups {
            kind: self.kind,
            states: Vec::new(),
            bytes: 0,
        }))
    }

    fn default_value(&self, _data_type: &DataType) -> Result<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(0)))
    }
}

#[derive(Debug)]
struct UniqAccumulator {
    kind: UniqKind,
    state: UniqState,
}

impl Accumulator for UniqAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        for key in batch_keys(self.kind, values, None)?.into_iter().flatten() {
            self.state.insert(key);
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(self.state.count())))
    }

    fn size(&self) -> usize {
        self.state.size()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.state.serialize()))])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for bytes in states[0].as_binary::<i32>().iter().flatten() {
            self.state.merge_serialized(bytes)?;
        }
        Ok(())
    }
}

struct UniqGroups {
    kind: UniqKind,
    states: Vec<UniqState>,
    /// Tracked size of all states, kept current so `size()` is cheap.
    bytes: usize,
}

impl UniqGroups {
    fn grow(&mut self, total: usize) {
        while self.states.len() < total {
            let state = UniqState::new(self.kind);
            self.bytes += state.size();
            self.states.push(state);
        }
    }

    fn take(&mut self, emit_to: EmitTo) -> Vec<UniqState> {
        let taken = emit_to.take_needed(&mut self.states);
        self.bytes = self.states.iter().map(UniqState::size).sum();
        taken
    }

    fn update_group(
        &mut self,
        group: usize,
        apply: impl FnOnce(&mut UniqState) -> Result<()>,
    ) -> Result<()> {
        let state = &mut self.states[group];
        let before = state.size();
        apply(state)?;
        self.bytes = self.bytes + state.size() - before;
        Ok(())
    }
}

impl GroupsAccumulator for UniqGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let keys = batch_keys(self.kind, values, opt_filter)?;
        for (&group, key) in group_indices.iter().zip(keys) {
            if let Some(key) = key {
                self.update_group(group, |s| {
                    s.insert(key);
                    Ok(())
                })?;
            }
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let counts: UInt64Array = self.take(emit_to).iter().map(|s| Some(s.count())).collect();
        Ok(Arc::new(counts))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let serialized: Vec<Vec<u8>> = self
            .take(emit_to)
            .iter()
            .map(UniqState::serialize)
            .collect();
        let array = BinaryArray::from_iter_values(serialized.iter());
        Ok(vec![Arc::new(array)])
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let partial = values[0].as_binary::<i32>();
        for (row, &group) in group_indices.iter().enumerate() {
            if partial.is_valid(row) {
                let bytes = partial.value(row);
                self.update_group(group, |s| s.merge_serialized(bytes))?;
            }
        }
        Ok(())
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let keys = batch_keys(self.kind, values, opt_filter)?;
        let serialized: Vec<Vec<u8>> = keys
            .into_iter()
            .map(|key| {
                let mut state = UniqState::new(self.kind);
                if let Some(key) = key {
                    state.insert(key);
                }
                state.serialize()
            })
            .collect();
        Ok(vec![Arc::new(BinaryArray::from_iter_values(
            serialized.iter(),
        ))])
    }

    fn size(&self) -> usize {
        self.bytes + self.states.capacity() * std::mem::size_of::<UniqState>()
    }
}
