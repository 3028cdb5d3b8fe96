//! MergeTree tables on an S3 disk, against a real S3-compatible server
//! (s3s-fs, which `scripts/setup.sh --tests` installs into build/tools):
//! inserts, reads, merges, mutations, restarts, orphan sweeps and DROP, with
//! the requests counted.
//!
//! One test function, because `system.events` counts for the whole process
//! and other tests of this binary would add to the requests it asserts on.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use strata_common::events::{self, Event};
use strata_common::settings::Settings;
use strata_engine::Engine;
use strata_engine::data_path::DataPath;

mod common;
use common::s3_server::{ACCESS_KEY, S3Server, SECRET_KEY};
use common::{number, run, texts, wait_for};
use strata_storage::disk::config::S3Config;
use strata_storage::disk::{
    DiskConfig, DiskType, PolicyConfig, StorageConfiguration, VolumeConfig,
};

fn storage(server: &S3Server) -> StorageConfiguration {
    let mut s3 = S3Config::new(&server.endpoint());
    s3.access_key_id = Some(ACCESS_KEY.to_string());
    s3.secret_access_key = Some(SECRET_KEY.to_string());
    // Small, so a multi-megabyte column goes up in a multipart upload.
    s3.max_single_part_upload_bytes = 6 << 20;
    s3.upload_part_bytes = 5 << 20;
    StorageConfiguration {
        disks: vec![DiskConfig {
            name: "s3".to_string(),
            kind: DiskType::S3(s3),
        }],
        policies: vec![PolicyConfig {
            name: "tiered".to_string(),
            volumes: vec![
                VolumeConfig {
                    name: "hot".to_string(),
                    disks: vec!["default".to_string()],
                    max_data_part_size_bytes: 100_000,
                    prefer_not_to_merge: false,
                },
                VolumeConfig {
                    name: "cold".to_string(),
                    disks: vec!["s3".to_string()],
                    max_data_part_size_bytes: 0,
                    prefer_not_to_merge: false,
                },
            ],
            // No moves by free space: the test must not depend on the machine's disk.
            move_factor: 0.0,
        }],
    }
}

async fn open(dir: &Path, server: &S3Server) -> Arc<Engine> {
    let data_path = DataPath::open(dir).unwrap();
    let engine =
        Engine::open_with_storage(Settings::server(), data_path, &storage(server)).unwrap();
    engine.load_tables().await.unwrap();
    engine
}

/// Counts of the S3 events while `work` runs; nothing else in this
/// process talks to S3 meanwhile.
struct Requests {
    before: Vec<u64>,
}

const COUNTED: [Event; 5] = [
    Event::S3GetObject,
    Event::S3PutObject,
    Event::S3UploadPart,
    Event::ReadBufferFromS3Bytes,
    Event::S3DeleteObjects,
];

impl Requests {
    fn start() -> Requests {
        Requests {
            before: COUNTED.iter().map(|e| events::value(*e)).collect(),
        }
    }

    fn of(&self, event: Event) -> u64 {
        let index = COUNTED.iter().position(|e| *e == event).unwrap();
        events::value(event) - self.before[index]
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merge_tree_parts_live_on_s3_with_every_request_counted() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path(), &server).await;
    let mut session = engine.new_session();

    let disks = texts(
        &mut session,
        "SELECT concat(name, ':', type, ':', toString(is_remote)) FROM system.disks ORDER BY name",
    )
    .await;
    assert_eq!(disks, ["default:Local:0", "s3:ObjectStorage:1"]);

    // Inserts: each column's data is one object, uploaded with a PUT.
    run(
        &mut session,
        "CREATE TABLE t (A Int64, S String, D Date) ENGINE = MergeTree PARTITION BY D ORDER BY A SETTINGS disk = 's3', index_granularity = 1024",
    )
    .await
    .unwrap();
    let insert = Requests::start();
    run(
        &mut session,
        "INSERT INTO t SELECT number, toString(number), toDate('2024-01-01') + number % 2 FROM numbers(100000)",
    )
    .await
    .unwrap();
    assert_eq!(
        insert.of(Event::S3PutObject),
        2 * 3,
        "two parts of three columns"
    );
    assert_eq!(server.objects().len(), 6);
    let parts = texts(
        &mut session,
        "SELECT disk_name FROM system.parts WHERE table = 't'",
    )
    .await;
    assert_eq!(parts, ["s3", "s3"]);

