//! Geohashes: `geohashEncode(lon, lat[, precision])`, `geohashDecode(hash)`
//! (the cell's centre) and `geohashesInBox(lon_min, lat_min, lon_max,
//! lat_max, precision)` (every cell meeting the box, by longitude then
//! latitude). A precision outside 1..=12 means 12; a character outside the
//! geohash alphabet decodes as its last letter (`z`), as in ClickHouse.

use datafusion::arrow::array::{
    Array, AsArray, Float64Array, ListBuilder, StringBuilder, StructArray,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::{floats, null_where_any, shared};
use crate::int_cast::to_i128;
use crate::other::frame::{Call, Spec, Typing, failure};

const ALPHABET: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";
const MAX_PRECISION: usize = 12;
/// ClickHouse's cap on the cells `geohashesInBox` returns.
const MAX_CELLS: f64 = 10_000_000.0;

pub(super) static SPECS: &[Spec] = &[
    Spec {
        name: "geohashEncode",
        aliases: &[],
        args: (2, 3),
        volatility: Volatility::Immutable,
        typing: |t| {
            check_coordinates(t, 2)?;
            Ok(t.propagating(DataType::Utf8))
        },
        eval: encode_rows,
    },
    Spec {
        name: "geohashDecode",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            let field = t.field(0);
            if !matches!(
                field.data_type(),
                DataType::Utf8
                    | DataType::LargeUtf8
                    | DataType::Utf8View
                    | DataType::FixedSizeBinary(_)
            ) {
                return Err(illegal(
                    t.name,
                    0,
                    field.data_type(),
                    "String or FixedString",
                ));
            }
            Ok(t.propagating(DataType::Struct(point_fields())))
        },
        eval: decode_rows,
    },
    Spec {
        name: "geohashesInBox",
        aliases: &[],
        args: (5, 5),
        volatility: Volatility::Immutable,
        typing: |t| {
            check_coordinates(t, 4)?;
            let precision = t.field(4);
            if !precision.data_type().is_integer() {
                return Err(illegal(t.name, 4, precision.data_type(), "an integer"));
            }
            Ok(t.plain(DataType::new_list(DataType::Utf8, false)))
        },
        eval: box_rows,
    },
];

fn point_fields() -> Fields {
    Fields::from(vec![
        Field::new("longitude", DataType::Float64, false),
        Field::new("latitude", DataType::Float64, false),
    ])
}

/// The first `count` arguments are coordinates (Float32 or Float64), and
/// `geohashEncode`'s precision an integer.
fn check_coordinates(t: &Typing, count: usize) -> Result<()> {
    for i in 0..count {
        let field = t.field(i);
        if !matches!(field.data_type(), DataType::Float32 | DataType::Float64) {
            return Err(illegal(t.name, i, field.data_type(), "Float*"));
        }
    }
    if count == 2 && t.fields.len() == 3 && !t.field(2).data_type().is_integer() {
        return Err(illegal(t.name, 2, t.field(2).data_type(), "an integer"));
    }
    Ok(())
}

fn illegal(
    function: &str,
    i: usize,
    t: &DataType,
    expected: &str,
) -> datafusion::error::DataFusionError {
    failure(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "A value of illegal type was provided as argument {} to function '{function}'. Expected: {expected}, got: {}",
            i + 1,
            clickhouse_type_name(t, false)
        ),
    )
}

/// A precision argument as ClickHouse reads it: outside 1..=12 (or NULL) is 12.
fn precision(value: Option<i128>) -> usize {
    value
        .and_then(|v| usize::try_from(v).ok())
        .filter(|p| (1..=MAX_PRECISION).contains(p))
        .unwrap_or(MAX_PRECISION)
}

fn encode_rows(call: &Call) -> Result<ColumnarValue> {
    let mut columns = vec![call.column(0)?, call.column(1)?];
    let (lon, lat) = (floats(&columns[0])?, floats(&columns[1])?);
    let precisions = match call.args.len() {
        3 => {
            columns.push(call.column(2)?);
            to_i128(&columns[2])?.into_iter().map(precision).collect()
        }
        _ => vec![MAX_PRECISION; lon.len()],
    };
    let mut out = StringBuilder::new();
    for row in 0..lon.len() {
        out.append_value(encode(lon[row], lat[row], precisions[row]));
    }
    call.output(null_where_any(shared(out.finish()), &columns)?)
}

/// The geohash of `precision` characters of the cell holding the point.
pub(super) fn encode(lon: f64, lat: f64, precision: usize) -> String {
    let mut ranges = [(-180.0, 180.0), (-90.0, 90.0)];
    let point = [lon, lat];
    let mut out = String::with_capacity(precision);
    for char_index in 0..precision {
        let mut symbol = 0usize;
        for bit in 0..5 {
            // Bits alternate longitude and latitude, longitude first.
            let axis = (char_index * 5 + bit) % 2;
            let (low, high) = &mut ranges[axis];
            let middle = (*low + *high) / 2.0;
            symbol <<= 1;
            if point[axis] >= middle {
                symbol |= 1;
                *low = middle;
            } else {
                *high = middle;
            }
        }
        out.push(char::from(ALPHABET[symbol]));
    }
    out
}

