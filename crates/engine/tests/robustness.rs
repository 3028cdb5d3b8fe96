//! Malformed and hostile input must give a ClickHouse error, never a panic, and
//! the session must keep working afterwards.

use futures::StreamExt;
use strata_engine::{Engine, StatementOutcome};

const INPUTS: &[&str] = &[
    "",
    ";",
    "SELECT",
    "SELECT (",
    "SELECT )",
    "SELECT 'unterminated",
    "SELECT \"",
    "SELECT 1 +",
    "SELECT * FROM numbers(",
    "SELECT * FROM numbers('a')",
    "SELECT * FROM numbers(1, 2, 3)",
    "SELECT * FROM numbers(1.5)",
    "SELECT * FROM numbers(99999999999999999999999)",
    "SELECT toUInt8()",
    "SELECT toUInt8(1, 2)",
    "SELECT intDiv(1)",
    "SELECT uniq()",
    "SELECT argMin(1)",
    "SELECT count(*) FROM system.no_table",
    "SELECT 1 FORMAT",
    "SELECT 1 SETTINGS",
    "SELECT 1 SETTINGS max_threads",
    "SELECT 1 SETTINGS max_threads = 'many'",
    "SET max_threads",
    "SET max_threads = ",
    "CREATE TABLE",
    "CREATE TABLE x (a NoSuchType) ENGINE = Memory",
    "CREATE TABLE x (a UInt8, a UInt8) ENGINE = Memory",
    "CREATE TABLE x (a UInt8)",
    "INSERT INTO no_such_table VALUES (1)",
    "DROP DATABASE system",
    "DROP TABLE system.one",
    "USE no_db",
    "EXPLAIN",
    "EXPLAIN PIPELINE",
    "DESCRIBE",
    "DESCRIBE no_such_table",
    "SELECT [1, 'a']",
    "SELECT toDate('not a date')",
    "SELECT toDateTime('2024-13-45 99:99:99')",
    "SELECT 1 UNION SELECT 2",
    "SELECT getSetting(1)",
    "SELECT getServerSetting('nope')",
    "SELECT multiIf(1, 2)",
    "SELECT -9223372036854775808 - 1",
    "SELECT intDiv(-9223372036854775808, -1)",
    "SELECT 18446744073709551615 * 18446744073709551615",
    "SELECT sipHash64([1, 2])",
    "SELECT formatReadableSize('x')",
    "SELECT \u{0}",
    "SELECT '\u{1F600}'",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_input_gives_errors_not_panics() {
    let engine = Engine::new().expect("engine");
    let mut session = engine.new_session();
    let deep = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
    let long = format!("SELECT {}", vec!["1"; 20_000].join(" + "));
    let mut inputs: Vec<String> = INPUTS.iter().map(|s| s.to_string()).collect();
    inputs.push(deep);
    inputs.push(long);
    for input in &inputs {
        let result = match session.execute(input).await {
            Ok(StatementOutcome::Rows(mut result)) => {
                let mut outcome = Ok(());
                while let Some(batch) = result.stream.next().await {
                    if let Err(e) = batch {
                        outcome = Err(strata_common::StrataError::from(e));
                        break;
                    }
                }
                outcome
            }
            Ok(StatementOutcome::Done(_)) => Ok(()),
            Err(e) => Err(e),
        };
        if let Err(e) = result {
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("Code: {}. DB::Exception: ", e.code.code)),
                "{input:?}: {text}"
            );
        }
    }
    // The session still works.
    let Ok(StatementOutcome::Rows(mut result)) = session.execute("SELECT 42").await else {
        panic!("SELECT 42 failed")
    };
    let batch = result
        .stream
        .next()
        .await
        .expect("a batch")
        .expect("no error");
    assert_eq!(batch.num_rows(), 1);
}
