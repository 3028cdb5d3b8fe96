//! Table sources: generated tables (`numbers`, `zeros`, the empty `null`), rows in a format
//! written in the query (`format`), in files (`file`) or in S3 objects
//! (`s3`), the Memory, Set, Join, Merge, Buffer and MergeTree engines, dictionaries, and the counting wrapper that
//! feeds rows and bytes read into the query summary.

pub mod buffer_table;
pub mod counting;
pub mod dictionary;
pub mod external_table;
pub mod file_function;
pub mod format_function;
pub mod generate_random;
pub mod input_columns;
pub mod input_stream;
pub mod inputs_table;
pub mod insert_checks;
pub mod materialized_view;
pub mod memory_table;
pub mod merge_table;
pub mod merge_tree_table;
pub mod null_function;
mod number_ranges;
pub mod numbers;
mod parquet_object;
pub mod s3_function;
pub mod sampling;
pub mod set_and_join;
pub mod view;

/// A table engine's refusal of INSERT, in ClickHouse's words.
pub(crate) fn write_refused(engine: &str) -> datafusion::common::DataFusionError {
    strata_common::StrataError::new(
        strata_common::ErrorCode::NOT_IMPLEMENTED,
        format!("Method write is not supported by storage {engine}"),
    )
    .into_datafusion()
}
