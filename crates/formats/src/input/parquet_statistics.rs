//! Row groups skipped by their statistics: a query's filter, as a
//! [`PruningPredicate`] over the table's columns, is judged on each row
//! group's min, max, null and row counts from the footer, and a row group
//! the filter cannot match is not read. A column whose type in the file is
//! not the table's (the reader converts it) gives no statistics: converted
//! values may not keep the file's order.

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
/// the file is the table's.
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
        if in_file.data_type() != in_table.data_type() {
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
    use datafusion::arrow::array::{Int64Array, StringArray};
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

    /// Parquet of `n` 0..3000 and `s` as its text, in row groups of 1000.
    fn three_row_groups() -> bytes::Bytes {
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(1000))
            .build();
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, Arc::clone(&schema), Some(props)).unwrap();
        let n = Int64Array::from_iter_values(0..3000);
        let s = StringArray::from_iter_values((0..3000).map(|i| i.to_string()));
        let batch = RecordBatch::try_new(schema, vec![Arc::new(n), Arc::new(s)]).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        bytes::Bytes::from(out)
    }

    /// The rows read with `n >= from` over a table whose `n` is `n_type`.
    fn rows_read(from: ScalarValue) -> usize {
        let n_type = from.data_type();
        let table = Arc::new(Schema::new(vec![Field::new("n", n_type, false)]));
        let filter = BinaryExpr::new(col("n", &table).unwrap(), Operator::GtEq, lit(from));
        let predicate = PruningPredicateBuilder::new()
            .with_file_schema(table)
            .try_build(Arc::new(filter))
            .unwrap();
        let builder = ParquetRecordBatchReaderBuilder::try_new(three_row_groups()).unwrap();
        assert!(has_statistics(builder.metadata()));
        let reader = pruned(builder, Some(&predicate)).build().unwrap();
        reader.map(|batch| batch.unwrap().num_rows()).sum()
    }

    #[test]
    fn row_groups_the_filter_cannot_match_are_not_read() {
        let from = |n: i64| rows_read(ScalarValue::Int64(Some(n)));
        assert_eq!(from(2500), 1000);
        assert_eq!(from(999), 3000);
        assert_eq!(from(1000), 2000);
        assert_eq!(from(5000), 0);
    }

    #[test]
    fn a_column_of_another_type_in_the_table_gives_no_statistics() {
        assert_eq!(rows_read(ScalarValue::UInt64(Some(2500))), 3000);
    }
}
