//! Looking for values in arrays: `countEqual(a, x)` (UInt64),
//! `notHas(a, x)` (UInt8), `hasSubstr(a, b)` (UInt8: `b` occurs in `a` as
//! a contiguous run) and `indexOfAssumeSorted(a, x)` (UInt64: the 1-based
//! position of `x` in ascending `a` by binary search, 0 when absent).
//! Elements and values compare in their common type; NULL equals NULL.
//!
//! `has`, `hasAll`, `hasAny` and `indexOf` are DataFusion's `array_has`,
//! `array_has_all`, `array_has_any` and `array_position`, wrapped
//! ([`NumericSearch`]) so that an array and a value (or array) of different
//! integer types (`has([1, 2], toUInt64(1))`, an integer in an array of
//! `Int128`) compare in their common type, where DataFusion's signature
//! finds none. `has(map, key)` looks among the map's keys, as ClickHouse's
//! `has` does.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt8Array, UInt64Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::Result;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::type_coercion::functions::fields_with_udf;
use datafusion::logical_expr::{
    ColumnarValue, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};

use super::{array_item, arrays_of, as_list, check_arity, no_common_type, row_range, supertype};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Search {
    CountEqual,
    NotHas,
    HasSubstr,
    IndexOfAssumeSorted,
}

impl Search {
    pub const ALL: [Search; 4] = [
        Search::CountEqual,
        Search::NotHas,
        Search::HasSubstr,
        Search::IndexOfAssumeSorted,
    ];
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArraySearch {
    kind: Search,
    signature: Signature,
}

impl ArraySearch {
    pub fn new(kind: Search) -> Self {
        ArraySearch {
            kind,
            signature: Signature::any(2, Volatility::Immutable),
        }
    }

    /// The type elements and the sought value compare in.
    fn common_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        check_arity(self.name(), arg_types.len(), 2..=2)?;
        let item = array_item(self.name(), &arg_types[0])?;
        let sought = match self.kind {
            Search::HasSubstr => array_item(self.name(), &arg_types[1])?.data_type().clone(),
            _ => arg_types[1].clone(),
        };
        supertype(item.data_type(), &sought)
            .ok_or_else(|| no_common_type(item.data_type(), &sought))
    }
}

/// `array`'s values (a list's, or the array itself) in row format, in `common` type.
fn rows_of(converter: &RowConverter, array: &ArrayRef, common: &DataType) -> Result<Rows> {
    let cast = cast::cast(array, common)?;
    Ok(converter.convert_columns(&[cast])?)
}

