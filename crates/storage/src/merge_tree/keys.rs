//! A table's keys, compiled: the partition key that splits an insert into
//! parts, the sorting key that orders rows within a part, and the primary
//! key (a prefix of the sorting key) whose values the sparse index keeps.

use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, UInt32Array};
use datafusion::arrow::compute::{
    LexicographicalComparator, SortColumn, SortOptions, lexsort_to_indices, partition,
    take_record_batch,
};
use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Column;
use strata_common::error::Result;
use strata_common::strata_err;
use twox_hash::XxHash64;

use super::skip_index::SkipIndexKey;

/// The partition id of a table without a partition key, as in ClickHouse.
pub const WHOLE_TABLE_PARTITION: &str = "all";

#[derive(Debug, Clone)]
pub struct TableKeys {
    /// `PARTITION BY` expressions over the table's columns; none for one partition.
    pub partition: Vec<Arc<dyn PhysicalExpr>>,
    /// Table columns the partition key reads; parts keep their min and max.
    pub partition_columns: Vec<usize>,
    /// `ORDER BY` expressions.
    pub sorting: Vec<Arc<dyn PhysicalExpr>>,
    /// How many leading sorting expressions form the primary key.
    pub primary_len: usize,
    /// Data-skipping indexes, built with every part.
    pub indexes: Vec<SkipIndexKey>,
}

/// One partition's rows of a batch.
#[derive(Debug)]
pub struct PartitionRows {
    /// Names the partition in part names: digits for integer and date keys, a hash otherwise.
    pub id: String,
    /// The partition's value as `system.parts` shows it.
    pub value: String,
    pub rows: RecordBatch,
}

impl TableKeys {
    pub fn new(
        partition: Vec<Arc<dyn PhysicalExpr>>,
        sorting: Vec<Arc<dyn PhysicalExpr>>,
        primary_len: usize,
    ) -> Self {
        assert!(
            primary_len <= sorting.len(),
            "the primary key is a prefix of the sorting key"
        );
        let mut partition_columns = Vec::new();
        for expr in &partition {
            for column in datafusion::physical_expr::utils::collect_columns(expr) {
                if !partition_columns.contains(&column.index()) {
                    partition_columns.push(column.index());
                }
            }
        }
        partition_columns.sort_unstable();
        TableKeys {
            partition,
            partition_columns,
            sorting,
            primary_len,
            indexes: Vec::new(),
        }
    }

    /// The keys with data-skipping `indexes`.
    pub fn with_indexes(mut self, indexes: Vec<SkipIndexKey>) -> Self {
        self.indexes = indexes;
        self
    }

    /// Whether the partition or sorting key reads table column `column`: an
    /// UPDATE may not change it (the part's place and order depend on it).
    pub fn reads_column(&self, column: usize) -> bool {
        self.partition_columns.contains(&column)
            || self.sorting.iter().any(|expr| {
                datafusion::physical_expr::utils::collect_columns(expr)
                    .iter()
                    .any(|c| c.index() == column)
            })
    }

    /// The table column each primary key element is, where it is a plain
    /// column; index pruning uses only those.
    pub fn primary_columns(&self) -> Vec<Option<usize>> {
        self.sorting[..self.primary_len]
            .iter()
            .map(|expr| expr.downcast_ref::<Column>().map(Column::index))
            .collect()
    }

    /// The primary key's types for rows of `batch`'s schema.
    pub fn primary_types(
        &self,
        schema: &datafusion::arrow::datatypes::Schema,
    ) -> Result<Vec<DataType>> {
        self.sorting[..self.primary_len]
            .iter()
            .map(|expr| Ok(expr.data_type(schema)?))
            .collect()
    }

