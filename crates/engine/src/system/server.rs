//! System tables about the running process rather than the catalog:
//! `server_settings`, `asynchronous_metrics`, `processes`, `query_log`,
//! `part_log`, `text_log` and `users`.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use datafusion::arrow::array::{
    ArrayBuilder, ArrayRef, Date32Array, Float64Array, Int32Array, Int64Array, ListBuilder,
    MapBuilder, MapFieldNames, StringArray, StringBuilder, TimestampMicrosecondArray,
    TimestampSecondArray, UInt8Array, UInt16Array, UInt64Array, UInt64Builder,
};
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
use strata_common::events::{self, Event};
use strata_common::text_log;
use strata_memory::{allocator, process};
use strata_storage::cache::CacheTier;

use crate::instance::Instance;
use crate::part_log::PartLogEntry;
use crate::query_context::ClientInfo;

fn s(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn u64(name: &str) -> Field {
    Field::new(name, DataType::UInt64, false)
}

/// An `Array(item)` column.
fn list(name: &str, item: DataType) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", item, false))),
        false,
    )
}

fn datetime(name: &str) -> Field {
    Field::new(name, DataType::Timestamp(TimeUnit::Second, None), false)
}

/// A `Map(String, value)` column, as `MapBuilder` builds it.
fn map_field(name: &str, value: DataType) -> Field {
    let entries = Field::new(
        "entries",
        DataType::Struct(
            vec![
                Field::new("key", DataType::Utf8, false),
                Field::new("value", value, false),
            ]
            .into(),
        ),
        false,
    );
    Field::new(name, DataType::Map(Arc::new(entries), false), false)
}

fn map_builder<V: ArrayBuilder>(values: V, value_type: DataType) -> MapBuilder<StringBuilder, V> {
    let names = MapFieldNames {
        entry: "entries".to_string(),
        key: "key".to_string(),
        value: "value".to_string(),
    };
    MapBuilder::new(Some(names), StringBuilder::new(), values)
        .with_values_field(Field::new("value", value_type, false))
}

/// `ProfileEvents`: a row's events by name.
fn profile_events<'a>(rows: impl Iterator<Item = &'a [(Event, u64)]>) -> ArrayRef {
    let mut map = map_builder(UInt64Builder::new(), DataType::UInt64);
    for row in rows {
        for &(event, value) in row {
            map.keys().append_value(event.name());
            map.values().append_value(value);
        }
        map.append(true)
            .expect("keys and values are appended in pairs");
    }
    Arc::new(map.finish())
}

/// `Settings`: a row's changed settings by name.
fn settings_map<'a>(rows: impl Iterator<Item = &'a [(&'static str, String)]>) -> ArrayRef {
    let mut map = map_builder(StringBuilder::new(), DataType::Utf8);
    for row in rows {
        for (name, value) in row {
            map.keys().append_value(name);
            map.values().append_value(value);
        }
        map.append(true)
            .expect("keys and values are appended in pairs");
    }
    Arc::new(map.finish())
}

fn strings(values: impl IntoIterator<Item = String>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(values))
}

fn numbers(values: impl IntoIterator<Item = u64>) -> ArrayRef {
    Arc::new(UInt64Array::from_iter_values(values))
}

