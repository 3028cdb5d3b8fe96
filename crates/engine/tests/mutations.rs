//! Mutations through the engine: what they write, what a crash in the
//! middle leaves, and a random sequence of inserts, mutations, merges and
//! restarts checked row by row against a model.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{Array, Int64Array, StringArray, UInt8Array, UInt64Array};
use futures::StreamExt;
use strata_common::settings::Settings;
use strata_engine::data_path::DataPath;
use strata_engine::{Engine, Session, StatementOutcome};

mod common;
use common::run;

async fn ok(session: &mut Session, sql: &str) {
    run(session, sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// The rows of a query returning (UInt64, String, Int64) columns.
async fn rows(session: &mut Session, sql: &str) -> Vec<(u64, String, i64)> {
    let mut out = Vec::new();
    for batch in run(session, sql).await.unwrap() {
        let k = batch
            .column(0)
            .as_any()
            .downcast_ref::<UInt64Array>()
            .unwrap();
        let s = batch
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        let n = batch
            .column(2)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        for i in 0..batch.num_rows() {
            out.push((k.value(i), s.value(i).to_string(), n.value(i)));
        }
    }
    out
}

async fn strings(session: &mut Session, sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    for batch in run(session, sql).await.unwrap() {
        let column = batch
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        out.extend((0..column.len()).map(|i| column.value(i).to_string()));
    }
    out
}

async fn open(dir: &Path) -> Arc<Engine> {
    let engine = Engine::open(Settings::server(), DataPath::open(dir).unwrap()).unwrap();
    engine.load_tables().await.unwrap();
    engine
}

async fn table_dir(session: &mut Session, table: &str) -> PathBuf {
    let sql = format!("SELECT path FROM system.parts WHERE table = '{table}' LIMIT 1");
    let path = strings(session, &sql).await.remove(0);
    Path::new(&path).parent().unwrap().to_path_buf()
}

/// Each file of a directory with its inode, by name.
fn inodes(dir: &Path) -> BTreeMap<String, u64> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|f| f.unwrap())
        .map(|f| {
            (
                f.file_name().to_string_lossy().to_string(),
                f.metadata().unwrap().ino(),
            )
        })
        .collect()
}

/// The files of part `dir` that are not links to `before`'s: what a
/// mutation wrote.
fn written_files(dir: &Path, before: &BTreeMap<String, u64>) -> Vec<String> {
    inodes(dir)
        .into_iter()
        .filter(|(file, inode)| before.get(file) != Some(inode))
        .map(|(file, _)| file)
        .collect()
}

fn inode(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().ino()
}

