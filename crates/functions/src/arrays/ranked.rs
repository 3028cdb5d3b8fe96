//! `arrayEnumerateUniqRanked([clear_depth,] a[, max_depth])` and
//! `arrayEnumerateDenseRanked(...)`: `arrayEnumerateUniq` and
//! `arrayEnumerateDense` over the elements `max_depth` levels down in a
//! nested array (its full depth by default), the counts starting afresh
//! in each element at depth `clear_depth` (1, the whole array, by
//! default). The result keeps the array's nesting down to `max_depth`.
//! ClickHouse's form over several arrays (their elements as tuples) is not
//! supported.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, ListArray, UInt32Array};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;

use super::{as_list, item, value_rows};
use crate::numeric::is_integer;
use crate::other::frame::{Call, Spec, Typing, failure};

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "arrayEnumerateUniqRanked",
        aliases: &[],
        args: (1, 3),
        volatility: Volatility::Immutable,
        typing,
        eval,
    },
    Spec {
        name: "arrayEnumerateDenseRanked",
        aliases: &[],
        args: (1, 3),
        volatility: Volatility::Immutable,
        typing,
        eval,
    },
];

/// Where the array is among the arguments, and the two depths.
struct Depths {
    array: usize,
    clear: usize,
    max: usize,
}

fn bad(name: &str, message: String) -> datafusion::error::DataFusionError {
    failure(
        ErrorCode::BAD_ARGUMENTS,
        format!("Incorrect arguments for function {name}: {message}"),
    )
}

/// A constant positive depth.
fn depth(name: &str, scalar: Option<&ScalarValue>, what: &str) -> Result<usize> {
    let value = scalar.and_then(|s| s.cast_to(&DataType::Int64).ok());
    match value {
        Some(ScalarValue::Int64(Some(v))) if v > 0 => Ok(v as usize),
        _ => Err(failure(
            ErrorCode::BAD_ARGUMENTS,
            format!("{what} of {name} must be a positive constant integer"),
        )),
    }
}

fn depths(
    t_name: &str,
    fields: &[&DataType],
    scalar: impl Fn(usize) -> Option<ScalarValue>,
) -> Result<Depths> {
    let array = usize::from(is_integer(fields[0]));
    if array >= fields.len() || fields.len() > array + 2 {
        return Err(failure(
            ErrorCode::NOT_IMPLEMENTED,
            format!("{t_name} over several arrays is not supported"),
        ));
    }
    let nesting = nesting(fields[array]);
    if nesting == 0 {
        return Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Argument {} of function {t_name} must be an array",
                array + 1
            ),
        ));
    }
    let clear = match array {
        1 => depth(t_name, scalar(0).as_ref(), "First argument")?,
        _ => 1,
    };
    let max = match fields.len() > array + 1 {
        true => depth(t_name, scalar(array + 1).as_ref(), "The depth argument")?,
        false => nesting,
    };
    if max > nesting {
        return Err(bad(
            t_name,
            format!("Required depth '{max}' is larger than the array depth ({nesting})"),
        ));
    }
    if clear > max {
        return Err(bad(
            t_name,
            format!("clear_depth ({clear}) can't be larger than max_array_depth ({max})"),
        ));
    }
    Ok(Depths { array, clear, max })
}

/// How many arrays deep a type is.
fn nesting(data_type: &DataType) -> usize {
    match super::item_field(data_type) {
        Some(f) => 1 + nesting(f.data_type()),
        None => 0,
    }
}

/// UInt32 nested `depth` arrays deep.
fn result_type(depth: usize) -> DataType {
    (0..depth).fold(DataType::UInt32, |inner, _| {
        DataType::List(item(inner, false))
    })
}

fn typing(t: &Typing) -> Result<Field> {
    let types: Vec<&DataType> = t.fields.iter().map(|f| f.data_type()).collect();
    let depths = depths(t.name, &types, |i| t.scalar(i).cloned())?;
    Ok(t.plain(result_type(depths.max)))
}

fn eval(call: &Call) -> Result<ColumnarValue> {
    let types: Vec<&DataType> = call.fields.iter().map(|f| f.data_type()).collect();
    let depths = depths(call.name, &types, |i| call.constant(i).cloned())?;
    // The list at each level, the outermost first.
    let mut levels = vec![as_list(&call.column(depths.array)?)?];
    while levels.len() < depths.max {
        let inner = as_list(levels.last().expect("one level").values())?;
        levels.push(inner);
    }
    let innermost = levels.last().expect("one level");
    let leaves = value_rows(innermost)?;
    let mut numbers = vec![0u32; innermost.values().len()];
    let clearing = &levels[depths.clear - 1];
    let dense = call.name == "arrayEnumerateDenseRanked";
    for node in 0..clearing.len() {
        let mut range = node..node + 1;
        for level in &levels[depths.clear - 1..] {
            let offsets = level.value_offsets();
            range = offsets[range.start] as usize..offsets[range.end] as usize;
        }
        let mut seen: HashMap<&[u8], u32> = HashMap::new();
        for leaf in range {
            let next = seen.len() as u32 + 1;
            let count = seen.entry(leaves.row(leaf).data()).or_insert(0);
            if dense {
                if *count == 0 {
                    *count = next;
                }
            } else {
                *count += 1;
            }
            numbers[leaf] = *count;
        }
    }
    let mut out: ArrayRef = Arc::new(UInt32Array::from(numbers));
    for level in levels.iter().rev() {
        let field = item(out.data_type().clone(), false);
        let list = ListArray::try_new(field, level.offsets().clone(), out, level.nulls().cloned())?;
        out = Arc::new(list);
    }
    call.output(out)
}
