//! The array part of ClickHouse's lambda functions that select by a
//! condition: the SQL front evaluates the lambda over the elements
//! (DataFusion's `array_transform`) and passes the resulting array of
//! conditions here (true where not zero and not NULL).
//! `arrayFirstIndex(conditions)` / `arrayLastIndex(conditions)`: the
//! 1-based position of the first / last true one, 0 when none (UInt32);
//! `arrayFill(a, conditions)` replaces each element whose condition is
//! false by the one before it (the first stays), `arrayReverseFill` by the
//! one after it (the last stays); `arraySplit(a, conditions)` starts a new
//! piece before each element whose condition is true (but the first),
//! `arrayReverseSplit` ends one after it (but the last). `mapExists` and
//! `mapAll` (UInt8) take the conditions of a map's entries, and of an
//! array's elements for `arrayExists` and `arrayAll`. `arrayCount(conditions)`
//! counts the true ones (UInt32); `arrayFilter(a, conditions)` keeps the
//! elements whose condition is true, for a lambda over several arrays
//! (DataFusion's `array_filter` takes one).

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, ListArray, UInt8Array, UInt32Array,
};
use datafusion::arrow::compute::kernels::{cast, take::take};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::{
    array_item, arrays_of, as_list, check_arity, item, list_from_lengths, row_range, sizes_differ,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Masked {
    FirstIndex,
    LastIndex,
    Fill,
    ReverseFill,
    Split,
    ReverseSplit,
    Exists,
    All,
    Count,
    Filter,
}

impl Masked {
    pub const ALL: [Masked; 10] = [
        Masked::FirstIndex,
        Masked::LastIndex,
        Masked::Fill,
        Masked::ReverseFill,
        Masked::Split,
        Masked::ReverseSplit,
        Masked::Exists,
        Masked::All,
        Masked::Count,
        Masked::Filter,
    ];

    fn takes_array(self) -> bool {
        !matches!(
            self,
            Masked::FirstIndex | Masked::LastIndex | Masked::Exists | Masked::All | Masked::Count
        )
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MaskedFunction {
    kind: Masked,
    signature: Signature,
}

impl MaskedFunction {
    pub fn new(kind: Masked) -> Self {
        let arity = if kind.takes_array() { 2 } else { 1 };
        MaskedFunction {
            kind,
            signature: Signature::any(arity, Volatility::Immutable),
        }
    }
}

/// The conditions as booleans, NULL read as false.
fn truths(conditions: &ListArray) -> Result<Vec<bool>> {
    let values = cast::cast(conditions.values(), &DataType::Boolean)?;
    let values: &BooleanArray = values.as_boolean();
    Ok((0..values.len())
        .map(|i| values.is_valid(i) && values.value(i))
        .collect())
}

fn first_or_last(kind: Masked, conditions: &ListArray, truth: &[bool]) -> ArrayRef {
    let positions = (0..conditions.len()).map(|row| {
        let range = row_range(conditions, row);
        let start = range.start;
        let found = match kind {
            Masked::FirstIndex => range.clone().find(|&i| truth[i]),
            _ => range.clone().rev().find(|&i| truth[i]),
        };
        found.map_or(0, |i| (i - start + 1) as u32)
    });
    Arc::new(UInt32Array::new(
        positions.collect(),
        conditions.nulls().cloned(),
    ))
}

/// How many of each row's conditions are true.
fn count(conditions: &ListArray, truth: &[bool]) -> ArrayRef {
    let counts = (0..conditions.len()).map(|row| {
        let range = row_range(conditions, row);
        truth[range].iter().filter(|&&t| t).count() as u32
    });
    Arc::new(UInt32Array::new(
        counts.collect(),
        conditions.nulls().cloned(),
    ))
}

/// Whether any (all) of a row's conditions are true, as UInt8.
fn any_or_all(kind: Masked, conditions: &ListArray, truth: &[bool]) -> ArrayRef {
    let found = (0..conditions.len()).map(|row| {
        let mut range = row_range(conditions, row);
        u8::from(match kind {
            Masked::Exists => range.any(|i| truth[i]),
            _ => range.all(|i| truth[i]),
        })
    });
    Arc::new(UInt8Array::new(
        found.collect(),
        conditions.nulls().cloned(),
    ))
}

/// For fills, the element each position takes.
fn filled(
    kind: Masked,
    range: std::ops::Range<usize>,
    truth: &[bool],
    conditions_start: usize,
    out: &mut Vec<u32>,
) {
    let len = range.len();
    let mut picks: Vec<usize> = (0..len).collect();
    let order: Box<dyn Iterator<Item = usize>> = match kind {
        Masked::Fill => Box::new(1..len),
        _ => Box::new((0..len.saturating_sub(1)).rev()),
    };
    for i in order {
        if !truth[conditions_start + i] {
            picks[i] = if kind == Masked::Fill {
                picks[i - 1]
            } else {
                picks[i + 1]
            };
        }
    }
    out.extend(picks.into_iter().map(|p| (range.start + p) as u32));
}

/// For splits, the lengths of the pieces.
fn pieces(kind: Masked, len: usize, truth: &[bool], conditions_start: usize) -> Vec<usize> {
    let mut lengths = Vec::new();
    let mut current = 0;
    for i in 0..len {
        let cut = truth[conditions_start + i];
        if kind == Masked::Split && cut && i > 0 {
            lengths.push(current);
            current = 0;
        }
        current += 1;
        if kind == Masked::ReverseSplit && cut && i + 1 < len {
            lengths.push(current);
            current = 0;
        }
    }
    if len > 0 {
        lengths.push(current);
    }
    lengths
}

impl MaskedFunction {
    fn rebuild(
        &self,
        list: &ListArray,
        conditions: &ListArray,
        truth: &[bool],
    ) -> Result<ArrayRef> {
        let DataType::List(element) = list.data_type() else {
            unreachable!("as_list gives a list")
        };
        let mut indices = Vec::new();
        let mut piece_lengths = Vec::new();
        let mut row_lengths = Vec::with_capacity(list.len());
        for row in 0..list.len() {
            if list.value_length(row) != conditions.value_length(row) {
                return Err(sizes_differ(self.name()));
            }
            let range = row_range(list, row);
            let start = row_range(conditions, row).start;
            if matches!(self.kind, Masked::Fill | Masked::ReverseFill) {
                row_lengths.push(range.len());
                filled(self.kind, range, truth, start, &mut indices);
            } else if self.kind == Masked::Filter {
                let before = indices.len();
                let first = range.start;
                let kept = range.filter(|i| truth[start + i - first]);
                indices.extend(kept.map(|i| i as u32));
                row_lengths.push(indices.len() - before);
            } else {
                let pieces = pieces(self.kind, range.len(), truth, start);
                row_lengths.push(pieces.len());
                piece_lengths.extend(pieces);
                indices.extend(range.map(|i| i as u32));
            }
        }
        let values = take(list.values().as_ref(), &UInt32Array::from(indices), None)?;
        let nulls = list.nulls().cloned();
        if matches!(
            self.kind,
            Masked::Fill | Masked::ReverseFill | Masked::Filter
        ) {
            return list_from_lengths(Arc::clone(element), row_lengths, values, nulls);
        }
        let inner = list_from_lengths(Arc::clone(element), piece_lengths, values, None)?;
        list_from_lengths(
            item(inner.data_type().clone(), false),
            row_lengths,
            inner,
            nulls,
        )
    }
}

impl ScalarUDFImpl for MaskedFunction {
    fn name(&self) -> &str {
        match self.kind {
            Masked::FirstIndex => "arrayFirstIndex",
            Masked::LastIndex => "arrayLastIndex",
            Masked::Fill => "arrayFill",
            Masked::ReverseFill => "arrayReverseFill",
            Masked::Split => "arraySplit",
            Masked::ReverseSplit => "arrayReverseSplit",
            Masked::Exists => "mapExists",
            Masked::All => "mapAll",
            Masked::Count => "arrayCount",
            Masked::Filter => "arrayFilter",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let arity = if self.kind.takes_array() { 2 } else { 1 };
        check_arity(self.name(), arg_types.len(), arity..=arity)?;
        let element = array_item(self.name(), &arg_types[0])?;
        array_item(self.name(), &arg_types[arity - 1])?;
        Ok(match self.kind {
            Masked::FirstIndex | Masked::LastIndex | Masked::Count => DataType::UInt32,
            Masked::Exists | Masked::All => DataType::UInt8,
            Masked::Fill | Masked::ReverseFill | Masked::Filter => DataType::List(element),
            Masked::Split | Masked::ReverseSplit => {
                DataType::List(item(DataType::List(element), false))
            }
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let conditions = as_list(arrays.last().expect("an argument"))?;
        let truth = truths(&conditions)?;
        let out = match self.kind {
            Masked::FirstIndex | Masked::LastIndex => first_or_last(self.kind, &conditions, &truth),
            Masked::Exists | Masked::All => any_or_all(self.kind, &conditions, &truth),
            Masked::Count => count(&conditions, &truth),
            _ => self.rebuild(&as_list(&arrays[0])?, &conditions, &truth)?,
        };
        crate::columnar(out, scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_cut_before_or_after() {
        let truth = [true, false, false, true, false];
        assert_eq!(pieces(Masked::Split, 5, &truth, 0), [3, 2]);
        assert_eq!(pieces(Masked::ReverseSplit, 5, &truth, 0), [1, 3, 1]);
        assert_eq!(pieces(Masked::Split, 0, &truth, 0), Vec::<usize>::new());
    }

    #[test]
    fn fills_carry_kept_elements() {
        let truth = [true, false, true, false, false, true];
        let mut out = Vec::new();
        filled(Masked::Fill, 0..6, &truth, 0, &mut out);
        assert_eq!(out, [0, 0, 2, 2, 2, 5]);
        out.clear();
        filled(
            Masked::ReverseFill,
            0..5,
            &[true, false, true, false, false],
            0,
            &mut out,
        );
        assert_eq!(out, [0, 2, 2, 4, 4]);
    }
}
