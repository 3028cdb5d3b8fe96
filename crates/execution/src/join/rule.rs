//! Replaces the planner's hash joins.
//!
//! [`ChooseAsofJoin`], first: a hash join whose filter is an ASOF JOIN's
//! inequality (`__strata_asof_*`, as the SQL rewrite writes it) becomes
//! [`AsofJoinExec`].
//!
//! [`ChooseSemiJoin`], before DataFusion's rules: semi and anti joins become
//! [`MergeSemiJoinExec`] when both inputs come sorted on one integer key, in
//! one partition each; otherwise [`HybridSemiJoinExec`]. Joins with a
//! residual filter or NULL-aware `NOT IN` semantics keep DataFusion's
//! `HashJoinExec`, and so do joins with a row limit, unless they are set
//! operations, whose counts only Strata's operators keep.
//!
//! [`SpillingHashJoins`], after DataFusion's rules have chosen each join's
//! mode: a hash join whose inputs each come from one partition sorted on
//! the keys (as `numbers()` is, under the repartitioning the planner added)
//! becomes DataFusion's sort-merge join over those partitions, which holds
//! only the rows of one key at a time; the remaining hash joins that pair
//! partitions of their inputs become [`GraceHashJoinExec`]. Joins that
//! share one build side among several probe partitions (chosen for a build
//! side known to be small), NULL-aware anti joins, mark joins and joins
//! whose output order something above relies on keep DataFusion's operator.

use std::sync::Arc;

use datafusion::arrow::compute::SortOptions;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{JoinSide, JoinType, NullEquality, Result};
use datafusion::physical_expr::ScalarFunctionExpr;
use datafusion::physical_expr::expressions::{CastExpr, Column};
use datafusion::physical_expr::{Partitioning, PhysicalExprRef, PhysicalSortExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::joins::utils::JoinFilter;
use datafusion::physical_plan::joins::{HashJoinExec, NestedLoopJoinExec, SortMergeJoinExec};
use datafusion::physical_plan::limit::LocalLimitExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{ExecutionPlan, replace_children_if_necessary};

use super::asof_join::{AsofInequality, AsofJoinExec};
use super::grace_hash_join::GraceHashJoinExec;
use super::hybrid_semi_join::{HybridSemiJoinExec, Multiplicity, SemiJoinKind};
use super::merge_semi_join::{MergeSemiJoinExec, is_mergeable_key, sorted_on};
use strata_common::{ErrorCode, StrataError};
use strata_functions::asof::{AsofOp, USING_FUNCTION};

#[derive(Debug, Default)]
pub struct ChooseAsofJoin;

impl PhysicalOptimizerRule for ChooseAsofJoin {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        crate::replace_nodes(plan, asof_join)
    }

    fn name(&self) -> &str {
        "strata_choose_asof_join"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn asof_join(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    if let Some(join) = node.downcast_ref::<NestedLoopJoinExec>()
        && join.filter().is_some_and(|f| mentions_asof(f.expression()))
    {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            "ASOF join with hash algorithm needs at least one equi-join column",
        )
        .into_datafusion());
    }
    let Some(join) = node.downcast_ref::<HashJoinExec>() else {
        return Ok(None);
    };
    let Some(filter) = join.filter() else {
        return asof_using(join);
    };
    let condition = filter.expression().downcast_ref::<ScalarFunctionExpr>();
    let Some((op, [a, b])) =
        condition.and_then(|c| Some((AsofOp::of_function_name(c.name())?, c.args())))
    else {
        return match mentions_asof(filter.expression()) {
            true => Err(invalid_asof_on(
                "an ASOF JOIN's ON takes equalities of the two tables' columns and one inequality",
            )),
            false => Ok(None),
        };
    };
    let inequality = match (on_side(a, filter)?, on_side(b, filter)?) {
        ((JoinSide::Left, left), (JoinSide::Right, right)) => AsofInequality { left, right, op },
        ((JoinSide::Right, right), (JoinSide::Left, left)) => AsofInequality {
            left,
            right,
            op: op.flipped(),
        },
        _ => {
            return Err(invalid_asof_on(ONE_SIDE_EACH));
        }
    };
    Ok(Some(Arc::new(AsofJoinExec::try_new(
        Arc::clone(join.left()),
        Arc::clone(join.right()),
        join.on().to_vec(),
        inequality,
        *join.join_type(),
        join.projection.as_ref().map(|p| p.to_vec()),
    )?)))
}

