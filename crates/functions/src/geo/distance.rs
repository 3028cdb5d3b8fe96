//! `greatCircleDistance`, `geoDistance` (meters) and `greatCircleAngle`
//! (degrees) between two points given as longitude and latitude in
//! degrees, by ClickHouse's method: points less than 13 degrees of
//! longitude apart are measured on a plane tangent at their middle
//! latitude (a sphere's metric, or for `geoDistance` the WGS-84
//! ellipsoid's by the published cheap-ruler coefficients), others along
//! the great circle (haversine) of a sphere of the WGS-84 authalic radius.
//! ClickHouse reads the plane's metric from tables of 1,024 latitudes;
//! Strata computes it, so results can differ in the last digits. The result
//! is Float64 when an argument is Float64, else Float32, as ClickHouse's
//! `geo_distance_returns_float64_on_float64_arguments` default.

use datafusion::arrow::array::{Float32Array, Float64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};

use super::{floats, illegal_argument, is_number, null_where_any, shared};
use crate::other::frame::{Call, Spec, Typing};

/// The WGS-84 authalic (equal-area) radius, ClickHouse's Earth radius.
const EARTH_RADIUS_M: f64 = 6_371_007.180_918_475;

/// Points closer than this in longitude are measured on a tangent plane.
const PLANE_LONGITUDE_SPAN_DEG: f64 = 13.0;

#[derive(Clone, Copy)]
enum Metric {
    Sphere,
    Wgs84,
    Angle,
}

pub(super) static SPECS: &[Spec] = &[
    Spec {
        name: "greatCircleDistance",
        aliases: &[],
        args: (4, 4),
        volatility: Volatility::Immutable,
        typing,
        eval: |c| evaluate(c, Metric::Sphere),
    },
    Spec {
        name: "geoDistance",
        aliases: &[],
        args: (4, 4),
        volatility: Volatility::Immutable,
        typing,
        eval: |c| evaluate(c, Metric::Wgs84),
    },
    Spec {
        name: "greatCircleAngle",
        aliases: &[],
        args: (4, 4),
        volatility: Volatility::Immutable,
        typing,
        eval: |c| evaluate(c, Metric::Angle),
    },
];

fn typing(t: &Typing) -> Result<datafusion::arrow::datatypes::Field> {
    let mut wide = false;
    for i in 0..4 {
        let field = t.field(i);
        if !is_number(field.data_type()) {
            return Err(illegal_argument(t.name, i, field.data_type(), "numeric"));
        }
        wide |= field.data_type() == &DataType::Float64;
    }
    Ok(t.propagating(match wide {
        true => DataType::Float64,
        false => DataType::Float32,
    }))
}

fn evaluate(call: &Call, metric: Metric) -> Result<ColumnarValue> {
    let columns = (0..4).map(|i| call.column(i)).collect::<Result<Vec<_>>>()?;
    let [lon1, lat1, lon2, lat2] = [0, 1, 2, 3].map(|i| floats(&columns[i]));
    let (lon1, lat1, lon2, lat2) = (lon1?, lat1?, lon2?, lat2?);
    let values = (0..lon1.len()).map(|r| between(metric, lon1[r], lat1[r], lon2[r], lat2[r]));
    let out = match call.result.data_type() {
        DataType::Float64 => shared(Float64Array::from_iter_values(values)),
        _ => shared(Float32Array::from_iter_values(values.map(|v| v as f32))),
    };
    call.output(null_where_any(out, &columns)?)
}

/// The distance (or angle) between two points, by [`Metric`].
fn between(metric: Metric, lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let lat_diff = degrees_apart(lat1 - lat2);
    let lon_diff = degrees_apart(lon1 - lon2);
    if lon_diff < PLANE_LONGITUDE_SPAN_DEG {
        let (k_lat, k_lon) = plane_metric(metric, ((lat1 + lat2) / 2.0).to_radians());
        return (k_lat * lat_diff * lat_diff + k_lon * lon_diff * lon_diff).sqrt();
    }
    let half = |d: f64| (d.to_radians() / 2.0).sin().powi(2);
    let (lat1, lat2) = (lat1.to_radians(), lat2.to_radians());
    let a = half(lat_diff) + lat1.cos() * lat2.cos() * half(lon_diff);
    let angle = 2.0 * a.sqrt().min(1.0).asin();
    match metric {
        Metric::Angle => angle.to_degrees(),
        Metric::Sphere | Metric::Wgs84 => EARTH_RADIUS_M * angle,
    }
}

/// The squared length of a degree of latitude and of longitude at `latitude` (radians).
fn plane_metric(metric: Metric, latitude: f64) -> (f64, f64) {
    let cos = |k: f64| (k * latitude).cos();
    match metric {
        Metric::Angle => (1.0, cos(1.0).powi(2)),
        Metric::Sphere => {
            let degree = EARTH_RADIUS_M * std::f64::consts::PI / 180.0;
            (degree * degree, (degree * cos(1.0)).powi(2))
        }
        Metric::Wgs84 => (
            (111_132.09 - 566.05 * cos(2.0) + 1.20 * cos(4.0)).powi(2),
            (111_415.13 * cos(1.0) - 94.55 * cos(3.0) + 0.12 * cos(5.0)).powi(2),
        ),
    }
}

/// The absolute difference of two angles in degrees, the short way round.
fn degrees_apart(difference: f64) -> f64 {
    let d = difference.abs();
    if d > 180.0 { 360.0 - d } else { d }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_points_use_the_tangent_plane() {
        // One degree along a meridian: a degree of the sphere.
        let degree = between(Metric::Sphere, 0.0, 0.0, 0.0, 1.0);
        assert!((degree - 111_195.05).abs() < 0.01, "{degree}");
        // A quarter meridian by the ellipsoid's metric at 45 degrees.
        let quarter = between(Metric::Wgs84, 0.0, 0.0, 0.0, 90.0);
        assert!((quarter - 10_001_780.1).abs() < 1.0, "{quarter}");
    }

    #[test]
    fn far_points_follow_the_great_circle() {
        let half = between(Metric::Sphere, 0.0, 0.0, 180.0, 0.0);
        assert!((half - 20_015_109.35).abs() < 1.0, "{half}");
        assert!((between(Metric::Angle, 0.0, 0.0, 180.0, 0.0) - 180.0).abs() < 1e-9);
        assert_eq!(degrees_apart(-350.0), 10.0);
    }
}
