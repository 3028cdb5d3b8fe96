//! MergeTree tables on an S3 disk reached through a proxy that injects
//! faults (see `common/fault_proxy.rs`): throttling answers, connections cut
//! in an answer's head or body, answers later than the client's timeout, a
//! service that is down, and one stopped in the middle of an upload.
//! Inserts, reads, merges, mutations and moves either complete after
//! retries or fail with S3_ERROR and leave the table as it was; what a
//! failure left in the bucket is swept when the table opens again; and a
//! start while the service is down loads every table.
//!
//! One test function, because `system.events` counts for the whole process.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{Array, UInt8Array};
use strata_common::error::ErrorCode;
use strata_common::events::{self, Event};
use strata_common::settings::Settings;
use strata_engine::data_path::DataPath;
use strata_engine::{Engine, Session};
use strata_storage::disk::config::S3Config;
use strata_storage::disk::{
    DiskConfig, DiskType, PolicyConfig, StorageConfiguration, VolumeConfig,
};

mod common;
use common::fault_proxy::{Fault, FaultProxy};
use common::s3_server::{ACCESS_KEY, BUCKET, S3Server, SECRET_KEY};
use common::{number, run, texts, wait_for};

/// Tries of a request after the first, and each try's time limit: small,
/// so an outage fails a statement in seconds.
const RETRY_ATTEMPTS: usize = 3;
const REQUEST_TIMEOUT: Duration = Duration::from_secs(1);

fn storage(proxy: &FaultProxy) -> StorageConfiguration {
    let endpoint = format!("http://127.0.0.1:{}/{BUCKET}/data/", proxy.port());
    let mut s3 = S3Config::new(&endpoint);
    s3.access_key_id = Some(ACCESS_KEY.to_string());
    s3.secret_access_key = Some(SECRET_KEY.to_string());
    s3.retry_attempts = RETRY_ATTEMPTS;
    s3.request_timeout = REQUEST_TIMEOUT;
    // A column of a few megabytes goes up in a multipart upload.
    s3.max_single_part_upload_bytes = 6 << 20;
    s3.upload_part_bytes = 5 << 20;
    let volume = |name: &str, disk: &str| VolumeConfig {
        name: name.to_string(),
        disks: vec![disk.to_string()],
        max_data_part_size_bytes: 0,
        prefer_not_to_merge: false,
    };
    StorageConfiguration {
        disks: vec![DiskConfig {
            name: "s3".to_string(),
            kind: DiskType::S3(s3),
        }],
        policies: vec![PolicyConfig {
            name: "tiered".to_string(),
            volumes: vec![volume("hot", "default"), volume("cold", "s3")],
            move_factor: 0.0,
        }],
    }
}

async fn open(dir: &Path, proxy: &FaultProxy) -> Arc<Engine> {
    let data_path = DataPath::open(dir).unwrap();
    let engine = Engine::open_with_storage(Settings::server(), data_path, &storage(proxy)).unwrap();
    engine.load_tables().await.unwrap();
    engine
}

/// Runs `sql`, which must fail with `code`.
async fn fails(session: &mut Session, sql: &str, code: ErrorCode) -> String {
    let error = run(session, sql)
        .await
        .expect_err(&format!("{sql} succeeded"));
    assert_eq!(error.code, code, "{sql}: {}", error.message);
    error.message
}

/// Reads column S of every part from the bucket, past the page cache.
const SCAN: &str =
    "SELECT sum(length(S)) FROM t SETTINGS use_page_cache_for_disks_without_file_cache = 0";
const PARTS: &str = "SELECT concat(table, ':', name, ':', disk_name) FROM system.parts WHERE active ORDER BY table, name";
/// `sum(length(toString(n)))` for n below 100,000 and from 100,000 to 199,999.
const FIRST_LENGTHS: u64 = 488_890;
const SECOND_LENGTHS: u64 = 600_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_faults_are_retried_or_fail_cleanly_leaving_the_table_whole() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let proxy = FaultProxy::start(server.port());
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path(), &proxy).await;
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE t (A UInt64, S String) ENGINE = MergeTree ORDER BY A SETTINGS disk = 's3', index_granularity = 1024",
    )
    .await
    .unwrap();

    transient_faults_are_retried(&mut session, &proxy).await;
    let parts = outage_fails_cleanly(&mut session, &proxy, &server).await;
    recovery_finishes_what_failed(&mut session, &proxy, &parts).await;
    drop(session);
    drop(engine);
    stop_in_an_upload_leaves_nothing(dir.path(), &proxy, &server).await;
    start_while_down(dir.path(), &proxy).await;
}

