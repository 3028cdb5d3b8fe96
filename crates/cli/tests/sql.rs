//! The SQL test harness: every `tests/sql/*.sql` file runs statement by
//! statement in a fresh engine, and its TabSeparated output must equal the
//! `.reference` file beside it, which holds what ClickHouse prints.
//!
//! A statement followed on its line by `-- { serverError NAME }` must fail with
//! that ClickHouse error; its output is not part of the reference.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use strata_cli::local::run_statement;
use strata_engine::Engine;
use strata_formats::OutputFormat;

fn test_files() -> Vec<PathBuf> {
    // Read at run time: a test binary reused from a clone at another path
    // must still find this checkout's files.
    let manifest_dir =
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
    let dir = Path::new(&manifest_dir).join("../../tests/sql");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    files
}

/// The error name expected for the statement ending at `end`, from an annotation
/// on the rest of that line.
fn expected_error(sql: &str, end: usize) -> Option<String> {
    let rest = &sql[end..];
    let line = rest.split('\n').next().unwrap_or("");
    let start = line.find("serverError")?;
    let name = line[start + "serverError".len()..]
        .trim()
        .trim_end_matches('}')
        .trim();
    Some(name.to_string())
}

async fn run_file(path: &Path) -> Result<(), String> {
    let sql = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let reference_path = path.with_extension("reference");
    let reference = std::fs::read_to_string(&reference_path)
        .map_err(|e| format!("missing {}: {e}", reference_path.display()))?;
    let engine = Engine::new().map_err(|e| e.to_string())?;
    let mut session = engine.new_session();
    let running = Arc::new(Mutex::new(None));
    let mut output: Vec<u8> = Vec::new();
    let spans = strata_sql::statement_spans(&sql).map_err(|e| e.to_string())?;
    for span in spans {
        let statement = sql[span.clone()].trim();
        let expected = expected_error(&sql, span.end + 1);
        let mut statement_output = Vec::new();
        let result = run_statement(
            &mut session,
            statement,
            OutputFormat::TabSeparated,
            &mut statement_output,
            &running,
        )
        .await;
        match (result, expected) {
            (Ok(_), None) => output.extend_from_slice(&statement_output),
            (Ok(_), Some(name)) => {
                return Err(format!(
                    "`{statement}` succeeded but should fail with {name}"
                ));
            }
            (Err(e), None) => return Err(format!("`{statement}` failed: {e}")),
            (Err(e), Some(name)) if e.code.name == name => {}
            (Err(e), Some(name)) => {
                return Err(format!("`{statement}` should fail with {name}, got: {e}"));
            }
        }
    }
    let actual = String::from_utf8_lossy(&output);
    if actual != reference {
        return Err(format!(
            "output differs from {}:\n{}",
            reference_path.display(),
            diff(&reference, &actual)
        ));
    }
    Ok(())
}

fn diff(expected: &str, actual: &str) -> String {
    let mut text = String::new();
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i).copied(), a.get(i).copied());
        if x != y {
            text.push_str(&format!(
                "  line {}: expected {:?}\n  line {}:   actual {:?}\n",
                i + 1,
                x,
                i + 1,
                y
            ));
        }
    }
    text
}

#[test]
fn sql_files_match_their_references() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let files = test_files();
    assert!(!files.is_empty(), "no SQL tests found");
    let mut failures = Vec::new();
    for file in &files {
        let name = file
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .to_string();
        match runtime.block_on(run_file(file)) {
            Ok(()) => println!("ok   {name}"),
            Err(e) => {
                println!("FAIL {name}\n{e}");
                failures.push(name);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} SQL files failed: {failures:?}",
        failures.len(),
        files.len()
    );
}