fn seconds(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn micros(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

pub fn server_settings_fields() -> Vec<Field> {
    vec![
        s("name"),
        s("value"),
        s("default"),
        Field::new("changed", DataType::UInt8, false),
        s("description"),
        s("type"),
        s("changeable_without_restart"),
        s("source"),
    ]
}

pub fn server_settings_rows(instance: &Instance) -> Vec<ArrayRef> {
    let rows = instance.server_setting_rows();
    vec![
        strings(rows.iter().map(|r| r.name.to_string())),
        strings(rows.iter().map(|r| r.value.clone())),
        strings(rows.iter().map(|r| r.default.to_string())),
        Arc::new(UInt8Array::from_iter_values(
            rows.iter().map(|r| u8::from(r.changed)),
        )),
        strings(rows.iter().map(|r| r.description.to_string())),
        strings(rows.iter().map(|r| r.kind.to_string())),
        strings(
            rows.iter()
                .map(|r| r.changeable_without_restart.to_string()),
        ),
        strings(rows.iter().map(|r| r.source.clone())),
    ]
}

pub fn events_fields() -> Vec<Field> {
    vec![
        s("event"),
        Field::new("value", DataType::UInt64, false),
        s("description"),
    ]
}

/// `system.events`: the process's event counters that have counted
/// something, as ClickHouse lists them.
pub fn events_rows() -> Vec<ArrayRef> {
    let counted: Vec<(Event, u64)> = Event::ALL
        .iter()
        .map(|&event| (event, events::value(event)))
        .filter(|&(_, value)| value > 0)
        .collect();
    vec![
        Arc::new(StringArray::from_iter_values(
            counted.iter().map(|(e, _)| e.name()),
        )),
        Arc::new(UInt64Array::from_iter_values(
            counted.iter().map(|&(_, v)| v),
        )),
        Arc::new(StringArray::from_iter_values(
            counted.iter().map(|(e, _)| e.description()),
        )),
    ]
}

pub fn metrics_fields() -> Vec<Field> {
    vec![
        s("metric"),
        Field::new("value", DataType::Int64, false),
        s("description"),
        s("name"),
    ]
}

/// `system.metrics`: what is happening now, each figure counted where it
/// happens (only the ones Strata counts are listed).
pub fn metrics_rows(instance: &Instance, running_merges: usize) -> Vec<ArrayRef> {
    let rows: [(&str, i64, &str); 3] = [
        (
            "Query",
            instance.processes.running().len() as i64,
            "Number of executing queries",
        ),
        (
            "Merge",
            running_merges as i64,
            "Number of executing background merges and mutations",
        ),
        (
            "MemoryTracking",
            instance.memory.reserved() as i64,
            "Bytes reserved through the memory tracker now, by queries and the data cache",
        ),
    ];
    vec![
        strings(rows.iter().map(|r| r.0.to_string())),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.1))),
        strings(rows.iter().map(|r| r.2.to_string())),
        strings(rows.iter().map(|r| r.0.to_string())),
    ]
}

pub fn errors_fields() -> Vec<Field> {
    vec![
        s("name"),
        Field::new("code", DataType::Int32, false),
        u64("value"),
        datetime("last_error_time"),
        s("last_error_message"),
        s("last_error_format_string"),
        list("last_error_trace", DataType::UInt64),
        Field::new("remote", DataType::UInt8, false),
        s("query_id"),
    ]
}

/// `system.errors`: the error codes queries ended with since start-up.
/// Strata keeps no stack traces, so `last_error_trace` is empty.
pub fn errors_rows(instance: &Instance) -> Vec<ArrayRef> {
    let entries = instance.errors.entries();
    let mut traces = ListBuilder::new(UInt64Builder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::UInt64,
        false,
    )));
    for _ in &entries {
        traces.append(true);
    }
    vec![
        strings(entries.iter().map(|e| e.name.to_string())),
        Arc::new(Int32Array::from_iter_values(entries.iter().map(|e| e.code))),
        numbers(entries.iter().map(|e| e.count)),
        Arc::new(TimestampSecondArray::from_iter_values(
            entries.iter().map(|e| seconds(e.last_time)),
        )),
        strings(entries.iter().map(|e| e.last_message.clone())),
        strings(entries.iter().map(|_| String::new())),
        Arc::new(traces.finish()),
        Arc::new(UInt8Array::from_iter_values(entries.iter().map(|_| 0))),
        strings(entries.iter().map(|e| e.last_query_id.clone())),
    ]
}

pub fn asynchronous_metrics_fields() -> Vec<Field> {
    vec![
        s("metric"),
        Field::new("value", DataType::Float64, false),
        s("description"),
    ]
}

