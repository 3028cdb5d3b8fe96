//! Geo functions: distances on the Earth (`greatCircleDistance`,
//! `geoDistance`, `greatCircleAngle`), geohashes (`geohashEncode`,
//! `geohashDecode`, `geohashesInBox`) and point-in-shape tests
//! (`pointInPolygon`, `pointInEllipses`).

mod distance;
mod geohash;
mod shapes;

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, make_array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::Result;
use datafusion::logical_expr::ScalarUDF;
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use crate::other::frame::{failure, register};

pub fn scalar_functions() -> impl Iterator<Item = ScalarUDF> {
    [distance::SPECS, geohash::SPECS, shapes::SPECS]
        .into_iter()
        .flat_map(register)
}

/// A numeric column as Float64 values (NULL rows read as 0; the result
/// is NULL there anyway).
fn floats(column: &ArrayRef) -> Result<Vec<f64>> {
    let wide = cast(column, &DataType::Float64)?;
    Ok(wide.as_primitive::<Float64Type>().values().to_vec())
}

/// `out` NULL in every row where one of `columns` is.
fn null_where_any(out: ArrayRef, columns: &[ArrayRef]) -> Result<ArrayRef> {
    let nulls = columns.iter().fold(None, |acc: Option<NullBuffer>, c| {
        NullBuffer::union(acc.as_ref(), c.logical_nulls().as_ref())
    });
    if nulls.is_none() {
        return Ok(out);
    }
    Ok(make_array(
        out.into_data().into_builder().nulls(nulls).build()?,
    ))
}

fn is_number(t: &DataType) -> bool {
    t.is_numeric() && !matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..))
}

/// ClickHouse's error for an argument of the wrong type.
fn illegal_argument(
    function: &str,
    position: usize,
    t: &DataType,
    expected: &str,
) -> datafusion::error::DataFusionError {
    failure(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument {} of function {function}. Must be {expected}",
            clickhouse_type_name(t, false),
            position + 1
        ),
    )
}

fn shared(array: impl datafusion::arrow::array::Array + 'static) -> ArrayRef {
    Arc::new(array)
}
