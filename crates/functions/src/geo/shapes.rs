//! `pointInPolygon((x, y), polygon[, hole...])`: 1 when the point lies in
//! the polygon or on its boundary (where ClickHouse documents either
//! answer, its grid index deciding) and not strictly inside a hole; the
//! polygon is an array of (x, y) tuples, or an array of such rings whose
//! first is the outline and the rest holes. `pointInEllipses(x, y, x1, y1,
//! a1, b1, ...)`: 1 when the point lies in one of the ellipses (centre,
//! semi-axes), boundary included.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt8Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;

use super::{floats, illegal_argument, is_number, null_where_any, shared};
use crate::other::frame::{Call, Spec, Typing, failure};

/// ClickHouse's limit on a call's arguments, which bounds the ellipses.
const MAX_ARGUMENTS: usize = 1_000;

pub(super) static SPECS: &[Spec] = &[
    Spec {
        name: "pointInPolygon",
        aliases: &[],
        args: (2, MAX_ARGUMENTS),
        volatility: Volatility::Immutable,
        typing: polygon_typing,
        eval: in_polygon_rows,
    },
    Spec {
        name: "pointInEllipses",
        aliases: &[],
        args: (6, MAX_ARGUMENTS),
        volatility: Volatility::Immutable,
        typing: ellipses_typing,
        eval: in_ellipses_rows,
    },
];

type Point = (f64, f64);
type Ring = Vec<Point>;

fn is_point(t: &DataType) -> bool {
    matches!(t, DataType::Struct(f) if f.len() == 2 && f.iter().all(|f| is_number(f.data_type())))
}

/// Rings a polygon argument holds per element: one (`Array(Tuple)`) or
/// several (`Array(Array(Tuple))`).
fn ring_depth(t: &DataType) -> Option<usize> {
    match t {
        DataType::List(item) if is_point(item.data_type()) => Some(1),
        DataType::List(item) => match item.data_type() {
            DataType::List(inner) if is_point(inner.data_type()) => Some(2),
            _ => None,
        },
        _ => None,
    }
}

fn polygon_typing(t: &Typing) -> Result<datafusion::arrow::datatypes::Field> {
    if !is_point(t.field(0).data_type()) {
        return Err(illegal_argument(
            t.name,
            0,
            t.field(0).data_type(),
            "a tuple of two numbers",
        ));
    }
    for i in 1..t.fields.len() {
        let depth = ring_depth(t.field(i).data_type());
        if depth.is_none() || (i > 1 && depth != Some(1)) {
            return Err(illegal_argument(
                t.name,
                i,
                t.field(i).data_type(),
                "an array of tuples of two numbers",
            ));
        }
    }
    Ok(t.propagating(DataType::UInt8))
}

fn ellipses_typing(t: &Typing) -> Result<datafusion::arrow::datatypes::Field> {
    if (t.fields.len() - 2) % 4 != 0 {
        return Err(failure(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Incorrect number of arguments of function {}. Must be 2 for your point plus 4 * N for ellipses (x_i, y_i, a_i, b_i)",
                t.name
            ),
        ));
    }
    for i in 0..t.fields.len() {
        if t.field(i).data_type() != &DataType::Float64 {
            return Err(illegal_argument(
                t.name,
                i,
                t.field(i).data_type(),
                "Float64",
            ));
        }
    }
    Ok(t.propagating(DataType::UInt8))
}

/// The points of a column of (x, y) tuples.
fn points(column: &dyn Array) -> Result<Vec<Point>> {
    let tuples = column.as_struct();
    let xs = floats(tuples.column(0))?;
    let ys = floats(tuples.column(1))?;
    Ok(xs.into_iter().zip(ys).collect())
}

/// The rings of row `row` of a polygon argument.
fn rings(column: &ArrayRef, row: usize) -> Result<Vec<Ring>> {
    let lists = column.as_list::<i32>();
    let element = lists.value(row);
    let rings = match element.data_type() {
        DataType::List(_) => {
            let inner = element.as_list::<i32>();
            (0..inner.len())
                .map(|i| points(inner.value(i).as_ref()))
                .collect::<Result<_>>()?
        }
        _ => vec![points(element.as_ref())?],
    };
    if let Some(short) = rings.iter().find(|r| r.len() < 3) {
        return Err(failure(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Polygon is not valid: Geometry has too few points ({})",
                short.len()
            ),
        ));
    }
    Ok(rings)
}