/// Metrics computed when the table is read. Tracked and allocated memory sit
/// side by side so a gap between them (untracked memory) is visible.
pub fn asynchronous_metrics_rows(instance: &Instance) -> Vec<ArrayRef> {
    let memory = &instance.memory;
    let budget = memory.budget();
    let resident = process::resident();
    let mut rows: Vec<(&str, f64, &str)> = vec![
        (
            "MemoryTracking",
            memory.reserved() as f64,
            "Bytes reserved through the memory tracker now, by queries and the data cache",
        ),
        (
            "MemoryTrackingPeak",
            memory.peak() as f64,
            "The most bytes the memory tracker held at once since start-up",
        ),
        (
            "MemoryResident",
            resident.current as f64,
            "The process's resident set size, as the kernel reports it",
        ),
        (
            "MemoryResidentMax",
            resident.peak as f64,
            "The process's peak resident set size, as the kernel reports it",
        ),
        (
            "MemoryVirtual",
            resident.virtual_size as f64,
            "The process's virtual memory size",
        ),
        (
            "ServerMemoryLimit",
            budget.limit as f64,
            "The server memory limit in force (see system.server_settings for its source)",
        ),
        (
            "OSMemoryTotal",
            budget.physical_memory.unwrap_or(0) as f64,
            "Physical RAM; 0 when unknown",
        ),
        (
            "CGroupMemoryLimit",
            budget.cgroup.as_ref().map_or(0, |c| c.bytes) as f64,
            "The memory limit of the process's cgroup; 0 when it has none",
        ),
        (
            "OvercommitDecisions",
            memory.decision_count() as f64,
            "Queries stopped by the overcommit policy since start-up",
        ),
    ];
    rows.extend(cache_metrics(instance));
    if let Some(allocated) = allocator::allocated_bytes() {
        rows.push((
            "AllocatorAllocated",
            allocated as f64,
            "Live heap bytes counted by the global allocator (exact to 1 MiB per thread)",
        ));
    }
    vec![
        strings(rows.iter().map(|r| r.0.to_string())),
        Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.1))),
        strings(rows.iter().map(|r| r.2.to_string())),
    ]
}

/// The columns both `system.processes` and `system.query_log` give about the client.
fn client_fields() -> Vec<Field> {
    vec![
        s("user"),
        s("address"),
        Field::new("interface", DataType::UInt8, false),
        s("http_user_agent"),
        s("client_name"),
    ]
}

fn client_rows<'a>(clients: impl Iterator<Item = &'a ClientInfo> + Clone) -> Vec<ArrayRef> {
    vec![
        strings(clients.clone().map(|c| c.user.clone())),
        strings(clients.clone().map(|c| c.address.clone())),
        Arc::new(UInt8Array::from_iter_values(
            clients.clone().map(|c| c.interface as u8),
        )),
        strings(clients.clone().map(|c| c.http_user_agent.clone())),
        strings(clients.map(|c| c.client_name.clone())),
    ]
}

pub fn processes_fields() -> Vec<Field> {
    let mut fields = vec![
        s("query_id"),
        s("query"),
        s("current_database"),
        Field::new("elapsed", DataType::Float64, false),
        u64("read_rows"),
        u64("read_bytes"),
        u64("total_rows_approx"),
        u64("written_rows"),
        u64("written_bytes"),
        u64("result_rows"),
        u64("memory_usage"),
        u64("peak_memory_usage"),
        map_field("ProfileEvents", DataType::UInt64),
        map_field("Settings", DataType::Utf8),
    ];
    fields.extend(client_fields());
    fields
}

