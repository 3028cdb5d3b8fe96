//! Sliding window frames (`ROWS BETWEEN 1 PRECEDING AND CURRENT ROW`) over
//! aggregates whose states cannot give rows back (`argMax`, `groupArray`,
//! `uniq`, ...): DataFusion needs `retract_batch` there. [`Replaying`]
//! keeps the frame's rows instead and aggregates them anew with a fresh
//! accumulator for each result, so a result costs the frame's size.

use std::collections::VecDeque;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::datatypes::{FieldRef, Schema};
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::function::AccumulatorArgs;
use datafusion::logical_expr::{Accumulator, AggregateUDF};
use datafusion::physical_expr::{PhysicalExpr, PhysicalSortExpr};

use super::combinators::registry;

/// The accumulator of a sliding frame for the aggregate registered as
/// `name`: its own where it can retract rows, else one that replays them.
pub(crate) fn sliding_accumulator(
    name: &str,
    args: AccumulatorArgs,
) -> Result<Box<dyn Accumulator>> {
    let Some(function) = registry().get(name).cloned() else {
        return internal_err!("aggregate {name} is not registered");
    };
    let plain = function.accumulator(args.clone())?;
    // Without arguments a retracted batch's row count is unknown.
    if plain.supports_retract_batch() || args.exprs.is_empty() {
        return Ok(plain);
    }
    Ok(Box::new(Replaying {
        function,
        args: OwnedArgs::new(&args),
        batches: VecDeque::new(),
        skip: 0,
    }))
}

/// [`AccumulatorArgs`] held past the call that gave them.
#[derive(Debug)]
struct OwnedArgs {
    return_field: FieldRef,
    schema: Schema,
    ignore_nulls: bool,
    order_bys: Vec<PhysicalSortExpr>,
    is_reversed: bool,
    name: String,
    is_distinct: bool,
    exprs: Vec<Arc<dyn PhysicalExpr>>,
    expr_fields: Vec<FieldRef>,
}

impl OwnedArgs {
    fn new(args: &AccumulatorArgs) -> Self {
        OwnedArgs {
            return_field: Arc::clone(&args.return_field),
            schema: args.schema.clone(),
            ignore_nulls: args.ignore_nulls,
            order_bys: args.order_bys.to_vec(),
            is_reversed: args.is_reversed,
            name: args.name.to_string(),
            is_distinct: args.is_distinct,
            exprs: args.exprs.to_vec(),
            expr_fields: args.expr_fields.to_vec(),
        }
    }

    fn args(&self) -> AccumulatorArgs<'_> {
        AccumulatorArgs {
            return_field: Arc::clone(&self.return_field),
            schema: &self.schema,
            ignore_nulls: self.ignore_nulls,
            order_bys: &self.order_bys,
            is_reversed: self.is_reversed,
            name: &self.name,
            is_distinct: self.is_distinct,
            exprs: &self.exprs,
            expr_fields: &self.expr_fields,
        }
    }
}

/// The rows of a sliding frame, aggregated anew for each result.
#[derive(Debug)]
struct Replaying {
    function: Arc<AggregateUDF>,
    args: OwnedArgs,
    /// The frame's rows as they were added, batch by batch.
    batches: VecDeque<Vec<ArrayRef>>,
    /// Rows of the first batch already retracted.
    skip: usize,
}

impl Replaying {
    /// A fresh accumulator that has seen the frame's rows.
    fn replayed(&self) -> Result<Box<dyn Accumulator>> {
        let mut accumulator = self.function.accumulator(self.args.args())?;
        for (i, batch) in self.batches.iter().enumerate() {
            let skip = if i == 0 { self.skip } else { 0 };
            let rows: Vec<ArrayRef> = batch
                .iter()
                .map(|column| column.slice(skip, column.len() - skip))
                .collect();
            accumulator.update_batch(&rows)?;
        }
        Ok(accumulator)
    }
}

impl Accumulator for Replaying {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        if values.first().is_some_and(|column| !column.is_empty()) {
            self.batches.push_back(values.to_vec());
        }
        Ok(())
    }

    /// Rows leave a frame in the order they entered it.
    fn retract_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let mut rows = values.first().map_or(0, |column| column.len());
        while rows > 0 {
            let Some(front) = self.batches.front() else {
                return internal_err!("retracted {rows} rows more than the frame holds");
            };
            let left = front[0].len() - self.skip;
            if rows < left {
                self.skip += rows;
                break;
            }
            self.batches.pop_front();
            self.skip = 0;
            rows -= left;
        }
        Ok(())
    }

    fn supports_retract_batch(&self) -> bool {
        true
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.replayed()?.evaluate()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        self.replayed()?.state()
    }

    fn merge_batch(&mut self, _states: &[ArrayRef]) -> Result<()> {
        internal_err!("a window frame's accumulator is never merged")
    }

    fn size(&self) -> usize {
        let rows: usize = self
            .batches
            .iter()
            .flatten()
            .map(|column| column.get_array_memory_size())
            .sum();
        std::mem::size_of_val(self) + rows
    }
}
