//! `uniq`, `uniqCombined` and `uniqExact` as DataFusion aggregate functions, with
//! group accumulators so GROUP BY keeps one compact state per group.
//!
//! Each function is one [`DistinctState`]: `uniq` a [`SampledSet`] of 32-bit
//! hashes (ClickHouse's algorithm and hash, so integer results equal
//! ClickHouse's), `uniqCombined` a [`UniqSketch`], `uniqHLL12` one of 2^12
//! registers (exact up to 2,048 values, then an estimate within about 1.6%,
//! not ClickHouse's own estimate), `uniqExact` an [`ExactSet`].

use std::any::Any;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryArray, BooleanArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float32Type, Float64Type, TimeUnit};
use datafusion::common::hash_utils::{HLL_RANDOM_STATE, QualityRandomState, create_hashes};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility,
};

use super::native::NativeGroups;
use super::sampled_set::SampledSet;
use super::sketch::{ExactSet, UniqSketch};
use crate::hashing::murmur_finalizer;
use crate::int_cast::{to_i64_wrapping, to_u64_wrapping};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UniqKind {
    Uniq,
    UniqCombined,
    UniqHll12,
    UniqExact,
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

    pub fn native_groups(&self) -> Box<dyn NativeGroups> {
        match self.kind {
            UniqKind::Uniq => Box::new(UniqGroups::<SampledSet>::default()),
            UniqKind::UniqCombined => Box::new(UniqGroups::<UniqSketch>::default()),
            UniqKind::UniqHll12 => Box::new(UniqGroups::<Hll12>::default()),
            UniqKind::UniqExact => Box::new(UniqGroups::<ExactSet>::default()),
        }
    }
}

/// One group's distinct-count state, and how a batch's rows become its keys.
trait DistinctState: Default + Send + Sync + std::fmt::Debug + 'static {
    type Key: Copy + Send;

    /// One key per row; rows excluded by NULLs or a filter are skipped later.
    fn keys(values: &[ArrayRef]) -> Result<Vec<Self::Key>>;
    /// Returns the heap bytes the state grew by.
    fn insert(&mut self, key: Self::Key) -> usize;
    /// A hint that `key` will be inserted soon.
    fn prefetch(&self, _key: Self::Key) {}
    fn merge_serialized(&mut self, bytes: &[u8]) -> Result<usize>;
    /// Merges another state in place; returns the change in heap bytes.
    fn merge(&mut self, other: &mut Self) -> isize;
    fn serialize(&self, out: &mut Vec<u8>);
    fn count(&self) -> u64;
    fn heap_bytes(&self) -> usize;
}

impl DistinctState for SampledSet {
    type Key = u32;

    /// Numbers hash as ClickHouse hashes them: integers by value (signed ones
    /// sign-extended), floats by bit pattern with -0 as 0. Other types and
    /// several arguments use a 64-bit hash of the row.
    fn keys(values: &[ArrayRef]) -> Result<Vec<u32>> {
        let from_u64 = |v: u64| murmur_finalizer(v) as u32;
        if let [array] = values {
            match array.data_type() {
                t if t.is_integer()
                    || matches!(
                        t,
                        DataType::Boolean
                            | DataType::Date32
                            | DataType::Timestamp(TimeUnit::Second, _)
                    ) =>
                {
                    let wide = to_u64_wrapping(array)?;
                    return Ok(wide.values().iter().map(|&v| from_u64(v)).collect());
                }
                DataType::Float64 => {
                    let floats = array.as_primitive::<Float64Type>();
                    return Ok(floats
                        .values()
                        .iter()
                        .map(|&v| from_u64(if v == 0.0 { 0 } else { v.to_bits() }))
                        .collect());
                }
                DataType::Float32 => {
                    let floats = array.as_primitive::<Float32Type>();
                    return Ok(floats
                        .values()
                        .iter()
                        .map(|&v| from_u64(if v == 0.0 { 0 } else { u64::from(v.to_bits()) }))
                        .collect());
                }
                _ => {}
            }
        }
        let mut hashes = vec![0u64; values[0].len()];
        create_hashes(values, &HLL_RANDOM_STATE, &mut hashes)?;
        Ok(hashes.into_iter().map(from_u64).collect())
    }