    /// Splits `batch` by partition, in order of first appearance.
    pub fn split_partitions(&self, batch: &RecordBatch) -> Result<Vec<PartitionRows>> {
        if self.partition.is_empty() {
            return Ok(vec![PartitionRows {
                id: WHOLE_TABLE_PARTITION.to_string(),
                value: "tuple()".to_string(),
                rows: batch.clone(),
            }]);
        }
        let values = self.evaluate(&self.partition, batch)?;
        // Most insert blocks hold one partition; finding that takes one
        // comparison per row and no copy of the rows.
        if partition(&values)?.len() == 1 {
            let key: Vec<ScalarValue> = values
                .iter()
                .map(|v| ScalarValue::try_from_array(v, 0))
                .collect::<datafusion::common::Result<_>>()?;
            return Ok(vec![PartitionRows {
                id: partition_id(&key),
                value: partition_value(&key),
                rows: batch.clone(),
            }]);
        }
        let converter = RowConverter::new(
            values
                .iter()
                .map(|v| SortField::new(v.data_type().clone()))
                .collect(),
        )?;
        let rows = converter.convert_columns(&values)?;
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut group_of: HashMap<&[u8], usize> = HashMap::new();
        // Inserted rows usually come in runs of one partition: a row equal
        // to the one before needs no lookup.
        let mut run: Option<(&[u8], usize)> = None;
        for (index, row) in rows.iter().enumerate() {
            let key = row.data();
            let group = match run {
                Some((previous, group)) if previous == key => group,
                _ => {
                    let next = groups.len();
                    let group = *group_of.entry(key).or_insert(next);
                    if group == next {
                        groups.push(Vec::new());
                    }
                    run = Some((key, group));
                    group
                }
            };
            groups[group].push(index as u32);
        }
        groups
            .into_iter()
            .map(|indices| {
                let first = indices[0] as usize;
                let key: Vec<ScalarValue> = values
                    .iter()
                    .map(|v| ScalarValue::try_from_array(v, first))
                    .collect::<datafusion::common::Result<_>>()?;
                let rows = take_record_batch(batch, &UInt32Array::from(indices))?;
                Ok(PartitionRows {
                    id: partition_id(&key),
                    value: partition_value(&key),
                    rows,
                })
            })
            .collect()
    }

    /// The id of the partition whose key is `values`, one per partition
    /// expression (as `ALTER ... PARTITION expr` names it), each cast to its
    /// expression's type over `schema`: the id an insert of such rows gets.
    pub fn partition_id_of(&self, schema: &Schema, values: &[ScalarValue]) -> Result<String> {
        if values.len() != self.partition.len() {
            return Err(strata_err!(
                INVALID_PARTITION_VALUE,
                "Wrong number of fields in the partition expression: {}, must be: {}",
                values.len(),
                self.partition.len()
            ));
        }
        if values.is_empty() {
            return Ok(WHOLE_TABLE_PARTITION.to_string());
        }
        let key = values
            .iter()
            .zip(&self.partition)
            .map(|(value, expr)| Ok(value.cast_to(&expr.data_type(schema)?)?))
            .collect::<Result<Vec<_>>>()?;
        Ok(partition_id(&key))
    }

    /// `batch` sorted by the sorting key (NULLs last, as ClickHouse sorts),
    /// with the primary key's values for each sorted row.
    pub fn sort(&self, batch: &RecordBatch) -> Result<(RecordBatch, Vec<ArrayRef>)> {
        if self.sorting.is_empty() {
            return Ok((batch.clone(), Vec::new()));
        }
        let keys = self.evaluate(&self.sorting, batch)?;
        let columns: Vec<SortColumn> = keys
            .iter()
            .map(|values| SortColumn {
                values: Arc::clone(values),
                options: Some(SortOptions {
                    descending: false,
                    nulls_first: false,
                }),
            })
            .collect();
        if is_sorted(&columns)? {
            return Ok((batch.clone(), keys[..self.primary_len].to_vec()));
        }
        let order = lexsort_to_indices(&columns, None)?;
        let sorted = take_record_batch(batch, &order)?;
        let primary = keys[..self.primary_len]
            .iter()
            .map(|k| Ok(datafusion::arrow::compute::take(k.as_ref(), &order, None)?))
            .collect::<Result<_>>()?;
        Ok((sorted, primary))
    }

    /// `batch` sorted by the sorting key with the rows of one key in their
    /// order in `batch`, and the sorting key's values after the sort: what
    /// an engine that combines rows of one key needs (insertion order
    /// decides its "last row").
    pub fn sort_stable(&self, batch: &RecordBatch) -> Result<(RecordBatch, Vec<ArrayRef>)> {
        if self.sorting.is_empty() {
            return Ok((batch.clone(), Vec::new()));
        }
        let keys = self.evaluate(&self.sorting, batch)?;
        let position: ArrayRef =
            Arc::new(UInt32Array::from_iter_values(0..batch.num_rows() as u32));
        let columns: Vec<SortColumn> = keys
            .iter()
            .chain(std::iter::once(&position))
            .map(|values| SortColumn {
                values: Arc::clone(values),
                options: Some(SortOptions {
                    descending: false,
                    nulls_first: false,
                }),
            })
            .collect();
        let order = lexsort_to_indices(&columns, None)?;
        let sorted = take_record_batch(batch, &order)?;
        let keys = keys
            .iter()
            .map(|k| Ok(datafusion::arrow::compute::take(k.as_ref(), &order, None)?))
            .collect::<Result<_>>()?;
        Ok((sorted, keys))
    }

