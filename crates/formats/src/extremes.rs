//! `extremes = 1`: the smallest and largest value of each result column,
//! over the rows written (not the totals), shown after them by the formats
//! that ClickHouse shows them in.

use std::io::Write;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::ScalarValue;
use datafusion::functions_aggregate::min_max::{MaxAccumulator, MinAccumulator};
use datafusion::logical_expr::Accumulator;

use crate::{ResultWriter, Statistics};

/// A writer that follows its rows with their extremes.
pub(crate) struct ExtremesWriter {
    inner: Box<dyn ResultWriter>,
    schema: SchemaRef,
    /// Per column, its smallest and largest value so far; None where the
    /// type has no order (the column shows NULL there).
    columns: Vec<Option<(MinAccumulator, MaxAccumulator)>>,
    rows: u64,
}

impl ExtremesWriter {
    pub(crate) fn new(inner: Box<dyn ResultWriter>, schema: SchemaRef) -> Self {
        let columns = schema
            .fields()
            .iter()
            .map(|f| {
                let min = MinAccumulator::try_new(f.data_type()).ok()?;
                let max = MaxAccumulator::try_new(f.data_type()).ok()?;
                Some((min, max))
            })
            .collect();
        ExtremesWriter {
            inner,
            schema,
            columns,
            rows: 0,
        }
    }

    /// Two rows: the smallest values, then the largest.
    fn extremes(&mut self) -> std::io::Result<RecordBatch> {
        let fields: Vec<Field> = self
            .schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(fields.len());
        for (field, column) in fields.iter().zip(&mut self.columns) {
            let pair = match column {
                Some((min, max)) => [min.evaluate(), max.evaluate()],
                None => [
                    ScalarValue::try_from(field.data_type()),
                    ScalarValue::try_from(field.data_type()),
                ],
            };
            let [min, max] = pair.map(|v| v.map_err(std::io::Error::other));
            arrays.push(ScalarValue::iter_to_array([min?, max?]).map_err(std::io::Error::other)?);
        }
        RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(std::io::Error::other)
    }
}

impl ResultWriter for ExtremesWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        for (column, array) in self.columns.iter_mut().zip(batch.columns()) {
            let Some((min, max)) = column else {
                continue;
            };
            let values = [Arc::clone(array)];
            if min.update_batch(&values).is_err() || max.update_batch(&values).is_err() {
                *column = None;
            }
        }
        self.rows += batch.num_rows() as u64;
        self.inner.write_batch(out, batch)
    }

    fn write_totals(&mut self, out: &mut dyn Write, totals: &RecordBatch) -> std::io::Result<()> {
        self.inner.write_totals(out, totals)
    }

    fn write_extremes(
        &mut self,
        out: &mut dyn Write,
        extremes: &RecordBatch,
    ) -> std::io::Result<()> {
        self.inner.write_extremes(out, extremes)
    }

    fn finish(&mut self, out: &mut dyn Write, statistics: &Statistics) -> std::io::Result<()> {
        // No rows, no extremes (ClickHouse shows none either).
        if self.rows > 0 {
            let extremes = self.extremes()?;
            self.inner.write_extremes(out, &extremes)?;
        }
        self.inner.finish(out, statistics)
    }
}
