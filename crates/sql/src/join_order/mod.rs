//! Join order: the inner joins of a query level run in the order that keeps
//! the rows between them fewest, not in the order the query names its
//! tables. `FROM supplier, lineitem, orders, customer, nation n1, nation n2
//! WHERE ...` (TPC-H Q7) joins the two nations, each filtered to two rows,
//! with supplier and customer first, so that lineitem meets a few thousand
//! suppliers rather than all of them.
//!
//! [`JoinOrder`] runs after filters are pushed down. It takes a *join
//! region*: a tree of inner equi-joins, with filters and column-only
//! projections between them, over *inputs* (whatever else is below: scans,
//! subqueries, other joins). It estimates each input (see [`estimate`]) and
//! joins greedily, always the two connected pieces whose join is estimated
//! smallest (greedy operator ordering), the smaller piece on the left, the
//! side a hash join builds. Predicates that are not equalities of two
//! inputs go to the first join that has every input they read. A projection
//! on top gives back the region's columns in their order.
//!
//! A region keeps its order where an input cannot be estimated, where the
//! inputs' equalities do not connect them all (a cross product), or where a
//! condition is volatile, reads a subquery, or is one of Strata's join
//! markers. `query_plan_optimize_join_order_limit` (ClickHouse's setting) is
//! the most inputs a region may have to be reordered; 0 turns it off.

pub mod estimate;

use std::sync::Arc;

use datafusion::common::config::ConfigExtension;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{
    Column, DFSchemaRef, JoinConstraint, JoinType, NullEquality, Result, extensions_options,
    internal_datafusion_err,
};
use datafusion::logical_expr::utils::{conjunction, split_conjunction_owned};
use datafusion::logical_expr::{Expr, Filter, Join, LogicalPlan, Projection};
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

use estimate::{Estimate, estimate, joined_rows, key_column, selectivity};

extensions_options! {
    /// The query's `query_plan_optimize_join_order_limit`.
    pub struct JoinOrderOptions {
        /// Most inputs of a region that is reordered; 0: none is.
        pub limit: usize, default = 10
    }
}

impl ConfigExtension for JoinOrderOptions {
    const PREFIX: &'static str = "strata_join_order";
}

/// Regions with fewer inputs are left alone: a join of two has one order,
/// and the physical planner picks its build side.
const FEWEST_INPUTS: usize = 3;
/// Inputs are tracked in a 64-bit set.
const MOST_INPUTS: usize = 64;

#[derive(Debug, Default)]
pub struct JoinOrder;

impl OptimizerRule for JoinOrder {
    fn name(&self) -> &str {
        "strata_join_order"
    }

    fn supports_rewrite(&self) -> bool {
        true
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        let limit = config
            .options()
            .extensions
            .get::<JoinOrderOptions>()
            .map_or(JoinOrderOptions::default().limit, |o| o.limit)
            .min(MOST_INPUTS);
        if limit < FEWEST_INPUTS {
            return Ok(Transformed::no(plan));
        }
        reorder(plan, limit)
    }
}

/// Reorders every region in `plan`, those inside a region's inputs first.
fn reorder(plan: LogicalPlan, limit: usize) -> Result<Transformed<LogicalPlan>> {
    plan.transform_up(|node| reorder_region(node, limit))
}

fn reorder_region(plan: LogicalPlan, limit: usize) -> Result<Transformed<LogicalPlan>> {
    if !is_region_join(&plan) {
        return Ok(Transformed::no(plan));
    }
    let mut region = Region::default();
    let Some(shape) = region.collect(&plan) else {
        return Ok(Transformed::no(plan));
    };
    if !(FEWEST_INPUTS..=limit).contains(&region.inputs.len()) {
        return Ok(Transformed::no(plan));
    }
    match region.order() {
        Some(order) if order.shape != shape => {
            Ok(Transformed::yes(region.build(order, plan.schema())?))
        }
        _ => Ok(Transformed::no(plan)),
    }
}

/// An inner join on equalities, with nothing that fixes its order.
fn is_region_join(plan: &LogicalPlan) -> bool {
    matches!(plan, LogicalPlan::Join(join)
        if join.join_type == JoinType::Inner
            && join.join_constraint == JoinConstraint::On
            && join.null_equality == NullEquality::NullEqualsNothing
            && !join.null_aware)
}

/// Which inputs, by their index in [`Region::inputs`], a join tree joins.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Input(usize),
    Join(Box<Shape>, Box<Shape>),
}

