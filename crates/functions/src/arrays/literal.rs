//! `[a, b, ...]` and `array(a, b, ...)` (DataFusion's `make_array`), and
//! `map(k1, v1, ...)` (DataFusion's `map` over the arrays of keys and of
//! values) with ClickHouse's element types: `Nullable` only when an
//! element can be NULL, so `[1, 2]` is `Array(UInt8)`, `[1, NULL]`
//! `Array(Nullable(UInt8))` and `map('a', 1)` `Map(String, UInt8)`.
//! DataFusion's own mark every element or value nullable; these wrap them
//! and give their results the exact fields. Tuples (`(a, b)`, `tuple(a,
//! b)`, DataFusion's `struct`) get the same treatment: `Tuple(UInt8,
//! String)`, not `Tuple(Nullable(UInt8), Nullable(String))`.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, ListArray};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::functions::core::r#struct::StructFunc;
use datafusion::functions_nested::make_array::MakeArray as DataFusionMakeArray;
use datafusion::functions_nested::map::MapFunc;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};
use strata_common::types::declared_precision;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MakeArray {
    inner: DataFusionMakeArray,
    aliases: Vec<String>,
}

impl Default for MakeArray {
    fn default() -> Self {
        let inner = DataFusionMakeArray::new();
        let mut aliases = inner.aliases().to_vec();
        aliases.push("array".into());
        MakeArray { inner, aliases }
    }
}

/// Whether a ClickHouse value of `field` can be NULL: arrays, maps and
/// tuples never are (`Nullable(Tuple(...))` does not exist), whatever
/// DataFusion's flag says.
fn can_be_null(field: &Field) -> bool {
    match field.data_type() {
        DataType::Null => true,
        DataType::List(_)
        | DataType::LargeList(_)
        | DataType::FixedSizeList(..)
        | DataType::Struct(_)
        | DataType::Map(..) => false,
        _ => field.is_nullable(),
    }
}

/// `data_type`, a list type, with its item field's nullability set.
fn with_item_nullable(data_type: DataType, nullable: bool) -> DataType {
    match data_type {
        DataType::List(item) if item.data_type() != &DataType::Null => {
            DataType::List(Arc::new(item.as_ref().clone().with_nullable(nullable)))
        }
        other => other,
    }
}

impl ScalarUDFImpl for MakeArray {
    fn name(&self) -> &str {
        "make_array"
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        // NULLs among elements of one type take it (DataFusion finds no
        // common type for a FixedString and a NULL).
        let mut typed = arg_types.iter().filter(|t| **t != DataType::Null);
        if let Some(first) = typed.next()
            && typed.all(|t| t == first)
        {
            return Ok(vec![first.clone(); arg_types.len()]);
        }
        self.inner.coerce_types(arg_types)
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let nullable = args.arg_fields.iter().any(|f| can_be_null(f));
        let data_type = with_item_nullable(self.inner.return_type(&types)?, nullable);
        let data_type = match data_type {
            DataType::List(item) => DataType::List(Arc::new(
                item.as_ref()
                    .clone()
                    .with_data_type(tuple_nullable_where_any_is(item.data_type(), &types))
                    .with_metadata(shared_metadata(args.arg_fields, item.data_type())),
            )),
            other => other,
        };
        Ok(Arc::new(Field::new(self.name(), data_type, false)))
    }

    fn invoke_with_args(&self, mut args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let target = args.return_field.data_type().clone();
        // Elements of one type exactly: tuples whose elements differ only
        // in nullability would make DataFusion's builder panic.
        if let DataType::List(item) = &target {
            for arg in &mut args.args {
                let same =
                    arg.data_type() == *item.data_type() || arg.data_type() == DataType::Null;
                if !same && matches!(item.data_type(), DataType::Struct(_)) {
                    *arg = retyped(arg.clone(), item.data_type())?;
                }
            }
            for field in &mut args.arg_fields {
                if matches!(item.data_type(), DataType::Struct(_))
                    && field.data_type() != item.data_type()
                    && field.data_type() != &DataType::Null
                {
                    *field = Arc::new(
                        field
                            .as_ref()
                            .clone()
                            .with_data_type(item.data_type().clone()),
                    );
                }
            }
        }
        retyped(self.inner.invoke_with_args(args)?, &target)
    }
}

/// What the elements' bytes mean (UUID, IPv4, an Enum...), kept in their
/// fields' metadata, when the elements of the item type that say anything
/// say the same (a NULL cast to the item type says nothing).
fn shared_metadata(elements: &[FieldRef], item: &DataType) -> HashMap<String, String> {
    if elements
        .iter()
        .any(|field| field.data_type() != item && field.data_type() != &DataType::Null)
    {
        return HashMap::new();
    }
    // A DateTime64 of its unit's precision among ones of a lower precision
    // makes the array's elements of the unit's.
    let precisions: Vec<Option<u8>> = elements.iter().map(|f| declared_precision(f)).collect();
    if precisions.iter().any(Option::is_some) && precisions.iter().any(Option::is_none) {
        return HashMap::new();
    }
    let mut said = elements
        .iter()
        .map(|field| field.metadata())
        .filter(|metadata| !metadata.is_empty());
    let Some(first) = said.next() else {
        return HashMap::new();
    };
    if said.all(|metadata| metadata == first) {
        first.clone()
    } else {
        HashMap::new()
    }
}

