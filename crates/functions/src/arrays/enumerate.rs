//! Positions and counts over arrays' elements, as UInt32:
//! `arrayEnumerate(a)` is `[1, 2, ..., length(a)]`;
//! `arrayEnumerateUniq(a, ...)` numbers each element among the equal ones
//! before it; `arrayEnumerateDense(a, ...)` numbers distinct elements in
//! order of first appearance; `arrayUniq(a, ...)` counts distinct elements.
//! With several arrays of one length the elements are the tuples at each
//! position. NULL is a value like any other.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, ListArray, UInt32Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::arrow::row::Rows;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::{
    array_item, arrays_of, as_list, check_arity, check_sizes, item, list_from_lengths, row_range,
    value_rows,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Enumeration {
    Enumerate,
    Uniq,
    Dense,
    Count,
}

impl Enumeration {
    pub const ALL: [Enumeration; 4] = [
        Enumeration::Enumerate,
        Enumeration::Uniq,
        Enumeration::Dense,
        Enumeration::Count,
    ];
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Enumerate {
    kind: Enumeration,
    signature: Signature,
}

impl Enumerate {
    pub fn new(kind: Enumeration) -> Self {
        Enumerate {
            kind,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

/// Per row, the number each element gets (or, for `Count`, one count).
fn numbers(kind: Enumeration, lists: &[ListArray], rows: &[Rows], row: usize) -> Vec<u32> {
    let ranges: Vec<_> = lists.iter().map(|l| row_range(l, row)).collect();
    let len = ranges[0].len();
    let key = |i: usize| -> Vec<&[u8]> {
        ranges
            .iter()
            .zip(rows)
            .map(|(r, rows)| rows.row(r.start + i).data())
            .collect()
    };
    let mut seen: HashMap<Vec<&[u8]>, u32> = HashMap::new();
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        match kind {
            Enumeration::Enumerate => out.push(i as u32 + 1),
            Enumeration::Uniq => {
                let count = seen.entry(key(i)).or_insert(0);
                *count += 1;
                out.push(*count);
            }
            Enumeration::Dense | Enumeration::Count => {
                let next = seen.len() as u32 + 1;
                out.push(*seen.entry(key(i)).or_insert(next));
            }
        }
    }
    if kind == Enumeration::Count {
        return vec![seen.len() as u32];
    }
    out
}

impl ScalarUDFImpl for Enumerate {
    fn name(&self) -> &str {
        match self.kind {
            Enumeration::Enumerate => "arrayEnumerate",
            Enumeration::Uniq => "arrayEnumerateUniq",
            Enumeration::Dense => "arrayEnumerateDense",
            Enumeration::Count => "arrayUniq",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let most = if self.kind == Enumeration::Enumerate {
            1
        } else {
            usize::MAX
        };
        check_arity(self.name(), arg_types.len(), 1..=most)?;
        for t in arg_types {
            if t != &DataType::Null {
                array_item(self.name(), t)?;
            }
        }
        if arg_types.contains(&DataType::Null) {
            return Ok(DataType::Null);
        }
        Ok(match self.kind {
            Enumeration::Count => DataType::UInt32,
            _ => DataType::List(item(DataType::UInt32, false)),
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let n = arrays[0].len();
        if args.return_field.data_type() == &DataType::Null {
            return crate::columnar(
                datafusion::arrow::array::new_null_array(&DataType::Null, n),
                scalar,
            );
        }
        let lists = arrays.iter().map(as_list).collect::<Result<Vec<_>>>()?;
        let rows = match self.kind {
            Enumeration::Enumerate => Vec::new(),
            _ => lists.iter().map(value_rows).collect::<Result<Vec<_>>>()?,
        };
        let mut values = Vec::new();
        let mut lengths = Vec::with_capacity(n);
        let mut valid = Vec::with_capacity(n);
        for row in 0..n {
            let present = lists.iter().all(|l| l.is_valid(row));
            valid.push(present);
            if !present {
                lengths.push(usize::from(self.kind == Enumeration::Count));
                values.extend((self.kind == Enumeration::Count).then_some(0));
                continue;
            }
            check_sizes(self.name(), &lists, row)?;
            let numbered = numbers(self.kind, &lists, &rows, row);
            lengths.push(numbered.len());
            values.extend(numbered);
        }
        let nulls = valid.contains(&false).then(|| NullBuffer::from(valid));
        let values = UInt32Array::new(values.into(), None);
        let out: ArrayRef = match self.kind {
            Enumeration::Count => Arc::new(UInt32Array::new(values.values().clone(), nulls)),
            _ => list_from_lengths(
                item(DataType::UInt32, false),
                lengths,
                Arc::new(values),
                nulls,
            )?,
        };
        crate::columnar(out, scalar)
    }
}
