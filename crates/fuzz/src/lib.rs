//! Fuzz targets: each takes any bytes and must return without a panic, a
//! crash or an unbounded allocation, whatever the bytes say. An error is a
//! fine answer; the targets drop it.
//!
//! `fuzz/` (cargo-fuzz, libFuzzer) drives these functions with generated
//! inputs; `tests/corpora.rs` replays the checked-in corpora through the same
//! functions in every `cargo test`, so an input that once crashed stays
//! fixed.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use datafusion::arrow::datatypes::FieldRef;
use strata_common::types::parse_clickhouse_type;
use strata_engine::{Engine, Session};
use strata_formats::input::{AllowErrors, InputFormat, InputTarget};
use strata_storage::part::reader::Part;

/// The targets, by the name cargo-fuzz and the corpus folders use.
pub const TARGETS: [(&str, fn(&[u8])); 3] =
    [("sql", sql), ("input_format", input_format), ("part", part)];

/// Columns of every type family Strata stores, for the tables the SQL
/// target plans against and the rows the input formats read.
const COLUMNS: [(&str, &str); 12] = [
    ("a", "UInt64"),
    ("s", "String"),
    ("n", "Nullable(Int32)"),
    ("d", "Date"),
    ("f", "Float64"),
    ("arr", "Array(String)"),
    ("dec", "Decimal(18, 4)"),
    ("dt", "DateTime64(3)"),
    ("e", "Enum8('x' = 1, 'y' = 2)"),
    ("fs", "FixedString(4)"),
    ("u", "UUID"),
    ("b", "Bool"),
];

/// Rows per block the input formats cut; small, so block boundaries are hit.
const BLOCK_ROWS: usize = 7;

struct Fixture {
    runtime: tokio::runtime::Runtime,
    session: Mutex<Session>,
}

/// One engine per process with a MergeTree, a Memory and a Null table of
/// [`COLUMNS`]: building it per input would measure start-up, not parsing.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let engine = Engine::new().expect("an engine on a temporary path");
        let mut session = engine.new_session();
        let columns: Vec<String> = COLUMNS.iter().map(|(n, t)| format!("{n} {t}")).collect();
        let columns = columns.join(", ");
        let setup = [
            format!("CREATE TABLE t ({columns}) ENGINE = MergeTree ORDER BY (a, d)"),
            format!("CREATE TABLE mem ({columns}) ENGINE = Memory"),
            format!("CREATE TABLE nul ({columns}) ENGINE = Null"),
            "INSERT INTO t (a, s, n, d) SELECT number, toString(number), \
             if(number % 3 = 0, NULL, number), toDate(number) FROM numbers(100)"
                .to_string(),
            "INSERT INTO mem SELECT * FROM t".to_string(),
        ];
        for statement in setup {
            runtime
                .block_on(session.execute(&statement))
                .unwrap_or_else(|e| panic!("fixture statement {statement}: {e}"));
        }
        Fixture {
            runtime,
            session: Mutex::new(session),
        }
    })
}

fn execute(text: &str) -> bool {
    let fixture = fixture();
    let mut session = fixture.session.lock().unwrap_or_else(|e| e.into_inner());
    fixture.runtime.block_on(session.execute(text)).is_ok()
}

/// The SQL front: splitting, parsing and rewriting any statement, and
/// planning a query down to its physical plan (`EXPLAIN PIPELINE`) without
/// running it, so a slow query is not mistaken for a hang.
pub fn sql(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = strata_sql::parser::split_statements(text);
    let _ = strata_sql::parser::parse_statement(text);
    execute(&format!("EXPLAIN PIPELINE {text}"));
    execute(&format!("EXPLAIN SYNTAX {text}"));
}

/// Every input format reader over [`COLUMNS`]: the first byte picks the
/// format (one past the last of [`InputFormat::NAMES`] is `Values`, read by
/// an insert into a Null table), the second whether bad rows are skipped.
pub fn input_format(data: &[u8]) {
    let [choice, errors, rest @ ..] = data else {
        return;
    };
    let names = InputFormat::NAMES;
    let choice = *choice as usize % (names.len() + 1);
    if choice == names.len() {
        if let Ok(text) = std::str::from_utf8(rest) {
            execute(&format!("INSERT INTO nul VALUES {text}"));
        }
        return;
    }
    let format = InputFormat::from_name(names[choice]).expect("a listed input format");
    let fields: Vec<FieldRef> = COLUMNS
        .iter()
        .map(|(name, type_name)| {
            let column_type = parse_clickhouse_type(type_name).expect("a known type");
            Arc::new(column_type.field(name.to_string()))
        })
        .collect();
    let target = InputTarget {
        has_default: fields.iter().map(|_| errors & 2 != 0).collect(),
        fields,
        allow_errors: AllowErrors {
            num: u64::from(errors & 1) * 5,
            ratio: 0.0,
        },
    };
    let source = Box::new(Cursor::new(rest.to_vec()));
    let read = || {
        let Ok(mut blocks) = format.open(target, source, BLOCK_ROWS) else {
            return;
        };
        while let Ok(Some(_)) = blocks.next_block() {}
    };
    match format {
        InputFormat::Arrow | InputFormat::ArrowStream | InputFormat::Parquet => {
            with_quiet_panics(read)
        }
        _ => read(),
    }
}

