//! `system.parts`, `system.parts_columns`, `system.merges` and
//! `system.detached_parts`: each active part of every MergeTree table, each
//! column within it, with sizes read from the parts' own files, the merges
//! running now, and the parts under each table's `detached/` directory.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::UNIX_EPOCH;

use datafusion::arrow::array::{
    ArrayRef, Float64Array, Int64Array, ListBuilder, StringArray, StringBuilder,
    TimestampSecondArray, UInt8Array, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
use datafusion::catalog::CatalogProvider;
use datafusion::common::Result;
use strata_common::StrataError;
use strata_common::types::field_type_name;

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
pub(crate) async fn merge_tree_tables(
    catalog: &Arc<dyn CatalogProvider>,
) -> Result<Vec<(String, String, Arc<MergeTreeProvider>)>> {
    super::tables_of(catalog).await
}

pub(super) fn strings(values: Vec<String>) -> ArrayRef {
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
            text[6].push(part.part.disk_name().to_string());
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
                text[5].push(field_type_name(field));
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

pub fn detached_parts_fields() -> Vec<Field> {
    let nullable = |name: &str, data_type: DataType| Field::new(name, data_type, true);
    vec![
        s("database"),
        s("table"),
        nullable("partition_id", DataType::Utf8),
        s("name"),
        u64("bytes_on_disk"),
        Field::new(
            "modification_time",
            DataType::Timestamp(TimeUnit::Second, None),
            false,
        ),
        s("disk"),
        s("path"),
        nullable("reason", DataType::Utf8),
        nullable("min_block_number", DataType::Int64),
        nullable("max_block_number", DataType::Int64),
        nullable("level", DataType::UInt32),
    ]
}

pub async fn detached_parts_rows(catalog: &Arc<dyn CatalogProvider>) -> Result<Vec<ArrayRef>> {
    let mut text: [Vec<String>; 5] = Default::default();
    let (mut partition_ids, mut reasons) = (Vec::new(), Vec::new());
    let (mut bytes, mut times) = (Vec::new(), Vec::new());
    let (mut min_blocks, mut max_blocks, mut levels) = (Vec::new(), Vec::new(), Vec::new());
    for (database, table, provider) in merge_tree_tables(catalog).await? {
        let detached = provider
            .data
            .detached_parts()
            .map_err(StrataError::into_datafusion)?;
        for part in detached {
            text[0].push(database.clone());
            text[1].push(table.clone());
            text[2].push(part.name);
            text[3].push("default".to_string());
            text[4].push(part.path.display().to_string());
            reasons.push(Some(part.reason));
            bytes.push(part.bytes_on_disk);
            times.push(
                part.modification_time
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64),
            );
            partition_ids.push(part.part.as_ref().map(|p| p.partition_id.clone()));
            min_blocks.push(part.part.as_ref().map(|p| p.min_block as i64));
            max_blocks.push(part.part.as_ref().map(|p| p.max_block as i64));
            levels.push(part.part.as_ref().map(|p| p.level));
        }
    }
    let [database, table, name, disk, path] = text;
    Ok(vec![
        strings(database),
        strings(table),
        Arc::new(StringArray::from(partition_ids)),
        strings(name),
        Arc::new(UInt64Array::from(bytes)),
        Arc::new(TimestampSecondArray::from(times)),
        strings(disk),
        strings(path),
        Arc::new(StringArray::from(reasons)),
        Arc::new(Int64Array::from(min_blocks)),
        Arc::new(Int64Array::from(max_blocks)),
        Arc::new(UInt32Array::from(levels)),
    ])
}

pub fn merges_fields() -> Vec<Field> {
    vec![
        s("database"),
        s("table"),
        Field::new("elapsed", DataType::Float64, false),
        Field::new("progress", DataType::Float64, false),
        u64("num_parts"),
        Field::new(
            "source_part_names",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
            false,
        ),
        s("result_part_name"),
        s("partition_id"),
        Field::new("is_mutation", DataType::UInt8, false),
        u64("total_size_bytes_compressed"),
        u64("rows_read"),
        u64("rows_written"),
        u64("memory_usage"),
        s("merge_type"),
        s("merge_algorithm"),
    ]
}

/// `system.merges`: each merge or ALTER rewrite running now, with the
/// counters it keeps as it reads and writes.
pub async fn merges_rows(catalog: &Arc<dyn CatalogProvider>) -> Result<Vec<ArrayRef>> {
    let mut text: [Vec<String>; 6] = Default::default();
    let mut numbers: [Vec<u64>; 5] = Default::default();
    let (mut elapsed, mut progress, mut mutation) = (Vec::new(), Vec::new(), Vec::new());
    let mut sources = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::Utf8,
        false,
    )));
    for (database, table, provider) in merge_tree_tables(catalog).await? {
        for merge in provider.data.running_merges() {
            let read = merge.rows_read.load(Ordering::Relaxed);
            let written = merge.rows_written.load(Ordering::Relaxed);
            text[0].push(database.clone());
            text[1].push(table.clone());
            text[2].push(merge.result_part.clone());
            text[3].push(merge.partition_id.clone());
            text[4].push(
                if merge.is_mutation {
                    "Mutation"
                } else {
                    "Regular"
                }
                .to_string(),
            );
            text[5].push("Horizontal".to_string());
            elapsed.push(merge.started.elapsed().as_secs_f64());
            // Reading is half the work and writing the other half.
            let total = merge.total_rows.max(1) as f64;
            progress.push(((read + written) as f64 / (2.0 * total)).min(1.0));
            mutation.push(u8::from(merge.is_mutation));
            for name in &merge.source_parts {
                sources.values().append_value(name);
            }
            sources.append(true);
            numbers[0].push(merge.source_parts.len() as u64);
            numbers[1].push(merge.total_bytes_compressed);
            numbers[2].push(read);
            numbers[3].push(written);
            numbers[4].push(merge.memory_usage.load(Ordering::Relaxed));
        }
    }
    let [database, table, result, partition_id, merge_type, algorithm] = text;
    let [parts, bytes, read, written, memory] = numbers;
    let u64s = |v: Vec<u64>| -> ArrayRef { Arc::new(UInt64Array::from(v)) };
    let floats = |v: Vec<f64>| -> ArrayRef { Arc::new(Float64Array::from(v)) };
    Ok(vec![
        strings(database),
        strings(table),
        floats(elapsed),
        floats(progress),
        u64s(parts),
        Arc::new(sources.finish()),
        strings(result),
        strings(partition_id),
        Arc::new(UInt8Array::from(mutation)),
        u64s(bytes),
        u64s(read),
        u64s(written),
        u64s(memory),
        strings(merge_type),
        strings(algorithm),
    ])
}
