//! Arrays as sets: `arrayIntersect(a, ...)` (the distinct elements of the
//! first array found in every other, in the first array's order),
//! `arrayUnion(a, ...)` and `arraySymmetricDifference(a, ...)` (the
//! distinct elements found in some array, or in some but not all),
//! `arrayExcept(a, b)` (the elements of `a` not found in `b`, repeats
//! kept) and `arrayRemove(a, x)` (also `array_remove`: the elements of
//! `a` other than `x`).
//!
//! As ClickHouse's sets compare them: elements compare in their common
//! type, floats by their bits (NaN finds NaN, -0 is not 0), and NULL finds
//! NULL. `arrayRemove` compares with `=` instead (NaN equals nothing, -0
//! is 0), but a NULL `x` removes the NULLs. A union lists elements in
//! order of first appearance (ClickHouse's order is its hash table's).
//! An intersection has the narrowest element type, a union the widest;
//! `arrayExcept` takes arrays of one element type, Nullable or not.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, new_null_array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::kernels::{cast, interleave::interleave};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type, TimeUnit};
use datafusion::arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::{
    array_item, arrays_of, as_list, error, item, list_from_lengths, no_common_type, row_range,
    supertype,
};
use crate::numeric::{is_float, is_integer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetOp {
    Intersect,
    Union,
    SymmetricDifference,
    Except,
    Remove,
}

impl SetOp {
    pub const ALL: [SetOp; 5] = [
        SetOp::Intersect,
        SetOp::Union,
        SetOp::SymmetricDifference,
        SetOp::Except,
        SetOp::Remove,
    ];

    fn name(self) -> &'static str {
        match self {
            SetOp::Intersect => "arrayIntersect",
            SetOp::Union => "arrayUnion",
            SetOp::SymmetricDifference => "arraySymmetricDifference",
            SetOp::Except => "arrayExcept",
            SetOp::Remove => "arrayRemove",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            SetOp::Remove => &["array_remove"],
            _ => &[],
        }
    }
}

/// How a call's elements compare and what it returns.
struct Typing {
    /// The result's item field.
    item: FieldRef,
    /// The type elements compare in.
    compared: DataType,
}

/// Whether `a` and `b` are an integer type and the decimal DataFusion first
/// types an array literal mixing UInt64 with other integers as; the final
/// typing has ClickHouse's integer type instead.
fn provisional(a: &DataType, b: &DataType) -> bool {
    let decimal = |t: &DataType| matches!(t, DataType::Decimal128(..));
    decimal(a) && is_integer(b) || decimal(b) && is_integer(a)
}

/// The type two element types compare in: a Date compares as a DateTime.
fn common(a: &DataType, b: &DataType) -> Result<DataType> {
    use DataType::*;
    match (a, b) {
        _ if provisional(a, b) => Ok(if is_integer(a) { b } else { a }.clone()),
        (Date32, moment @ Timestamp(_, None)) | (moment @ Timestamp(_, None), Date32) => {
            Ok(moment.clone())
        }
        _ => supertype(a, b).ok_or_else(|| no_common_type(a, b)),
    }
}