/// Throttling, cut and late answers: each request that meets one is sent
/// again, and the statement succeeds.
async fn transient_faults_are_retried(session: &mut Session, proxy: &FaultProxy) {
    let write_errors = events::value(Event::S3WriteRequestsErrors);
    proxy.set(Fault::SlowDown { connections: 2 });
    run(
        session,
        "INSERT INTO t SELECT number, toString(number) FROM numbers(100000)",
    )
    .await
    .unwrap();
    assert_eq!(proxy.faulted(), 2);
    assert!(events::value(Event::S3WriteRequestsErrors) - write_errors >= 2);
    assert_eq!(number(session, SCAN).await, FIRST_LENGTHS);

    let read_errors = events::value(Event::S3ReadRequestsErrors);
    let faults = [
        Fault::SlowDown { connections: 1 },
        // In the answer's head, then in its body.
        Fault::CutAnswer {
            connections: 1,
            after_bytes: 100,
        },
        Fault::CutAnswer {
            connections: 1,
            after_bytes: 5_000,
        },
        Fault::Delay {
            connections: 1,
            by: REQUEST_TIMEOUT * 2,
        },
    ];
    for fault in faults {
        proxy.set(fault);
        assert_eq!(number(session, SCAN).await, FIRST_LENGTHS, "{fault:?}");
    }
    assert_eq!(proxy.faulted(), 2 + faults.len() as u64);
    // The same without reading ahead.
    let one_at_a_time = SCAN.replace("= 0", "= 0, remote_filesystem_read_prefetch = 0");
    assert_eq!(number(session, &one_at_a_time).await, FIRST_LENGTHS);
    assert!(events::value(Event::S3ReadRequestsErrors) - read_errors >= 3);

    // A merge reads and writes through throttling.
    run(
        session,
        "INSERT INTO t SELECT number, toString(number) FROM numbers(100000, 100000)",
    )
    .await
    .unwrap();
    proxy.set(Fault::SlowDown { connections: 2 });
    run(session, "OPTIMIZE TABLE t FINAL").await.unwrap();
    assert_eq!(texts(session, PARTS).await, ["t:all_1_2_1:s3"]);
    assert_eq!(number(session, SCAN).await, FIRST_LENGTHS + SECOND_LENGTHS);
}

/// The service down: every statement that needs it fails with S3_ERROR
/// (a mutation with UNFINISHED, naming it) and no part changes. Returns the
/// parts as they were.
async fn outage_fails_cleanly(
    session: &mut Session,
    proxy: &FaultProxy,
    server: &S3Server,
) -> Vec<String> {
    run(
        session,
        "INSERT INTO t SELECT number, toString(number) FROM numbers(200000, 1000)",
    )
    .await
    .unwrap();
    run(
        session,
        "CREATE TABLE m (a UInt64) ENGINE = MergeTree ORDER BY a SETTINGS storage_policy = 'tiered'",
    )
    .await
    .unwrap();
    run(session, "INSERT INTO m SELECT number FROM numbers(1000)")
        .await
        .unwrap();
    wait_for(
        || server.objects().len() == 4,
        "merged-away objects removed",
    );
    let parts = texts(session, PARTS).await;
    assert_eq!(
        parts,
        ["m:all_1_1_0:default", "t:all_1_2_1:s3", "t:all_3_3_0:s3"]
    );

    proxy.set(Fault::Down);
    let started = Instant::now();
    for statement in [
        "INSERT INTO t SELECT number, toString(number) FROM numbers(300000, 1000)",
        SCAN,
        "OPTIMIZE TABLE t FINAL",
        "ALTER TABLE m MOVE PART 'all_1_1_0' TO DISK 's3'",
    ] {
        fails(session, statement, ErrorCode::S3_ERROR).await;
    }
    for mutation in [
        "ALTER TABLE t UPDATE S = 'x' WHERE A = 7 SETTINGS mutations_sync = 2",
        "DELETE FROM t WHERE A = 8",
    ] {
        let reason = fails(session, mutation, ErrorCode::UNFINISHED).await;
        assert!(reason.contains("Code: 499"), "{reason}");
    }
    // Each failed after its retries, not after a hang.
    assert!(started.elapsed() < Duration::from_secs(120));
    // The part that holds no row of the mutations took their version
    // without a request; the others are as they were.
    let after = texts(session, PARTS).await;
    assert_eq!(
        after,
        ["m:all_1_1_0:default", "t:all_1_2_1:s3", "t:all_3_3_0_6:s3"]
    );
    assert_eq!(number(session, "SELECT count() FROM t").await, 201_000);
    assert_eq!(number(session, "SELECT count() FROM m").await, 1000);
    after
}