pub fn processes_rows(instance: &Instance) -> Vec<ArrayRef> {
    use datafusion::execution::memory_pool::MemoryPool;
    let queries = instance.processes.running();
    let events: Vec<_> = queries.iter().map(|q| q.events.nonzero()).collect();
    let settings: Vec<_> = queries.iter().map(|q| q.settings.changes()).collect();
    let mut rows: Vec<ArrayRef> = vec![
        strings(queries.iter().map(|q| q.query_id.clone())),
        strings(queries.iter().map(|q| q.text.clone())),
        strings(queries.iter().map(|q| q.current_database.clone())),
        Arc::new(Float64Array::from_iter_values(
            queries.iter().map(|q| q.started.elapsed().as_secs_f64()),
        )),
        numbers(queries.iter().map(|q| q.rows_read())),
        numbers(queries.iter().map(|q| q.bytes_read())),
        numbers(queries.iter().map(|q| q.rows_to_read())),
        numbers(queries.iter().map(|q| q.written_rows())),
        numbers(queries.iter().map(|q| q.written_bytes())),
        numbers(queries.iter().map(|q| q.result_rows())),
        numbers(queries.iter().map(|q| q.memory.reserved() as u64)),
        numbers(queries.iter().map(|q| q.memory.peak() as u64)),
        profile_events(events.iter().map(Vec::as_slice)),
        settings_map(settings.iter().map(Vec::as_slice)),
    ];
    rows.extend(client_rows(queries.iter().map(|q| q.client.as_ref())));
    rows
}

pub fn query_log_fields() -> Vec<Field> {
    let mut fields = vec![
        s("type"),
        Field::new("event_date", DataType::Date32, false),
        datetime("event_time"),
        microseconds_field("event_time_microseconds"),
        datetime("query_start_time"),
        microseconds_field("query_start_time_microseconds"),
        u64("query_duration_ms"),
        u64("read_rows"),
        u64("read_bytes"),
        u64("written_rows"),
        u64("written_bytes"),
        u64("result_rows"),
        u64("result_bytes"),
        u64("memory_usage"),
        u64("peak_memory_usage"),
        u64("temporary_data_bytes"),
        u64("temporary_data_compressed_bytes"),
        u64("temporary_data_warm_peak_bytes"),
        u64("temporary_data_disk_written_bytes"),
        u64("temporary_data_disk_read_bytes"),
        s("current_database"),
        s("query"),
        s("query_kind"),
        s("query_id"),
        Field::new("exception_code", DataType::Int32, false),
        s("exception"),
        map_field("ProfileEvents", DataType::UInt64),
        map_field("Settings", DataType::Utf8),
    ];
    fields.extend(client_fields());
    fields
}

pub fn query_log_rows(instance: &Instance) -> Vec<ArrayRef> {
    let entries = instance.query_log.entries();
    let mut rows: Vec<ArrayRef> = vec![
        strings(entries.iter().map(|e| e.kind.name().to_string())),
        Arc::new(Date32Array::from_iter_values(
            entries
                .iter()
                .map(|e| (seconds(e.event_time) / 86_400) as i32),
        )),
        Arc::new(TimestampSecondArray::from_iter_values(
            entries.iter().map(|e| seconds(e.event_time)),
        )),
        Arc::new(TimestampMicrosecondArray::from_iter_values(
            entries.iter().map(|e| micros(e.event_time)),
        )),
        Arc::new(TimestampSecondArray::from_iter_values(
            entries.iter().map(|e| seconds(e.query_start_time)),
        )),
        Arc::new(TimestampMicrosecondArray::from_iter_values(
            entries.iter().map(|e| micros(e.query_start_time)),
        )),
        numbers(entries.iter().map(|e| e.query_duration_ms)),
        numbers(entries.iter().map(|e| e.read_rows)),
        numbers(entries.iter().map(|e| e.read_bytes)),
        numbers(entries.iter().map(|e| e.written_rows)),
        numbers(entries.iter().map(|e| e.written_bytes)),
        numbers(entries.iter().map(|e| e.result_rows)),
        numbers(entries.iter().map(|e| e.result_bytes)),
        numbers(entries.iter().map(|e| e.memory_usage)),
        numbers(entries.iter().map(|e| e.peak_memory_usage)),
        numbers(entries.iter().map(|e| e.spill.bytes_spilled)),
        numbers(entries.iter().map(|e| e.spill.bytes_compressed)),
        numbers(entries.iter().map(|e| e.spill.warm_peak)),
        numbers(entries.iter().map(|e| e.spill.disk_bytes_written)),
        numbers(entries.iter().map(|e| e.spill.disk_bytes_read)),
        strings(entries.iter().map(|e| e.current_database.clone())),
        strings(entries.iter().map(|e| e.query.clone())),
        strings(entries.iter().map(|e| e.query_kind.to_string())),
        strings(entries.iter().map(|e| e.query_id.clone())),
        Arc::new(Int32Array::from_iter_values(
            entries.iter().map(|e| e.exception_code),
        )),
        strings(entries.iter().map(|e| e.exception.clone())),
        profile_events(entries.iter().map(|e| e.profile_events.as_slice())),
        settings_map(entries.iter().map(|e| e.settings.as_slice())),
    ];
    rows.extend(client_rows(entries.iter().map(|e| e.client.as_ref())));
    rows
}

