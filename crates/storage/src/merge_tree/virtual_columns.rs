//! Columns a MergeTree table answers from its parts rather than its data:
//! `_part` and `_partition_id`, as in ClickHouse. A query names them to see
//! where rows live or to pick parts (`WHERE _partition_id = '...'` reads
//! only that partition); `SELECT *` leaves them out, and a real column of
//! the same name hides them.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};

use super::data_part::DataPart;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VirtualColumn {
    /// The name of the part a row is in.
    Part,
    /// The id of the row's partition, as in part names and `system.parts`.
    PartitionId,
}

impl VirtualColumn {
    pub const ALL: [VirtualColumn; 2] = [VirtualColumn::Part, VirtualColumn::PartitionId];

    pub fn name(self) -> &'static str {
        match self {
            VirtualColumn::Part => "_part",
            VirtualColumn::PartitionId => "_partition_id",
        }
    }

    pub fn named(name: &str) -> Option<VirtualColumn> {
        Self::ALL.into_iter().find(|column| column.name() == name)
    }

    pub fn field(self) -> Field {
        Field::new(self.name(), DataType::Utf8, false)
    }

    /// The column's value for every row of `part`.
    pub fn value(self, part: &DataPart) -> String {
        match self {
            VirtualColumn::Part => part.name(),
            VirtualColumn::PartitionId => part.part.name.partition_id.clone(),
        }
    }

    /// `rows` copies of the value for `part`.
    pub fn array(self, part: &DataPart, rows: usize) -> ArrayRef {
        let value = self.value(part);
        Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
            value, rows,
        )))
    }
}

/// The virtual columns of a table with `schema`: those no real column hides.
pub fn virtual_columns(schema: &Schema) -> Vec<VirtualColumn> {
    VirtualColumn::ALL
        .into_iter()
        .filter(|column| schema.field_with_name(column.name()).is_err())
        .collect()
}
