//! `system.parts` and `system.parts_columns`: each active part of every
//! MergeTree table, and each column within it, with sizes read from the
//! parts' own files.

use std::sync::Arc;
use std::time::UNIX_EPOCH;

use datafusion::arrow::array::{
    ArrayRef, Int64Array, StringArray, TimestampSecondArray, UInt8Array, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
use datafusion::catalog::CatalogProvider;
use datafusion::common::Result;
use strata_common::StrataError;
use strata_common::types::clickhouse_type_name;

use super::database_names;
use crate::sources::merge_tree_table::MergeTreeProvider;

fn s(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn u64(name: &str) -> Field {
    Field::new(name, DataType::UInt64, false)
}

pub fn parts_fields() -> Vec<Field> {
    vec![
        s("database"),
        s("table"),
        s("partition"),
        s("partition_id"),
        s("name"),
        s("part_type"),
        Field::new("active", DataType::UInt8, false),
        u64("rows"),
        u64("bytes_on_disk"),
        u64("data_compressed_bytes"),
        u64("data_uncompressed_bytes"),
        u64("marks"),
        Field::new("level", DataType::UInt32, false),
        Field::new("min_block_number", DataType::Int64, false),
        Field::new("max_block_number", DataType::Int64, false),
        Field::new(
            "modification_time",
            DataType::Timestamp(TimeUnit::Second, None),
            false,
        ),
        s("disk_name"),
        s("path"),
    ]
}

pub fn parts_columns_fields() -> Vec<Field> {
    vec![
        s("database"),
        s("table"),
        s("partition_id"),
        s("name"),
        Field::new("active", DataType::UInt8, false),
        s("column"),
        s("type"),
        u64("column_position"),
        u64("column_data_compressed_bytes"),
        u64("column_data_uncompressed_bytes"),
        u64("column_bytes_on_disk"),
    ]
}

/// Every MergeTree table as (database, table, provider), in name order.
async fn merge_tree_tables(
    catalog: &Arc<dyn CatalogProvider>,
) -> Result<Vec<(String, String, Arc<MergeTreeProvider>)>> {
    let mut tables = Vec::new();
    for database in database_names(catalog) {
        let Some(schema) = catalog.schema(&database) else {
            continue;
        };
        let mut names = schema.table_names();
        names.sort();
        for name in names {
            let Some(table) = schema.table(&name).await? else {
                continue;
            };
            let any: Arc<dyn std::any::Any + Send + Sync> = table;
            if let Ok(merge_tree) = any.downcast::<MergeTreeProvider>() {
                tables.push((database.clone(), name, merge_tree));
            }
        }
    }
    Ok(tables)
}

fn strings(values: Vec<String>) -> ArrayRef {
    Arc::new(StringArray::from(values))
}

pub async fn parts_rows(catalog: &Arc<dyn CatalogProvider>) -> Result<Vec<ArrayRef>> {
    let mut text: [Vec<String>; 8] = Default::default();
    let mut numbers: [Vec<u64>; 5] = Default::default();
    let (mut levels, mut min_blocks, mut max_blocks, mut times) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (database, table, provider) in merge_tree_tables(catalog).await? {
        for part in provider.data.snapshot().iter() {
            let sizes = part
                .part
                .column_sizes()
                .map_err(StrataError::into_datafusion)?;
            text[0].push(database.clone());
            text[1].push(table.clone());
            text[2].push(part.partition.clone());
            text[3].push(part.part.name.partition_id.clone());
            text[4].push(part.name());
            text[5].push("Wide".to_string());
            text[6].push("default".to_string());
            text[7].push(format!("{}/", part.part.dir.display()));
            numbers[0].push(part.part.rows);
            numbers[1].push(part.part.bytes_on_disk());
            numbers[2].push(sizes.iter().map(|(_, s)| s.compressed).sum());
            numbers[3].push(sizes.iter().map(|(_, s)| s.uncompressed).sum());
            // As ClickHouse counts marks: one per granule and the final one.
            numbers[4].push(part.granules() as u64 + 1);
            levels.push(part.part.name.level);
            min_blocks.push(part.part.name.min_block as i64);
            max_blocks.push(part.part.name.max_block as i64);
            times.push(
                part.modification_time
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64),
            );
        }
    }
    let active = vec![1u8; levels.len()];
    let [
        database,
        table,
        partition,
        partition_id,
        name,
        part_type,
        disk,
        path,
    ] = text;
    let [rows, bytes, compressed, uncompressed, marks] = numbers;
    Ok(vec![
        strings(database),
        strings(table),
        strings(partition),
        strings(partition_id),
        strings(name),
        strings(part_type),
        Arc::new(UInt8Array::from(active)),
        Arc::new(UInt64Array::from(rows)),
        Arc::new(UInt64Array::from(bytes)),
        Arc::new(UInt64Array::from(compressed)),
        Arc::new(UInt64Array::from(uncompressed)),
        Arc::new(UInt64Array::from(marks)),
        Arc::new(UInt32Array::from(levels)),
        Arc::new(Int64Array::from(min_blocks)),
        Arc::new(Int64Array::from(max_blocks)),
        Arc::new(TimestampSecondArray::from(times)),
        strings(disk),
        strings(path),
    ])
}

pub async fn parts_columns_rows(catalog: &Arc<dyn CatalogProvider>) -> Result<Vec<ArrayRef>> {
    let mut text: [Vec<String>; 6] = Default::default();
    let mut numbers: [Vec<u64>; 4] = Default::default();
    for (database, table, provider) in merge_tree_tables(catalog).await? {
        for part in provider.data.snapshot().iter() {
            let sizes = part
                .part
                .column_sizes()
                .map_err(StrataError::into_datafusion)?;
            for (position, (field, (_, size))) in part.part.columns.iter().zip(sizes).enumerate() {
                text[0].push(database.clone());
                text[1].push(table.clone());
                text[2].push(part.part.name.partition_id.clone());
                text[3].push(part.name());
                text[4].push(field.name().clone());
                text[5].push(clickhouse_type_name(field.data_type(), field.is_nullable()));
                numbers[0].push(position as u64 + 1);
                numbers[1].push(size.compressed);
                numbers[2].push(size.uncompressed);
                numbers[3].push(size.on_disk);
            }
        }
    }
    let active = vec![1u8; text[0].len()];
    let [database, table, partition_id, name, column, type_name] = text;
    let [position, compressed, uncompressed, on_disk] = numbers;
    Ok(vec![
        strings(database),
        strings(table),
        strings(partition_id),
        strings(name),
        Arc::new(UInt8Array::from(active)),
        strings(column),
        strings(type_name),
        Arc::new(UInt64Array::from(position)),
        Arc::new(UInt64Array::from(compressed)),
        Arc::new(UInt64Array::from(uncompressed)),
        Arc::new(UInt64Array::from(on_disk)),
    ])
}