    // A point lookup reads one granule of a column per GET: A where the
    // primary index cannot rule 50001 out (a granule of each part, as the
    // parts interleave), S only where a row passed.
    let lookup = Requests::start();
    let found = texts(&mut session, "SELECT S FROM t WHERE A = 50001").await;
    assert_eq!(found, ["50001"]);
    assert_eq!(lookup.of(Event::S3GetObject), 3);
    assert!(lookup.of(Event::ReadBufferFromS3Bytes) < 3 * 1024 * 16);
    // The same lookup again finds its granules in the page cache.
    let again = Requests::start();
    let found = texts(&mut session, "SELECT S FROM t WHERE A = 50001").await;
    assert_eq!(found, ["50001"]);
    assert_eq!(again.of(Event::S3GetObject), 0);
    let uncached =
        "SELECT S FROM t WHERE A = 50001 SETTINGS use_page_cache_for_disks_without_file_cache = 0";
    assert_eq!(texts(&mut session, uncached).await, ["50001"]);
    assert_eq!(again.of(Event::S3GetObject), 3);
    // Each query's own requests are in its system.query_log entry.
    let logged = |query: &str, event: &str| {
        format!(
            "SELECT ProfileEvents['{event}'] FROM system.query_log \
             WHERE type = 'QueryFinish' AND query = '{query}' \
             ORDER BY event_time_microseconds DESC LIMIT 1"
        )
    };
    let inserted = "INSERT INTO t SELECT number, toString(number), toDate('2024-01-01') + number % 2 FROM numbers(100000)".replace('\'', "\\'");
    assert_eq!(
        number(&mut session, &logged(&inserted, "S3PutObject")).await,
        6
    );
    assert_eq!(
        number(&mut session, &logged(uncached, "S3GetObject")).await,
        3
    );
    assert_eq!(
        number(&mut session, &logged(uncached, "SelectedMarks")).await,
        2
    );
    let cached = "SELECT S FROM t WHERE A = 50001";
    assert_eq!(
        number(&mut session, &logged(cached, "S3GetObject")).await,
        0
    );
    assert_eq!(
        number(&mut session, &logged(cached, "PageCacheHits")).await,
        3
    );

    // A full scan reads each column file once.
    assert_eq!(
        number(&mut session, "SELECT sum(length(S)) FROM t").await,
        488_890
    );