/// Whether `needle` occurs in `haystack` as a contiguous run.
fn contains_run(haystack: &[&[u8]], needle: &[&[u8]]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

impl ArraySearch {
    fn search(&self, list: &ListArray, sought: &ArrayRef, common: &DataType) -> Result<Vec<u64>> {
        let converter = RowConverter::new(vec![SortField::new(common.clone())])?;
        let values = rows_of(&converter, list.values(), common)?;
        let element = |i: usize| values.row(i).data();
        if self.kind == Search::HasSubstr {
            let sought = as_list(sought)?;
            let needles = rows_of(&converter, sought.values(), common)?;
            return Ok((0..list.len())
                .map(|row| {
                    let haystack: Vec<&[u8]> = row_range(list, row).map(element).collect();
                    let needle: Vec<&[u8]> = row_range(&sought, row)
                        .map(|i| needles.row(i).data())
                        .collect();
                    u64::from(contains_run(&haystack, &needle))
                })
                .collect());
        }
        let sought = rows_of(&converter, sought, common)?;
        Ok((0..list.len())
            .map(|row| {
                let x = sought.row(row).data();
                let mut range = row_range(list, row);
                match self.kind {
                    Search::CountEqual => range.filter(|&i| element(i) == x).count() as u64,
                    Search::NotHas => u64::from(!range.any(|i| element(i) == x)),
                    _ => {
                        let ordered: Vec<&[u8]> = range.map(element).collect();
                        let at = ordered.partition_point(|e| *e < x);
                        if ordered.get(at) == Some(&x) {
                            at as u64 + 1
                        } else {
                            0
                        }
                    }
                }
            })
            .collect())
    }
}

impl ScalarUDFImpl for ArraySearch {
    fn name(&self) -> &str {
        match self.kind {
            Search::CountEqual => "countEqual",
            Search::NotHas => "notHas",
            Search::HasSubstr => "hasSubstr",
            Search::IndexOfAssumeSorted => "indexOfAssumeSorted",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.common_type(arg_types)?;
        Ok(match self.kind {
            Search::NotHas | Search::HasSubstr => DataType::UInt8,
            _ => DataType::UInt64,
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let data_type = self.return_type(&[
            args.arg_fields[0].data_type().clone(),
            args.arg_fields[1].data_type().clone(),
        ])?;
        Ok(Arc::new(datafusion::arrow::datatypes::Field::new(
            self.name(),
            data_type,
            args.arg_fields[0].is_nullable(),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let types = [arrays[0].data_type().clone(), arrays[1].data_type().clone()];
        let common = self.common_type(&types)?;
        let list = as_list(&arrays[0])?;
        let found = self.search(&list, &arrays[1], &common)?;
        let nulls = list.nulls().cloned();
        let out: ArrayRef = match self.kind {
            Search::NotHas | Search::HasSubstr => Arc::new(UInt8Array::new(
                found.into_iter().map(|v| v as u8).collect(),
                nulls,
            )),
            _ => Arc::new(UInt64Array::new(found.into(), nulls)),
        };
        crate::columnar(out, scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::contains_run;

    #[test]
    fn runs_are_contiguous() {
        let h: Vec<&[u8]> = vec![b"a", b"b", b"c"];
        assert!(contains_run(&h, &[b"b", b"c"]));
        assert!(!contains_run(&h, &[b"c", b"b"]));
        assert!(contains_run(&h, &[]));
        assert!(!contains_run(&[], &[b"a"]));
    }
}

/// DataFusion's search `inner` (`array_has`, `array_position`, ...) under
/// its own names, coercing a numeric array and value (or array) it finds no
/// common type for to their supertype; every other call is coerced as
/// `inner` would.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct NumericSearch {
    inner: Arc<ScalarUDF>,
    signature: Signature,
}

impl NumericSearch {
    pub fn wrapping(inner: Arc<ScalarUDF>) -> Self {
        NumericSearch {
            inner,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl NumericSearch {
    /// `has(map, key)`: the key as `has` would coerce it against an array
    /// of the map's keys; the map stays as it is.
    fn coerce_map_search(&self, map: &DataType, key: &DataType) -> Result<Vec<DataType>> {
        if self.inner.name() != "array_has" {
            return Err(super::illegal_type(self.inner.name(), map));
        }
        let keys = keys_type(map);
        let coerced = self.coerce_types(&[keys.clone(), key.clone()])?;
        if coerced[0] != keys {
            return Err(no_common_type(&keys, key));
        }
        Ok(vec![map.clone(), coerced[1].clone()])
    }
}

/// The type of an array of `map`'s keys.
fn keys_type(map: &DataType) -> DataType {
    match map {
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(fields) => {
                DataType::List(Arc::new(fields[0].as_ref().clone().with_name("item")))
            }
            _ => map.clone(),
        },
        other => other.clone(),
    }
}

/// `fields` with a map argument's field replaced by its keys' array field.
fn keys_for_maps(fields: &[FieldRef]) -> Vec<FieldRef> {
    fields
        .iter()
        .map(|field| match field.data_type() {
            DataType::Map(..) => Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(keys_type(field.data_type())),
            ),
            _ => field.clone(),
        })
        .collect()
}

/// Each map of `maps` as the array of its keys.
fn map_keys(maps: &ArrayRef) -> Result<ArrayRef> {
    let map = maps.as_map();
    let DataType::List(item) = keys_type(maps.data_type()) else {
        unreachable!("keys_type of a map is a list");
    };
    Ok(Arc::new(ListArray::try_new(
        item,
        map.offsets().clone(),
        map.keys().clone(),
        map.nulls().cloned(),
    )?))
}

impl ScalarUDFImpl for NumericSearch {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if let [map @ DataType::Map(..), key] = arg_types {
            return self.coerce_map_search(map, key);
        }
        let fields: Vec<FieldRef> = arg_types
            .iter()
            .map(|t| Arc::new(Field::new("", t.clone(), true)))
            .collect();
        let as_inner = fields_with_udf(&fields, self.inner.as_ref())
            .map(|fields| fields.iter().map(|f| f.data_type().clone()).collect());
        let [DataType::List(element), sought] = arg_types else {
            return as_inner;
        };
        // `hasAll`/`hasAny` seek an array's elements.
        let list_of = |t: &DataType, field: &FieldRef| {
            DataType::List(Arc::new(field.as_ref().clone().with_data_type(t.clone())))
        };
        let needle = match sought {
            DataType::List(item) => item.data_type(),
            value => value,
        };
        let numeric = element.data_type().is_numeric() && needle.is_numeric();
        let common = supertype(element.data_type(), needle).filter(|_| numeric);
        match (as_inner, common) {
            (Ok(types), _) => Ok(types),
            (Err(_), Some(common)) => {
                let sought = match sought {
                    DataType::List(item) => list_of(&common, item),
                    _ => common.clone(),
                };
                Ok(vec![list_of(&common, element), sought])
            }
            (Err(error), None) => Err(error),
        }
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let fields = keys_for_maps(args.arg_fields);
        self.inner.return_field_from_args(ReturnFieldArgs {
            arg_fields: &fields,
            scalar_arguments: args.scalar_arguments,
        })
    }

    fn invoke_with_args(&self, mut args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        if let Some(ColumnarValue::Array(map)) = args.args.first()
            && matches!(map.data_type(), DataType::Map(..))
        {
            let keys = map_keys(map)?;
            args.arg_fields = keys_for_maps(&args.arg_fields);
            args.args[0] = ColumnarValue::Array(keys);
        } else if let Some(ColumnarValue::Scalar(map)) = args.args.first()
            && matches!(map.data_type(), DataType::Map(..))
        {
            let keys = map_keys(&map.to_array()?)?;
            args.arg_fields = keys_for_maps(&args.arg_fields);
            args.args[0] =
                ColumnarValue::Scalar(datafusion::common::ScalarValue::try_from_array(&keys, 0)?);
        }
        self.inner.invoke_with_args(args)
    }

    fn simplify(&self, args: Vec<Expr>, info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        self.inner.simplify(args, info)
    }
}