    /// The table columns the sorting key reads.
    pub fn sorting_columns(&self) -> Vec<usize> {
        let mut columns: Vec<usize> = self
            .sorting
            .iter()
            .flat_map(datafusion::physical_expr::utils::collect_columns)
            .map(|c| c.index())
            .collect();
        columns.sort_unstable();
        columns.dedup();
        columns
    }

    /// The primary key's values for every row of `batch`.
    pub fn primary_values(&self, batch: &RecordBatch) -> Result<Vec<ArrayRef>> {
        self.evaluate(&self.sorting[..self.primary_len], batch)
    }

    fn evaluate(
        &self,
        exprs: &[Arc<dyn PhysicalExpr>],
        batch: &RecordBatch,
    ) -> Result<Vec<ArrayRef>> {
        exprs
            .iter()
            .map(|expr| Ok(expr.evaluate(batch)?.into_array(batch.num_rows())?))
            .collect()
    }
}

/// Whether `columns` are already in order: inserts often arrive sorted, and
/// one comparison per row is far cheaper than sorting and copying them.
fn is_sorted(columns: &[SortColumn]) -> Result<bool> {
    let comparator = LexicographicalComparator::try_new(columns)?;
    let rows = columns.first().map_or(0, |c| c.values.len());
    Ok((1..rows).all(|row| comparator.compare(row - 1, row) != std::cmp::Ordering::Greater))
}

/// ClickHouse's partition id: integer and date values written out and joined
/// by `-` (a Date as YYYYMMDD); any other key a hash of its values.
fn partition_id(key: &[ScalarValue]) -> String {
    let readable: Option<Vec<String>> = key
        .iter()
        .map(|value| match value {
            ScalarValue::Int8(Some(_))
            | ScalarValue::Int16(Some(_))
            | ScalarValue::Int32(Some(_))
            | ScalarValue::Int64(Some(_))
            | ScalarValue::UInt8(Some(_))
            | ScalarValue::UInt16(Some(_))
            | ScalarValue::UInt32(Some(_))
            | ScalarValue::UInt64(Some(_)) => Some(value.to_string()),
            ScalarValue::Boolean(Some(b)) => Some(u8::from(*b).to_string()),
            ScalarValue::Date32(Some(_)) => Some(value.to_string().replace('-', "")),
            ScalarValue::TimestampSecond(Some(seconds), _) => Some(seconds.to_string()),
            _ => None,
        })
        .collect();
    match readable {
        Some(parts) => parts.join("-"),
        None => {
            let mut hasher = XxHash64::with_seed(0);
            for value in key {
                hasher.write(value.to_string().as_bytes());
                hasher.write_u8(0);
            }
            format!("{:016x}", hasher.finish())
        }
    }
}

/// The partition's value as ClickHouse prints it: one value bare (a Date as
/// 2024-01-01), strings quoted, several values as a tuple.
fn partition_value(key: &[ScalarValue]) -> String {
    let shown: Vec<String> = key
        .iter()
        .map(|value| match value {
            ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)) => {
                format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
            }
            other if other.is_null() => "NULL".to_string(),
            other => other.to_string(),
        })
        .collect();
    match shown.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join(",")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_ids_are_readable_for_integers_and_dates() {
        assert_eq!(partition_id(&[ScalarValue::UInt32(Some(202401))]), "202401");
        assert_eq!(
            partition_id(&[
                ScalarValue::Date32(Some(19723)),
                ScalarValue::Int8(Some(-3))
            ]),
            "20240101--3"
        );
        let hashed = partition_id(&[ScalarValue::Utf8(Some("x".into()))]);
        assert_eq!(hashed.len(), 16);
        assert_ne!(hashed, partition_id(&[ScalarValue::Utf8(Some("y".into()))]));
        assert_eq!(
            partition_value(&[ScalarValue::Date32(Some(19723))]),
            "2024-01-01"
        );
        assert_eq!(
            partition_value(&[
                ScalarValue::Utf8(Some("a'b".into())),
                ScalarValue::UInt8(Some(1))
            ]),
            "('a\\'b',1)"
        );
    }
}