/// A join region taken apart.
#[derive(Debug, Default)]
struct Region {
    inputs: Vec<LogicalPlan>,
    equalities: Vec<(Expr, Expr)>,
    /// Conjuncts of the joins' filters and of the filters between them.
    predicates: Vec<Expr>,
}

/// A chosen order: its shape, and the inputs each condition reads.
struct Order {
    shape: Shape,
    /// Per equality, the input each side reads, as one-input sets.
    sides: Vec<(u64, u64)>,
    /// Per predicate, the inputs it reads.
    reads: Vec<u64>,
}

/// A joined set of inputs while the order is chosen.
struct Piece {
    inputs: u64,
    rows: f64,
    shape: Shape,
}

/// An equality as the two inputs it joins, with its key's domain.
struct Edge {
    inputs: u64,
    domain: Option<f64>,
}

impl Region {
    /// Gathers the region under `plan`; `None` where a condition forbids
    /// reordering it.
    fn collect(&mut self, plan: &LogicalPlan) -> Option<Shape> {
        match plan {
            LogicalPlan::Join(join) if is_region_join(plan) => {
                self.equalities.extend(join.on.iter().cloned());
                if let Some(filter) = &join.filter {
                    self.predicates
                        .extend(split_conjunction_owned(filter.clone()));
                }
                let left = self.collect(&join.left)?;
                let right = self.collect(&join.right)?;
                Some(Shape::Join(Box::new(left), Box::new(right)))
            }
            LogicalPlan::Projection(projection)
                if is_region_join(&projection.input)
                    && projection.expr.iter().all(|e| matches!(e, Expr::Column(_))) =>
            {
                self.collect(&projection.input)
            }
            LogicalPlan::Filter(filter) if is_region_join(&filter.input) => {
                self.predicates
                    .extend(split_conjunction_owned(filter.predicate.clone()));
                self.collect(&filter.input)
            }
            other => {
                (self.inputs.len() < MOST_INPUTS).then_some(())?;
                self.inputs.push(other.clone());
                Some(Shape::Input(self.inputs.len() - 1))
            }
        }
    }

    /// The inputs `expr` reads, as a set; `None` where a column is in no
    /// input or in several.
    fn inputs_of(&self, expr: &Expr) -> Option<u64> {
        let mut set = 0u64;
        for column in expr.column_refs() {
            set |= 1 << self.owner(column)?;
        }
        Some(set)
    }