    // A merge reads the sources from S3 and writes the result there; the
    // sources' objects go once no query holds them.
    run(&mut session, "OPTIMIZE TABLE t FINAL").await.unwrap();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 100_000);
    wait_for(
        || server.objects().len() == 6,
        "merged-away objects removed",
    );

    // Mutations on S3: a lightweight DELETE patches, an UPDATE rewrites one
    // column and shares the others' objects with the old part.
    run(&mut session, "DELETE FROM t WHERE A < 10")
        .await
        .unwrap();
    run(
        &mut session,
        "ALTER TABLE t UPDATE S = 'x' WHERE A = 20 SETTINGS mutations_sync = 2",
    )
    .await
    .unwrap();
    assert_eq!(
        texts(
            &mut session,
            "SELECT S FROM t WHERE A IN (5, 20, 21) ORDER BY A"
        )
        .await,
        ["x", "21"]
    );
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 99_990);

    // Moves copy a part to the other disk at the next level and check
    // every file on the way; the source's objects go once it is replaced.
    run(
        &mut session,
        "ALTER TABLE t MOVE PARTITION '2024-01-01' TO DISK 'default'",
    )
    .await
    .expect_err("the table's policy has only the s3 disk");
    run(
        &mut session,
        "CREATE TABLE moved (a UInt64, s String) ENGINE = MergeTree PARTITION BY a % 2 ORDER BY a SETTINGS storage_policy = 'tiered'",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "INSERT INTO moved SELECT number, toString(number) FROM numbers(1000)",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "ALTER TABLE moved MOVE PARTITION 1 TO VOLUME 'cold'",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "ALTER TABLE moved MOVE PART '0_1_1_0' TO DISK 's3'",
    )
    .await
    .unwrap();
    let moved_parts =
        "SELECT concat(name, ':', disk_name) FROM system.parts WHERE table = 'moved' ORDER BY name";
    assert_eq!(
        texts(&mut session, moved_parts).await,
        ["0_1_1_1:s3", "1_2_2_1:s3"]
    );
    run(
        &mut session,
        "ALTER TABLE moved MOVE PARTITION 0 TO DISK 'default'",
    )
    .await
    .unwrap();
    assert_eq!(
        texts(&mut session, moved_parts).await,
        ["0_1_1_2:default", "1_2_2_1:s3"]
    );
    // Each move is logged with the disk it went to and the part it copied.
    assert_eq!(
        texts(
            &mut session,
            "SELECT concat(part_name, ':', disk_name, ':', arrayStringConcat(merged_from, ',')) \
             FROM system.part_log WHERE table = 'moved' AND event_type = 'MovePart' \
             ORDER BY event_time_microseconds"
        )
        .await,
        [
            "1_2_2_1:s3:1_2_2_0",
            "0_1_1_1:s3:0_1_1_0",
            "0_1_1_2:default:0_1_1_1"
        ]
    );
    assert_eq!(
        number(&mut session, "SELECT sum(length(s)) FROM moved").await,
        2890
    );
    run(&mut session, "DROP TABLE moved SYNC").await.unwrap();

    // TTL moves: a part whose rows all passed a rule goes to its disk, at
    // once after MODIFY TTL and in the background after an insert.
    run(
        &mut session,
        "CREATE TABLE aged (d Date, a UInt64) ENGINE = MergeTree PARTITION BY d ORDER BY a SETTINGS storage_policy = 'tiered'",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "INSERT INTO aged SELECT if(number < 5, toDate('2001-01-01'), toDate('2100-01-01')), number FROM numbers(10)",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "ALTER TABLE aged MODIFY TTL d + INTERVAL 10 DAY TO DISK 's3'",
    )
    .await
    .unwrap();
    let aged_parts = "SELECT concat(partition, ':', disk_name) FROM system.parts WHERE table = 'aged' ORDER BY partition";
    assert_eq!(
        texts(&mut session, aged_parts).await,
        ["2001-01-01:s3", "2100-01-01:default"]
    );
    run(&mut session, "INSERT INTO aged VALUES ('2002-01-01', 100)")
        .await
        .unwrap();
    let expected = ["2001-01-01:s3", "2002-01-01:s3", "2100-01-01:default"];
    let mut moved = Vec::new();
    // Bounded: 10 s for the background move.
    for _ in 0..200 {
        moved = texts(&mut session, aged_parts).await;
        if moved == expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(moved, expected);
    assert_eq!(number(&mut session, "SELECT sum(a) FROM aged").await, 145);
    run(&mut session, "DROP TABLE aged SYNC").await.unwrap();

    // A tiered policy: small parts on the local volume, larger ones on S3.
    run(
        &mut session,
        "CREATE TABLE tiered (a UInt64, b UInt64) ENGINE = MergeTree ORDER BY a SETTINGS storage_policy = 'tiered'",
    )
    .await
    .unwrap();
    let fill = "INSERT INTO tiered SELECT number, intHash64(number) FROM numbers";
    run(&mut session, &format!("{fill}(10)")).await.unwrap();
    let large = Requests::start();
    run(&mut session, &format!("{fill}(1000000)"))
        .await
        .unwrap();
    // Column b (8 MB that do not compress) goes up in two parts.
    assert_eq!(large.of(Event::S3UploadPart), 2);
    assert_eq!(
        texts(
            &mut session,
            "SELECT concat(toString(rows), ':', disk_name) FROM system.parts WHERE table = 'tiered' ORDER BY rows"
        )
        .await,
        ["10:default", "1000000:s3"]
    );
    let policies = texts(
        &mut session,
        "SELECT concat(policy_name, ':', volume_name, ':', arrayStringConcat(disks, ',')) FROM system.storage_policies WHERE policy_name = 'tiered' ORDER BY volume_priority",
    )
    .await;
    assert_eq!(policies, ["tiered:hot:default", "tiered:cold:s3"]);

    // A restart finds every part; an object no part names (as a crash
    // between upload and commit leaves) is swept when the table opens.
    let table_prefix = {
        let path = texts(
            &mut session,
            "SELECT path FROM system.parts WHERE table = 't' LIMIT 1",
        )
        .await;
        let part = PathBuf::from(&path[0]);
        part.parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string()
    };
    drop(session);
    drop(engine);
    let orphan_dir = server
        .objects()
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&table_prefix))
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    std::fs::write(orphan_dir.join("orphan"), b"left by a crash").unwrap();
    let swept = events::value(Event::RemoteObjectsOrphaned);
    let engine = open(dir.path(), &server).await;
    let mut session = engine.new_session();
    assert_eq!(events::value(Event::RemoteObjectsOrphaned) - swept, 1);
    assert!(!orphan_dir.join("orphan").exists());
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 99_990);
    assert_eq!(
        number(&mut session, "SELECT sum(a) FROM tiered").await,
        499_999_500_045
    );

    // DROP TABLE removes the table's objects.
    run(&mut session, "DROP TABLE t SYNC").await.unwrap();
    run(&mut session, "DROP TABLE tiered SYNC").await.unwrap();
    assert_eq!(server.objects(), Vec::<PathBuf>::new());
}
