//! `system.filesystem_cache` (the segments each `cache` disk holds) and
//! `system.filesystem_cache_settings` (each cache's configuration and use).

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, UInt8Array, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field};
use strata_storage::disk::file_cache::{FileCache, SegmentRow};

use super::strings;
use crate::instance::Instance;

fn s(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn u64_field(name: &str) -> Field {
    Field::new(name, DataType::UInt64, false)
}

fn numbers(values: Vec<u64>) -> ArrayRef {
    Arc::new(UInt64Array::from(values))
}

/// The filesystem caches of the configured disks, by disk name.
fn caches(instance: &Instance) -> Vec<Arc<FileCache>> {
    instance
        .disks
        .all()
        .into_iter()
        .filter_map(|disk| disk.object_store()?.file_cache().cloned())
        .collect()
}

pub fn filesystem_cache_fields() -> Vec<Field> {
    vec![
        s("cache_name"),
        s("cache_base_path"),
        s("cache_path"),
        s("key"),
        u64_field("file_segment_range_begin"),
        u64_field("file_segment_range_end"),
        u64_field("size"),
        s("state"),
        u64_field("cache_hits"),
        u64_field("references"),
        u64_field("downloaded_size"),
        s("kind"),
        Field::new("unbound", DataType::UInt8, false),
        Field::new("file_size", DataType::UInt64, true),
    ]
}

/// A row per cached segment; its range is inclusive, as ClickHouse shows it.
pub fn filesystem_cache_rows(instance: &Instance) -> Vec<ArrayRef> {
    let mut rows = Vec::new();
    for cache in caches(instance) {
        for row in cache.rows() {
            rows.push((Arc::clone(&cache), row));
        }
    }
    let text =
        |f: &dyn Fn(&(Arc<FileCache>, SegmentRow)) -> String| strings(rows.iter().map(f).collect());
    let count = rows.len();
    vec![
        text(&|(cache, _)| cache.name().to_string()),
        text(&|(cache, _)| cache.dir().display().to_string()),
        text(&|(_, row)| row.file.display().to_string()),
        text(&|(_, row)| row.object.clone()),
        numbers(rows.iter().map(|(_, row)| row.range.start).collect()),
        numbers(rows.iter().map(|(_, row)| row.range.end - 1).collect()),
        numbers(
            rows.iter()
                .map(|(_, row)| row.range.end - row.range.start)
                .collect(),
        ),
        strings(vec!["DOWNLOADED".to_string(); count]),
        numbers(rows.iter().map(|(_, row)| row.hits).collect()),
        numbers(rows.iter().map(|(_, row)| row.references).collect()),
        numbers(
            rows.iter()
                .map(|(_, row)| row.range.end - row.range.start)
                .collect(),
        ),
        strings(vec!["Regular".to_string(); count]),
        Arc::new(UInt8Array::from(vec![0u8; count])),
        Arc::new(UInt64Array::from(vec![None::<u64>; count])),
    ]
}

pub fn filesystem_cache_settings_fields() -> Vec<Field> {
    vec![
        s("cache_name"),
        s("path"),
        u64_field("max_size"),
        u64_field("max_elements"),
        u64_field("max_file_segment_size"),
        u64_field("boundary_alignment"),
        Field::new("cache_on_write_operations", DataType::UInt8, false),
        s("cache_policy"),
        Field::new("slru_size_ratio", DataType::Float64, false),
        u64_field("current_size"),
        u64_field("current_elements_num"),
    ]
}

pub fn filesystem_cache_settings_rows(instance: &Instance) -> Vec<ArrayRef> {
    let caches = caches(instance);
    let usage: Vec<(u64, u64, u64)> = caches.iter().map(|cache| cache.usage()).collect();
    let alignments: Vec<u64> = caches
        .iter()
        .map(|cache| cache.config().boundary_alignment)
        .collect();
    vec![
        strings(caches.iter().map(|c| c.name().to_string()).collect()),
        strings(
            caches
                .iter()
                .map(|c| c.dir().display().to_string())
                .collect(),
        ),
        numbers(usage.iter().map(|(_, _, limit)| *limit).collect()),
        numbers(vec![0; caches.len()]),
        numbers(alignments.clone()),
        numbers(alignments),
        Arc::new(UInt8Array::from_iter_values(
            caches
                .iter()
                .map(|c| u8::from(c.config().cache_on_write_operations)),
        )),
        strings(vec!["SLRU".to_string(); caches.len()]),
        Arc::new(Float64Array::from(vec![
            strata_storage::cache::slru::PROTECTED_SHARE;
            caches.len()
        ])),
        numbers(usage.iter().map(|(bytes, _, _)| *bytes).collect()),
        numbers(usage.iter().map(|(_, segments, _)| *segments).collect()),
    ]
}
