//! Strata's functions must win over DataFusion built-ins of the same name in
//! every engine, not only in most: function registration order is hashed.

use futures::StreamExt;
use strata_engine::{Engine, StatementOutcome};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strata_functions_win_shared_names_in_every_engine() {
    for _ in 0..20 {
        let engine = Engine::new().unwrap();
        let mut session = engine.new_session();
        let sql = "SELECT toTypeName(now()) AS a, toTypeName(today()) AS b, toTypeName(count()) AS c FROM numbers(3)";
        let StatementOutcome::Rows(mut result) = session.execute(sql).await.unwrap() else {
            panic!("a query returns rows");
        };
        let mut batches = Vec::new();
        while let Some(batch) = result.stream.next().await {
            batches.push(batch.unwrap());
        }
        let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
            .unwrap()
            .to_string();
        assert!(text.contains("| DateTime | Date | UInt64 |"), "{text}");
    }
}
