//! The data cache seen through the engine: the same results with and
//! without it while parts are replaced, memory given back to queries that
//! need it, and resizing under point lookups.

mod common;

use std::sync::Arc;

use common::{number, run};
use futures::StreamExt;
use strata_common::settings::Settings;
use strata_engine::{Engine, StatementOutcome};
use strata_storage::cache::slru::EVICTION_BATCH;
use strata_storage::cache::{CacheSizes, CacheTier};

/// Reads through both tiers, adding whatever the scan reads.
const CACHED: &str =
    "SETTINGS use_uncompressed_cache = 1, merge_tree_max_rows_to_use_cache = 1000000000";
const UNCACHED: &str =
    "SETTINGS use_uncompressed_cache = 0, use_page_cache_for_disks_without_file_cache = 0";

fn engine_with_limit(bytes: u64) -> Arc<Engine> {
    let mut settings = Settings::server();
    settings
        .set("max_server_memory_usage", &bytes.to_string())
        .unwrap();
    Engine::with_server_settings(settings).unwrap()
}

async fn sum_both_ways(session: &mut strata_engine::Session, query: &str) -> u64 {
    let cached = number(session, &format!("{query} {CACHED}")).await;
    let again = number(session, &format!("{query} {CACHED}")).await;
    let uncached = number(session, &format!("{query} {UNCACHED}")).await;
    assert_eq!((cached, again), (uncached, uncached), "{query}");
    uncached
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_are_the_same_through_the_cache_as_parts_are_replaced() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    let create = "CREATE TABLE t (k UInt64, v UInt64) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 256";
    run(&mut session, create).await.unwrap();
    run(
        &mut session,
        "INSERT INTO t SELECT number, number * 2 FROM numbers(100000)",
    )
    .await
    .unwrap();
    let query = "SELECT sum(v) + count() FROM t WHERE k < 20000";
    let before = sum_both_ways(&mut session, query).await;
    assert_eq!(before, 19999 * 20000 + 20000);
    run(
        &mut session,
        "ALTER TABLE t UPDATE v = v + 1 WHERE k < 10000",
    )
    .await
    .unwrap();
    assert_eq!(sum_both_ways(&mut session, query).await, before + 10000);
    run(&mut session, "DELETE FROM t WHERE k < 100")
        .await
        .unwrap();
    let deleted = (0..100).map(|k| 2 * k + 1 + 1).sum::<u64>();
    assert_eq!(
        sum_both_ways(&mut session, query).await,
        before + 10000 - deleted
    );
    run(&mut session, "OPTIMIZE TABLE t FINAL").await.unwrap();
    assert_eq!(
        sum_both_ways(&mut session, query).await,
        before + 10000 - deleted
    );
    run(&mut session, "DROP TABLE t").await.unwrap();
    run(&mut session, create).await.unwrap();
    run(
        &mut session,
        "INSERT INTO t SELECT number, 1 FROM numbers(100000)",
    )
    .await
    .unwrap();
    assert_eq!(sum_both_ways(&mut session, query).await, 40000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_through_the_cache_see_one_answer_while_writers_replace_parts() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE t (k UInt64, v UInt64) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 128",
    )
    .await
    .unwrap();
    for batch in 0..4 {
        let insert = format!(
            "INSERT INTO t SELECT number, number % 7 FROM numbers({}, 5000)",
            batch * 5000
        );
        run(&mut session, &insert).await.unwrap();
    }
    let query = "SELECT sum(v) FROM t WHERE k < 20000";
    let expected = sum_both_ways(&mut session, query).await;
    let writer = {
        let mut session = engine.new_session();
        tokio::spawn(async move {
            for round in 0..6u64 {
                let insert = format!(
                    "INSERT INTO t SELECT number, 1 FROM numbers({}, 3000)",
                    1_000_000 + round * 3000
                );
                run(&mut session, &insert).await.unwrap();
                // Rewrites every part with a key past the read range; the
                // values it writes are the ones there.
                run(
                    &mut session,
                    "ALTER TABLE t UPDATE v = v WHERE k >= 1000000",
                )
                .await
                .unwrap();
                run(&mut session, "OPTIMIZE TABLE t FINAL").await.unwrap();
            }
        })
    };
    let mut readers = Vec::new();
    for _ in 0..2 {
        let mut session = engine.new_session();
        readers.push(tokio::spawn(async move {
            for _ in 0..30 {
                let seen = number(&mut session, &format!("{query} {CACHED}")).await;
                assert_eq!(seen, expected);
            }
        }));
    }
    writer.await.unwrap();
    for reader in readers {
        reader.await.unwrap();
    }
    assert_eq!(sum_both_ways(&mut session, query).await, expected);
}