    fn insert(&mut self, key: u32) -> usize {
        SampledSet::insert(self, key)
    }

    fn prefetch(&self, key: u32) {
        SampledSet::prefetch(self, key)
    }

    fn merge_serialized(&mut self, bytes: &[u8]) -> Result<usize> {
        SampledSet::merge_serialized(self, bytes)
    }

    fn merge(&mut self, other: &mut Self) -> isize {
        SampledSet::merge(self, other)
    }

    fn serialize(&self, out: &mut Vec<u8>) {
        SampledSet::serialize(self, out)
    }

    fn count(&self) -> u64 {
        self.estimate()
    }

    fn heap_bytes(&self) -> usize {
        SampledSet::heap_bytes(self)
    }
}

impl DistinctState for UniqSketch {
    type Key = u64;

    fn keys(values: &[ArrayRef]) -> Result<Vec<u64>> {
        let mut hashes = vec![0u64; values[0].len()];
        create_hashes(values, &HLL_RANDOM_STATE, &mut hashes)?;
        Ok(hashes)
    }

    fn insert(&mut self, key: u64) -> usize {
        let before = self.size();
        UniqSketch::insert(self, key);
        self.size().saturating_sub(before)
    }

    fn merge_serialized(&mut self, bytes: &[u8]) -> Result<usize> {
        let grown = DistinctState::merge(self, &mut UniqSketch::deserialize(bytes)?);
        Ok(grown.max(0) as usize)
    }

    fn merge(&mut self, other: &mut Self) -> isize {
        let before = self.size() as isize;
        UniqSketch::merge(self, other);
        self.size() as isize - before
    }

    fn serialize(&self, out: &mut Vec<u8>) {
        UniqSketch::serialize(self, out)
    }

    fn count(&self) -> u64 {
        self.estimate()
    }

    fn heap_bytes(&self) -> usize {
        self.size()
    }
}

/// `uniqHLL12`'s state: a [`UniqSketch`] of 2^12 registers.
#[derive(Debug, Clone)]
struct Hll12(UniqSketch);

impl Default for Hll12 {
    fn default() -> Self {
        Hll12(UniqSketch::new(12))
    }
}

impl DistinctState for Hll12 {
    type Key = u64;

    fn keys(values: &[ArrayRef]) -> Result<Vec<u64>> {
        UniqSketch::keys(values)
    }

    fn insert(&mut self, key: u64) -> usize {
        DistinctState::insert(&mut self.0, key)
    }

    fn merge_serialized(&mut self, bytes: &[u8]) -> Result<usize> {
        DistinctState::merge_serialized(&mut self.0, bytes)
    }

    fn merge(&mut self, other: &mut Self) -> isize {
        DistinctState::merge(&mut self.0, &mut other.0)
    }

    fn serialize(&self, out: &mut Vec<u8>) {
        self.0.serialize(out)
    }

    fn count(&self) -> u64 {
        self.0.estimate()
    }

    fn heap_bytes(&self) -> usize {
        self.0.size()
    }
}

impl DistinctState for ExactSet {
    type Key = u128;

