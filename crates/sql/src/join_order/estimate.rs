//! Rough row counts of plan inputs, for choosing a join order: the rows a
//! plan returns and, per output column, its *domain* (how many distinct
//! values it can take in the base table it comes from, where known).
//!
//! A join of `a` and `b` on `x = y` returns `|a| * |b| / max(domain x,
//! domain y)` rows: each value of the smaller domain meets the rows of the
//! other that hold it (the containment assumption). A filter scales rows by
//! a selectivity and keeps domains as they are, which is what lets a filtered
//! dimension table (25 nations, 2 kept) shrink the join it takes part in.

use datafusion::common::{Column, DFSchema, JoinType};
use datafusion::datasource::source_as_provider;
use datafusion::logical_expr::{
    Aggregate, Between, BinaryExpr, Expr, Join, Like, LogicalPlan, Operator, TableScan,
};

/// Rows assumed to pass a predicate Strata cannot reason about.
pub const UNKNOWN_SELECTIVITY: f64 = 0.5;
/// Rows assumed to pass `column = constant` where the column's domain is unknown.
const EQUALITY_SELECTIVITY: f64 = 0.1;
/// Rows assumed to pass one side of a range (`<`, `>=`, ...).
const RANGE_SELECTIVITY: f64 = 1.0 / 3.0;
/// Rows assumed to pass `BETWEEN` and LIKE.
const NARROW_SELECTIVITY: f64 = 0.25;
/// Groups assumed per input row of a GROUP BY whose keys' domains are unknown.
const GROUPS_PER_ROW: f64 = 0.1;

/// A plan's estimated rows and each output column's domain.
#[derive(Debug, Clone)]
pub struct Estimate {
    pub rows: f64,
    pub domains: Vec<Option<f64>>,
}

impl Estimate {
    fn filtered(mut self, selectivity: f64) -> Estimate {
        self.rows = (self.rows * selectivity).max(1.0);
        self
    }

    /// The domain of `expr` over a plan of `schema`: a column's own, also
    /// through a CAST; `None` for anything else.
    pub fn domain(&self, expr: &Expr, schema: &DFSchema) -> Option<f64> {
        let index = schema.index_of_column(key_column(expr)?).ok()?;
        self.domains.get(index).copied().flatten()
    }
}

/// The column an expression is, also through a CAST.
pub fn key_column(expr: &Expr) -> Option<&Column> {
    match expr {
        Expr::Column(column) => Some(column),
        Expr::Cast(cast) => key_column(&cast.expr),
        Expr::TryCast(cast) => key_column(&cast.expr),
        _ => None,
    }
}

/// The estimate of `plan`, or `None` where part of it cannot be estimated.
pub fn estimate(plan: &LogicalPlan) -> Option<Estimate> {
    match plan {
        LogicalPlan::TableScan(scan) => scan_estimate(scan),
        LogicalPlan::Filter(filter) => {
            let input = estimate(&filter.input)?;
            let kept = selectivity(&filter.predicate, filter.input.schema(), &input);
            Some(input.filtered(kept))
        }
        LogicalPlan::Projection(projection) => {
            let input = estimate(&projection.input)?;
            let schema = projection.input.schema();
            let domains = projection
                .expr
                .iter()
                .map(|e| match e {
                    Expr::Alias(alias) => input.domain(&alias.expr, schema),
                    e => input.domain(e, schema),
                })
                .collect();
            Some(Estimate {
                rows: input.rows,
                domains,
            })
        }
        LogicalPlan::SubqueryAlias(alias) => estimate(&alias.input),
        LogicalPlan::Aggregate(aggregate) => aggregate_estimate(aggregate),
        LogicalPlan::Join(join) => join_estimate(join),
        LogicalPlan::Values(values) => Some(Estimate {
            rows: values.values.len().max(1) as f64,
            domains: vec![None; values.schema.fields().len()],
        }),
        LogicalPlan::Distinct(_) | LogicalPlan::Sort(_) => {
            let mut input = estimate(plan.inputs()[0])?;
            input.domains.resize(plan.schema().fields().len(), None);
            Some(input)
        }
        _ => None,
    }
}