/// The centre of the cell a geohash names (its first 12 characters).
pub(super) fn decode(hash: &[u8]) -> (f64, f64) {
    let mut ranges = [(-180.0f64, 180.0f64), (-90.0f64, 90.0f64)];
    for (char_index, c) in hash.iter().take(MAX_PRECISION).enumerate() {
        let symbol = ALPHABET.iter().position(|a| a == c).unwrap_or(31);
        for bit in 0..5 {
            let axis = (char_index * 5 + bit) % 2;
            let (low, high) = &mut ranges[axis];
            let middle = (*low + *high) / 2.0;
            if symbol & (1 << (4 - bit)) != 0 {
                *low = middle;
            } else {
                *high = middle;
            }
        }
    }
    let centre = |(low, high): (f64, f64)| (low + high) / 2.0;
    (centre(ranges[0]), centre(ranges[1]))
}

fn decode_rows(call: &Call) -> Result<ColumnarValue> {
    let column = call.column(0)?;
    let text = datafusion::arrow::compute::cast(&column, &DataType::Binary)?;
    let hashes = text.as_binary::<i32>();
    let (mut lons, mut lats) = (
        Vec::with_capacity(hashes.len()),
        Vec::with_capacity(hashes.len()),
    );
    for row in 0..hashes.len() {
        let (lon, lat) = match hashes.is_valid(row) {
            true => decode(hashes.value(row)),
            false => (0.0, 0.0),
        };
        lons.push(lon);
        lats.push(lat);
    }
    let points = StructArray::new(
        point_fields(),
        vec![
            shared(Float64Array::from(lons)),
            shared(Float64Array::from(lats)),
        ],
        None,
    );
    call.output(null_where_any(shared(points), &[column])?)
}

fn box_rows(call: &Call) -> Result<ColumnarValue> {
    let coordinates = (0..4)
        .map(|i| call.column(i).and_then(|c| floats(&c)))
        .collect::<Result<Vec<_>>>()?;
    let precisions = to_i128(&call.column(4)?)?;
    let mut out = ListBuilder::new(StringBuilder::new()).with_field(Field::new(
        "item",
        DataType::Utf8,
        false,
    ));
    for row in 0..precisions.len() {
        let [lon_min, lat_min, lon_max, lat_max] = [0, 1, 2, 3].map(|i| coordinates[i][row]);
        for cell in cells_in_box(
            lon_min,
            lat_min,
            lon_max,
            lat_max,
            precision(precisions[row]),
        )? {
            out.values().append_value(cell);
        }
        out.append(true);
    }
    call.output(shared(out.finish()))
}

/// The geohashes of `precision` of every cell meeting the box, by
/// longitude then latitude; none when the box is inverted.
fn cells_in_box(
    lon_min: f64,
    lat_min: f64,
    lon_max: f64,
    lat_max: f64,
    precision: usize,
) -> Result<Vec<String>> {
    if lon_min > lon_max || lat_min > lat_max {
        return Ok(Vec::new());
    }
    let bits = precision * 5;
    let lon_step = 360.0 / f64::from(1u32 << bits.div_ceil(2));
    let lat_step = 180.0 / f64::from(1u32 << (bits / 2));
    let clamp = |v: f64, limit: f64| v.clamp(-limit, limit);
    let lon_low = (clamp(lon_min, 180.0) / lon_step).floor() * lon_step;
    let lat_low = (clamp(lat_min, 90.0) / lat_step).floor() * lat_step;
    let lon_cells = (((clamp(lon_max, 180.0) / lon_step).ceil() * lon_step - lon_low) / lon_step)
        .round()
        .max(1.0);
    let lat_cells = (((clamp(lat_max, 90.0) / lat_step).ceil() * lat_step - lat_low) / lat_step)
        .round()
        .max(1.0);
    let count = lon_cells * lat_cells;
    if count > MAX_CELLS {
        return Err(failure(
            ErrorCode::TOO_LARGE_ARRAY_SIZE,
            format!(
                "geohashesInBox would produce {count} array elements, which is bigger than the allowed maximum of {MAX_CELLS}"
            ),
        ));
    }
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..lon_cells as usize {
        let lon = lon_low + (i as f64 + 0.5) * lon_step;
        for j in 0..lat_cells as usize {
            let lat = lat_low + (j as f64 + 0.5) * lat_step;
            out.push(encode(lon, lat, precision));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_and_decoding_round_trip() {
        assert_eq!(encode(-5.6, 42.6, 5), "ezs42");
        assert_eq!(encode(180.0, 90.0, 3), "zzz");
        assert_eq!(encode(-180.0, -90.0, 3), "000");
        assert_eq!(decode(b"s"), (22.5, 22.5));
        assert_eq!(decode(b""), (0.0, 0.0));
        assert_eq!(decode(b"ezs42!"), decode(b"ezs42z"));
    }

    #[test]
    fn boxes_list_cells_by_longitude_then_latitude() {
        let cells = cells_in_box(24.48, 40.56, 24.785, 40.81, 4).unwrap();
        assert_eq!(cells, ["sx1q", "sx1r", "sx32", "sx1w", "sx1x", "sx38"]);
        assert_eq!(
            cells_in_box(24.48, 40.56, 24.48, 40.56, 4).unwrap(),
            ["sx1q"]
        );
        assert!(
            cells_in_box(24.78, 40.56, 24.48, 40.81, 4)
                .unwrap()
                .is_empty()
        );
        assert!(cells_in_box(0.0, 0.0, 10.0, 10.0, 12).is_err());
    }
}