/// The narrowest of two element types, which holds every value both hold:
/// Nothing (the elements of `[]`) first, integers before floats, fewer
/// bytes first, unsigned before signed of one size; a Date before a
/// DateTime, a coarser DateTime before a finer one.
fn narrowest(a: &DataType, b: &DataType) -> Option<DataType> {
    use DataType::*;
    if a == b || *a == Null {
        return Some(a.clone());
    }
    if *b == Null {
        return Some(b.clone());
    }
    let rank = |t: &DataType| -> Option<(bool, usize, bool)> {
        // (float, bytes, signed)
        let bytes = t.primitive_width()?;
        Some((is_float(t), bytes, t.is_signed_integer()))
    };
    let numbers = |t: &DataType| is_integer(t) || is_float(t);
    match (a, b) {
        _ if numbers(a) && numbers(b) => Some(if rank(a)? <= rank(b)? { a } else { b }.clone()),
        (Date32, Timestamp(..)) | (Timestamp(..), Date32) => Some(Date32),
        (Timestamp(x, zone), Timestamp(y, _)) => {
            let coarser = if unit_rank(*x) <= unit_rank(*y) { x } else { y };
            Some(Timestamp(*coarser, zone.clone()))
        }
        (List(x), List(y)) => {
            let inner = narrowest(x.data_type(), y.data_type())?;
            Some(List(item(inner, x.is_nullable() && y.is_nullable())))
        }
        (Struct(x), Struct(y)) if x.len() == y.len() => {
            let fields = x
                .iter()
                .zip(y.iter())
                .map(|(f, g)| {
                    let narrow = narrowest(f.data_type(), g.data_type())?;
                    Some(
                        f.as_ref()
                            .clone()
                            .with_data_type(narrow)
                            .with_nullable(f.is_nullable() && g.is_nullable()),
                    )
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Struct(fields.into()))
        }
        _ => None,
    }
}

fn unit_rank(unit: TimeUnit) -> u8 {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 1,
        TimeUnit::Microsecond => 2,
        TimeUnit::Nanosecond => 3,
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArraySet {
    op: SetOp,
    signature: Signature,
    aliases: Vec<String>,
}

impl ArraySet {
    pub fn new(op: SetOp) -> Self {
        ArraySet {
            op,
            signature: crate::numeric::any_arguments(Volatility::Immutable),
            aliases: op.aliases().iter().map(|a| a.to_string()).collect(),
        }
    }

    fn arity_error(&self, passed: usize) -> datafusion::error::DataFusionError {
        let name = self.op.name();
        let message = match self.op {
            SetOp::Except | SetOp::Remove => format!(
                "Number of arguments for function {name} doesn't match: passed {passed}, should be 2"
            ),
            _ => format!("Function {name} requires at least one argument"),
        };
        error(ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH, message)
    }

    /// The call's typing, or None when a NULL argument makes it NULL.
    fn typing(&self, fields: &[FieldRef]) -> Result<Option<Typing>> {
        let name = self.op.name();
        let two = matches!(self.op, SetOp::Except | SetOp::Remove);
        if fields.is_empty() || two && fields.len() != 2 {
            return Err(self.arity_error(fields.len()));
        }
        if self.op == SetOp::Remove {
            let own = array_item(name, fields[0].data_type())?;
            let x = fields[1].data_type();
            let compared = common(own.data_type(), x)?;
            return Ok(Some(Typing {
                item: own,
                compared,
            }));
        }
        if fields.iter().any(|f| f.data_type() == &DataType::Null) {
            return Ok(None);
        }
        let items = fields
            .iter()
            .map(|f| array_item(name, f.data_type()))
            .collect::<Result<Vec<_>>>()?;
        let types = || items.iter().map(|i| i.data_type());
        let mut compared = DataType::Null;
        for t in types() {
            compared = common(&compared, t)?;
        }
        let typing = match self.op {
            SetOp::Except => {
                let (own, other) = (items[0].data_type(), items[1].data_type());
                if own != other && !provisional(own, other) {
                    return Err(error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!(
                            "Function {name} requires both arrays to have exactly the same element type, got {} and {}",
                            strata_common::types::clickhouse_type_name(
                                fields[0].data_type(),
                                false
                            ),
                            strata_common::types::clickhouse_type_name(
                                fields[1].data_type(),
                                false
                            )
                        ),
                    ));
                }
                Typing {
                    item: Arc::clone(&items[0]),
                    compared,
                }
            }
            SetOp::Intersect => {
                let mut narrow = items[0].data_type().clone();
                for t in types() {
                    narrow = narrowest(&narrow, t).ok_or_else(|| no_common_type(&narrow, t))?;
                }
                let nullable = items.iter().all(|i| i.is_nullable());
                Typing {
                    item: item(narrow, nullable),
                    compared,
                }
            }
            _ => {
                let nullable = items.iter().any(|i| i.is_nullable());
                Typing {
                    item: item(compared.clone(), nullable),
                    compared,
                }
            }
        };
        Ok(Some(typing))
    }

    /// The elements each row keeps, as (list, index into its values)
    /// pairs, with the rows' lengths.
    fn picks(
        &self,
        lists: &[ListArray],
        rows: &[Rows],
        removed: Option<&Removed>,
    ) -> (Vec<(usize, usize)>, Vec<usize>) {
        let mut picks = Vec::new();
        let mut lengths = Vec::with_capacity(lists[0].len());
        for row in 0..lists[0].len() {
            let before = picks.len();
            let element = |list: usize, i: usize| rows[list].row(i).data();
            let members = |list: usize| -> HashSet<&[u8]> {
                row_range(&lists[list], row)
                    .map(|i| element(list, i))
                    .collect()
            };
            match self.op {
                SetOp::Intersect => {
                    let others: Vec<HashSet<&[u8]>> = (1..lists.len()).map(members).collect();
                    let mut seen = HashSet::new();
                    for i in row_range(&lists[0], row) {
                        let e = element(0, i);
                        if others.iter().all(|o| o.contains(e)) && seen.insert(e) {
                            picks.push((0, i));
                        }
                    }
                }
                SetOp::Union | SetOp::SymmetricDifference => {
                    // Each distinct element: where it first appears, and how
                    // many arrays hold it.
                    let mut found: HashMap<&[u8], (usize, usize, usize)> = HashMap::new();
                    let mut order = Vec::new();
                    for list in 0..lists.len() {
                        let mut here = HashSet::new();
                        for i in row_range(&lists[list], row) {
                            let e = element(list, i);
                            let entry = found.entry(e).or_insert_with(|| {
                                order.push(e);
                                (list, i, 0)
                            });
                            if here.insert(e) {
                                entry.2 += 1;
                            }
                        }
                    }
                    for e in order {
                        let (list, i, holding) = found[e];
                        if self.op == SetOp::Union || holding < lists.len() {
                            picks.push((list, i));
                        }
                    }
                }
                SetOp::Except => {
                    let excluded = members(1);
                    picks.extend(
                        row_range(&lists[0], row)
                            .filter(|&i| !excluded.contains(element(0, i)))
                            .map(|i| (0, i)),
                    );
                }
                SetOp::Remove => {
                    let removed = removed.expect("arrayRemove compares with its value");
                    picks.extend(
                        row_range(&lists[0], row)
                            .filter(|&i| !removed.matches(row, i, &rows[0]))
                            .map(|i| (0, i)),
                    );
                }
            }
            lengths.push(picks.len() - before);
        }
        (picks, lengths)
    }
}

/// What `arrayRemove` compares elements with: each row's value, as a
/// float under `=` or in row format, beside the elements as floats.
struct Removed {
    floats: Option<(Vec<Option<f64>>, Vec<Option<f64>>)>,
    values: Rows,
}

impl Removed {
    fn new(elements: &ArrayRef, values: &ArrayRef, compared: &DataType) -> Result<Self> {
        let floats = if is_float(compared) {
            let read = |a: &ArrayRef| -> Result<Vec<Option<f64>>> {
                let cast = cast::cast(a, &DataType::Float64)?;
                Ok(cast.as_primitive::<Float64Type>().iter().collect())
            };
            Some((read(elements)?, read(values)?))
        } else {
            None
        };
        Ok(Removed {
            floats,
            values: rows_of(values, compared)?,
        })
    }

    /// Whether element `i` (`elements` in row format) equals row `row`'s
    /// value; NULL equals NULL.
    fn matches(&self, row: usize, i: usize, elements: &Rows) -> bool {
        match &self.floats {
            Some((elements, values)) => match (elements[i], values[row]) {
                (Some(e), Some(v)) => e == v,
                (e, v) => e.is_none() && v.is_none(),
            },
            None => elements.row(i) == self.values.row(row),
        }
    }
}

/// `values` cast to `compared`, in Arrow's row format.
fn rows_of(values: &ArrayRef, compared: &DataType) -> Result<Rows> {
    let converter = RowConverter::new(vec![SortField::new(compared.clone())])?;
    let cast = cast::cast(values, compared)?;
    Ok(converter.convert_columns(&[cast])?)
}

impl ScalarUDFImpl for ArraySet {
    fn name(&self) -> &str {
        self.op.name()
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let fields: Vec<FieldRef> = arg_types
            .iter()
            .map(|t| Arc::new(Field::new("", t.clone(), false)))
            .collect();
        Ok(match self.typing(&fields)? {
            Some(typing) => DataType::List(typing.item),
            None => DataType::Null,
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let data_type = match self.typing(args.arg_fields)? {
            Some(typing) => DataType::List(typing.item),
            None => DataType::Null,
        };
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        Ok(Arc::new(Field::new(self.name(), data_type, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, crate::rows_to_evaluate(&args))?;
        let Some(typing) = self.typing(&args.arg_fields)? else {
            return crate::columnar(new_null_array(&DataType::Null, arrays[0].len()), scalar);
        };
        let list_count = if self.op == SetOp::Remove {
            1
        } else {
            arrays.len()
        };
        let lists: Vec<ListArray> = arrays[..list_count]
            .iter()
            .map(as_list)
            .collect::<Result<_>>()?;
        let rows: Vec<Rows> = lists
            .iter()
            .map(|l| rows_of(l.values(), &typing.compared))
            .collect::<Result<_>>()?;
        let removed = match self.op {
            SetOp::Remove => Some(Removed::new(
                lists[0].values(),
                &arrays[1],
                &typing.compared,
            )?),
            _ => None,
        };
        let (picks, lengths) = self.picks(&lists, &rows, removed.as_ref());
        // The values elements are kept from, in the result's item type:
        // every array's for a union, else the first's.
        let kept_from = match self.op {
            SetOp::Union | SetOp::SymmetricDifference => lists.len(),
            _ => 1,
        };
        // Picked in the compared type, then cast: an intersection's
        // narrower item type may not hold what it does not keep (a NULL).
        let sources: Vec<ArrayRef> = lists[..kept_from]
            .iter()
            .map(|l| match typing.item.data_type() {
                // The elements of `[]`: none is kept.
                DataType::Null => Ok(new_null_array(&DataType::Null, l.values().len())),
                _ => cast::cast(l.values(), &typing.compared),
            })
            .collect::<std::result::Result<_, _>>()?;
        let sources: Vec<&dyn Array> = sources.iter().map(|s| s.as_ref()).collect();
        let values = match typing.item.data_type() {
            DataType::Null => interleave(&sources, &picks)?,
            item => cast::cast(&interleave(&sources, &picks)?, item)?,
        };
        let nulls = lists
            .iter()
            .fold(None, |acc, l| NullBuffer::union(acc.as_ref(), l.nulls()));
        let out = list_from_lengths(typing.item, lengths, values, nulls)?;
        crate::columnar(out, scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersections_take_the_narrowest_type() {
        use DataType::*;
        assert_eq!(narrowest(&Int8, &UInt8), Some(UInt8));
        assert_eq!(narrowest(&UInt16, &Int8), Some(Int8));
        assert_eq!(narrowest(&Int32, &UInt16), Some(UInt16));
        assert_eq!(narrowest(&Float32, &Int64), Some(Int64));
        assert_eq!(narrowest(&Float64, &Float32), Some(Float32));
        assert_eq!(narrowest(&UInt8, &Null), Some(Null));
        assert_eq!(
            narrowest(&Timestamp(TimeUnit::Second, None), &Date32),
            Some(Date32)
        );
        assert_eq!(narrowest(&Utf8, &UInt8), None);
    }
}