/// Waits, bounded, until every mutation of `table` is done.
async fn wait_done(session: &mut Session, table: &str) {
    let started = Instant::now();
    let sql =
        format!("SELECT toString(min(is_done)) FROM system.mutations WHERE table = '{table}'");
    while strings(session, &sql).await != ["1"] {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "mutations of {table} never finished"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A session on a new engine over `dir` with table `t` created and filled
/// by `insert`.
async fn table_t(dir: &Path, insert: &str) -> Session {
    let engine = open(dir).await;
    let mut session = engine.new_session();
    ok(&mut session, CREATE).await;
    ok(&mut session, insert).await;
    session
}

const CREATE: &str = "CREATE TABLE t (k UInt64, s String, n Int64) ENGINE = MergeTree \
     PARTITION BY k % 2 ORDER BY k SETTINGS index_granularity = 8";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_writes_only_its_column_and_untouched_parts_are_linked() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = table_t(
        dir.path(),
        "INSERT INTO t SELECT number, 's', 0 FROM numbers(100)",
    )
    .await;
    let table = table_dir(&mut session, "t").await;
    let before_even = (
        inode(&table.join("0_1_1_0/k.bin")),
        inode(&table.join("0_1_1_0/n.bin")),
    );
    let before_odd = inode(&table.join("1_2_2_0/k.bin"));
    let even_files = inodes(&table.join("0_1_1_0"));
    ok(&mut session, "ALTER TABLE t UPDATE n = 7 WHERE k = 42").await;
    let parts = strings(
        &mut session,
        "SELECT name FROM system.parts WHERE table = 't' AND active ORDER BY name",
    )
    .await;
    assert_eq!(parts, ["0_1_1_0_3", "1_2_2_0_3"]);
    // The part holding k = 42 has its `n` written anew and its key linked.
    assert_eq!(inode(&table.join("0_1_1_0_3/k.bin")), before_even.0);
    assert_ne!(inode(&table.join("0_1_1_0_3/n.bin")), before_even.1);
    // The odd partition has no such row: every file is a link.
    assert_eq!(inode(&table.join("1_2_2_0_3/k.bin")), before_odd);
    let changed = rows(&mut session, "SELECT k, s, n FROM t WHERE n != 0").await;
    assert_eq!(changed, vec![(42, "s".to_string(), 7)]);
    assert_eq!(
        written_files(&table.join("0_1_1_0_3"), &even_files),
        [
            "checksums.txt",
            "columns.txt",
            "n.bin",
            "n.bounds",
            "n.mrk2",
            "uncompressed_sizes.txt"
        ]
    );
    let check = strings(
        &mut session,
        "SELECT toString(min(is_done)) FROM system.mutations",
    )
    .await;
    assert_eq!(check, ["1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutations_by_key_rewrite_only_the_granules_they_change() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = table_t(
        dir.path(),
        "INSERT INTO t SELECT number, toString(number), number FROM numbers(1000)",
    )
    .await;
    let model = |deleted: &dyn Fn(u64) -> bool, updated: &dyn Fn(u64) -> bool| {
        (0..1000u64)
            .filter(|&k| !deleted(k))
            .map(|k| (k, k.to_string(), if updated(k) { -1 } else { k as i64 }))
            .collect::<Vec<_>>()
    };
    // Each part's granules hold 8 keys of one parity: k in 100..=120 lies
    // in two granules of each part (32 rows), the others are copied.
    let delete = "ALTER TABLE t DELETE WHERE k BETWEEN 100 AND 120";
    ok(&mut session, delete).await;
    let mutated = logged_event(&mut session, delete, "MutatedRows").await;
    assert!(
        (16..=48).contains(&mutated),
        "the DELETE rewrote {mutated} rows"
    );
    let update = "ALTER TABLE t UPDATE n = -1 WHERE k BETWEEN 300 AND 310";
    ok(&mut session, update).await;
    let mutated = logged_event(&mut session, update, "MutatedRows").await;
    assert!(
        (16..=32).contains(&mutated),
        "the UPDATE rewrote {mutated} rows"
    );
    let deleted = |k: u64| (100..=120).contains(&k);
    let updated = |k: u64| (300..=310).contains(&k);
    let expected = model(&deleted, &updated);
    let all = "SELECT k, s, n FROM t ORDER BY k";
    assert_eq!(rows(&mut session, all).await, expected);
    // The copied and rewritten granules' index entries and bounds agree
    // with their rows: lookups and ranges find what the model has.
    for (from, to) in [(90, 130), (98, 99), (121, 123), (295, 315), (990, 999)] {
        let sql = format!("SELECT k, s, n FROM t WHERE k BETWEEN {from} AND {to} ORDER BY k");
        let want: Vec<_> = expected
            .iter()
            .filter(|(k, ..)| (from..=to).contains(k))
            .cloned()
            .collect();
        assert_eq!(rows(&mut session, &sql).await, want, "{sql}");
    }
    let by_value = "SELECT k, s, n FROM t WHERE n = -1 ORDER BY k";
    let want: Vec<_> = expected
        .iter()
        .filter(|(_, _, n)| *n == -1)
        .cloned()
        .collect();
    assert_eq!(rows(&mut session, by_value).await, want);
    assert!(rows_read(&mut session, "SELECT k FROM t WHERE k = 122").await <= 16);
    let checked = strings(
        &mut session,
        "SELECT toString(count()) FROM t WHERE s = '122'",
    )
    .await;
    assert_eq!(checked, ["1"]);
    let check = run(
        &mut session,
        "CHECK TABLE t SETTINGS check_query_single_value_result = 1",
    )
    .await
    .unwrap();
    let passed = check[0].column(0).as_any().downcast_ref::<UInt8Array>();
    assert_eq!(passed.map(|p| p.value(0)), Some(1), "CHECK TABLE");
    // A merge reads the granules of fewer rows like any other.
    ok(&mut session, "OPTIMIZE TABLE t FINAL").await;
    assert_eq!(rows(&mut session, all).await, expected);
}

/// Rows a SELECT read, from its query context.
async fn rows_read(session: &mut Session, sql: &str) -> u64 {
    let StatementOutcome::Rows(mut result) = session.execute(sql).await.unwrap() else {
        panic!("{sql} returned no rows");
    };
    while let Some(batch) = result.stream.next().await {
        batch.unwrap();
    }
    result.query.rows_read()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lightweight_delete_writes_only_its_mask_and_reads_stay_narrow() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = table_t(
        dir.path(),
        "INSERT INTO t SELECT number, 's', number FROM numbers(1000)",
    )
    .await;
    let table = table_dir(&mut session, "t").await;
    let before = (
        inode(&table.join("0_1_1_0/s.bin")),
        inode(&table.join("1_2_2_0/s.bin")),
    );
    let lookup = "SELECT k FROM t WHERE k = 502";
    let read_before = rows_read(&mut session, lookup).await;
    let even_files = inodes(&table.join("0_1_1_0"));
    let delete = "DELETE FROM t WHERE k = 500";
    ok(&mut session, delete).await;
    // The statement's own figures: the mask of one part, found by reading
    // a granule of its key.
    let written = logged_event(
        &mut session,
        delete,
        "WriteBufferFromFileDescriptorWriteBytes",
    )
    .await;
    assert!(
        written > 0 && written < 4096,
        "a DELETE of one row wrote {written} bytes"
    );
    assert_eq!(
        logged_event(&mut session, delete, "MutationTotalParts").await,
        2
    );
    assert_eq!(
        logged_event(&mut session, delete, "MutationUntouchedParts").await,
        1
    );
    assert_eq!(
        written_files(&table.join("0_1_1_0_3"), &even_files),
        ["checksums.txt", "patches.bin"]
    );
    assert_eq!(inode(&table.join("0_1_1_0_3/s.bin")), before.0);
    // The odd partition has no such row: linked whole, no mask.
    assert!(!table.join("1_2_2_0_3/patches.bin").exists());
    assert_eq!(inode(&table.join("1_2_2_0_3/s.bin")), before.1);
    assert_eq!(
        rows(&mut session, "SELECT k, s, n FROM t WHERE k = 500").await,
        vec![]
    );
    // A point lookup still reads one granule of each part (8 rows) whose
    // index range can hold the key: the mask adds no rows.
    assert_eq!(read_before, 16);
    assert_eq!(rows_read(&mut session, lookup).await, read_before);
    let count = strings(&mut session, "SELECT toString(count()) FROM t").await;
    assert_eq!(count, ["999"]);
    ok(&mut session, "OPTIMIZE TABLE t FINAL").await;
    let count = strings(
        &mut session,
        "SELECT toString(sum(rows)) FROM system.parts WHERE table = 't' AND active",
    )
    .await;
    assert_eq!(count, ["999"], "the merge dropped the masked row");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_set_writes_a_patch_of_its_rows_and_merges_fold_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = table_t(
        dir.path(),
        "INSERT INTO t SELECT number, 's', number FROM numbers(1000)",
    )
    .await;
    let table = table_dir(&mut session, "t").await;
    let even_files = inodes(&table.join("0_1_1_0"));
    let update = "UPDATE t SET s = 'new', n = -n WHERE k = 500";
    ok(&mut session, update).await;
    let written = logged_event(
        &mut session,
        update,
        "WriteBufferFromFileDescriptorWriteBytes",
    )
    .await;
    // The patch and the listing of the part's files; every column is a link.
    assert_eq!(
        written_files(&table.join("0_1_1_0_3"), &even_files),
        ["checksums.txt", "patches.bin"]
    );
    assert!(written < 4096, "an UPDATE of one row wrote {written} bytes");
    assert!(!table.join("1_2_2_0_3/patches.bin").exists());
    let expected = vec![(500, "new".to_string(), -500)];
    assert_eq!(
        rows(&mut session, "SELECT k, s, n FROM t WHERE k = 500").await,
        expected
    );
    assert_eq!(
        rows(&mut session, "SELECT k, s, n FROM t WHERE s = 'new'").await,
        expected
    );
    // A row a lightweight DELETE removed stays removed, whatever a later
    // UPDATE's condition says (ClickHouse brings it back).
    ok(&mut session, "DELETE FROM t WHERE k = 502").await;
    ok(&mut session, "UPDATE t SET s = 'gone' WHERE k = 502").await;
    assert_eq!(
        rows(&mut session, "SELECT k, s, n FROM t WHERE k = 502").await,
        vec![]
    );
    // No mutation lists a lightweight update, as in ClickHouse.
    let listed = strings(&mut session, "SELECT command FROM system.mutations").await;
    assert_eq!(listed, ["(UPDATE _row_exists = 0 WHERE k = 502)"]);
    ok(&mut session, "OPTIMIZE TABLE t FINAL").await;
    let merged = strings(
        &mut session,
        "SELECT name FROM system.parts WHERE table = 't' AND active ORDER BY name",
    )
    .await;
    for part in &merged {
        assert!(
            !table.join(part).join("patches.bin").exists(),
            "{part} kept a patch"
        );
    }
    assert_eq!(
        rows(&mut session, "SELECT k, s, n FROM t WHERE k = 500").await,
        expected
    );
    let count = strings(&mut session, "SELECT toString(count()) FROM t").await;
    assert_eq!(count, ["999"]);
}

/// The value of `event` in the ProfileEvents of `query`'s last finish in
/// system.query_log: what that statement alone did.
async fn logged_event(session: &mut Session, query: &str, event: &str) -> u64 {
    let sql = format!(
        "SELECT toString(ProfileEvents['{event}']) FROM system.query_log \
         WHERE type = 'QueryFinish' AND query = '{}' ORDER BY event_time_microseconds DESC LIMIT 1",
        query.replace('\'', "\\'")
    );
    strings(session, &sql).await[0].parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mutation_interrupted_by_a_crash_finishes_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let table;
    {
        let engine = open(dir.path()).await;
        let mut session = engine.new_session();
        ok(&mut session, CREATE).await;
        ok(
            &mut session,
            "INSERT INTO t SELECT number, 'old', number FROM numbers(40)",
        )
        .await;
        table = table_dir(&mut session, "t").await;
        ok(&mut session, "ALTER TABLE t UPDATE s = 'new' WHERE k < 10").await;
    }
    // As if the process stopped after writing the new even part and before
    // the old one went: both on disk, the mutation's file kept. A second
    // mutation's file was written and nothing of it ran.
    let old_even = table.join("0_1_1_0");
    std::fs::create_dir(&old_even).unwrap();
    let copy_from = table.join("0_1_1_0_3");
    for file in std::fs::read_dir(&copy_from).unwrap() {
        let file = file.unwrap();
        std::fs::copy(file.path(), old_even.join(file.file_name())).unwrap();
    }
    std::fs::write(
        table.join("mutation_4.txt"),
        "format version: 1\ncreate time: 1700000000\ncommands: DELETE WHERE k >= 30\n",
    )
    .unwrap();
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    wait_done(&mut session, "t").await;
    let all = rows(&mut session, "SELECT k, s, n FROM t ORDER BY k").await;
    let expected: Vec<(u64, String, i64)> = (0..30)
        .map(|k| (k, if k < 10 { "new" } else { "old" }.to_string(), k as i64))
        .collect();
    assert_eq!(all, expected);
    assert!(!old_even.exists(), "the covered part is removed at load");
    // A new insert takes a block after every mutation, so none claims it.
    ok(&mut session, "INSERT INTO t VALUES (99, 'later', 0)").await;
    let later = strings(
        &mut session,
        "SELECT name FROM system.parts WHERE table = 't' AND active AND name LIKE '1_5_%'",
    )
    .await;
    assert_eq!(later, ["1_5_5_0"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_during_mutations_see_each_part_whole() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    ok(&mut session, CREATE).await;
    for _ in 0..4 {
        ok(
            &mut session,
            "INSERT INTO t SELECT number, 's', 0 FROM numbers(5000)",
        )
        .await;
    }
    let reader_engine = Arc::clone(&engine);
    let reader = tokio::spawn(async move {
        let mut session = reader_engine.new_session();
        for _ in 0..40 {
            // Every mutation adds 1 to every row: within a part, one value.
            let torn = strings(
                &mut session,
                "SELECT toString(count()) FROM (SELECT _part, min(n) AS lo, max(n) AS hi FROM t GROUP BY _part) WHERE lo != hi",
            )
            .await;
            assert_eq!(torn, ["0"]);
        }
    });
    for _ in 0..5 {
        ok(&mut session, "ALTER TABLE t UPDATE n = n + 1 WHERE 1").await;
    }
    reader.await.unwrap();
    let total = strings(&mut session, "SELECT toString(sum(n)) FROM t").await;
    assert_eq!(total, ["100000"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inserts_after_a_mutation_was_made_are_not_mutated() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = table_t(
        dir.path(),
        "INSERT INTO t SELECT number, 'old', 0 FROM numbers(200000)",
    )
    .await;
    // Returns at once; the mutation runs while the inserts below arrive.
    ok(
        &mut session,
        "ALTER TABLE t UPDATE n = n + 1 WHERE 1 SETTINGS mutations_sync = 0",
    )
    .await;
    for batch in 0..5 {
        let sql = format!(
            "INSERT INTO t SELECT 1000000 + {batch} * 100 + number, 'new', 0 FROM numbers(100)"
        );
        ok(&mut session, &sql).await;
    }
    wait_done(&mut session, "t").await;
    let counts = strings(
        &mut session,
        "SELECT concat(s, ':', toString(n), ':', toString(count())) FROM t GROUP BY s, n ORDER BY s",
    )
    .await;
    assert_eq!(counts, ["new:0:500", "old:1:200000"]);
}

/// A small deterministic generator, so a failure can be replayed.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_inserts_mutations_merges_and_restarts_match_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut model: BTreeMap<u64, (String, i64)> = BTreeMap::new();
    let mut rng = Lcg(0x5eed);
    let mut engine = open(dir.path()).await;
    let mut session = engine.new_session();
    // No background merges: a dropped engine's merge thread would go on
    // changing the directory the next engine has opened (a process that
    // restarts has no such threads). OPTIMIZE merges here instead.
    ok(
        &mut session,
        &format!("{CREATE}, min_parts_to_merge_at_once = 100000"),
    )
    .await;
    let mut next_key = 0u64;
    for step in 0..80 {
        let (sql, apply): (String, Box<dyn Fn(&mut BTreeMap<u64, (String, i64)>)>) = match rng
            .next(8)
        {
            0 | 1 => {
                let count = 1 + rng.next(30);
                let first = next_key;
                next_key += count;
                (
                    format!(
                        "INSERT INTO t SELECT number, 'i{step}', number * 2 FROM numbers({first}, {count})"
                    ),
                    Box::new(move |m| {
                        for k in first..first + count {
                            m.insert(k, (format!("i{step}"), (k * 2) as i64));
                        }
                    }),
                )
            }
            2 => {
                let modulus = 2 + rng.next(5);
                (
                    format!("ALTER TABLE t DELETE WHERE k % {modulus} = 1"),
                    Box::new(move |m| m.retain(|k, _| k % modulus != 1)),
                )
            }
            3 => {
                let below = rng.next(next_key.max(1));
                (
                    format!("ALTER TABLE t UPDATE s = concat(s, 'u'), n = n + k WHERE k < {below}"),
                    Box::new(move |m| {
                        for (k, (s, n)) in m.range_mut(..below) {
                            s.push('u');
                            *n += *k as i64;
                        }
                    }),
                )
            }
            4 => {
                let key = rng.next(next_key.max(1));
                (
                    format!("DELETE FROM t WHERE k BETWEEN {key} AND {}", key + 3),
                    Box::new(move |m| m.retain(|k, _| !(key..=key + 3).contains(k))),
                )
            }
            5 => {
                let key = rng.next(next_key.max(1));
                let step = 1 + rng.next(4);
                (
                    format!(
                        "UPDATE t SET s = concat(s, 'p'), n = n - 1 WHERE k % {step} = 0 AND k >= {key}"
                    ),
                    Box::new(move |m| {
                        for (k, (s, n)) in m.range_mut(key..) {
                            if k % step == 0 {
                                s.push('p');
                                *n -= 1;
                            }
                        }
                    }),
                )
            }
            6 => {
                let key = rng.next(next_key.max(1));
                (
                    format!("ALTER TABLE t DELETE WHERE k BETWEEN {key} AND {}", key + 5),
                    Box::new(move |m| m.retain(|k, _| !(key..=key + 5).contains(k))),
                )
            }
            _ => match rng.next(2) {
                0 => ("OPTIMIZE TABLE t FINAL".to_string(), Box::new(|_| {})),
                _ => (
                    "ALTER TABLE t APPLY DELETED MASK".to_string(),
                    Box::new(|_| {}),
                ),
            },
        };
        ok(&mut session, &sql).await;
        apply(&mut model);
        if rng.next(8) == 0 {
            drop(session);
            drop(engine);
            engine = open(dir.path()).await;
            session = engine.new_session();
        }
        let actual = rows(&mut session, "SELECT k, s, n FROM t ORDER BY k").await;
        let expected: Vec<(u64, String, i64)> = model
            .iter()
            .map(|(k, (s, n))| (*k, s.clone(), *n))
            .collect();
        assert_eq!(actual, expected, "after step {step}: {sql}");
        // A range the primary index selects granules for.
        let from = rng.next(next_key.max(1));
        let lookup = format!(
            "SELECT k, s, n FROM t WHERE k BETWEEN {from} AND {} ORDER BY k",
            from + 9
        );
        let expected: Vec<_> = expected
            .into_iter()
            .filter(|(k, ..)| (from..=from + 9).contains(k))
            .collect();
        assert_eq!(
            rows(&mut session, &lookup).await,
            expected,
            "after step {step}: {lookup}"
        );
    }
}