fn scan_estimate(scan: &TableScan) -> Option<Estimate> {
    let statistics = source_as_provider(&scan.source).ok()?.statistics()?;
    let rows = *statistics.num_rows.get_value()? as f64;
    let domain = |i: usize| {
        let column = statistics.column_statistics.get(i)?;
        column.distinct_count.get_value().map(|&d| d as f64)
    };
    let domains = match &scan.projection {
        Some(projection) => projection.iter().map(|&i| domain(i)).collect(),
        None => (0..scan.source.schema().fields().len())
            .map(domain)
            .collect(),
    };
    let mut estimate = Estimate { rows, domains };
    for filter in &scan.filters {
        let kept = selectivity(filter, &scan.projected_schema, &estimate);
        estimate = estimate.filtered(kept);
    }
    if let Some(fetch) = scan.fetch {
        estimate.rows = estimate.rows.min(fetch as f64);
    }
    Some(estimate)
}

fn aggregate_estimate(aggregate: &Aggregate) -> Option<Estimate> {
    let input = estimate(&aggregate.input)?;
    let schema = aggregate.input.schema();
    let keys: Vec<Option<f64>> = aggregate
        .group_expr
        .iter()
        .map(|e| input.domain(e, schema))
        .collect();
    let groups = match keys.iter().all(Option::is_some) {
        true => keys.iter().flatten().product::<f64>(),
        false => input.rows * GROUPS_PER_ROW,
    };
    let mut domains = keys;
    domains.resize(aggregate.schema.fields().len(), None);
    Some(Estimate {
        rows: groups.min(input.rows).max(1.0),
        domains,
    })
}

fn join_estimate(join: &Join) -> Option<Estimate> {
    let left = estimate(&join.left)?;
    let right = estimate(&join.right)?;
    let keys: Vec<Option<f64>> = join
        .on
        .iter()
        .map(|(l, r)| {
            let l = left.domain(l, join.left.schema());
            let r = right.domain(r, join.right.schema());
            l.into_iter().chain(r).reduce(f64::min)
        })
        .collect();
    let matched = joined_rows(left.rows, right.rows, &keys);
    let rows = match join.join_type {
        JoinType::Inner => matched,
        JoinType::Left => matched.max(left.rows),
        JoinType::Right => matched.max(right.rows),
        JoinType::Full => matched.max(left.rows).max(right.rows),
        JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftMark => left.rows * 0.5,
        JoinType::RightSemi | JoinType::RightAnti | JoinType::RightMark => right.rows * 0.5,
    };
    let mut domains = match join.join_type {
        JoinType::RightSemi | JoinType::RightAnti | JoinType::RightMark => right.domains,
        JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftMark => left.domains,
        _ => [left.domains, right.domains].concat(),
    };
    domains.resize(join.schema.fields().len(), None);
    Some(Estimate {
        rows: rows.max(1.0),
        domains,
    })
}

/// Rows of an equi-join of `left` and `right` rows on keys whose domains
/// are given. The largest domain divides: keys of several columns are
/// taken as wholly correlated (partsupp's part and supplier), so that
/// their join is rather over- than underestimated. With no domain known,
/// each row of the smaller side is taken to meet one row.
pub fn joined_rows(left: f64, right: f64, domains: &[Option<f64>]) -> f64 {
    let divisor = domains
        .iter()
        .flatten()
        .copied()
        .reduce(f64::max)
        .unwrap_or(left.max(right));
    (left * right / divisor.max(1.0)).max(1.0)
}