    fn owner(&self, column: &Column) -> Option<usize> {
        let mut owners = self
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, input)| input.schema().has_column(column));
        let (owner, _) = owners.next()?;
        owners.next().is_none().then_some(owner)
    }

    /// The one input `expr` reads, where it reads exactly one.
    fn single_input(&self, expr: &Expr) -> Option<u64> {
        self.inputs_of(expr).filter(|set| set.count_ones() == 1)
    }

    /// The greedy order, or `None` where the region keeps its own.
    fn order(&self) -> Option<Order> {
        let conditions = self.equalities.iter().flat_map(|(l, r)| [l, r]);
        if conditions.chain(&self.predicates).any(fixes_order) {
            return None;
        }
        let estimates: Vec<Estimate> = self.inputs.iter().map(estimate).collect::<Option<_>>()?;
        let sides: Vec<(u64, u64)> = self
            .equalities
            .iter()
            .map(|(l, r)| Some((self.single_input(l)?, self.single_input(r)?)))
            .collect::<Option<_>>()?;
        let reads: Vec<u64> = self
            .predicates
            .iter()
            .map(|p| self.inputs_of(p))
            .collect::<Option<_>>()?;
        let edges = self.edges(&sides, &estimates)?;
        let mut pieces = self.pieces(&reads, &estimates);
        while pieces.len() > 1 {
            let (i, j, rows) = cheapest_join(&pieces, &edges)?;
            let (b, a) = (pieces.remove(j), pieces.remove(i));
            let (left, right) = if a.rows <= b.rows { (a, b) } else { (b, a) };
            let inputs = left.inputs | right.inputs;
            let filtered = reads
                .iter()
                .filter(|&&set| first_read(set, left.inputs, right.inputs))
                .fold(rows, |rows, _| rows * estimate::UNKNOWN_SELECTIVITY);
            pieces.push(Piece {
                inputs,
                rows: filtered.max(1.0),
                shape: Shape::Join(Box::new(left.shape), Box::new(right.shape)),
            });
        }
        let shape = pieces.pop()?.shape;
        Some(Order {
            shape,
            sides,
            reads,
        })
    }

    /// Each equality as an edge between the two inputs it reads; `None`
    /// where one reads a single input on both sides.
    fn edges(&self, sides: &[(u64, u64)], estimates: &[Estimate]) -> Option<Vec<Edge>> {
        let domains = self.key_domains(sides, estimates);
        let edges = sides.iter().zip(domains).map(|(&(ls, rs), domain)| {
            (ls != rs).then_some(Edge {
                inputs: ls | rs,
                domain,
            })
        });
        edges.collect()
    }

    /// The domain of each equality's key. Columns that equalities join
    /// form classes, and a class's domain is the least known domain in it:
    /// a foreign key holds only values of the key it names (`c_nationkey =
    /// s_nationkey = n_nationkey` has nation's 25).
    fn key_domains(&self, sides: &[(u64, u64)], estimates: &[Estimate]) -> Vec<Option<f64>> {
        let mut columns: Vec<(u64, Column)> = Vec::new();
        let mut class: Vec<usize> = Vec::new();
        let mut id = |side: u64, expr: &Expr| -> Option<usize> {
            let column = key_column(expr)?;
            let found = columns.iter().position(|(s, c)| *s == side && c == column);
            Some(found.unwrap_or_else(|| {
                columns.push((side, column.clone()));
                class.push(class.len());
                class.len() - 1
            }))
        };
        let pairs: Vec<(Option<usize>, Option<usize>)> = self
            .equalities
            .iter()
            .zip(sides)
            .map(|((l, r), &(ls, rs))| (id(ls, l), id(rs, r)))
            .collect();
        let root = |class: &[usize], mut i: usize| {
            while class[i] != i {
                i = class[i];
            }
            i
        };
        for &(l, r) in &pairs {
            if let (Some(l), Some(r)) = (l, r) {
                let (l, r) = (root(&class, l), root(&class, r));
                class[l.max(r)] = l.min(r);
            }
        }
        let mut least: Vec<Option<f64>> = vec![None; class.len()];
        for (i, (side, column)) in columns.iter().enumerate() {
            let input = side.trailing_zeros() as usize;
            let schema = self.inputs[input].schema();
            let domain = estimates[input].domain(&Expr::Column(column.clone()), schema);
            let slot = &mut least[root(&class, i)];
            *slot = match (*slot, domain) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        let domain_of = |i: Option<usize>| i.and_then(|i| least[root(&class, i)]);
        pairs
            .iter()
            .map(|&(l, r)| domain_of(l).or(domain_of(r)))
            .collect()
    }

    /// One piece per input, its rows scaled by the predicates that read it alone.
    fn pieces(&self, reads: &[u64], estimates: &[Estimate]) -> Vec<Piece> {
        let mut rows: Vec<f64> = estimates.iter().map(|e| e.rows).collect();
        for (predicate, &set) in self.predicates.iter().zip(reads) {
            if set.count_ones() == 1 {
                let i = set.trailing_zeros() as usize;
                rows[i] *= selectivity(predicate, self.inputs[i].schema(), &estimates[i]);
            }
        }
        let pieces = rows.into_iter().enumerate().map(|(i, rows)| Piece {
            inputs: 1 << i,
            rows: rows.max(1.0),
            shape: Shape::Input(i),
        });
        pieces.collect()
    }

    /// The join tree of `order`, under the region's columns as `schema` has them.
    fn build(self, order: Order, schema: &DFSchemaRef) -> Result<LogicalPlan> {
        let mut parts = Parts {
            inputs: self.inputs.into_iter().map(Some).collect(),
            equalities: self
                .equalities
                .into_iter()
                .zip(order.sides)
                .map(Some)
                .collect(),
            predicates: self
                .predicates
                .into_iter()
                .zip(order.reads)
                .map(Some)
                .collect(),
        };
        let (plan, _) = parts.build(&order.shape)?;
        // What is left reads no input: constants.
        let rest = parts.predicates.into_iter().flatten().map(|(p, _)| p);
        let plan = match conjunction(rest) {
            Some(predicate) => LogicalPlan::Filter(Filter::try_new(predicate, Arc::new(plan))?),
            None => plan,
        };
        let columns = schema.columns().into_iter().map(Expr::Column).collect();
        Ok(LogicalPlan::Projection(Projection::try_new(
            columns,
            Arc::new(plan),
        )?))
    }
}