    /// A single integer argument is its own key; anything else a 128-bit hash.
    fn keys(values: &[ArrayRef]) -> Result<Vec<u128>> {
        if let [array] = values
            && array.data_type().is_integer()
        {
            let signed = array.data_type().is_signed_integer();
            let wide = to_i64_wrapping(array)?;
            return Ok(wide
                .values()
                .iter()
                .map(|&v| {
                    if signed {
                        v as i128 as u128
                    } else {
                        v as u64 as u128
                    }
                })
                .collect());
        }
        let rows = values[0].len();
        let mut first = vec![0u64; rows];
        create_hashes(values, &HLL_RANDOM_STATE, &mut first)?;
        let mut second = vec![0u64; rows];
        create_hashes(
            values,
            &QualityRandomState::with_seed(0x9e37_79b9_7f4a_7c15),
            &mut second,
        )?;
        Ok(first
            .into_iter()
            .zip(second)
            .map(|(a, b)| (u128::from(a) << 64) | u128::from(b))
            .collect())
    }

    fn insert(&mut self, key: u128) -> usize {
        let before = self.size();
        ExactSet::insert(self, key);
        self.size().saturating_sub(before)
    }

    fn merge_serialized(&mut self, bytes: &[u8]) -> Result<usize> {
        let grown = DistinctState::merge(self, &mut ExactSet::deserialize(bytes)?);
        Ok(grown.max(0) as usize)
    }

    fn merge(&mut self, other: &mut Self) -> isize {
        let before = self.size() as isize;
        ExactSet::merge(self, other);
        self.size() as isize - before
    }

    fn serialize(&self, out: &mut Vec<u8>) {
        ExactSet::serialize(self, out)
    }

    fn count(&self) -> u64 {
        self.len()
    }

    fn heap_bytes(&self) -> usize {
        self.size()
    }
}

/// Which rows count: `None` when every row does (no NULLs, no filter).
fn included_rows(values: &[ArrayRef], filter: Option<&BooleanArray>) -> Option<Vec<bool>> {
    if filter.is_none() && values.iter().all(|v| v.null_count() == 0) {
        return None;
    }
    Some(
        (0..values[0].len())
            .map(|row| values.iter().all(|v| v.is_valid(row)) && super::filter_keeps(filter, row))
            .collect(),
    )
}

fn serialized<S: DistinctState>(state: &S) -> Vec<u8> {
    let mut out = Vec::new();
    state.serialize(&mut out);
    out
}

impl AggregateUDFImpl for Uniq {
    fn name(&self) -> &str {
        match self.kind {
            UniqKind::Uniq => "uniq",
            UniqKind::UniqCombined => "uniqCombined",
            UniqKind::UniqHll12 => "uniqHLL12",
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

    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        super::sliding::sliding_accumulator(self.name(), args)
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(match self.kind {
            UniqKind::Uniq => Box::new(UniqAccumulator::<SampledSet>::default()),
            UniqKind::UniqCombined => Box::new(UniqAccumulator::<UniqSketch>::default()),
            UniqKind::UniqHll12 => Box::new(UniqAccumulator::<Hll12>::default()),
            UniqKind::UniqExact => Box::new(UniqAccumulator::<ExactSet>::default()),
        })
    }

    fn groups_accumulator_supported(&self, _args: AccumulatorArgs) -> bool {
        true
    }

    fn create_groups_accumulator(
        &self,
        _args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(self.native_groups())
    }

    fn default_value(&self, _data_type: &DataType) -> Result<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(0)))
    }
}

#[derive(Debug, Default)]
struct UniqAccumulator<S> {
    state: S,
}

impl<S: DistinctState> Accumulator for UniqAccumulator<S> {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let keys = S::keys(values)?;
        let included = included_rows(values, None);
        for (row, key) in keys.into_iter().enumerate() {
            if included.as_ref().is_none_or(|rows| rows[row]) {
                self.state.insert(key);
            }
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::UInt64(Some(self.state.count())))
    }

    fn size(&self) -> usize {
        size_of::<Self>() + self.state.heap_bytes()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(serialized(&self.state)))])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for bytes in states[0].as_binary::<i32>().iter().flatten() {
            self.state.merge_serialized(bytes)?;
        }
        Ok(())
    }
}

/// How far ahead of the insert the prefetch runs: enough rows to cover a
/// memory access, few enough that the hinted lines are still cached.
const PREFETCH_DISTANCE: usize = 16;

