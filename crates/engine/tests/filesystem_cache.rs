//! `cache` disks over an S3 disk, against a real S3-compatible server
//! (s3s-fs, which `scripts/setup.sh --tests` installs): reads served from
//! the filesystem cache cost no request, the query settings choose how a
//! read uses it, `cache_on_write_operations` fills it on insert, and it can
//! be dropped and resized while the server runs. The parts of a cache disk
//! and of the disk it caches share one store, so neither's orphan sweep may
//! take the other's objects.
//!
//! One test function, because `system.events` counts for the whole process.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_common::events::{self, Event};
use strata_common::settings::Settings;
use strata_engine::data_path::DataPath;
use strata_engine::instance::ReloadedConfig;
use strata_engine::{Engine, Session};
use strata_storage::disk::config::S3Config;
use strata_storage::disk::file_cache::FileCacheConfig;
use strata_storage::disk::{
    DiskConfig, DiskType, Disks, PolicyConfig, StorageConfiguration, VolumeConfig,
};

mod common;
use common::s3_server::{ACCESS_KEY, S3Server, SECRET_KEY};
use common::{number, run};

/// Bytes of each cached segment: small, so the test's parts span many.
const SEGMENT_BYTES: u64 = 64 << 10;

/// A cache disk `name` over the S3 disk.
fn cache_disk(name: &str, max_size: u64, on_write: bool) -> DiskConfig {
    cache_over(name, "s3", max_size, on_write)
}

fn cache_over(name: &str, disk: &str, max_size: u64, on_write: bool) -> DiskConfig {
    DiskConfig {
        name: name.to_string(),
        kind: DiskType::Cache(FileCacheConfig {
            disk: disk.to_string(),
            path: PathBuf::from(name),
            max_size,
            boundary_alignment: SEGMENT_BYTES,
            cache_on_write_operations: on_write,
        }),
    }
}

fn storage(server: &S3Server, cached_max_size: u64) -> StorageConfiguration {
    let mut s3 = S3Config::new(&server.endpoint());
    s3.access_key_id = Some(ACCESS_KEY.to_string());
    s3.secret_access_key = Some(SECRET_KEY.to_string());
    let volume = |name: &str, disk: &str, max_bytes| VolumeConfig {
        name: name.to_string(),
        disks: vec![disk.to_string()],
        max_data_part_size_bytes: max_bytes,
        prefer_not_to_merge: false,
    };
    StorageConfiguration {
        disks: vec![
            DiskConfig {
                name: "s3".to_string(),
                kind: DiskType::S3(s3),
            },
            cache_disk("cached", cached_max_size, false),
            cache_disk("write_through", 64 << 20, true),
        ],
        policies: vec![PolicyConfig {
            name: "cached_then_s3".to_string(),
            volumes: vec![volume("hot", "cached", 200_000), volume("cold", "s3", 0)],
            move_factor: 0.1,
        }],
    }
}

async fn open(dir: &Path, server: &S3Server) -> Arc<Engine> {
    let data_path = DataPath::open(dir).unwrap();
    let engine =
        Engine::open_with_storage(Settings::server(), data_path, &storage(server, 64 << 20))
            .unwrap();
    engine.load_tables().await.unwrap();
    engine
}

/// What `sql` returns, as text, and how much each of `COUNTED` grew.
async fn counted(session: &mut Session, sql: &str) -> (String, [u64; 4]) {
    let before = COUNTED.map(events::value);
    let batches = run(session, sql).await.unwrap();
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string();
    let after = COUNTED.map(events::value);
    (text, [0, 1, 2, 3].map(|i| after[i] - before[i]))
}

const COUNTED: [Event; 4] = [
    Event::S3GetObject,
    Event::ReadBufferFromS3Bytes,
    Event::CachedReadBufferReadFromCacheBytes,
    Event::CachedReadBufferReadFromSourceBytes,
];
const GETS: usize = 0;
const S3_BYTES: usize = 1;
const CACHE_BYTES: usize = 2;
const SOURCE_BYTES: usize = 3;

/// The page cache (compressed granules in RAM) is off, so every read
/// reaches the disk.
const SCAN: &str = "SELECT sum(A), count(), max(S) FROM t SETTINGS use_page_cache_for_disks_without_file_cache = 0";

async fn cached_segments(session: &mut Session, cache: &str) -> u64 {
    number(
        session,
        &format!("SELECT count() FROM system.filesystem_cache WHERE cache_name = '{cache}'"),
    )
    .await
}

fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| entries.count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_disks_serve_repeated_reads_of_s3_parts_without_requests() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path(), &server).await;
    let mut session = engine.new_session();
    let shown = number(
        &mut session,
        "SELECT count() FROM system.disks WHERE name = 'cached' AND cache_path LIKE '%caches/cached/' AND is_remote",
    )
    .await;
    assert_eq!(shown, 1);

    run(
        &mut session,
        "CREATE TABLE t (A Int64, S String) ENGINE = MergeTree ORDER BY A SETTINGS disk = 'cached', index_granularity = 1024",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "INSERT INTO t SELECT number, toString(number * 7919) FROM numbers(200000)",
    )
    .await
    .unwrap();
    assert_eq!(
        cached_segments(&mut session, "cached").await,
        0,
        "no write-through"
    );

    // The first scan downloads whole segments; the second reads them locally.
    let (first, cold) = counted(&mut session, SCAN).await;
    assert!(cold[GETS] > 0 && cold[SOURCE_BYTES] > 0, "{cold:?}");
    let (second, warm) = counted(&mut session, SCAN).await;
    assert_eq!(second, first);
    assert_eq!(warm[GETS], 0, "{warm:?}");
    assert_eq!(warm[S3_BYTES], 0, "{warm:?}");
    assert!(warm[CACHE_BYTES] > 0, "{warm:?}");
    let held = number(
        &mut session,
        "SELECT sum(size) FROM system.filesystem_cache WHERE cache_name = 'cached' AND cache_hits > 0",
    )
    .await;
    let current = number(
        &mut session,
        "SELECT current_size FROM system.filesystem_cache_settings WHERE cache_name = 'cached'",
    )
    .await;
    assert_eq!(held, current);
    assert_eq!(
        held, cold[SOURCE_BYTES],
        "a scan downloads every segment once"
    );

    // enable_filesystem_cache = 0 goes to S3.
    let bypass = format!("{SCAN}, enable_filesystem_cache = 0");
    let (text, bypassed) = counted(&mut session, &bypass).await;
    assert_eq!(text, first);
    assert!(bypassed[GETS] > 0, "{bypassed:?}");
    assert_eq!(bypassed[CACHE_BYTES], 0, "{bypassed:?}");

    // Dropped, the cache keeps no file; reading if cached otherwise
    // bypassing leaves it empty.
    let cache_dir = dir.path().join("caches/cached");
    assert!(files_in(&cache_dir) > 0);
    run(&mut session, "SYSTEM DROP FILESYSTEM CACHE 'cached'")
        .await
        .unwrap();
    assert_eq!(cached_segments(&mut session, "cached").await, 0);
    assert_eq!(files_in(&cache_dir), 0);
    let if_exists =
        format!("{SCAN}, read_from_filesystem_cache_if_exists_otherwise_bypass_cache = 1");
    let (text, _) = counted(&mut session, &if_exists).await;
    assert_eq!(text, first);
    assert_eq!(cached_segments(&mut session, "cached").await, 0);
    let error = run(&mut session, "SYSTEM DROP FILESYSTEM CACHE 'nonexistent'")
        .await
        .unwrap_err();
    assert_eq!(error.code.name, "BAD_ARGUMENTS", "{error}");

    // A point lookup caches the segments of its granule's ranges only.
    let point =
        "SELECT S FROM t WHERE A = 123456 SETTINGS use_page_cache_for_disks_without_file_cache = 0";
    let (found, lookup) = counted(&mut session, point).await;
    assert!(found.contains(&(123456u64 * 7919).to_string()), "{found}");
    assert!(lookup[SOURCE_BYTES] <= 4 * SEGMENT_BYTES, "{lookup:?}");
    let (again, repeated) = counted(&mut session, point).await;
    assert_eq!(again, found);
    assert_eq!((repeated[GETS], repeated[S3_BYTES]), (0, 0), "{repeated:?}");

    // cache_on_write_operations: an insert fills the cache, so the first
    // read already makes no request.
    run(
        &mut session,
        "CREATE TABLE w (A Int64, S String) ENGINE = MergeTree ORDER BY A SETTINGS disk = 'write_through'",
    )
    .await
    .unwrap();
    let writes = events::value(Event::CachedWriteBufferCacheWriteBytes);
    run(
        &mut session,
        "INSERT INTO w SELECT number, toString(number) FROM numbers(50000)",
    )
    .await
    .unwrap();
    assert!(events::value(Event::CachedWriteBufferCacheWriteBytes) > writes);
    let (_, written) = counted(
        &mut session,
        "SELECT sum(A), max(S) FROM w SETTINGS use_page_cache_for_disks_without_file_cache = 0",
    )
    .await;
    assert_eq!((written[GETS], written[S3_BYTES]), (0, 0), "{written:?}");

    table_defined_disks(&mut session, &server).await;
    resize_on_reload(&engine, &mut session, &server).await;
    drop(session);
    sweep_keeps_both_disks_objects(dir.path(), engine, &server, &first).await;
    misconfigured_cache_disks_are_refused(dir.path(), &server);
}