/// ClickHouse's metrics of each data cache tier, plus the longest a resize,
/// reclaim or drop held one cache shard's lock.
fn cache_metrics(instance: &Instance) -> Vec<(&'static str, f64, &'static str)> {
    let stats = |tier| instance.cache.stats(tier);
    let (marks, hot, warm) = (
        stats(CacheTier::Mark),
        stats(CacheTier::Uncompressed),
        stats(CacheTier::Page),
    );
    vec![
        (
            "MarkCacheBytes",
            marks.bytes as f64,
            "Bytes of the mark cache",
        ),
        (
            "MarkCacheFiles",
            marks.entries as f64,
            "Columns of parts whose marks are in the mark cache",
        ),
        (
            "UncompressedCacheBytes",
            hot.bytes as f64,
            "Bytes of the uncompressed cache (decoded granules)",
        ),
        (
            "UncompressedCacheCells",
            hot.entries as f64,
            "Granules in the uncompressed cache",
        ),
        (
            "PageCacheBytes",
            warm.bytes as f64,
            "Bytes of the page cache (compressed granules)",
        ),
        (
            "PageCacheCells",
            warm.entries as f64,
            "Granules in the page cache",
        ),
        (
            "CacheEvictionLockMaxMicroseconds",
            instance.cache.longest_eviction_hold().as_secs_f64() * 1e6,
            "The longest one data cache shard's lock was held to evict entries (resize, reclaim, drop) since start-up",
        ),
    ]
}

pub fn memory_tiers_fields() -> Vec<Field> {
    vec![
        s("tier"),
        u64("bytes"),
        u64("uncompressed_bytes"),
        u64("files"),
        s("description"),
    ]
}

/// Each tier of the memory hierarchy for the whole process, now: operator
/// memory and temporary data, and beside them the data cache's tiers, all
/// reserved on the same server account.
pub fn memory_tiers_rows(instance: &Instance) -> Vec<ArrayRef> {
    let tiers = strata_execution::spill::process_tiers();
    let load =
        |counter: &std::sync::atomic::AtomicU64| counter.load(std::sync::atomic::Ordering::Relaxed);
    let warm = load(&tiers.warm_bytes);
    let operators = (instance.memory.query_reserved() as u64).saturating_sub(warm);
    let disk = load(&tiers.disk_bytes);
    let mut rows: Vec<(&str, u64, u64, u64, &str)> = vec![
        (
            "hot",
            operators,
            operators,
            0,
            "Tracked operator memory, less the warm tier",
        ),
        (
            "warm",
            warm,
            load(&tiers.warm_uncompressed_bytes),
            0,
            "Compressed temporary blocks in RAM, part of the tracked memory",
        ),
        (
            "disk",
            disk,
            disk,
            load(&tiers.disk_files),
            "Temporary blocks in files under tmp_path (bytes as stored)",
        ),
    ];
    for tier in CacheTier::ALL {
        let stats = instance.cache.stats(tier);
        let (name, description) = match tier {
            CacheTier::Mark => (
                "mark_cache",
                "MergeTree marks in RAM (files: columns of parts)",
            ),
            CacheTier::Uncompressed => (
                "uncompressed_cache",
                "Decoded MergeTree granules in RAM, the data cache's hot tier (files: granules)",
            ),
            CacheTier::Page => (
                "page_cache",
                "Compressed MergeTree granules in RAM, the data cache's warm tier (files: granules)",
            ),
        };
        let bytes = stats.bytes as u64;
        rows.push((name, bytes, bytes, stats.entries as u64, description));
    }
    vec![
        strings(rows.iter().map(|r| r.0.to_string())),
        numbers(rows.iter().map(|r| r.1)),
        numbers(rows.iter().map(|r| r.2)),
        numbers(rows.iter().map(|r| r.3)),
        strings(rows.iter().map(|r| r.4.to_string())),
    ]
}