/// Fills the caches with a table of about 40 MB decoded.
async fn fill_cache(engine: &Arc<Engine>) -> usize {
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE big (k UInt64, s String) ENGINE = MergeTree ORDER BY k",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "INSERT INTO big SELECT number, concat(toString(cityHash64(number)), toString(sipHash64(number))) FROM numbers(2000000)",
    )
    .await
    .unwrap();
    // Decoded blocks in the hot tier, then compressed ones in the warm.
    for settings in [
        CACHED,
        "SETTINGS merge_tree_max_rows_to_use_cache = 1000000000",
    ] {
        let query = format!("SELECT sum(length(s)) FROM big {settings}");
        number(&mut session, &query).await;
    }
    let cache = &engine.instance().cache;
    CacheTier::ALL.iter().map(|&t| cache.stats(t).bytes).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_needing_the_budget_takes_it_from_the_cache() {
    let limit = 400 << 20;
    let engine = engine_with_limit(limit);
    let filled = fill_cache(&engine).await;
    assert!(filled > 40 << 20, "the cache holds {filled} bytes");
    let memory = &engine.instance().memory;
    assert_eq!(memory.cached(), filled);
    // The warm tier keeps its floor, set without a restart.
    let mut session = engine.new_session();
    let floor = 8 << 20;
    let set = format!("SYSTEM SET SERVER SETTING page_cache_min_size = {floor}");
    run(&mut session, &set).await.unwrap();
    let cache = &engine.instance().cache;
    assert_eq!(cache.configured().page_cache_min_size, floor as u64);
    assert!(cache.stats(CacheTier::Page).bytes > floor);
    // One array of 4.2e7 UInt64 (336 MB) cannot be spilled: it fits only
    // once the cache gives memory back.
    let rows = number(
        &mut session,
        "SELECT length(groupArray(number)) FROM numbers(42000000) SETTINGS max_threads = 1",
    )
    .await;
    assert_eq!(rows, 42_000_000);
    assert!(memory.cached() < filled, "the cache shrank");
    assert_eq!(memory.decision_count(), 0, "no query was stopped");
    // The query needs more than the warm tier holds above its floor (75 MB
    // warm, 100 MB hot here). Whole blocks (a granule's, under 1 MiB) are
    // given back, so the tier may end one block below its floor.
    let warm = cache.stats(CacheTier::Page).bytes;
    assert!(
        warm > floor - (1 << 20) && warm < floor + (1 << 20),
        "{warm}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_queries_needing_the_budget_take_it_from_the_cache() {
    let limit = 200 << 20;
    let engine = engine_with_limit(limit);
    let filled = fill_cache(&engine).await;
    // Each sort holds 19 MB for its 1.2e6 rows until its result is read to
    // the end: eight hold 154 MB at once, more than the cache left free.
    let sort = "SELECT number FROM numbers(1200000) ORDER BY number DESC SETTINGS max_threads = 1";
    let mut running = Vec::new();
    for _ in 0..8 {
        let mut session = engine.new_session();
        let StatementOutcome::Rows(mut result) = session.execute(sort).await.unwrap() else {
            panic!("a query returns rows");
        };
        let first = result.stream.next().await.unwrap().unwrap();
        running.push((session, result, first.num_rows()));
    }
    let memory = &engine.instance().memory;
    assert!(memory.cached() < filled, "the cache shrank");
    for (_session, mut result, mut rows) in running {
        while let Some(batch) = result.stream.next().await {
            rows += batch.unwrap().num_rows();
        }
        assert_eq!(rows, 1_200_000);
    }
    assert_eq!(memory.decision_count(), 0, "no query was stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resizing_under_point_lookups_never_fails_a_lookup_or_holds_a_lock_long() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE t (k UInt64, v UInt64) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 1024",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "INSERT INTO t SELECT number, number * 3 FROM numbers(1000000)",
    )
    .await
    .unwrap();
    let lookups: Vec<_> = (0..8u64)
        .map(|thread| {
            let mut session = engine.new_session();
            tokio::spawn(async move {
                for i in 0..60u64 {
                    let key = (thread * 7919 + i * 104_729) % 1_000_000;
                    let query = format!("SELECT v FROM t WHERE k = {key} {CACHED}");
                    assert_eq!(number(&mut session, &query).await, key * 3);
                }
            })
        })
        .collect();
    let cache = Arc::clone(&engine.instance().cache);
    let full = cache.configured();
    // The working set is about 16 MB decoded and 8 MB compressed.
    let tenth = CacheSizes {
        mark_cache_size: 1 << 20,
        uncompressed_cache_size: 1600 << 10,
        page_cache_max_size: 800 << 10,
        page_cache_min_size: 0,
    };
    let resizer = tokio::task::spawn_blocking(move || {
        for _ in 0..20 {
            cache.resize(tenth);
            std::thread::sleep(std::time::Duration::from_millis(5));
            cache.resize(full);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        cache
    });
    for lookup in lookups {
        lookup.await.unwrap();
    }
    let cache = resizer.await.unwrap();
    assert_eq!(cache.configured(), full);
    // Evicting at most EVICTION_BATCH entries per lock keeps each hold short;
    // this bound is far above what a batch takes, and only catches a resize
    // that evicts a whole shard, or a whole cache, under one lock.
    assert!(EVICTION_BATCH <= 64);
    let longest = cache.longest_eviction_hold();
    assert!(
        longest < std::time::Duration::from_millis(200),
        "{longest:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_commands_and_tables_show_and_drop_each_tier() {
    let engine = Engine::new().unwrap();
    fill_cache(&engine).await;
    let mut session = engine.new_session();
    let metric = |name: &str| {
        format!("SELECT toUInt64(value) FROM system.asynchronous_metrics WHERE metric = '{name}'")
    };
    for (tier, metric_name, command) in [
        (
            CacheTier::Uncompressed,
            "UncompressedCacheBytes",
            "SYSTEM DROP UNCOMPRESSED CACHE",
        ),
        (CacheTier::Page, "PageCacheBytes", "SYSTEM DROP PAGE CACHE"),
        (CacheTier::Mark, "MarkCacheBytes", "SYSTEM DROP MARK CACHE"),
    ] {
        let shown = number(&mut session, &metric(metric_name)).await;
        assert!(shown > 0, "{metric_name}");
        let tiers = format!(
            "SELECT bytes FROM system.memory_tiers WHERE tier = '{}'",
            match tier {
                CacheTier::Mark => "mark_cache",
                CacheTier::Uncompressed => "uncompressed_cache",
                CacheTier::Page => "page_cache",
            }
        );
        assert!(number(&mut session, &tiers).await > 0, "{tiers}");
        run(&mut session, command).await.unwrap();
        assert_eq!(
            number(&mut session, &metric(metric_name)).await,
            0,
            "{command}"
        );
        assert_eq!(engine.instance().cache.stats(tier).entries, 0);
    }
    assert_eq!(engine.instance().memory.cached(), 0);
    let hits = "SELECT value FROM system.events WHERE event = 'UncompressedCacheHits'";
    let before = number(&mut session, hits).await;
    let lookup = format!("SELECT sum(k) FROM big WHERE k < 100000 {CACHED}");
    run(&mut session, &lookup).await.unwrap();
    run(&mut session, &lookup).await.unwrap();
    assert!(number(&mut session, hits).await > before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_config_resizes_the_caches_without_a_restart() {
    let engine = engine_with_limit(1 << 30);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("uncompressed_cache_size");
    std::fs::write(&file, "1000000").unwrap();
    let source = file.clone();
    engine.instance().set_config_source(Box::new(move || {
        let mut settings = Settings::server();
        let size = std::fs::read_to_string(&source).unwrap();
        settings.set("uncompressed_cache_size", size.trim())?;
        Ok(strata_engine::instance::ReloadedConfig {
            settings,
            storage: Default::default(),
        })
    }));
    let mut session = engine.new_session();
    let shown = "SELECT value, changed, changeable_without_restart FROM system.server_settings WHERE name = 'uncompressed_cache_size'";
    let row = |batches: Vec<datafusion::arrow::array::RecordBatch>| {
        datafusion::arrow::util::pretty::pretty_format_batches(&batches)
            .unwrap()
            .to_string()
    };
    let before = row(run(&mut session, shown).await.unwrap());
    assert!(before.contains("| 8589934592 | 0       | Yes"), "{before}");
    run(&mut session, "SYSTEM RELOAD CONFIG").await.unwrap();
    let after = row(run(&mut session, shown).await.unwrap());
    assert!(after.contains("| 1000000 | 1       | Yes"), "{after}");
    let cache = &engine.instance().cache;
    assert_eq!(cache.stats(CacheTier::Uncompressed).capacity, 1_000_000);
    std::fs::write(&file, "not a size").unwrap();
    let error = run(&mut session, "SYSTEM RELOAD CONFIG").await.unwrap_err();
    assert_eq!(
        error.code.name, "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
        "{error}"
    );
    assert_eq!(cache.stats(CacheTier::Uncompressed).capacity, 1_000_000);
}