/// An ASOF JOIN's `USING (keys..., t)`: the right input is the projection
/// that reads `t` through the marker, and the key pair on `t` is the
/// inequality `left.t >= right.t`.
fn asof_using(join: &HashJoinExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(projection) = join.right().downcast_ref::<ProjectionExec>() else {
        return Ok(None);
    };
    let marked = projection.expr().iter().enumerate().find_map(|(i, p)| {
        let function = p.expr.downcast_ref::<ScalarFunctionExpr>()?;
        (function.name() == USING_FUNCTION).then(|| (i, Arc::clone(&function.args()[0])))
    });
    let Some((position, column)) = marked else {
        return Ok(None);
    };
    let (asof, keys): (Vec<_>, Vec<_>) = join.on().iter().cloned().partition(|(_, right)| {
        right
            .downcast_ref::<Column>()
            .is_some_and(|c| c.index() == position)
    });
    let [(left_value, right_value)] = asof.as_slice() else {
        return Err(invalid_asof_on(
            "an ASOF JOIN's USING compares its last column",
        ));
    };
    if keys.is_empty() {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            "ASOF join with hash algorithm needs at least one equi-join column",
        )
        .into_datafusion());
    }
    let mut exprs = projection.expr().to_vec();
    exprs[position].expr = column;
    let right = ProjectionExec::try_new(exprs, Arc::clone(projection.input()))?;
    Ok(Some(Arc::new(AsofJoinExec::try_new(
        Arc::clone(join.left()),
        Arc::new(right),
        keys,
        AsofInequality {
            left: Arc::clone(left_value),
            right: Arc::clone(right_value),
            op: AsofOp::Ge,
        },
        *join.join_type(),
        join.projection.as_ref().map(|p| p.to_vec()),
    )?)))
}

fn mentions_asof(expr: &PhysicalExprRef) -> bool {
    expr.exists(|e| {
        Ok(e.downcast_ref::<ScalarFunctionExpr>()
            .is_some_and(|f| AsofOp::of_function_name(f.name()).is_some()))
    })
    .unwrap_or(false)
}

/// `expr` over the join filter's columns as an expression over the one
/// input all its columns come from, and that input's side.
fn on_side(expr: &PhysicalExprRef, filter: &JoinFilter) -> Result<(JoinSide, PhysicalExprRef)> {
    let indices = filter.column_indices();
    let mut side = None;
    let rewritten = Arc::clone(expr).transform(|e| {
        let Some(column) = e.downcast_ref::<Column>() else {
            return Ok(Transformed::no(e));
        };
        let index = &indices[column.index()];
        if side.is_some_and(|s| s != index.side) {
            return Err(invalid_asof_on(ONE_SIDE_EACH));
        }
        side = Some(index.side);
        let input = Column::new(column.name(), index.index);
        Ok(Transformed::yes(Arc::new(input) as PhysicalExprRef))
    })?;
    match side {
        Some(side) => Ok((side, rewritten.data)),
        None => Err(invalid_asof_on(ONE_SIDE_EACH)),
    }
}

const ONE_SIDE_EACH: &str = "an ASOF JOIN's inequality compares an expression of each table";

fn invalid_asof_on(message: &str) -> datafusion::error::DataFusionError {
    StrataError::new(ErrorCode::INVALID_JOIN_ON_EXPRESSION, message).into_datafusion()
}

#[derive(Debug, Default)]
pub struct ChooseSemiJoin;