/// Runs `f` with a panic hook that does nothing. arrow-ipc panics on some
/// malformed messages and schemas instead of failing (apache/arrow-rs#7124,
/// #10437; Parquet files embed an Arrow schema); the Arrow and Parquet
/// readers catch those panics and report INCORRECT_DATA, but
/// libFuzzer's hook aborts at the panic, before any catch. A panic nothing
/// catches still unwinds out of the target, and libFuzzer reports it.
fn with_quiet_panics(f: impl FnOnce()) {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    f();
    std::panic::set_hook(hook);
}

/// The part reader: the input is a part directory (see [`frame_files`]),
/// written to disk, opened, checked and read column by column.
pub fn part(data: &[u8]) {
    let _ = read_part(data);
}

/// [`part`], returning the rows it read: every column of every granule,
/// or the first error.
pub fn read_part(data: &[u8]) -> strata_common::Result<usize> {
    let dir = part_directory();
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("remove the previous part");
    }
    std::fs::create_dir_all(&dir).expect("create the part directory");
    for (name, bytes) in unframe_files(data) {
        std::fs::write(dir.join(name), bytes).expect("write a part file");
    }
    let part = Part::open(&dir, None)?;
    part.verify_checksums()?;
    part.partition()?;
    part.column_sizes()?;
    let granules = part.granules.len();
    let mut rows = 0;
    for column in &part.columns {
        rows += part.read_column(column.name(), 0..granules)?.len();
        part.minmax(column.name())?;
    }
    Ok(rows)
}

/// This process's scratch part, named as a part must be to open.
fn part_directory() -> PathBuf {
    scratch_directory().join("all_1_1_0")
}

/// One per thread, so tests running at once do not share it.
fn scratch_directory() -> PathBuf {
    let thread = std::thread::current().id();
    std::env::temp_dir().join(format!("strata-fuzz-{}-{thread:?}", std::process::id()))
}

/// Removes what [`part`] wrote on this thread; for a caller that runs it a
/// bounded number of times (libFuzzer reuses the directory until it exits).
pub fn remove_scratch() {
    let _ = std::fs::remove_dir_all(scratch_directory());
}

/// The files of a directory as one input: for each file, its name, a zero
/// byte, its length as 4 little-endian bytes, and its bytes.
pub fn frame_files(dir: &Path) -> std::io::Result<Vec<u8>> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    let mut framed = Vec::new();
    for entry in entries {
        let bytes = std::fs::read(entry.path())?;
        framed.extend_from_slice(entry.file_name().to_string_lossy().as_bytes());
        framed.push(0);
        framed.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        framed.extend_from_slice(&bytes);
    }
    Ok(framed)
}

/// The longest file name Linux file systems take.
const MAX_FILE_NAME_BYTES: usize = 255;

/// The files [`frame_files`] framed; a file name that could leave the
/// directory or that no file system takes is skipped, a torn last frame
/// cut short.
fn unframe_files(mut data: &[u8]) -> Vec<(String, &[u8])> {
    let mut files = Vec::new();
    while let Some(end) = data.iter().position(|&b| b == 0) {
        let name = String::from_utf8_lossy(&data[..end]).into_owned();
        data = &data[end + 1..];
        let Some((length, rest)) = data.split_first_chunk::<4>() else {
            break;
        };
        let length = (u32::from_le_bytes(*length) as usize).min(rest.len());
        let (bytes, rest) = rest.split_at(length);
        data = rest;
        let plain = |c: char| c.is_ascii_alphanumeric() || "._-%".contains(c);
        // Longer names than a file system takes would fail the write.
        let fits = !name.is_empty() && name.len() <= MAX_FILE_NAME_BYTES;
        if fits && name != "." && name != ".." && name.chars().all(plain) {
            files.push((name, bytes));
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_plans_and_inserts() {
        assert!(execute(
            "EXPLAIN PIPELINE SELECT e, count() FROM t JOIN mem USING (a) GROUP BY e"
        ));
        assert!(execute("INSERT INTO nul (a, s) VALUES (1, 'x') (2, 'y')"));
        assert!(!execute("EXPLAIN PIPELINE SELECT * FROM missing"));
    }

    #[test]
    fn framing_round_trips_and_refuses_paths() {
        let dir = std::env::temp_dir().join(format!("strata-fuzz-frame-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("count.txt"), b"3").unwrap();
        std::fs::write(dir.join("a.bin"), [1u8, 0, 2]).unwrap();
        let framed = frame_files(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let files = unframe_files(&framed);
        assert_eq!(
            files,
            vec![
                ("a.bin".to_string(), &[1u8, 0, 2][..]),
                ("count.txt".to_string(), &b"3"[..])
            ]
        );
        let mut escaping = b"../x\0".to_vec();
        escaping.extend_from_slice(&1u32.to_le_bytes());
        escaping.push(b'z');
        assert!(unframe_files(&escaping).is_empty());
        let mut long = vec![b'a'; 256];
        long.push(0);
        long.extend_from_slice(&0u32.to_le_bytes());
        assert!(unframe_files(&long).is_empty());
    }
}