#[derive(Default)]
struct UniqGroups<S> {
    states: Vec<S>,
    /// Heap bytes of all states, kept current so `size()` is cheap.
    bytes: usize,
}

impl<S: DistinctState> UniqGroups<S> {
    fn grow(&mut self, total: usize) {
        if self.states.len() < total {
            self.states.resize_with(total, S::default);
        }
    }

    fn take(&mut self, emit_to: EmitTo) -> Vec<S> {
        let taken = emit_to.take_needed(&mut self.states);
        self.bytes = self.states.iter().map(S::heap_bytes).sum();
        taken
    }
}

impl<S: DistinctState> GroupsAccumulator for UniqGroups<S> {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let keys = S::keys(values)?;
        let included = included_rows(values, opt_filter);
        let states = &mut self.states;
        // Rows of one batch land in many groups; the prefetch overlaps the
        // cache misses of upcoming rows with the work on this one.
        for row in 0..keys.len() {
            if let Some(ahead) = keys.get(row + PREFETCH_DISTANCE) {
                states[group_indices[row + PREFETCH_DISTANCE]].prefetch(*ahead);
            }
            if included.as_ref().is_none_or(|rows| rows[row]) {
                self.bytes += states[group_indices[row]].insert(keys[row]);
            }
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let counts: UInt64Array = self.take(emit_to).iter().map(|s| Some(s.count())).collect();
        Ok(Arc::new(counts))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let taken = self.take(emit_to);
        let array = BinaryArray::from_iter_values(taken.iter().map(serialized));
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
                self.bytes += self.states[group].merge_serialized(partial.value(row))?;
            }
        }
        Ok(())
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let keys = S::keys(values)?;
        let included = included_rows(values, opt_filter);
        let array =
            BinaryArray::from_iter_values(keys.into_iter().enumerate().map(|(row, key)| {
                let mut state = S::default();
                if included.as_ref().is_none_or(|rows| rows[row]) {
                    state.insert(key);
                }
                serialized(&state)
            }));
        Ok(vec![Arc::new(array)])
    }

    fn size(&self) -> usize {
        self.bytes + self.states.capacity() * size_of::<S>()
    }
}

impl<S: DistinctState> NativeGroups for UniqGroups<S> {
    fn split(
        self: Box<Self>,
        parts: usize,
        owner: &dyn Fn(usize) -> usize,
    ) -> Vec<Box<dyn NativeGroups>> {
        let total = self.states.len();
        let mut split: Vec<UniqGroups<S>> = (0..parts)
            .map(|_| {
                let mut part = UniqGroups::default();
                part.grow(total);
                part
            })
            .collect();
        for (group, state) in self.states.into_iter().enumerate() {
            let part = &mut split[owner(group)];
            part.bytes += state.heap_bytes();
            part.states[group] = state;
        }
        split
            .into_iter()
            .map(|part| Box::new(part) as Box<dyn NativeGroups>)
            .collect()
    }

    fn merge_groups(
        &mut self,
        other: &mut dyn NativeGroups,
        targets: &[usize],
        sources: &[usize],
        total_groups: usize,
    ) -> Result<()> {
        let Some(other) = other.as_any_mut().downcast_mut::<UniqGroups<S>>() else {
            return datafusion::common::internal_err!("merging states of different functions");
        };
        assert_eq!(targets.len(), sources.len(), "one target per source group");
        self.grow(total_groups);
        for (&target, &source) in targets.iter().zip(sources) {
            let source_bytes = other.states[source].heap_bytes();
            let delta = self.states[target].merge(&mut other.states[source]);
            self.bytes = self.bytes.saturating_add_signed(delta);
            // The merge may have swapped the target's old state into the
            // source; freeing it now keeps the merge's peak at the inputs'.
            other.states[source] = S::default();
            other.bytes = other.bytes - source_bytes + other.states[source].heap_bytes();
        }
        Ok(())
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
