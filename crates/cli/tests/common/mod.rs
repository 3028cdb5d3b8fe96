//! Running `strata local` on a data path and checking what it left there,
//! shared by the CLI's test binaries.

// Each test binary uses its own share of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .output()
        .expect("strata runs")
}

/// Runs `sql` on the data path `path` and returns its output; panics on failure.
pub fn strata(path: &Path, sql: &str) -> String {
    let out = run(&["local", "--path", path.to_str().unwrap(), "-q", sql]);
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Every file and directory under `dir` whose name starts with `tmp_`: a
/// part, merge or mutation being built.
pub fn temporary_entries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with("tmp_") {
                found.push(path.clone());
            }
            if path.is_dir() {
                pending.push(path);
            }
        }
    }
    found
}

/// Bytes of the files under `dir`, but for the data path's `status` file:
/// each process rewrites it with its own PID, whose digits vary as PIDs wrap.
pub fn bytes_under(dir: &Path) -> u64 {
    let mut total = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                pending.push(entry.path());
            } else if entry.file_name() != "status" {
                total += meta.len();
            }
        }
    }
    total
}

/// The table is whole and nothing temporary is left.
pub fn assert_intact(path: &Path) {
    assert_checked(path);
    assert_no_temporary_data(path);
}

/// The table's checksums match and nothing was detached.
pub fn assert_checked(path: &Path) {
    let check = "CHECK TABLE t SETTINGS check_query_single_value_result = 1";
    assert_eq!(strata(path, check), "1");
    assert_eq!(
        strata(path, "SELECT count() FROM system.detached_parts"),
        "0"
    );
}

/// No temporary part and no temporary data under the data path.
pub fn assert_no_temporary_data(path: &Path) {
    assert_eq!(temporary_entries(path), Vec::<PathBuf>::new());
    assert_eq!(bytes_under(&path.join("tmp")), 0);
}

/// Rows of pseudo-random text, which compresses poorly.
pub fn rows(from: u64, count: u64) -> String {
    format!(
        "SELECT number + {from}, concat(toString(cityHash64(number + {from})), \
         toString(cityHash64(number + {from}, 1))) FROM numbers({count})"
    )
}

pub const CREATE: &str = "CREATE TABLE t (k UInt64, s String) ENGINE = MergeTree ORDER BY k";
