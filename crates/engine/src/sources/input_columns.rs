//! The virtual columns of `file()` and `s3()`, as in ClickHouse: `_path`
//! (a file's path, an object's `bucket/key`), `_file` (the name after the
//! last `/`), `_size` (bytes as stored) and `_time` (last modified). A
//! table function shows them only to a query that names one, after the
//! columns of the data, and `SELECT *` leaves them out.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringArray, TimestampSecondArray, UInt64Array};
use datafusion::arrow::datatypes::Field;
use strata_common::types::parse_clickhouse_type;

/// The columns' names, in the order they follow the data's columns.
pub const NAMES: [&str; 4] = ["_path", "_file", "_size", "_time"];

/// The columns' fields, in ClickHouse's types.
pub fn fields() -> Vec<Field> {
    let types = [
        "LowCardinality(String)",
        "LowCardinality(String)",
        "Nullable(UInt64)",
        "Nullable(DateTime)",
    ];
    NAMES
        .iter()
        .zip(types)
        .map(|(name, type_name)| {
            parse_clickhouse_type(type_name)
                .expect("the virtual columns' types parse")
                .field(*name)
        })
        .collect()
}

/// What the virtual columns say of one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFacts {
    pub path: String,
    pub size: Option<u64>,
    /// Last modified, in seconds since the Unix epoch.
    pub modified_seconds: Option<i64>,
}

impl InputFacts {
    /// The facts a file's metadata gives (none where it cannot be read).
    pub fn of_file(path: &std::path::Path) -> Self {
        let metadata = std::fs::metadata(path).ok();
        let modified = metadata.as_ref().and_then(|m| m.modified().ok());
        let modified_seconds = modified
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|since| i64::try_from(since.as_secs()).ok());
        InputFacts {
            path: path.to_string_lossy().into_owned(),
            size: metadata.map(|m| m.len()),
            modified_seconds,
        }
    }

    fn file_name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or_default()
    }

    /// The columns' values for a block of `rows` rows.
    pub fn columns(&self, rows: usize) -> Vec<ArrayRef> {
        let text = |value: &str| -> ArrayRef {
            Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
                value, rows,
            )))
        };
        vec![
            text(&self.path),
            text(self.file_name()),
            Arc::new(UInt64Array::from(vec![self.size; rows])),
            Arc::new(TimestampSecondArray::from(vec![
                self.modified_seconds;
                rows
            ])),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_columns_match_their_fields() {
        let facts = InputFacts {
            path: "bucket/dir/d1.csv".to_string(),
            size: Some(12),
            modified_seconds: None,
        };
        let columns = facts.columns(2);
        for (field, column) in fields().iter().zip(&columns) {
            assert_eq!(field.data_type(), column.data_type(), "{}", field.name());
            assert_eq!(column.len(), 2);
        }
        let names = columns[1].as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(names.value(0), "d1.csv");
        assert_eq!(columns[3].null_count(), 2);
    }
}