/// The share of rows of a plan of `schema` that `predicate` keeps.
pub fn selectivity(predicate: &Expr, schema: &DFSchema, input: &Estimate) -> f64 {
    let of = |e: &Expr| selectivity(e, schema, input);
    let equal = |e: &Expr| {
        input
            .domain(e, schema)
            .map_or(EQUALITY_SELECTIVITY, |d| 1.0 / d.max(1.0))
    };
    let kept = match predicate {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And => of(left) * of(right),
            Operator::Or => {
                let (l, r) = (of(left), of(right));
                l + r - l * r
            }
            Operator::Eq => match (left.as_ref(), right.as_ref()) {
                (column, Expr::Literal(..)) | (Expr::Literal(..), column) => equal(column),
                _ => EQUALITY_SELECTIVITY,
            },
            Operator::NotEq => 1.0 - EQUALITY_SELECTIVITY,
            Operator::Lt | Operator::LtEq | Operator::Gt | Operator::GtEq => RANGE_SELECTIVITY,
            _ => UNKNOWN_SELECTIVITY,
        },
        Expr::Between(Between { negated, .. }) | Expr::Like(Like { negated, .. }) => {
            match negated {
                true => 1.0 - NARROW_SELECTIVITY,
                false => NARROW_SELECTIVITY,
            }
        }
        Expr::InList(list) => {
            let share = (list.list.len() as f64 * equal(&list.expr)).min(1.0);
            match list.negated {
                true => 1.0 - share,
                false => share,
            }
        }
        Expr::Not(inner) => 1.0 - of(inner),
        Expr::IsNull(_) => EQUALITY_SELECTIVITY,
        Expr::IsNotNull(_) => 1.0 - EQUALITY_SELECTIVITY,
        _ => UNKNOWN_SELECTIVITY,
    };
    kept.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::logical_expr::{col, lit};

    use super::*;

    #[test]
    fn a_filtered_key_table_shrinks_the_join_by_its_domain() {
        // 6e6 rows meet 2 of 25 keys: 6e6 * 2 / 25.
        let rows = joined_rows(6e6, 2.0, &[Some(25.0)]);
        assert!((rows - 480_000.0).abs() < 1.0, "{rows}");
        // With no domain known, each row of the smaller side meets one row.
        assert_eq!(joined_rows(10.0, 1000.0, &[None]), 10.0);
        // Keys of two columns divide by the larger domain only.
        assert_eq!(
            joined_rows(8e5, 6e6, &[Some(2e5), Some(1e4)]),
            8e5 * 6e6 / 2e5
        );
        assert_eq!(joined_rows(0.5, 0.5, &[Some(10.0)]), 1.0);
    }

    #[test]
    fn selectivity_follows_domains_and_operators() {
        let schema = Schema::new(vec![
            Field::new("k", DataType::Int32, false),
            Field::new("s", DataType::Utf8, false),
        ]);
        let schema = DFSchema::try_from_qualified_schema("t", &schema).unwrap();
        let input = Estimate {
            rows: 1000.0,
            domains: vec![Some(50.0), None],
        };
        let of = |e: Expr| selectivity(&e, &schema, &input);
        assert_eq!(of(col("t.k").eq(lit(3))), 1.0 / 50.0);
        assert_eq!(of(col("t.s").eq(lit("x"))), EQUALITY_SELECTIVITY);
        assert_eq!(
            of(col("t.k").in_list(vec![lit(1), lit(2)], false)),
            2.0 / 50.0
        );
        let both = col("t.k").gt(lit(1)).and(col("t.s").like(lit("%a%")));
        assert_eq!(of(both), RANGE_SELECTIVITY * NARROW_SELECTIVITY);
        let either = col("t.s").eq(lit("x")).or(col("t.s").eq(lit("y")));
        assert!((of(either) - 0.19).abs() < 1e-9);
        assert_eq!(
            of(Expr::Not(Box::new(col("t.k").eq(lit(3))))),
            1.0 - 1.0 / 50.0
        );
    }
}