/// A polygon argument's rings: once for a constant, else per row.
struct Polygons(Vec<Vec<Ring>>);

impl Polygons {
    fn of(call: &Call, i: usize) -> Result<Polygons> {
        if let Some(ScalarValue::List(list)) = call.constant(i) {
            return Ok(Polygons(vec![rings(&(list.clone() as ArrayRef), 0)?]));
        }
        let column = call.column(i)?;
        let rows = (0..column.len()).map(|row| rings(&column, row));
        Ok(Polygons(rows.collect::<Result<_>>()?))
    }

    fn at(&self, row: usize) -> &[Ring] {
        match self.0.len() {
            1 => &self.0[0],
            _ => &self.0[row],
        }
    }
}

fn in_polygon_rows(call: &Call) -> Result<ColumnarValue> {
    let point_column = call.column(0)?;
    let points = points(point_column.as_ref())?;
    let polygons = (1..call.args.len())
        .map(|i| Polygons::of(call, i))
        .collect::<Result<Vec<_>>>()?;
    let inside = (0..points.len()).map(|row| {
        let mut rings = polygons.iter().flat_map(|p| p.at(row).iter());
        let outline = rings.next().expect("a polygon has a ring");
        u8::from(covers(outline, rings, points[row]))
    });
    let out = shared(UInt8Array::from_iter_values(inside));
    call.output(null_where_any(out, &[point_column])?)
}

/// Whether the point is in `outline` or on its boundary and strictly inside no hole.
fn covers<'a>(outline: &Ring, mut holes: impl Iterator<Item = &'a Ring>, p: Point) -> bool {
    match locate(outline, p) {
        Place::Outside => false,
        Place::Boundary => true,
        Place::Inside => holes.all(|hole| locate(hole, p) != Place::Inside),
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Place {
    Inside,
    Boundary,
    Outside,
}

/// Where the point lies against a closed ring (the last point joins the first).
fn locate(ring: &Ring, (x, y): Point) -> Place {
    let mut inside = false;
    for (i, &(x1, y1)) in ring.iter().enumerate() {
        let (x2, y2) = ring[(i + 1) % ring.len()];
        let cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1);
        let within = x1.min(x2) <= x && x <= x1.max(x2) && y1.min(y2) <= y && y <= y1.max(y2);
        if cross == 0.0 && within {
            return Place::Boundary;
        }
        // A crossing of the ray going right from the point.
        if (y1 > y) != (y2 > y) && x < x1 + (y - y1) * (x2 - x1) / (y2 - y1) {
            inside = !inside;
        }
    }
    if inside {
        Place::Inside
    } else {
        Place::Outside
    }
}

fn in_ellipses_rows(call: &Call) -> Result<ColumnarValue> {
    let columns = (0..call.args.len())
        .map(|i| call.column(i))
        .collect::<Result<Vec<_>>>()?;
    let values = columns.iter().map(floats).collect::<Result<Vec<_>>>()?;
    let rows = values[0].len();
    let inside = (0..rows).map(|row| {
        let (x, y) = (values[0][row], values[1][row]);
        let hit = values[2..].chunks_exact(4).any(|e| {
            let (cx, cy, a, b) = (e[0][row], e[1][row], e[2][row], e[3][row]);
            ((x - cx) / a).powi(2) + ((y - cy) / b).powi(2) <= 1.0
        });
        u8::from(hit)
    });
    let out = shared(UInt8Array::from_iter_values(inside));
    call.output(null_where_any(out, &columns)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_counts_as_inside_and_holes_cut_out() {
        let square = vec![(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)];
        let hole = vec![(1.0, 1.0), (3.0, 1.0), (3.0, 3.0), (1.0, 3.0)];
        assert!(covers(&square, std::iter::empty(), (0.0, 0.0)));
        assert!(covers(&square, std::iter::empty(), (5.0, 10.0)));
        assert!(!covers(&square, std::iter::empty(), (11.0, 2.0)));
        assert!(!covers(&square, [&hole].into_iter(), (2.0, 2.0)));
        assert!(covers(&square, [&hole].into_iter(), (2.0, 1.0)));
    }
}
