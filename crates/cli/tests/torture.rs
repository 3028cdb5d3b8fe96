//! The torture test: `strata local --path` runs random statements on one
//! MergeTree table (inserts of several parts, inserts that fail halfway,
//! OPTIMIZE, ALTER ADD/DROP COLUMN, reads, with background merges under
//! them) and is killed with SIGKILL at a random moment, again and again.
//! After each kill a fresh process opens the path and checks the table
//! against a model of what was acknowledged:
//!
//! - every acknowledged insert is present exactly once;
//! - an insert in flight at the kill is all there or not at all;
//! - nothing of an insert that failed is visible;
//! - no part is broken (`CHECK TABLE`, nothing in `system.detached_parts`).
//!
//! An insert's rows carry its id in `tag` and keys `id * 10^6 + i`, so the
//! check reads each insert's count and key range. The run is seeded and
//! bounded: `STRATA_TORTURE_SECONDS` (default 20) and `STRATA_TORTURE_SEED`
//! (default 1) set it; `./scripts/torture.sh` runs it for an hour.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Rows an insert writes at most; inserts span several parts at this block size.
const MAX_INSERT_ROWS: u64 = 300_000;
const INSERT_BLOCK_ROWS: u64 = 50_000;
/// Statements a process is given; it is usually killed before the end.
const STATEMENTS_PER_ROUND: usize = 12;
const MAX_KILL_DELAY: Duration = Duration::from_millis(2_500);
/// Keys of insert `id` are `id * KEY_SPAN + i`.
const KEY_SPAN: u64 = 1_000_000;

/// What the model knows of one insert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Insert {
    /// Sent; acknowledged or not decides what the check expects.
    Sent { rows: u64 },
    /// Finished: its ack line came back.
    Acknowledged { rows: u64 },
    /// Built to fail halfway, or in flight in a killed process and found
    /// absent after it: never visible.
    Invisible,
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn strata(path: &Path, sql: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["local", "--path", path.to_str().unwrap(), "-q", sql])
        .output()
        .expect("strata runs");
    assert!(
        output.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Warnings (a part detached at load) show with the failure they explain.
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).to_string()
}

/// One round's statements, recording the inserts it sends in `inserts`.
fn round_script(rng: &mut StdRng, inserts: &mut BTreeMap<u64, Insert>) -> String {
    let mut script = String::new();
    for _ in 0..STATEMENTS_PER_ROUND {
        let id = inserts.len() as u64 + 1;
        let rows = rng.random_range(1..=MAX_INSERT_ROWS);
        let statement = match rng.random_range(0..10) {
            0..=5 => {
                inserts.insert(id, Insert::Sent { rows });
                format!(
                    "INSERT INTO t (k, tag) SELECT {id} * {KEY_SPAN} + number, {id} FROM numbers({rows});\nSELECT 'ack', {id}"
                )
            }
            6 => {
                // Division by zero at a row past the first blocks.
                inserts.insert(id, Insert::Invisible);
                let at = rows / 2;
                format!(
                    "INSERT INTO t (k, tag) SELECT {id} * {KEY_SPAN} + number, {id} + intDiv(0, number - {at}) FROM numbers({rows})"
                )
            }
            7 => "OPTIMIZE TABLE t FINAL".to_string(),
            8 => {
                let column = rng.random_range(0..3);
                if rng.random_bool(0.5) {
                    format!("ALTER TABLE t ADD COLUMN e{column} UInt8 DEFAULT 7")
                } else {
                    format!("ALTER TABLE t DROP COLUMN e{column}")
                }
            }
            _ => "SELECT count() FROM t FORMAT Null".to_string(),
        };
        script.push_str(&statement);
        script.push_str(";\n");
    }
    script
}

/// Runs `script` in one process, killed after `delay` unless it ends first;
/// returns the ids it acknowledged.
fn run_and_kill(path: &Path, script: String, delay: Duration) -> Vec<u64> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args([
            "local",
            "--path",
            path.to_str().unwrap(),
            "--ignore-error",
            "--max_insert_block_size",
            &INSERT_BLOCK_ROWS.to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("strata runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    drop(stdin);
    let stdout = child.stdout.take().unwrap();
    let (sender, acks) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(id) = line.strip_prefix("ack\t") {
                let _ = sender.send(id.trim().parse::<u64>().unwrap());
            }
        }
    });
    let start = Instant::now();
    while start.elapsed() < delay {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    child.wait().unwrap();
    reader.join().unwrap();
    acks.try_iter().collect()
}

