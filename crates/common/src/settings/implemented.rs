//! The settings Strata implements, each declared once with its kind,
//! default and description. The declaration also makes a typed accessor on
//! [`Settings`] (`settings.max_memory_usage()`), so code reads a setting by
//! a name the compiler checks, never by a string.
//!
//! Names, types and defaults are ClickHouse's unless the description says
//! otherwise; settings Strata adds start with `strata_` or describe a tier
//! ClickHouse does not have.

use super::{SettingDef, SettingKind, SettingValue, Settings};

/// How an accessor turns a stored value into its Rust type.
pub trait FromSettingValue {
    fn from_value(value: SettingValue) -> Self;
}

impl FromSettingValue for u64 {
    fn from_value(value: SettingValue) -> Self {
        match value {
            SettingValue::UInt64(v) => v,
            SettingValue::Int64(v) => v.max(0) as u64,
            SettingValue::Bool(b) => u64::from(b),
            SettingValue::Float(f) => f as u64,
            SettingValue::String(s) => panic!("setting value {s:?} is not an integer"),
        }
    }
}

impl FromSettingValue for f64 {
    fn from_value(value: SettingValue) -> Self {
        match value {
            SettingValue::Float(v) => v,
            SettingValue::UInt64(v) => v as f64,
            SettingValue::Int64(v) => v as f64,
            SettingValue::Bool(b) => f64::from(u8::from(b)),
            SettingValue::String(s) => panic!("setting value {s:?} is not a number"),
        }
    }
}

impl FromSettingValue for bool {
    fn from_value(value: SettingValue) -> Self {
        u64::from_value(value) != 0
    }
}

impl FromSettingValue for String {
    fn from_value(value: SettingValue) -> Self {
        value.to_string()
    }
}

