//! Row groups skipped by their statistics: a query's filter, as a
//! [`PruningPredicate`] over the table's columns, is judged on each row
//! group's min, max, null and row counts from the footer, and a row group
//! the filter cannot match is not read. A column whose type in the file is
//! not the table's (the reader converts it) gives no statistics: converted
//! values may not keep the file's order. Nor does a float column: Parquet's
//! min and max leave NaN out, so a row group of `1` and `NaN` would be
//! skipped by `x != 1` though its NaN row matches.

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, UInt64Array};
use datafusion::arrow::datatypes::Schema;
use datafusion::common::pruning::PruningStatistics;
use datafusion::common::{Column, ScalarValue};
use datafusion::physical_optimizer::pruning::PruningPredicate;
use parquet::arrow::arrow_reader::ArrowReaderBuilder;
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::file::metadata::RowGroupMetaData;
use parquet::schema::types::SchemaDescriptor;

/// `builder` reading only the row groups `predicate` may match; all of
/// them where there is no predicate or its judgement fails.
pub fn pruned<T>(
    builder: ArrowReaderBuilder<T>,
    predicate: Option<&PruningPredicate>,
) -> ArrowReaderBuilder<T> {
    let Some(predicate) = predicate else {
        return builder;
    };
    let statistics = RowGroupStatistics {
        row_groups: builder.metadata().row_groups(),
        file_schema: builder.schema(),
        parquet_schema: builder.parquet_schema(),
        table_schema: predicate.schema(),
    };
    let Ok(matches) = predicate.prune(&statistics) else {
        return builder;
    };
    debug_assert_eq!(matches.len(), builder.metadata().num_row_groups());
    let kept: Vec<usize> = (0..matches.len()).filter(|&i| matches[i]).collect();
    builder.with_row_groups(kept)
}

/// The statistics of a file's row groups, for the columns whose type in
/// the file is the table's and not a float.
struct RowGroupStatistics<'a> {
    row_groups: &'a [RowGroupMetaData],
    file_schema: &'a Schema,
    parquet_schema: &'a SchemaDescriptor,
    table_schema: &'a Schema,
}

impl RowGroupStatistics<'_> {
    fn converter(&self, column: &Column) -> Option<StatisticsConverter<'_>> {
        let in_file = self.file_schema.field_with_name(&column.name).ok()?;
        let in_table = self.table_schema.field_with_name(&column.name).ok()?;
        if in_file.data_type() != in_table.data_type() || in_file.data_type().is_floating() {
            return None;
        }
        StatisticsConverter::try_new(&column.name, self.file_schema, self.parquet_schema).ok()
    }
}

impl PruningStatistics for RowGroupStatistics<'_> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.converter(column)?.row_group_mins(self.row_groups).ok()
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.converter(column)?
            .row_group_maxes(self.row_groups)
            .ok()
    }

    fn num_containers(&self) -> usize {
        self.row_groups.len()
    }

    fn null_counts(&self, column: &Column) -> Option<ArrayRef> {
        let counts = self
            .converter(column)?
            .row_group_null_counts(self.row_groups);
        Some(Arc::new(counts.ok()?))
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        let rows = self.row_groups.iter().map(|g| g.num_rows() as u64);
        Some(Arc::new(UInt64Array::from_iter_values(rows)))
    }

    fn contained(&self, _column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Float64Array, Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field};
    use datafusion::arrow::record_batch::RecordBatch;
    use datafusion::logical_expr::Operator;
    use datafusion::physical_expr::expressions::{BinaryExpr, col, lit};
    use datafusion::physical_optimizer::pruning::PruningPredicateBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::file::metadata::ParquetMetaData;
    use parquet::file::properties::WriterProperties;

    use super::*;

    fn has_statistics(metadata: &ParquetMetaData) -> bool {
        metadata
            .row_groups()
            .iter()
            .all(|g| g.columns().iter().all(|c| c.statistics().is_some()))
    }

    /// Parquet of `batch` in row groups of 1000 rows.
    fn parquet(batch: RecordBatch) -> bytes::Bytes {
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(1000))
            .build();
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        bytes::Bytes::from(out)
    }

    /// Parquet of `n` 0..3000 and `s` as its text, in three row groups.
    fn three_row_groups() -> bytes::Bytes {
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let n = Int64Array::from_iter_values(0..3000);
        let s = StringArray::from_iter_values((0..3000).map(|i| i.to_string()));
        parquet(RecordBatch::try_new(schema, vec![Arc::new(n), Arc::new(s)]).unwrap())
    }

    /// The rows of `file` read with `n <op> value` over a table whose `n`
    /// is `value`'s type.
    fn rows_read(file: bytes::Bytes, op: Operator, value: ScalarValue) -> usize {
        let table = Arc::new(Schema::new(vec![Field::new("n", value.data_type(), false)]));
        let filter = BinaryExpr::new(col("n", &table).unwrap(), op, lit(value));
        let predicate = PruningPredicateBuilder::new()
            .with_file_schema(table)
            .try_build(Arc::new(filter))
            .unwrap();
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        assert!(has_statistics(builder.metadata()));
        let reader = pruned(builder, Some(&predicate)).build().unwrap();
        reader.map(|batch| batch.unwrap().num_rows()).sum()
    }

    #[test]
    fn row_groups_the_filter_cannot_match_are_not_read() {
        let from = |n: i64| {
            rows_read(
                three_row_groups(),
                Operator::GtEq,
                ScalarValue::Int64(Some(n)),
            )
        };
        assert_eq!(from(2500), 1000);
        assert_eq!(from(999), 3000);
        assert_eq!(from(1000), 2000);
        assert_eq!(from(5000), 0);
    }

    #[test]
    fn a_column_of_another_type_in_the_table_gives_no_statistics() {
        let value = ScalarValue::UInt64(Some(2500));
        assert_eq!(rows_read(three_row_groups(), Operator::GtEq, value), 3000);
    }

    #[test]
    fn a_float_column_gives_no_statistics_as_they_leave_nan_out() {
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Float64, false)]));
        let n = Float64Array::from_iter_values(
            (0..2000).map(|i| if i % 2 == 0 { 1.0 } else { f64::NAN }),
        );
        let file = parquet(RecordBatch::try_new(schema, vec![Arc::new(n)]).unwrap());
        assert_eq!(
            rows_read(file, Operator::NotEq, ScalarValue::Float64(Some(1.0))),
            2000
        );
    }
}