/// The service back: the failed mutations are tried again by themselves,
/// and what failed now succeeds on the parts as they were.
async fn recovery_finishes_what_failed(
    session: &mut Session,
    proxy: &FaultProxy,
    parts: &[String],
) {
    proxy.set(Fault::None);
    const PENDING: &str = "SELECT count() FROM system.mutations WHERE table = 't' AND NOT is_done";
    let started = Instant::now();
    while number(session, PENDING).await > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the failed mutations were not tried again"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        texts(session, "SELECT S FROM t WHERE A IN (7, 8, 9) ORDER BY A").await,
        ["x", "9"]
    );
    assert_eq!(
        number(session, SCAN).await,
        FIRST_LENGTHS + SECOND_LENGTHS + 6_000 - 1
    );
    run(session, "OPTIMIZE TABLE t FINAL").await.unwrap();
    run(session, "ALTER TABLE m MOVE PART 'all_1_1_0' TO DISK 's3'")
        .await
        .unwrap();
    let now = texts(session, PARTS).await;
    assert_ne!(now, parts);
    assert_eq!(now.len(), 2, "{now:?}");
    assert!(now.iter().all(|part| part.ends_with(":s3")), "{now:?}");
    assert_eq!(number(session, "SELECT count() FROM t").await, 200_999);
    assert_eq!(number(session, "SELECT sum(a) FROM m").await, 499_500);
}

/// The service stopped partway through a large insert: the insert fails,
/// the table keeps its rows, and the objects it uploaded are removed when
/// the table opens again.
async fn stop_in_an_upload_leaves_nothing(dir: &Path, proxy: &FaultProxy, server: &S3Server) {
    let engine = open(dir, proxy).await;
    let mut session = engine.new_session();
    wait_for(|| server.objects().len() == 3, "replaced objects removed");
    let objects = server.objects().len();
    // 8 MB of A and about 19 MB of S, neither compressible: the service
    // stops in the middle of S's multipart upload.
    proxy.set(Fault::DownAfter {
        request_bytes: 12 << 20,
    });
    fails(
        &mut session,
        "INSERT INTO t SELECT intHash64(number), toString(intHash64(number)) FROM numbers(1000000)",
        ErrorCode::S3_ERROR,
    )
    .await;
    proxy.set(Fault::None);
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 200_999);
    drop(session);
    drop(engine);

    let swept = events::value(Event::RemoteObjectsOrphaned);
    let engine = open(dir, proxy).await;
    let mut session = engine.new_session();
    assert_eq!(server.objects().len(), objects);
    assert!(events::value(Event::RemoteObjectsOrphaned) > swept);
    assert_eq!(
        number(&mut session, SCAN).await,
        FIRST_LENGTHS + SECOND_LENGTHS + 6_000 - 1
    );
    let checked = "CHECK TABLE t SETTINGS check_query_single_value_result = 1";
    let batches = run(&mut session, checked).await.unwrap();
    let passed = batches[0].column(0).as_any().downcast_ref::<UInt8Array>();
    assert_eq!(passed.map(|column| column.value(0)), Some(1));
}

/// A start while the service is down: tables load from their local
/// metadata (the sweep waits for the next start), reads of data fail with
/// S3_ERROR until the service is back, and no part is detached.
async fn start_while_down(dir: &Path, proxy: &FaultProxy) {
    proxy.set(Fault::Down);
    let engine = open(dir, proxy).await;
    let mut session = engine.new_session();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 200_999);
    fails(&mut session, SCAN, ErrorCode::S3_ERROR).await;
    proxy.set(Fault::None);
    assert_eq!(
        number(&mut session, SCAN).await,
        FIRST_LENGTHS + SECOND_LENGTHS + 6_000 - 1
    );
    let detached = "SELECT count() FROM system.detached_parts";
    assert_eq!(number(&mut session, detached).await, 0);
}