impl PhysicalOptimizerRule for ChooseSemiJoin {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        crate::replace_nodes(plan, replacement)
    }

    fn name(&self) -> &str {
        "strata_choose_semi_join"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn replacement(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(join) = node.downcast_ref::<HashJoinExec>() else {
        return Ok(None);
    };
    let multiplicity = match set_operation(join) {
        true => Multiplicity::Counted,
        false => Multiplicity::Presence,
    };
    if join.filter().is_some()
        || join.null_aware
        || (node.fetch().is_some() && multiplicity == Multiplicity::Presence)
    {
        return Ok(None);
    }
    let (kind, probe_is_left) = match join.join_type() {
        JoinType::LeftSemi => (SemiJoinKind::Semi, true),
        JoinType::LeftAnti => (SemiJoinKind::Anti, true),
        JoinType::RightSemi => (SemiJoinKind::Semi, false),
        JoinType::RightAnti => (SemiJoinKind::Anti, false),
        _ => return Ok(None),
    };
    let (probe, build, on) = if probe_is_left {
        (join.left(), join.right(), join.on().to_vec())
    } else {
        let swapped = join
            .on()
            .iter()
            .map(|(l, r)| (Arc::clone(r), Arc::clone(l)))
            .collect();
        (join.right(), join.left(), swapped)
    };
    let nulls_equal = join.null_equality() == NullEquality::NullEqualsNull;
    let projection = join.projection.as_ref().map(|p| p.to_vec());
    let exec: Arc<dyn ExecutionPlan> = if let [(probe_key, build_key)] = on.as_slice()
        && mergeable(probe, probe_key)?
        && mergeable(build, build_key)?
    {
        Arc::new(MergeSemiJoinExec::try_new(
            Arc::clone(probe),
            Arc::clone(build),
            (Arc::clone(probe_key), Arc::clone(build_key)),
            (kind, multiplicity),
            projection,
        )?)
    } else {
        match HybridSemiJoinExec::try_new(
            Arc::clone(probe),
            Arc::clone(build),
            on,
            (kind, multiplicity),
            nulls_equal,
            projection,
        ) {
            Ok(exec) => Arc::new(exec),
            // Keys of different types: DataFusion's join compares them.
            Err(_) => return Ok(None),
        }
    };
    Ok(Some(match node.fetch() {
        // The join's limit applied, as it did, to each of its partitions.
        Some(fetch) => Arc::new(LocalLimitExec::new(exec, fetch)),
        None => exec,
    }))
}

/// Whether `join` is INTERSECT or EXCEPT as DataFusion plans them: a semi
/// or anti join without a filter whose keys are every column of both
/// inputs, in order, NULL matching NULL. (An `IN` or `EXISTS` matches NULL
/// to nothing.) Under ClickHouse's default ALL mode their rows are counted;
/// under DISTINCT the probe side is already distinct, so counting changes
/// nothing.
fn set_operation(join: &HashJoinExec) -> bool {
    let (left_keys, right_keys): (Vec<_>, Vec<_>) = join.on().iter().map(|(l, r)| (l, r)).unzip();
    join.null_equality() == NullEquality::NullEqualsNull
        && join.filter().is_none()
        && !join.null_aware
        && matches!(
            join.join_type(),
            JoinType::LeftSemi | JoinType::LeftAnti | JoinType::RightSemi | JoinType::RightAnti
        )
        && every_column(join.left(), &left_keys)
        && every_column(join.right(), &right_keys)
}

/// Whether `keys` are the columns of `plan` in order: key `i` reads column
/// `i`, or a cast of it that a projection computed as a column of its own
/// after the operand's columns (DataFusion casts an operand to the
/// operands' common type so).
fn every_column(plan: &Arc<dyn ExecutionPlan>, keys: &[&PhysicalExprRef]) -> bool {
    let projection = plan.downcast_ref::<ProjectionExec>();
    // The column of the plan's input a column of the plan is, casts aside.
    let source = |index: usize| match projection {
        Some(projection) => cast_column(&projection.expr().get(index)?.expr),
        None => Some(index),
    };
    let mut helpers = 0;
    for (i, key) in keys.iter().enumerate() {
        let Some(column) = cast_column(key) else {
            return false;
        };
        if column == i {
            continue;
        }
        helpers += usize::from(column >= keys.len());
        if source(column).is_none() || source(column) != source(i) {
            return false;
        }
    }
    plan.schema().fields().len() == keys.len() + helpers
}

/// The index of the column `expr` is, or casts.
fn cast_column(expr: &PhysicalExprRef) -> Option<usize> {
    match expr.downcast_ref::<CastExpr>() {
        Some(cast) => cast_column(cast.expr()),
        None => expr.downcast_ref::<Column>().map(Column::index),
    }
}

/// One partition sorted ascending on a non-NULL integer key: the merge join
/// reads it as it comes.
fn mergeable(plan: &Arc<dyn ExecutionPlan>, key: &PhysicalExprRef) -> Result<bool> {
    let schema = plan.schema();
    Ok(is_mergeable_key(&key.data_type(&schema)?)
        && !key.nullable(&schema)?
        && sorted_on(plan, key)?)
}

#[derive(Debug, Default)]
pub struct SpillingHashJoins;

impl PhysicalOptimizerRule for SpillingHashJoins {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        // The query's result keeps the order its root produces.
        with_spilling_joins(plan, true)
    }

    fn name(&self) -> &str {
        "strata_spilling_hash_joins"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Replaces the hash joins under `plan`, top down: `order_needed` says
/// whether something above relies on `plan`'s output order (an operator
/// that requires an order, through operators that keep it), in which case
/// a join that produces an order keeps its operator.
fn with_spilling_joins(
    plan: Arc<dyn ExecutionPlan>,
    order_needed: bool,
) -> Result<Arc<dyn ExecutionPlan>> {
    let required = plan.required_input_ordering();
    let maintained = plan.maintains_input_order();
    let children = plan
        .children()
        .into_iter()
        .enumerate()
        .map(|(i, child)| {
            let needed = required.get(i).is_some_and(Option::is_some)
                || (order_needed && maintained.get(i).copied().unwrap_or(false));
            with_spilling_joins(Arc::clone(child), needed)
        })
        .collect::<Result<Vec<_>>>()?;
    let plan = replace_children_if_necessary(plan, children)?;
    let Some(join) = plan.downcast_ref::<HashJoinExec>() else {
        return Ok(plan);
    };
    let joins_rows = matches!(
        join.join_type(),
        JoinType::Inner
            | JoinType::Left
            | JoinType::Right
            | JoinType::Full
            | JoinType::LeftSemi
            | JoinType::LeftAnti
            | JoinType::RightSemi
            | JoinType::RightAnti
    );
    if !joins_rows || (order_needed && plan.properties().output_ordering().is_some()) {
        return Ok(plan);
    }
    if let Some(merge) = merge_join_of_sorted_inputs(join, &plan)? {
        return Ok(merge);
    }
    match GraceHashJoinExec::try_new(Arc::new(join.builder().build()?)) {
        Ok(exec) => Ok(Arc::new(exec)),
        // Another mode, NULL-aware, or keys that cannot be compared.
        Err(_) => Ok(plan),
    }
}

/// `join` (of a type that joins rows, as the caller checked) as a
/// sort-merge join when both inputs are, under repartitioning, one
/// partition sorted ascending on the keys: it reads them side by side
/// in memory that does not grow with them. Its output is repartitioned as
/// the hash join's was, so the operators above run in parallel as before.
fn merge_join_of_sorted_inputs(
    join: &HashJoinExec,
    plan: &Arc<dyn ExecutionPlan>,
) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    // DataFusion 55's sort-merge join reads a filter's columns left side
    // first, whatever the filter's own order (apache/datafusion#25489); a
    // hash join's filter swapped with its inputs lists right columns first,
    // and the merge then returned no rows.
    if join.null_aware || join.filter().is_some() {
        return Ok(None);
    }
    let (left_keys, right_keys): (Vec<_>, Vec<_>) = join.on().iter().cloned().unzip();
    let (Some(left), Some(right)) = (
        sorted_partition(join.left(), &left_keys)?,
        sorted_partition(join.right(), &right_keys)?,
    ) else {
        return Ok(None);
    };
    for (l, r) in join.on() {
        // The merge compares keys as they are; the hash join coerced them.
        if l.data_type(&left.schema())? != r.data_type(&right.schema())? {
            return Ok(None);
        }
    }
    let Ok(merge) = SortMergeJoinExec::try_new(
        left,
        right,
        join.on().to_vec(),
        None,
        *join.join_type(),
        vec![SortOptions::default(); join.on().len()],
        join.null_equality(),
    ) else {
        // A shape the merge join does not take keeps the hash join.
        return Ok(None);
    };
    let mut merged: Arc<dyn ExecutionPlan> = Arc::new(merge);
    if let Some(projection) = &join.projection {
        let schema = merged.schema();
        let columns = projection
            .iter()
            .map(|&i| {
                let name = schema.field(i).name().clone();
                (Arc::new(Column::new(&name, i)) as PhysicalExprRef, name)
            })
            .collect::<Vec<_>>();
        merged = Arc::new(ProjectionExec::try_new(columns, merged)?);
    }
    let partitioning = plan.properties().output_partitioning();
    let count = partitioning.partition_count();
    if count > 1 {
        let partitioning = match partitioning {
            Partitioning::Hash(..) => partitioning.clone(),
            _ => Partitioning::RoundRobinBatch(count),
        };
        merged = Arc::new(RepartitionExec::try_new(merged, partitioning)?);
    }
    Ok(Some(merged))
}

/// The one sorted partition `plan` reads, if any: `plan` itself, or what is
/// under the repartitioning (and the per-partition projections and
/// filters above it) that the planner added for parallelism.
fn sorted_partition(
    plan: &Arc<dyn ExecutionPlan>,
    keys: &[PhysicalExprRef],
) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(single) = single_partition(plan)? else {
        return Ok(None);
    };
    let ordering = keys
        .iter()
        .map(|key| PhysicalSortExpr::new_default(Arc::clone(key)));
    let sorted = single
        .properties()
        .equivalence_properties()
        .ordering_satisfy(ordering)?;
    Ok(sorted.then_some(single))
}

fn single_partition(plan: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    if plan.properties().output_partitioning().partition_count() == 1 {
        return Ok(Some(Arc::clone(plan)));
    }
    if let Some(repartition) = plan.downcast_ref::<RepartitionExec>() {
        return single_partition(repartition.input());
    }
    let per_partition = plan.is::<ProjectionExec>() || plan.is::<FilterExec>();
    let [child] = plan.children()[..] else {
        return Ok(None);
    };
    if !per_partition {
        return Ok(None);
    }
    match single_partition(child)? {
        Some(single) => Ok(Some(replace_children_if_necessary(
            Arc::clone(plan),
            vec![single],
        )?)),
        None => Ok(None),
    }
}