/// A tuple type whose elements are Nullable where any element of that
/// position is, so every tuple of the array fits it.
fn tuple_nullable_where_any_is(item: &DataType, elements: &[DataType]) -> DataType {
    let DataType::Struct(fields) = item else {
        return item.clone();
    };
    let widened: Vec<Field> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let any = elements.iter().any(|e| match e {
                DataType::Struct(others) => others.get(i).is_some_and(|o| o.is_nullable()),
                _ => false,
            });
            f.as_ref().clone().with_nullable(f.is_nullable() || any)
        })
        .collect();
    DataType::Struct(widened.into())
}

/// DataFusion's result given the exact type the function declared.
fn retyped(result: ColumnarValue, target: &DataType) -> Result<ColumnarValue> {
    match result {
        ColumnarValue::Array(array) if array.data_type() != target => {
            Ok(ColumnarValue::Array(retyped_array(&array, target)?))
        }
        ColumnarValue::Scalar(scalar) if &scalar.data_type() != target => {
            let array = retyped_array(&scalar.to_array()?, target)?;
            // A list scalar straight from the array: taking it apart would
            // lose the item field's metadata.
            Ok(ColumnarValue::Scalar(match array.as_list_opt::<i32>() {
                Some(list) => ScalarValue::List(Arc::new(list.clone())),
                None => ScalarValue::try_from_array(&array, 0)?,
            }))
        }
        same => Ok(same),
    }
}

/// `array` as `target`: a list whose items differ only in their field's
/// metadata (which Arrow's cast does not set) takes the target's field.
fn retyped_array(array: &ArrayRef, target: &DataType) -> Result<ArrayRef> {
    if let (DataType::List(item), Some(list)) = (target, array.as_list_opt::<i32>())
        && list.values().data_type() == item.data_type()
    {
        let (_, offsets, values, nulls) = list.clone().into_parts();
        return Ok(Arc::new(ListArray::try_new(
            Arc::clone(item),
            offsets,
            values,
            nulls,
        )?));
    }
    Ok(cast::cast(array, target)?)
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Map {
    inner: MapFunc,
}

impl Default for Map {
    fn default() -> Self {
        Map {
            inner: MapFunc::new(),
        }
    }
}

impl ScalarUDFImpl for Map {
    fn name(&self) -> &str {
        "map"
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let values_nullable = types
            .get(1)
            .and_then(super::item_field)
            .is_none_or(|item| can_be_null(item));
        let data_type = match self.inner.return_type(&types)? {
            DataType::Map(entries, sorted) => {
                let DataType::Struct(kv) = entries.data_type() else {
                    unreachable!("a map's entries are a struct")
                };
                let value = kv[1].as_ref().clone().with_nullable(values_nullable);
                let kv = vec![Arc::clone(&kv[0]), Arc::new(value)];
                let entries = entries
                    .as_ref()
                    .clone()
                    .with_data_type(DataType::Struct(kv.into()));
                DataType::Map(Arc::new(entries), sorted)
            }
            other => other,
        };
        Ok(Arc::new(Field::new(self.name(), data_type, false)))
    }

    /// Built here rather than by DataFusion, which refuses a repeated key
    /// that ClickHouse keeps.
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = super::arrays_of(&args.args, args.number_rows)?;
        let (keys, values) = (super::as_list(&arrays[0])?, super::as_list(&arrays[1])?);
        let map = super::maps::from_arrays(&keys, &values, args.return_field.data_type(), "map")?;
        crate::columnar(map, scalar)
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Tuple {
    inner: StructFunc,
}

impl Default for Tuple {
    fn default() -> Self {
        Tuple {
            inner: StructFunc::new(),
        }
    }
}

impl ScalarUDFImpl for Tuple {
    fn name(&self) -> &str {
        "struct"
    }

    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let data_type = match self.inner.return_type(&types)? {
            DataType::Struct(fields) => DataType::Struct(
                fields
                    .iter()
                    .zip(args.arg_fields)
                    // An element keeps what its argument's field says of
                    // its values (a UUID's bytes, an Enum's names).
                    .map(|(f, arg)| {
                        let element = f.as_ref().clone().with_nullable(can_be_null(arg));
                        element.with_metadata(arg.metadata().clone())
                    })
                    .collect(),
            ),
            other => other,
        };
        Ok(Arc::new(Field::new(self.name(), data_type, false)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let target = args.return_field.data_type().clone();
        retyped(self.inner.invoke_with_args(args)?, &target)
    }
}
