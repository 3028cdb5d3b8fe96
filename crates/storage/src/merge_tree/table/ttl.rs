//! Table TTL: rules that, once a Date or DateTime expression of a row is
//! in the past, delete the row or move its part to another disk of the
//! storage policy.
//!
//! Each part's least and greatest TTL value per rule is computed once from
//! the columns the rule reads and kept by part name. A part moves when all
//! its rows passed a move rule (the last such rule in order, as
//! ClickHouse picks); a DELETE rule drops a part whose rows all expired and
//! rewrites, without the expired rows, one where only some did.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, Int64Array, RecordBatch};
use datafusion::arrow::compute::{cast, filter_record_batch, max, min};
use datafusion::arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::utils::{collect_columns, reassign_expr_columns};
use strata_common::error::{ErrorCode, Result, StrataError};

use super::MergeTreeTable;
use crate::disk::Disk;
use crate::merge_tree::data_part::DataPart;
use crate::merge_tree::part_log::PartEventType;

/// What a rule does once its time has come.
#[derive(Debug, Clone)]
pub enum TtlTarget {
    Delete,
    Move(Arc<Disk>),
}

/// A compiled TTL rule of a table.
#[derive(Debug, Clone)]
pub struct TableTtl {
    /// A Date, Date32 or DateTime expression over the table's columns.
    pub expr: Arc<dyn PhysicalExpr>,
    pub target: TtlTarget,
}

impl TableTtl {
    /// Fails with BAD_TTL_EXPRESSION unless `expr` gives a point in time.
    pub fn check_type(data_type: &DataType) -> Result<()> {
        match data_type {
            DataType::Date32 | DataType::Date64 | DataType::Timestamp(_, _) => Ok(()),
            other => Err(StrataError::new(
                ErrorCode::BAD_TTL_EXPRESSION,
                format!(
                    "TTL expression result column should have Date, Date32, DateTime or DateTime64 type, but has {}",
                    strata_common::types::clickhouse_type_name(other, false)
                ),
            )),
        }
    }
}

/// Seconds since the epoch of the least and greatest TTL value of a part.
type Bounds = (i64, i64);

/// Per part name, the bounds of each rule, computed once.
#[derive(Debug, Default)]
pub struct TtlBounds(parking_lot::Mutex<HashMap<String, Vec<Option<Bounds>>>>);

impl MergeTreeTable {
    /// Applies every rule whose time came by `now` (seconds since the
    /// epoch) to the active parts; returns how many parts changed.
    pub fn apply_ttl(&self, now: i64) -> Result<usize> {
        if self.ttl.is_empty() {
            return Ok(0);
        }
        let mut changed = 0;
        for part in self.snapshot().iter() {
            let bounds = self.ttl_bounds(part)?;
            if self.apply_delete(part, &bounds, now)? {
                changed += 1;
                continue;
            }
            let destination = self
                .ttl
                .iter()
                .zip(&bounds)
                .filter_map(|(rule, bounds)| match (&rule.target, bounds) {
                    (TtlTarget::Move(disk), Some((_, greatest))) if *greatest <= now => Some(disk),
                    _ => None,
                })
                .next_back();
            if let Some(disk) = destination
                && part.part.disk_name() != disk.name
                && part.is_active()
            {
                self.move_one(part, disk)?;
                changed += 1;
            }
        }
        Ok(changed)
    }

    /// Drops `part` if the DELETE rule expired all its rows, rewrites it
    /// without the expired ones if only some; true if it did either.
    fn apply_delete(
        &self,
        part: &Arc<DataPart>,
        bounds: &[Option<Bounds>],
        now: i64,
    ) -> Result<bool> {
        let delete = self
            .ttl
            .iter()
            .zip(bounds)
            .find(|(rule, _)| matches!(rule.target, TtlTarget::Delete));
        let Some((rule, Some((least, greatest)))) = delete else {
            return Ok(false);
        };
        if *least > now || !part.is_active() {
            return Ok(false);
        }
        if *greatest <= now {
            return Ok(self.drop_expired(part));
        }
        let rows = self.read_all(part)?;
        let values = seconds(&rule.expr.evaluate(&rows)?.into_array(rows.num_rows())?)?;
        let keep: BooleanArray = values
            .iter()
            .map(|v| Some(v.is_none_or(|v| v > now)))
            .collect();
        let kept = filter_record_batch(&rows, &keep)?;
        self.replace_rows(part, &kept)?;
        Ok(true)
    }

    /// Takes `part` out of the active set: every row expired.
    fn drop_expired(&self, part: &Arc<DataPart>) -> bool {
        let Some(running) = self.start_merge(std::slice::from_ref(part), &part.part.name, true)
        else {
            return false;
        };
        let started = running.progress.started;
        self.swap_parts(
            std::slice::from_ref(part),
            None,
            PartEventType::MergeParts,
            started,
        )
    }

    /// Writes `rows` (what is left of `part`'s) at the next level on the
    /// part's disk and swaps it in.
    fn replace_rows(&self, part: &Arc<DataPart>, rows: &RecordBatch) -> Result<()> {
        let mut name = part.part.name.clone();
        name.level += 1;
        let Some(running) = self.start_merge(std::slice::from_ref(part), &name, true) else {
            return Ok(());
        };
        let written = self.write_rows(&name, rows, &part.partition, part.part.disk.as_ref())?;
        self.swap_parts(
            std::slice::from_ref(part),
            written,
            PartEventType::MergeParts,
            running.progress.started,
        );
        Ok(())
    }

    /// The bounds of each rule for `part`, from the cache or computed.
    fn ttl_bounds(&self, part: &DataPart) -> Result<Vec<Option<Bounds>>> {
        let name = part.name();
        if let Some(bounds) = self.ttl_bounds.0.lock().get(&name) {
            return Ok(bounds.clone());
        }
        let bounds = self
            .ttl
            .iter()
            .map(|rule| self.rule_bounds(part, &rule.expr))
            .collect::<Result<Vec<_>>>()?;
        self.ttl_bounds.0.lock().insert(name, bounds.clone());
        Ok(bounds)
    }

    /// Least and greatest value of `expr` over `part`'s rows, reading only
    /// the columns it uses; `None` for a part without rows.
    fn rule_bounds(&self, part: &DataPart, expr: &Arc<dyn PhysicalExpr>) -> Result<Option<Bounds>> {
        let used = collect_columns(expr);
        let mut fields: Vec<Field> = Vec::with_capacity(used.len());
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(used.len());
        for column in &used {
            let field = self.schema().field(column.index());
            if fields.iter().any(|f| f.name() == field.name()) {
                continue;
            }
            columns.push(part.read_column(field, 0..part.granules(), self.past(), None)?);
            fields.push(field.clone());
        }
        let schema = Arc::new(Schema::new(fields));
        let rows = part.part.rows as usize;
        let batch = RecordBatch::try_new_with_options(
            Arc::clone(&schema),
            columns,
            &datafusion::arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        let expr = reassign_expr_columns(Arc::clone(expr), &schema)?;
        let values = seconds(&expr.evaluate(&batch)?.into_array(rows)?)?;
        Ok(min(&values).zip(max(&values)))
    }
}

/// A Date or DateTime array as seconds since the epoch.
fn seconds(values: &ArrayRef) -> Result<Int64Array> {
    let instants = cast(values, &DataType::Timestamp(TimeUnit::Second, None))?;
    let numbers = cast(&instants, &DataType::Int64)?;
    Ok(numbers
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("a cast to Int64 gives Int64")
        .clone())
}