/// A setting's name from its accessor's: `r#final` is `final`.
const fn setting_name(accessor: &'static str) -> &'static str {
    match accessor.as_bytes() {
        [b'r', b'#', rest @ ..] => match std::str::from_utf8(rest) {
            Ok(name) => name,
            Err(_) => panic!("a setting's name is an identifier"),
        },
        _ => accessor,
    }
}

/// Declares settings: a registry slice `$registry` and one accessor per setting.
macro_rules! declare_settings {
    ($registry:ident { $($name:ident: $ty:ty = $kind:expr, $default:literal, $description:literal;)* }) => {
        pub static $registry: &[SettingDef] = &[$(
            SettingDef {
                name: setting_name(stringify!($name)),
                kind: $kind,
                type_name: "",
                default: $default,
                description: $description,
                implemented: true,
                alias_for: "",
                obsolete: false,
            },
        )*];

        impl Settings {
            $(
                #[doc = $description]
                pub fn $name(&self) -> $ty {
                    <$ty as FromSettingValue>::from_value(self.value_of(setting_name(stringify!($name))))
                }
            )*
        }
    };
}

const SET_MODES: &[&str] = &["", "ALL", "DISTINCT"];
const OVERFLOW_MODES: &[&str] = &["break", "throw"];
const ALTER_UPDATE_MODES: &[&str] = &["heavy", "lightweight", "lightweight_force"];
const DATE_TIME_OUTPUT_FORMATS: &[&str] = &["simple", "iso", "unix_timestamp"];
const TABLE_ENGINES: &[&str] = &[
    "None",
    "Log",
    "StripeLog",
    "Memory",
    "MergeTree",
    "ReplacingMergeTree",
    "ReplicatedMergeTree",
    "ReplicatedReplacingMergeTree",
    "SharedMergeTree",
    "SharedReplacingMergeTree",
];

// Query-level settings. Keep sorted by name.
declare_settings!(IMPLEMENTED {
    aggregate_functions_null_for_empty: bool = SettingKind::Bool, "0",
        "Aggregates other than counts return NULL over no rows, as their -OrNull forms do";
    allow_deprecated_syntax_for_merge_tree: bool = SettingKind::Bool, "0",
        "Allow CREATE TABLE with the MergeTree family's old engine arguments, MergeTree(date, [sampling,] key, granularity), read as PARTITION BY toYYYYMM(date) ORDER BY key";
    allow_drop_detached: bool = SettingKind::Bool, "0",
        "Allow ALTER TABLE ... DROP DETACHED PART | PARTITION, which deletes detached data for good";
    allow_suspicious_codecs: bool = SettingKind::Bool, "0",
        "Allow a column CODEC of transformations alone (Delta), which compresses nothing";
    alter_update_mode: String = SettingKind::Enum(ALTER_UPDATE_MODES), "heavy",
        "ALTER TABLE ... UPDATE rewrites the columns it assigns (heavy), is written as a patch of the rows it changes where it can (lightweight), or must be (lightweight_force)";
    bool_false_representation: String = SettingKind::String, "false",
        "The text of a false Bool in TSV, CSV, Pretty and Vertical output";
    bool_true_representation: String = SettingKind::String, "true",
        "The text of a true Bool in TSV, CSV, Pretty and Vertical output";
    cancel_http_readonly_queries_on_client_close: bool = SettingKind::Bool, "0",
        "Cancel an HTTP query that only reads (GET, or readonly > 0) when its client closes the connection";
    cast_ipv4_ipv6_default_on_conversion_error: bool = SettingKind::Bool, "0",
        "IPv4StringToNum, IPv6StringToNum, toIPv4 and toIPv6 give the zero address for text that is no address, rather than failing";
    cast_keep_nullable: bool = SettingKind::Bool, "0",
        "CAST of a Nullable value to a non-Nullable type keeps it Nullable";
    check_query_single_value_result: bool = SettingKind::Bool, "0",
        "CHECK TABLE returns a row per part with its message (0) or one row for the whole table (1)";
    data_type_default_nullable: bool = SettingKind::Bool, "0",
        "CREATE TABLE makes a column declared without NULL or NOT NULL Nullable";
    date_time_output_format: String = SettingKind::Enum(DATE_TIME_OUTPUT_FORMATS), "simple",
        "How text formats write a DateTime: simple (2020-10-14 21:00:00 on its zone's clock), iso (2020-10-14T21:00:00Z, in UTC) or unix_timestamp (1602709200)";
    default_table_engine: String = SettingKind::Enum(TABLE_ENGINES), "MergeTree",
        "The engine of a CREATE TABLE that names none; None requires ENGINE";
    enable_filesystem_cache: bool = SettingKind::Bool, "1",
        "Read objects of cache disks through their filesystem cache; 0 reads from the object store only";
    enable_http_compression: bool = SettingKind::Bool, "1",
        "Compress HTTP responses in an encoding the client's Accept-Encoding names (gzip, deflate, br, zstd, lz4)";
    enable_lightweight_update: bool = SettingKind::Bool, "1",
        "Allow UPDATE ... SET, which writes a patch of the rows it changes beside each part";
    engine_file_empty_if_not_exists: bool = SettingKind::Bool, "0",
        "A File table whose file does not exist yet reads as empty (1) rather than failing with FILE_DOESNT_EXIST (0)";
    engine_file_truncate_on_insert: bool = SettingKind::Bool, "0",
        "INSERT INTO FUNCTION file(...) and into a File table replaces the file's contents (1) rather than appending to them (0)";
    except_default_mode: String = SettingKind::Enum(SET_MODES), "ALL",
        "What a bare EXCEPT means: ALL, DISTINCT, or empty to require one of them";
    extremes: bool = SettingKind::Bool, "0",
        "After the rows, show each column's smallest and largest value (in the TSV, CSV, JSON, Pretty, Vertical and XML formats)";
    r#final: bool = SettingKind::Bool, "0",
        "Read every table of the query whose engine merges rows (Replacing, Summing, ...) as with FINAL";
    format_csv_delimiter: String = SettingKind::Char, ",",
        "The character that separates fields in CSV formats";
    format_csv_null_representation: String = SettingKind::String, "\\N",
        "The text of a NULL in CSV output";
    format_tsv_null_representation: String = SettingKind::String, "\\N",
        "The text of a NULL in TabSeparated output";
    group_by_use_nulls: bool = SettingKind::Bool, "0",
        "Keys a grouping set (ROLLUP, CUBE, GROUPING SETS) leaves out of a row are NULL (1) or their type's default (0)";
    http_headers_progress_interval_ms: u64 = SettingKind::UInt64, "100",
        "The least time between two X-ClickHouse-Progress headers, in milliseconds";
    http_max_multipart_form_data_size: u64 = SettingKind::UInt64, "1073741824",
        "Bytes of a multipart/form-data request (external data) read into memory at most";
    http_native_compression_disable_checksumming_on_decompress: bool = SettingKind::Bool, "0",
        "Read decompress=1 request bodies without checking each compressed block's checksum";
    http_response_buffer_size: u64 = SettingKind::UInt64, "0",
        "Bytes of a response held before its headers are sent, when over 1 MiB (a later error then goes in the body); else the headers go out with the first block";
    http_wait_end_of_query: bool = SettingKind::Bool, "0",
        "Hold the whole HTTP response until the query ends, so every error gets its HTTP status";
    input_format_allow_errors_num: u64 = SettingKind::UInt64, "0",
        "Rows of a text input format (CSV, TSV, JSONEachRow) that fail to parse and are skipped; the insert fails only once both this and input_format_allow_errors_ratio are exceeded";
    input_format_allow_errors_ratio: f64 = SettingKind::Float, "0",
        "The share of rows of a text input format that may fail to parse and be skipped; the insert fails only once both this and input_format_allow_errors_num are exceeded";
    input_format_parquet_filter_push_down: bool = SettingKind::Bool, "1",
        "Skip the Parquet row groups whose min, max and null counts rule out the query's filter (file() and s3())";
    insert_null_as_default: bool = SettingKind::Bool, "1",
        "INSERT ... SELECT stores a column's default where the query gives NULL to a column that is not Nullable; 0 fails the insert";
    intersect_default_mode: String = SettingKind::Enum(SET_MODES), "ALL",
        "What a bare INTERSECT means: ALL, DISTINCT, or empty to require one of them";
    join_use_nulls: bool = SettingKind::Bool, "0",
        "Columns an outer join finds no row for are NULL (1) or their type's default (0)";
    lightweight_deletes_sync: u64 = SettingKind::UInt64, "2",
        "DELETE FROM returns once its mutation has finished (1, 2, 3) or at once (0)";
    limit: f64 = SettingKind::Float, "0",
        "Rows a SELECT returns at most, counted after its own LIMIT and the offset setting (a LIMIT around the whole result); 0 means no limit";
    log_queries: bool = SettingKind::Bool, "1",
        "Record each query's start, end, figures and error in system.query_log";
    max_block_size: u64 = SettingKind::NonZeroUInt64, "65409",
        "The number of rows in a block that sources produce";
    max_bytes_before_external_group_by: u64 = SettingKind::UInt64, "0",
        "Bytes a GROUP BY's tables may hold before they move their states to temporary data by key hash partition; 0 leaves it to max_bytes_ratio_before_external_group_by";
    max_bytes_before_external_join: u64 = SettingKind::UInt64, "0",
        "Bytes a join or set operation (INTERSECT, EXCEPT, IN) may hold before it moves partitions to temporary data; 0 leaves it to max_bytes_ratio_before_external_join";
    max_bytes_before_external_sort: u64 = SettingKind::UInt64, "0",
        "Bytes an ORDER BY's unsorted rows may hold, over all its threads, before they are sorted and written to temporary data as runs; 0 leaves it to max_bytes_ratio_before_external_sort";
    max_bytes_ratio_before_external_group_by: f64 = SettingKind::Ratio, "0.5",
        "The share of the query's memory limit (max_memory_usage, else the server's) a GROUP BY's tables may hold before they move their states to temporary data";
    max_bytes_ratio_before_external_join: f64 = SettingKind::Ratio, "0.5",
        "The share of the query's memory limit (max_memory_usage, else the server's) a join or set operation may hold before it moves partitions to temporary data";
    max_bytes_ratio_before_external_sort: f64 = SettingKind::Ratio, "0.5",
        "The share of the query's memory limit (max_memory_usage, else the server's) an ORDER BY's unsorted rows may hold before they are written to temporary data as sorted runs";
    max_execution_time: f64 = SettingKind::Seconds, "0",
        "Seconds a query may run before it fails with TIMEOUT_EXCEEDED; 0 means no limit";
    max_insert_block_size: u64 = SettingKind::NonZeroUInt64, "1048449",
        "Rows an INSERT gathers into one block; each block becomes one part per partition of a MergeTree table";
    max_memory_usage: u64 = SettingKind::UInt64, "0",
        "Bytes of tracked memory one query may use; 0 means no per-query limit";
    max_query_size: u64 = SettingKind::UInt64, "262144",
        "Bytes of a statement's text the parser reads; the data of an INSERT ... FORMAT after it does not count";
    max_result_rows: u64 = SettingKind::UInt64, "0",
        "Rows a SELECT may return before result_overflow_mode applies; 0 means no limit";
    max_rows_to_read: u64 = SettingKind::UInt64, "0",
        "Rows a query may read from tables and table functions before it fails with TOO_MANY_ROWS (with read_overflow_mode = 'throw'); 0 means no limit";
    max_temporary_data_on_disk_size_for_query: u64 = SettingKind::UInt64, "0",
        "Bytes of temporary data one query may keep on disk; 0 means no limit";
    max_threads: u64 = SettingKind::MaxThreads, "auto",
        "Threads (partitions) a query uses; auto means one per CPU core";
    memory_overcommit_ratio_denominator: u64 = SettingKind::UInt64, "1073741824",
        "Bytes that count as one unit of overcommit: when the server limit is reached, the query with the largest ratio of its memory to this is stopped; 0 exempts the query";
    memory_usage_overcommit_max_wait_microseconds: u64 = SettingKind::UInt64, "5000000",
        "How long a query waits for memory to be freed by a query chosen to stop before it fails itself";
    merge_tree_max_bytes_to_use_cache: u64 = SettingKind::UInt64, "2013265920",
        "A scan of more bytes than this takes hits from the data cache but adds nothing to it, so one large scan cannot push out what smaller queries keep reading";
    merge_tree_max_rows_to_use_cache: u64 = SettingKind::UInt64, "1048576",
        "A scan of more rows than this takes hits from the data cache but adds nothing to it, so one large scan cannot push out what smaller queries keep reading";
    mutations_sync: u64 = SettingKind::UInt64, "1",
        "ALTER TABLE ... DELETE/UPDATE returns once its mutation has finished (1, 2, 3) or at once (0)";
    offset: f64 = SettingKind::Float, "0",
        "Rows skipped from the start of a SELECT's result, after its own LIMIT and OFFSET";
    output_format_decimal_trailing_zeros: bool = SettingKind::Bool, "0",
        "Text formats write a Decimal with every digit of its scale (1.500), not without the zeros that end its fraction (1.5)";
    output_format_json_array_of_rows: bool = SettingKind::Bool, "0",
        "JSONEachRow writes its rows as the elements of one JSON array rather than one object per line";
    output_format_json_quote_64bit_integers: bool = SettingKind::Bool, "0",
        "Quote 64-bit integers in JSON output formats";
    output_format_json_quote_denormals: bool = SettingKind::Bool, "0",
        "JSON output formats write nan, inf and -inf as quoted text instead of null";
    output_format_markdown_escape_special_characters: bool = SettingKind::Bool, "0",
        "Markdown output puts a backslash before each ASCII punctuation mark in a cell, so the text shows as written";
    output_format_parquet_row_group_size: u64 = SettingKind::UInt64, "1000000",
        "Rows in a row group of Parquet output at most (0 counts as 1)";
    output_format_pretty_max_column_name_width_cut_to: u64 = SettingKind::UInt64, "24",
        "Pretty and Vertical formats cut a column name that is not a plain identifier to this width (or its values' width in Pretty), keeping both ends";
    output_format_pretty_max_column_name_width_min_chars_to_cut: u64 = SettingKind::UInt64, "4",
        "A column name is cut only when that removes more than this many characters";
    output_format_pretty_max_rows: u64 = SettingKind::UInt64, "1000",
        "Rows shown by Pretty formats before the rest is elided";
    output_format_pretty_row_numbers: bool = SettingKind::Bool, "1",
        "Number the rows in Pretty formats";
    output_format_pretty_single_large_number_tip_threshold: u64 = SettingKind::UInt64, "1000000",
        "Pretty formats follow a number in the last column (Vertical: any number) larger than this with its size in words (`-- 1.23 million`); 0 turns it off";
    output_format_write_statistics: bool = SettingKind::Bool, "1",
        "End JSON and XML output with the query's statistics (elapsed time, rows and bytes read)";
    query_plan_optimize_join_order_limit: u64 = SettingKind::UInt64, "10",
        "Most inputs of one level's inner joins that the planner puts in the order it estimates cheapest; 0 keeps the order the query names them in";
    read_from_filesystem_cache_if_exists_otherwise_bypass_cache: bool = SettingKind::Bool, "0",
        "Read what a cache disk's filesystem cache holds and the rest from the object store, without caching it";
    read_overflow_mode: String = SettingKind::Enum(OVERFLOW_MODES), "throw",
        "Past max_rows_to_read: fail with TOO_MANY_ROWS (throw); break is accepted but reads on, as if there were no limit";
    readonly: u64 = SettingKind::UInt64, "0",
        "1 forbids writes and setting changes, 2 forbids writes only";
    remote_filesystem_read_prefetch: bool = SettingKind::Bool, "1",
        "A MergeTree scan of parts on a remote disk reads a few chunks ahead of the one it returns, each a request in flight";
    result_overflow_mode: String = SettingKind::Enum(OVERFLOW_MODES), "throw",
        "Past max_result_rows: fail with TOO_MANY_ROWS_OR_BYTES (throw), or end the result after the block that reached it (break)";
    s3_create_new_file_on_insert: bool = SettingKind::Bool, "0",
        "INSERT INTO FUNCTION s3(...) of a key that exists writes the next free key numbered name.1.ext, name.2.ext, ...";
    s3_truncate_on_insert: bool = SettingKind::Bool, "0",
        "INSERT INTO FUNCTION s3(...) of a key that exists replaces the object (else the insert is refused)";
    send_progress_in_http_headers: bool = SettingKind::Bool, "0",
        "Send X-ClickHouse-Progress headers while an HTTP query runs";
    strata_group_by_operators: bool = SettingKind::Bool, "1",
        "Strata's own setting: 0 leaves every query to DataFusion's own operators: GROUP BY to AggregateExec instead of Strata's dense, packed-key and hash operators, and semi joins (INTERSECT, EXCEPT, IN) and other hash joins to HashJoinExec, which cannot spill; to compare the two";
    temporary_data_compression: String = SettingKind::Enum(&["none", "lz4", "zstd"]), "lz4",
        "Strata's own setting: how temporary data is compressed, in RAM (the warm tier) and on disk: none, lz4 or zstd";
    temporary_data_warm_ratio: f64 = SettingKind::Ratio, "0.5",
        "Strata's own setting: the share of an operator's spill threshold it may keep as compressed blocks in RAM before the oldest go to disk; 0 sends every spilled block to disk";
    transform_null_in: bool = SettingKind::Bool, "0",
        "IN treats NULL as a value: NULL IN (1, NULL) is 1, and IN never answers NULL (lists; a subquery's NULLs are still skipped)";
    union_default_mode: String = SettingKind::Enum(SET_MODES), "",
        "What a bare UNION means: ALL, DISTINCT, or empty to require one of them";
    use_page_cache_for_disks_without_file_cache: bool = SettingKind::Bool, "1",
        "Read MergeTree granules through the page cache, the data cache's tier of compressed blocks in RAM (page_cache_max_size); Strata's default is 1, ClickHouse's 0";
    use_uncompressed_cache: bool = SettingKind::Bool, "0",
        "Read MergeTree granules through the uncompressed cache, the data cache's tier of decoded blocks (uncompressed_cache_size)";
    use_with_fill_by_sorting_prefix: bool = SettingKind::Bool, "1",
        "WITH FILL fills within each run of equal values of the ORDER BY keys before the first filled one; 0 fills the result as one run";
});

// Settings of the whole process, fixed at start-up. Keep sorted by name.
declare_settings!(SERVER {
    default_session_timeout: u64 = SettingKind::UInt64, "60",
        "Seconds an HTTP session lives without requests when the request names no session_timeout";
    keep_alive_timeout: u64 = SettingKind::UInt64, "30",
        "Seconds an idle HTTP keep-alive connection stays open";
    mark_cache_size: u64 = SettingKind::UInt64, "5368709120",
        "Bytes of MergeTree marks kept in RAM, at most 5% of the server memory limit; changeable without restart";
    max_concurrent_queries: u64 = SettingKind::UInt64, "0",
        "Queries the server runs at once; one more fails with TOO_MANY_SIMULTANEOUS_QUERIES; 0 for no limit";
    max_server_memory_usage: u64 = SettingKind::UInt64, "0",
        "Bytes of tracked memory the whole process may use; 0 derives it from max_server_memory_usage_to_ram_ratio";
    max_server_memory_usage_to_ram_ratio: f64 = SettingKind::Ratio, "0.9",
        "The share of available memory (the smaller of physical RAM and the cgroup limit) the process may use when max_server_memory_usage is 0";
    max_session_timeout: u64 = SettingKind::UInt64, "3600",
        "The longest session_timeout an HTTP request may ask for, in seconds";
    page_cache_max_size: u64 = SettingKind::UInt64, "8589934592",
        "Bytes of compressed MergeTree blocks kept in RAM (the data cache's warm tier), at most 25% of the server memory limit; 0 turns it off; Strata's default, ClickHouse's is 0; changeable without restart";
    page_cache_min_size: u64 = SettingKind::UInt64, "0",
        "Bytes of the warm tier that queries needing memory do not take back: it floats between this and page_cache_max_size on what queries leave free; Strata's default 0 gives all of it back, ClickHouse's is 100 MiB; changeable without restart";
    tmp_path: String = SettingKind::String, "",
        "Directories for temporary data, separated by commas and written round-robin; empty means tmp/ under the data path";
    uncompressed_cache_size: u64 = SettingKind::UInt64, "8589934592",
        "Bytes of decoded MergeTree blocks kept in RAM (the data cache's hot tier, read by queries with use_uncompressed_cache = 1), at most 25% of the server memory limit; 0 turns it off; Strata's default, ClickHouse's is 0; changeable without restart";
    user_files_path: String = SettingKind::String, "",
        "The directory file() reads: relative paths resolve there and a path that leaves it is refused; strata server makes an empty value user_files/ under its data path, strata local reads any path, relative to the current directory, as clickhouse-local does";
});
