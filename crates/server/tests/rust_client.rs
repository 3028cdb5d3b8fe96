//! The official Rust client (the `clickhouse` crate) against the server, as
//! an application would use it: RowBinary with names and types, ClickHouse's
//! LZ4 compressed blocks both ways, bound parameters, and errors.

mod common;

use clickhouse::{Client, Row};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Row, Serialize, Deserialize)]
struct Event {
    id: u64,
    name: String,
    value: f64,
    code: Option<i32>,
    tags: Vec<u32>,
}

fn event(id: u64) -> Event {
    Event {
        id,
        name: format!("event {id}"),
        value: id as f64 / 4.0,
        code: (id % 3 != 0).then_some(id as i32 % 1000),
        tags: (0..id % 4).map(|t| t as u32).collect(),
    }
}

const ROWS: u64 = 1_000_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_typed_rows_in_and_back() {
    let server = common::start_with("<clickhouse></clickhouse>");
    let client = Client::default().with_url(format!("http://127.0.0.1:{}", server.port));
    client
        .query(
            "CREATE TABLE events (id UInt64, name String, value Float64, code Nullable(Int32), \
             tags Array(UInt32)) ENGINE = MergeTree ORDER BY id",
        )
        .execute()
        .await
        .unwrap();
    let mut insert = client.insert::<Event>("events").await.unwrap();
    for id in 0..ROWS {
        insert.write(&event(id)).await.unwrap();
    }
    insert.end().await.unwrap();

    let rows = client
        .query("SELECT ?fields FROM events ORDER BY id")
        .fetch_all::<Event>()
        .await
        .unwrap();
    assert_eq!(rows.len() as u64, ROWS);
    for (id, row) in rows.iter().enumerate() {
        assert_eq!(*row, event(id as u64));
    }
    let count = client
        .query("SELECT count() FROM events WHERE id < ? AND name LIKE ?")
        .bind(1000)
        .bind("event 1%")
        .fetch_one::<u64>()
        .await
        .unwrap();
    assert_eq!(count, 111);

    let error = client.query("SELEC 1").execute().await.unwrap_err();
    assert!(error.to_string().contains("Code: 62"), "{error}");
    let missing = client
        .query("SELECT * FROM nowhere")
        .fetch_all::<u8>()
        .await;
    assert!(missing.unwrap_err().to_string().contains("Code: 60"));
}