fn microseconds_field(name: &str) -> Field {
    Field::new(
        name,
        DataType::Timestamp(TimeUnit::Microsecond, None),
        false,
    )
}

pub fn part_log_fields() -> Vec<Field> {
    vec![
        s("event_type"),
        Field::new("event_date", DataType::Date32, false),
        datetime("event_time"),
        microseconds_field("event_time_microseconds"),
        u64("duration_ms"),
        s("database"),
        s("table"),
        s("table_uuid"),
        s("part_name"),
        s("partition_id"),
        s("disk_name"),
        s("path_on_disk"),
        u64("rows"),
        u64("size_in_bytes"),
        list("merged_from", DataType::Utf8),
        Field::new("error", DataType::UInt16, false),
        s("exception"),
    ]
}

pub fn part_log_rows(instance: &Instance) -> Vec<ArrayRef> {
    let entries = instance.part_log.entries();
    let events = || entries.iter().map(|e| &e.event);
    let text = |value: fn(&PartLogEntry) -> String| strings(entries.iter().map(value));
    let mut merged_from = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::Utf8,
        false,
    )));
    for event in events() {
        for name in &event.merged_from {
            merged_from.values().append_value(name);
        }
        merged_from.append(true);
    }
    vec![
        strings(events().map(|e| e.event_type.name().to_string())),
        Arc::new(Date32Array::from_iter_values(
            events().map(|e| (seconds(e.event_time) / 86_400) as i32),
        )),
        Arc::new(TimestampSecondArray::from_iter_values(
            events().map(|e| seconds(e.event_time)),
        )),
        Arc::new(TimestampMicrosecondArray::from_iter_values(
            events().map(|e| micros(e.event_time)),
        )),
        numbers(events().map(|e| e.duration.as_millis() as u64)),
        text(|e| e.database.clone()),
        text(|e| e.table.clone()),
        text(|e| e.table_uuid.to_string()),
        strings(events().map(|e| e.part_name.clone())),
        strings(events().map(|e| e.partition_id.clone())),
        strings(events().map(|e| e.disk_name.clone())),
        strings(events().map(|e| e.path_on_disk.clone())),
        numbers(events().map(|e| e.rows)),
        numbers(events().map(|e| e.size_in_bytes)),
        Arc::new(merged_from.finish()),
        // Only changes that took effect are logged.
        Arc::new(UInt16Array::from_iter_values(events().map(|_| 0))),
        strings(events().map(|_| String::new())),
    ]
}

pub fn text_log_fields() -> Vec<Field> {
    vec![
        Field::new("event_date", DataType::Date32, false),
        datetime("event_time"),
        microseconds_field("event_time_microseconds"),
        s("thread_name"),
        s("level"),
        s("query_id"),
        s("logger_name"),
        s("message"),
    ]
}

pub fn text_log_rows() -> Vec<ArrayRef> {
    let records = text_log::records();
    vec![
        Arc::new(Date32Array::from_iter_values(
            records
                .iter()
                .map(|r| (seconds(r.event_time) / 86_400) as i32),
        )),
        Arc::new(TimestampSecondArray::from_iter_values(
            records.iter().map(|r| seconds(r.event_time)),
        )),
        Arc::new(TimestampMicrosecondArray::from_iter_values(
            records.iter().map(|r| micros(r.event_time)),
        )),
        strings(records.iter().map(|r| r.thread_name.clone())),
        strings(records.iter().map(|r| r.level.to_string())),
        // Records are not tied to queries yet.
        strings(records.iter().map(|_| String::new())),
        strings(records.iter().map(|r| r.logger_name.clone())),
        strings(records.iter().map(|r| r.message.clone())),
    ]
}