/// A region's parts, each taken by the join that first reads it whole.
struct Parts {
    inputs: Vec<Option<LogicalPlan>>,
    equalities: Vec<Option<((Expr, Expr), (u64, u64))>>,
    predicates: Vec<Option<(Expr, u64)>>,
}

impl Parts {
    /// The plan of `shape` and the inputs it joins.
    fn build(&mut self, shape: &Shape) -> Result<(LogicalPlan, u64)> {
        let (plan, set) = match shape {
            Shape::Input(i) => {
                let input = self.inputs[*i].take();
                (
                    input.ok_or_else(|| {
                        internal_datafusion_err!("join order: an input joined twice")
                    })?,
                    1 << i,
                )
            }
            Shape::Join(left, right) => {
                let (left, left_set) = self.build(left)?;
                let (right, right_set) = self.build(right)?;
                let on = self.equalities_between(left_set, right_set);
                let filter = self.take_predicates(|set| first_read(set, left_set, right_set));
                let join = Join::try_new(
                    Arc::new(left),
                    Arc::new(right),
                    on,
                    filter,
                    JoinType::Inner,
                    JoinConstraint::On,
                    NullEquality::NullEqualsNothing,
                    false,
                )?;
                (LogicalPlan::Join(join), left_set | right_set)
            }
        };
        // A predicate of one input alone is placed over it.
        let filter = match shape {
            Shape::Input(_) => self.take_predicates(|reads| reads != 0 && reads == set),
            Shape::Join(..) => None,
        };
        let plan = match filter {
            Some(predicate) => LogicalPlan::Filter(Filter::try_new(predicate, Arc::new(plan))?),
            None => plan,
        };
        Ok((plan, set))
    }

    /// The equalities of one input in `left` and one in `right`, sides in that order.
    fn equalities_between(&mut self, left: u64, right: u64) -> Vec<(Expr, Expr)> {
        let mut on = Vec::new();
        for slot in &mut self.equalities {
            let Some(((_, _), (ls, rs))) = slot else {
                continue;
            };
            let (ls, rs) = (*ls, *rs);
            if ls & left != 0 && rs & right != 0 {
                let ((l, r), _) = slot.take().expect("matched above");
                on.push((l, r));
            } else if rs & left != 0 && ls & right != 0 {
                let ((l, r), _) = slot.take().expect("matched above");
                on.push((r, l));
            }
        }
        on
    }

    fn take_predicates(&mut self, placed_here: impl Fn(u64) -> bool) -> Option<Expr> {
        let taken = self.predicates.iter_mut().filter_map(|slot| match slot {
            Some((_, reads)) if placed_here(*reads) => slot.take().map(|(p, _)| p),
            _ => None,
        });
        conjunction(taken.collect::<Vec<_>>())
    }
}

/// Whether a predicate reading `set` is first read whole by a join of
/// `left` and `right`.
fn first_read(set: u64, left: u64, right: u64) -> bool {
    set & !(left | right) == 0 && set & !left != 0 && set & !right != 0
}

/// The two connected pieces whose join is estimated smallest, and its rows.
fn cheapest_join(pieces: &[Piece], edges: &[Edge]) -> Option<(usize, usize, f64)> {
    let mut best: Option<(usize, usize, f64)> = None;
    for i in 0..pieces.len() {
        for j in i + 1..pieces.len() {
            let (a, b) = (&pieces[i], &pieces[j]);
            let keys: Vec<Option<f64>> = edges
                .iter()
                .filter(|e| e.inputs & a.inputs != 0 && e.inputs & b.inputs != 0)
                .map(|e| e.domain)
                .collect();
            if keys.is_empty() {
                continue;
            }
            let rows = joined_rows(a.rows, b.rows, &keys);
            if best.is_none_or(|(_, _, least)| rows < least) {
                best = Some((i, j, rows));
            }
        }
    }
    best
}

/// A condition whose place in the plan must not move: volatile, reading a
/// subquery or an outer query, or one of Strata's markers for its own join
/// operators (ASOF).
fn fixes_order(expr: &Expr) -> bool {
    let fixed = expr.exists(|e| {
        Ok(match e {
            Expr::ScalarSubquery(_)
            | Expr::Exists(_)
            | Expr::InSubquery(_)
            | Expr::OuterReferenceColumn(..) => true,
            Expr::ScalarFunction(f) => f.name().starts_with("__strata"),
            _ => false,
        })
    });
    expr.is_volatile() || fixed.unwrap_or(true)
}