/// A table's own disk definition, a cache over an S3 disk: read through the
/// cache, shown with its secret hidden, reopened after a restart (see
/// [`sweep_keeps_both_disks_objects`]).
async fn table_defined_disks(session: &mut Session, server: &S3Server) {
    let definition = format!(
        "disk(type = cache, max_size = '16Mi', path = 'inline', boundary_alignment = {SEGMENT_BYTES}, \
         disk = disk(type = s3, endpoint = '{}', access_key_id = '{ACCESS_KEY}', secret_access_key = '{SECRET_KEY}'))",
        server.endpoint()
    );
    let create = format!(
        "CREATE TABLE i (A Int64) ENGINE = MergeTree ORDER BY A SETTINGS disk = {definition}"
    );
    run(session, &create).await.unwrap();
    run(session, "INSERT INTO i SELECT number FROM numbers(10000)")
        .await
        .unwrap();
    let (shown, _) = counted(session, "SHOW CREATE TABLE i").await;
    assert!(shown.contains("secret_access_key = '[HIDDEN]'"), "{shown}");
    assert!(!shown.contains(SECRET_KEY), "{shown}");
    let logged = number(
        session,
        &format!(
            "SELECT count() FROM system.query_log WHERE query LIKE 'CREATE TABLE i %' \
             AND query LIKE '%[HIDDEN]%' AND query NOT LIKE '%{SECRET_KEY}%'"
        ),
    )
    .await;
    assert!(logged > 0, "the CREATE is logged with its secret hidden");
    let sum = "SELECT sum(A) FROM i SETTINGS use_page_cache_for_disks_without_file_cache = 0";
    let (first, cold) = counted(session, sum).await;
    assert!(cold[GETS] > 0, "{cold:?}");
    let (second, warm) = counted(session, sum).await;
    assert_eq!(first, second);
    assert_eq!((warm[GETS], warm[S3_BYTES]), (0, 0), "{warm:?}");
    let caches = number(
        session,
        "SELECT count() FROM system.disks WHERE cache_path LIKE '%caches/inline/'",
    )
    .await;
    assert_eq!(caches, 1);
}

/// `SYSTEM RELOAD CONFIG` with a smaller `max_size` shrinks the cache at once.
async fn resize_on_reload(engine: &Arc<Engine>, session: &mut Session, server: &S3Server) {
    counted(session, SCAN).await;
    let small = 16 * SEGMENT_BYTES;
    let reloaded = storage(server, small);
    engine.instance().set_config_source(Box::new(move || {
        Ok(ReloadedConfig {
            settings: Settings::server(),
            storage: reloaded.clone(),
        })
    }));
    run(session, "SYSTEM RELOAD CONFIG").await.unwrap();
    let limits = number(
        session,
        "SELECT max_size FROM system.filesystem_cache_settings WHERE cache_name = 'cached'",
    )
    .await;
    assert_eq!(limits, small);
    let current = number(
        session,
        "SELECT current_size FROM system.filesystem_cache_settings WHERE cache_name = 'cached'",
    )
    .await;
    assert!(current <= small, "{current}");
}

/// A table whose policy holds the cache disk and the disk it caches keeps
/// the parts of both across a restart, whose sweep looks for orphans.
async fn sweep_keeps_both_disks_objects(
    dir: &Path,
    engine: Arc<Engine>,
    server: &S3Server,
    scan: &str,
) {
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE p (A Int64) ENGINE = MergeTree ORDER BY A SETTINGS storage_policy = 'cached_then_s3'",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "INSERT INTO p SELECT number FROM numbers(100)",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "INSERT INTO p SELECT number FROM numbers(1000000)",
    )
    .await
    .unwrap();
    let disks = number(
        &mut session,
        "SELECT uniqExact(disk_name) FROM system.parts WHERE table = 'p' AND active",
    )
    .await;
    assert_eq!(disks, 2, "one part on each disk");
    let swept = events::value(Event::RemoteObjectsOrphaned);
    drop(session);
    drop(engine);
    let engine = open(dir, server).await;
    let mut session = engine.new_session();
    assert_eq!(events::value(Event::RemoteObjectsOrphaned), swept);
    assert_eq!(
        number(&mut session, "SELECT toUInt64(sum(A)) FROM p").await,
        4950 + 999_999 * 1_000_000 / 2
    );
    let (text, _) = counted(&mut session, SCAN).await;
    assert_eq!(text, scan);
    assert_eq!(
        number(&mut session, "SELECT toUInt64(sum(A)) FROM i").await,
        (0..10_000u64).sum::<u64>()
    );
}

fn misconfigured_cache_disks_are_refused(dir: &Path, server: &S3Server) {
    for (inner, code) in [("missing", "UNKNOWN_DISK"), ("default", "BAD_ARGUMENTS")] {
        let mut config = storage(server, 1 << 20);
        config.disks.push(cache_over("over", inner, 1 << 20, false));
        let error = Disks::from_config(dir, &config).unwrap_err();
        assert_eq!(error.code.name, code, "{error}");
    }
}
