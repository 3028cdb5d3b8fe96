//! The SQL test harness: every `tests/sql/*.sql` file runs statement by
//! statement in a fresh engine, and its TabSeparated output must equal the
//! `.reference` file beside it, which holds what ClickHouse prints.
//!
//! A statement followed on its line by `-- { serverError NAME }` must fail with
//! that ClickHouse error; its output is not part of the reference.
//!
//! A second test runs every file again with MergeTree's `default` storage
//! policy on an S3 disk (s3s-fs on loopback, as `scripts/setup.sh --tests`
//! installs it), so every table without a policy of its own keeps its parts'
//! data in the bucket.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use strata_cli::local::run_statement;
use strata_common::settings::Settings;
use strata_engine::Engine;
use strata_engine::data_path::DataPath;
use strata_formats::OutputFormat;
use strata_server::config::ServerConfig;

#[path = "../../engine/tests/common/s3_server.rs"]
mod s3_server;
use s3_server::{ACCESS_KEY, S3Server, SECRET_KEY};

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

async fn run_file(path: &Path, engine: Arc<Engine>) -> Result<(), String> {
    let sql = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let reference_path = path.with_extension("reference");
    let reference = std::fs::read_to_string(&reference_path)
        .map_err(|e| format!("missing {}: {e}", reference_path.display()))?;
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

/// Runs every file on an engine `engine` makes for it, except those
/// `skipped` names; panics listing the files that failed.
fn run_files(engine: impl Fn() -> strata_common::Result<Arc<Engine>>, skipped: &[&str]) {
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
        if skipped.contains(&name.as_str()) {
            println!("skip {name}");
            continue;
        }
        // Made inside the runtime, as a process makes it.
        let outcome = runtime.block_on(async {
            match engine() {
                Ok(engine) => run_file(file, engine).await,
                Err(e) => Err(format!("no engine: {e}")),
            }
        });
        match outcome {
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

#[test]
fn sql_files_match_their_references() {
    run_files(Engine::new, &[]);
}

/// Files whose references depend on parts being on the local disk.
const LOCAL_DISK_ONLY: &[&str] = &[
    // Lists the disks and policies, which the S3 configuration adds to.
    "124_disks.sql",
    // Moves parts TO DISK 'default', which the S3 default policy lacks.
    "125_ttl.sql",
];

#[test]
fn sql_files_match_their_references_with_merge_tree_on_s3() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = dir.path().join("s3.xml");
    let text = format!(
        "<clickhouse><storage_configuration>\
         <disks><s3><type>s3</type><endpoint>{}</endpoint>\
         <access_key_id>{ACCESS_KEY}</access_key_id><secret_access_key>{SECRET_KEY}</secret_access_key>\
         </s3></disks>\
         <policies><default><volumes><main><disk>s3</disk></main></volumes></default></policies>\
         </storage_configuration></clickhouse>",
        server.endpoint()
    );
    std::fs::write(&config, text).expect("the config file is written");
    let storage = ServerConfig::load(&config)
        .expect("the config loads")
        .storage;
    run_files(
        || Engine::open_with_storage(Settings::server(), DataPath::temporary()?, &storage),
        LOCAL_DISK_ONLY,
    );
}