/// Checks the table against the model: inserts sent but not acknowledged
/// may be whole or absent, nothing else may differ; and no part is broken.
fn check(path: &Path, inserts: &BTreeMap<u64, Insert>) {
    let seen = strata(
        path,
        "SELECT tag, count(), min(k), max(k) FROM t GROUP BY tag ORDER BY tag",
    );
    let mut found: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
    for line in seen.lines() {
        let fields: Vec<u64> = line.split('\t').map(|f| f.parse().unwrap()).collect();
        found.insert(fields[0], (fields[1], fields[2], fields[3]));
    }
    for (&id, insert) in inserts {
        let whole = |rows: u64| Some((rows, id * KEY_SPAN, id * KEY_SPAN + rows - 1));
        let got = found.remove(&id);
        match *insert {
            Insert::Acknowledged { rows } => {
                assert_eq!(got, whole(rows), "acknowledged insert {id}")
            }
            Insert::Sent { rows } => assert!(
                got.is_none() || got == whole(rows),
                "insert {id} in flight is partly visible: {got:?} of {rows} rows"
            ),
            Insert::Invisible => assert_eq!(got, None, "failed insert {id} is visible"),
        }
    }
    assert!(found.is_empty(), "rows of inserts never sent: {found:?}");
    let passed = strata(
        path,
        "CHECK TABLE t SETTINGS check_query_single_value_result = 1",
    );
    assert_eq!(passed.trim(), "1", "CHECK TABLE");
    let detached = strata(path, "SELECT name FROM system.detached_parts");
    assert_eq!(detached, "", "broken parts were detached");
}

/// After a check, an insert in flight is settled: present whole, it counts
/// as acknowledged; absent, its killed process can never add it.
fn settle(path: &Path, inserts: &mut BTreeMap<u64, Insert>) {
    let present = strata(path, "SELECT DISTINCT tag FROM t ORDER BY tag");
    for tag in present.lines().map(|t| t.parse::<u64>().unwrap()) {
        if let Some(Insert::Sent { rows }) = inserts.get(&tag).copied() {
            inserts.insert(tag, Insert::Acknowledged { rows });
        }
    }
    for insert in inserts.values_mut() {
        if let Insert::Sent { .. } = insert {
            *insert = Insert::Invisible;
        }
    }
}

#[test]
fn killed_at_random_the_table_keeps_exactly_what_was_acknowledged() {
    let seconds = env_u64("STRATA_TORTURE_SECONDS", 20);
    let seed = env_u64("STRATA_TORTURE_SEED", 1);
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    strata(
        path,
        "CREATE TABLE t (k UInt64, tag UInt64) ENGINE = MergeTree ORDER BY k SETTINGS min_parts_to_merge_at_once = 3",
    );
    let mut inserts: BTreeMap<u64, Insert> = BTreeMap::new();
    let start = Instant::now();
    let (mut rounds, mut kills) = (0u64, 0u64);
    while start.elapsed() < Duration::from_secs(seconds) {
        let script = round_script(&mut rng, &mut inserts);
        let delay = Duration::from_millis(rng.random_range(0..MAX_KILL_DELAY.as_millis() as u64));
        let round_start = Instant::now();
        for id in run_and_kill(path, script, delay) {
            let Some(Insert::Sent { rows }) = inserts.get(&id).copied() else {
                panic!("ack for insert {id}, which was not an insert in flight");
            };
            inserts.insert(id, Insert::Acknowledged { rows });
        }
        kills += u64::from(round_start.elapsed() >= delay);
        rounds += 1;
        check(path, &inserts);
        settle(path, &mut inserts);
    }
    let acknowledged = inserts
        .values()
        .filter(|i| matches!(i, Insert::Acknowledged { .. }))
        .count();
    eprintln!(
        "torture (seed {seed}): {rounds} rounds, {kills} kills, {acknowledged} of {} inserts acknowledged",
        inserts.len()
    );
    assert!(rounds > 0);
}
