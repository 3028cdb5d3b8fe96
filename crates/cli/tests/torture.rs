//! The torture test: `strata local --path` runs random statements on one
//! MergeTree table (inserts of several parts, inserts that fail halfway,
//! OPTIMIZE, ALTER ADD/DROP/RENAME COLUMN, TRUNCATE, RENAME TABLE there and
//! back, mutations that rewrite a column or mask no row and lightweight
//! updates that patch rows to the values they had (so the model stays as it
//! was, and a torn or doubled part shows), reads, with background merges
//! under them), drops and creates a second table `u` and fills it, and is
//! killed with SIGKILL at a random moment, again and again.
//! After each kill a fresh process opens the path and checks the table
//! against a model of what was acknowledged:
//!
//! - every acknowledged insert is present exactly once;
//! - an insert in flight at the kill is all there or not at all;
//! - an acknowledged TRUNCATE removed every earlier insert, one in flight
//!   all of them or none;
//! - nothing of an insert that failed is visible;
//! - `u` is absent, empty or whole;
//! - no part is broken (`CHECK TABLE`, nothing in `system.detached_parts`).
//!
//! A second test runs the same against a `strata server` with three
//! sessions sending statements at once over HTTP, killed the same way. A
//! third keeps `t` on a tiered policy whose second volume is an S3 disk
//! (s3s-fs on loopback), so kills land in uploads, merges, mutations and
//! moves between the disks, and it also checks that every object a part
//! names is in the bucket and that the bucket holds nothing else once the
//! table was opened again (its sweep removes what a kill left).
//!
//! An insert's rows carry its id in `tag` and keys `id * 10^6 + i`, so the
//! check reads each insert's count and key range. The run is seeded and
//! bounded: `STRATA_TORTURE_SECONDS` (default 20) and `STRATA_TORTURE_SEED`
//! (default 1) set it; `./scripts/torture.sh` runs it for an hour.
//! `STRATA_TORTURE_KEEP=1` keeps the data path and a log of the rounds.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[path = "../../engine/tests/common/s3_server.rs"]
mod s3_server;
use s3_server::{ACCESS_KEY, S3Server, SECRET_KEY};

/// Rows an insert writes at most; inserts span several parts at this block size.
const MAX_INSERT_ROWS: u64 = 300_000;
const INSERT_BLOCK_ROWS: u64 = 50_000;
/// Statements a process is given; it is usually killed before the end.
const STATEMENTS_PER_ROUND: usize = 12;
const MAX_KILL_DELAY: Duration = Duration::from_millis(2_500);
/// Keys of insert `id` are `id * KEY_SPAN + i`.
const KEY_SPAN: u64 = 1_000_000;

/// What the model knows of one statement that changes rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// An insert sent; acknowledged or not decides what the check expects.
    Sent {
        rows: u64,
    },
    /// An insert that finished: its ack line came back.
    Acknowledged {
        rows: u64,
    },
    /// An insert built to fail halfway, in flight in a killed process and
    /// found absent after it, or removed by a TRUNCATE: never visible.
    Invisible,
    Truncate,
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Where a run's processes keep their tables: a data path, and for a run
/// on S3 the config file that defines the disk and the server behind it.
struct Target {
    path: PathBuf,
    s3: Option<(PathBuf, S3Server)>,
}

impl Target {
    /// The arguments of `strata local` or `strata server` on this target.
    fn args(&self, command: &str) -> Vec<String> {
        let mut args = vec![
            command.to_string(),
            "--path".to_string(),
            self.path.display().to_string(),
        ];
        if let Some((config, _)) = &self.s3 {
            args.extend(["--config-file".to_string(), config.display().to_string()]);
        }
        args
    }
}

fn strata(target: &Target, sql: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(target.args("local"))
        .args(["-q", sql])
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

/// One session's statements for a round, recording those that write in
/// `writes`. Sessions running at once leave out TRUNCATE, whose effect on
/// another session's inserts the model cannot order, and `u`, which two
/// sessions could fill twice.
fn round_script(
    rng: &mut StdRng,
    writes: &mut BTreeMap<u64, Change>,
    alone: bool,
    on_s3: bool,
) -> String {
    let mut script = String::new();
    for _ in 0..STATEMENTS_PER_ROUND {
        let id = writes.len() as u64 + 1;
        let rows = rng.random_range(1..=MAX_INSERT_ROWS);
        let statement = match rng.random_range(0..48) {
            0..=23 => {
                writes.insert(id, Change::Sent { rows });
                format!(
                    "INSERT INTO t (k, tag) SELECT {id} * {KEY_SPAN} + number, {id} FROM numbers({rows});\nSELECT 'ack', {id}"
                )
            }
            24..=27 => {
                // Division by zero at a row past the first blocks.
                writes.insert(id, Change::Invisible);
                let at = rows / 2;
                format!(
                    "INSERT INTO t (k, tag) SELECT {id} * {KEY_SPAN} + number, {id} + intDiv(0, number - {at}) FROM numbers({rows})"
                )
            }
            28..=31 => "OPTIMIZE TABLE t FINAL".to_string(),
            32..=35 => {
                let column = rng.random_range(0..3);
                if rng.random_bool(0.5) {
                    format!("ALTER TABLE t ADD COLUMN e{column} UInt8 DEFAULT 7")
                } else {
                    format!("ALTER TABLE t DROP COLUMN e{column}")
                }
            }
            37 => {
                let (from, to) = (rng.random_range(0..3), rng.random_range(0..3));
                format!("ALTER TABLE t RENAME COLUMN e{from} TO e{to}")
            }
            // A kill between the two leaves the first done: see `check`.
            38 => "RENAME TABLE t TO t_renamed;\nRENAME TABLE t_renamed TO t".to_string(),
            39 if alone => format!("DROP TABLE IF EXISTS u;\n{CREATE_U};\n{FILL_U}"),
            40..=41 => "ALTER TABLE t UPDATE tag = tag WHERE k % 3 = 0".to_string(),
            42 => {
                "ALTER TABLE t UPDATE tag = tag + 0 WHERE tag % 2 = 1 SETTINGS mutations_sync = 0"
                    .to_string()
            }
            // No key is 1: every part is linked under the mutation's number.
            43 => "DELETE FROM t WHERE k = 1".to_string(),
            // Lightweight updates: a patch of a seventh of the rows, folded
            // into the next; the values stay, so the model does too.
            44..=45 => "UPDATE t SET tag = tag WHERE k % 7 = 0".to_string(),
            36 if alone => {
                writes.insert(id, Change::Truncate);
                format!("TRUNCATE TABLE t;\nSELECT 'ack', {id}")
            }
            46..=47 if on_s3 => {
                let disk = ["default", "s3"][rng.random_range(0..2)];
                format!("ALTER TABLE t MOVE PARTITION ID 'all' TO DISK '{disk}'")
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
fn run_and_kill(target: &Target, script: String, delay: Duration) -> Vec<u64> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(target.args("local"))
        .args([
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

/// Runs each script in its own HTTP session of one `strata server`,
/// killed `delay` after it answers; returns the ids acknowledged.
fn serve_and_kill(target: &Target, scripts: Vec<String>, delay: Duration) -> Vec<u64> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(target.args("server"))
        .args(["--http-port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("strata server runs");
    let started = Instant::now();
    while post(port, "", "SELECT 1").is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the server did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let clients: Vec<_> = scripts
        .into_iter()
        .enumerate()
        .map(|(session, script)| {
            std::thread::spawn(move || {
                let target = format!(
                    "session_id=torture{session}&max_insert_block_size={INSERT_BLOCK_ROWS}"
                );
                let mut acks = Vec::new();
                let mut failed = false;
                for statement in script.split(";\n").filter(|s| !s.trim().is_empty()) {
                    // Another session's RENAME can fail an insert here, which
                    // then must not be acknowledged.
                    if failed && statement.starts_with("SELECT 'ack'") {
                        continue;
                    }
                    // No answer: the server is gone, and so is the rest.
                    let Some((succeeded, body)) = post(port, &target, statement) else {
                        break;
                    };
                    failed = !succeeded;
                    let ids = body.lines().filter_map(|l| l.strip_prefix("ack\t"));
                    acks.extend(ids.map(|id| id.trim().parse::<u64>().unwrap()));
                }
                acks
            })
        })
        .collect();
    std::thread::sleep(delay);
    let _ = server.kill();
    server.wait().unwrap();
    clients
        .into_iter()
        .flat_map(|client| client.join().unwrap())
        .collect()
}

/// Whether a POST of `statement` to the server on `port` succeeded, and
/// its body; `None` when no complete answer came back.
fn post(port: u16, parameters: &str, statement: &str) -> Option<(bool, String)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    let request = format!(
        "POST /?{parameters} HTTP/1.0\r\nContent-Length: {}\r\n\r\n{statement}",
        statement.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = String::new();
    std::io::Read::read_to_string(&mut stream, &mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    let status = head.lines().next()?;
    status
        .starts_with("HTTP/1.")
        .then(|| (status.contains(" 200 "), body.to_string()))
}

/// The table dropped and created again, whole or not at all after a kill.
const CREATE_U: &str = "CREATE TABLE u (k UInt64) ENGINE = MergeTree ORDER BY k";
const FILL_U: &str = "INSERT INTO u SELECT number FROM numbers(1000)";

/// Checks the tables against the model: inserts sent but not acknowledged
/// may be whole or absent, nothing else may differ; and no part is broken.
fn check(target: &Target, writes: &BTreeMap<u64, Change>) {
    // A process killed between the two RENAMEs left the first one done.
    let renamed = "SELECT name FROM system.tables WHERE database = 'default' ORDER BY name";
    if strata(target, renamed)
        .lines()
        .any(|name| name == "t_renamed")
    {
        strata(target, "RENAME TABLE t_renamed TO t");
    }
    check_u(target);
    let seen = strata(
        target,
        "SELECT tag, count(), min(k), max(k) FROM t GROUP BY tag ORDER BY tag",
    );
    let mut found: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
    for line in seen.lines() {
        let fields: Vec<u64> = line.split('\t').map(|f| f.parse().unwrap()).collect();
        found.insert(fields[0], (fields[1], fields[2], fields[3]));
    }
    for (&id, write) in writes {
        let whole = |rows: u64| Some((rows, id * KEY_SPAN, id * KEY_SPAN + rows - 1));
        let got = found.remove(&id);
        match *write {
            Change::Acknowledged { rows } => {
                assert_eq!(got, whole(rows), "acknowledged insert {id}")
            }
            Change::Sent { rows } => assert!(
                got.is_none() || got == whole(rows),
                "insert {id} in flight is partly visible: {got:?} of {rows} rows"
            ),
            Change::Invisible | Change::Truncate => {
                assert_eq!(got, None, "rows of insert {id} are visible")
            }
        }
    }
    assert!(found.is_empty(), "rows of inserts never sent: {found:?}");
    let passed = strata(
        target,
        "CHECK TABLE t SETTINGS check_query_single_value_result = 1",
    );
    assert_eq!(passed.trim(), "1", "CHECK TABLE");
    let detached = strata(target, "SELECT name FROM system.detached_parts");
    assert_eq!(detached, "", "broken parts were detached");
}

/// `u` is absent, or empty between its CREATE and its INSERT, or full.
fn check_u(target: &Target) {
    let exists = strata(target, "EXISTS TABLE u");
    if exists.trim() == "1" {
        let rows = strata(target, "SELECT count(), sum(k) FROM u");
        assert!(
            ["0\t0", "1000\t499500"].contains(&rows.trim()),
            "u holds {rows}"
        );
        let passed = strata(
            target,
            "CHECK TABLE u SETTINGS check_query_single_value_result = 1",
        );
        assert_eq!(passed.trim(), "1", "CHECK TABLE u");
    }
}

/// The tags of the inserts whose rows the table holds.
fn present_tags(target: &Target) -> Vec<u64> {
    let present = strata(target, "SELECT DISTINCT tag FROM t ORDER BY tag");
    present.lines().map(|t| t.parse().unwrap()).collect()
}

/// The model after TRUNCATE `id`: every earlier insert is gone.
fn truncated(writes: &mut BTreeMap<u64, Change>, id: u64) {
    for (_, write) in writes.range_mut(..id) {
        if let Change::Sent { .. } | Change::Acknowledged { .. } = write {
            *write = Change::Invisible;
        }
    }
}

/// Takes a round's acks into the model. The first TRUNCATE of the round
/// not acknowledged may have run when the process was killed: it took
/// effect, wholly, if no earlier insert's row is left.
fn acknowledge(
    target: &Target,
    writes: &mut BTreeMap<u64, Change>,
    round_start: u64,
    acks: &[u64],
) {
    for &id in acks {
        match writes.get(&id).copied() {
            Some(Change::Sent { rows }) => {
                writes.insert(id, Change::Acknowledged { rows });
            }
            Some(Change::Truncate) => truncated(writes, id),
            other => panic!("ack for statement {id}, which is {other:?}"),
        }
    }
    let in_flight = writes
        .range(round_start..)
        .find(|(id, write)| **write == Change::Truncate && !acks.contains(id))
        .map(|(id, _)| *id);
    if let Some(truncate) = in_flight
        && !present_tags(target).iter().any(|&tag| tag < truncate)
    {
        truncated(writes, truncate);
    }
}

/// After a check, an insert in flight is settled: present whole, it counts
/// as acknowledged; absent, its killed process can never add it.
fn settle(target: &Target, writes: &mut BTreeMap<u64, Change>) {
    for tag in present_tags(target) {
        if let Some(Change::Sent { rows }) = writes.get(&tag).copied() {
            writes.insert(tag, Change::Acknowledged { rows });
        }
    }
    for write in writes.values_mut() {
        if let Change::Sent { .. } = write {
            *write = Change::Invisible;
        }
    }
}

fn log_round(target: &Target, text: &str) {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(target.path.with_extension("log"))
        .and_then(|mut log| log.write_all(text.as_bytes()))
        .expect("the torture log is writable");
}

/// How a round's statements run.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// One `strata local` process reading one script.
    Local,
    /// The same, with `t` on a policy of the local disk and an S3 disk.
    LocalOnS3,
    /// A `strata server` with this many sessions at once, each sending its
    /// own script over HTTP.
    Server { sessions: usize },
}

/// A config file with the disk `s3` on `server` and the policy `tiered`:
/// parts up to 1 MB on the local disk, larger ones on S3; columns past
/// 2 MiB go up in multipart uploads.
fn s3_config(server: &S3Server) -> String {
    format!(
        "<clickhouse><storage_configuration>\
         <disks><s3><type>s3</type><endpoint>{}</endpoint>\
         <access_key_id>{ACCESS_KEY}</access_key_id><secret_access_key>{SECRET_KEY}</secret_access_key>\
         <max_single_part_upload_size>2097152</max_single_part_upload_size>\
         <min_upload_part_size>5242880</min_upload_part_size></s3></disks>\
         <policies><tiered><volumes>\
         <hot><disk>default</disk><max_data_part_size_bytes>1000000</max_data_part_size_bytes></hot>\
         <cold><disk>s3</disk></cold></volumes><move_factor>0</move_factor></tiered></policies>\
         </storage_configuration></clickhouse>",
        server.endpoint()
    )
}

/// On S3: every object a committed part's reference names is in the
/// bucket, and, now that processes opened the table again, the bucket holds
/// no object that no reference names (one in a part being written when a
/// process exited counts: it goes at the next start).
fn check_objects(target: &Target) {
    let Some((_, server)) = &target.s3 else {
        return;
    };
    // A key is the table's directory and the object's name.
    let stored: BTreeSet<String> = server
        .objects()
        .iter()
        .map(|object| {
            let mut names = object.iter().rev().take(2).map(|n| n.to_string_lossy());
            let name = names.next().unwrap();
            format!("{}/{name}", names.next().unwrap())
        })
        .collect();
    let (committed, temporary) = referenced_keys(&target.path);
    let missing: Vec<_> = committed.difference(&stored).collect();
    assert!(
        missing.is_empty(),
        "parts name missing objects: {missing:?}"
    );
    let orphans: Vec<_> = stored
        .iter()
        .filter(|key| !committed.contains(*key) && !temporary.contains(*key))
        .collect();
    assert!(orphans.is_empty(), "objects no part names: {orphans:?}");
}

/// The keys that object references under `dir` name, in committed parts
/// and in directories being written or removed (`tmp_*`): references are
/// small files whose first line is a header and whose second is size and
/// key.
fn referenced_keys(dir: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut committed, mut temporary) = (BTreeSet::new(), BTreeSet::new());
    let mut pending = vec![(dir.to_path_buf(), false)];
    while let Some((dir, in_temporary)) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let metadata = entry.metadata().unwrap();
            if metadata.is_dir() {
                let name = entry.file_name();
                pending.push((
                    path,
                    in_temporary || name.to_string_lossy().starts_with("tmp_"),
                ));
            } else if metadata.len() < 4096
                && let Ok(text) = std::fs::read_to_string(&path)
                && let Some(("strata object reference 1", line)) = text.split_once('\n')
                && let Some((_, key)) = line.trim_end().split_once('\t')
            {
                match in_temporary {
                    true => temporary.insert(key.to_string()),
                    false => committed.insert(key.to_string()),
                };
            }
        }
    }
    (committed, temporary)
}

/// Runs rounds of `mode` for `STRATA_TORTURE_SECONDS`, killing the process
/// in each and checking the tables after it.
fn torture(mode: Mode) {
    let seconds = env_u64("STRATA_TORTURE_SECONDS", 20);
    let seed = env_u64("STRATA_TORTURE_SEED", 1);
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    // STRATA_TORTURE_KEEP=1 leaves the data path behind to look into a
    // failure, with each round's statements and acknowledgements in
    // `<path>.log`.
    let keep = env_u64("STRATA_TORTURE_KEEP", 0) == 1;
    let (_removed_at_end, root) = match keep {
        true => (None, dir.keep()),
        false => {
            let root = dir.path().to_path_buf();
            (Some(dir), root)
        }
    };
    let mut target = Target {
        path: root.join("data"),
        s3: None,
    };
    eprintln!("torture data path: {}", target.path.display());
    let mut create =
        "CREATE TABLE t (k UInt64, tag UInt64) ENGINE = MergeTree ORDER BY k SETTINGS min_parts_to_merge_at_once = 3"
            .to_string();
    if let Mode::LocalOnS3 = mode {
        let Some(server) = S3Server::start() else {
            return;
        };
        let config = root.join("storage.xml");
        std::fs::write(&config, s3_config(&server)).unwrap();
        target.s3 = Some((config, server));
        create.push_str(", storage_policy = 'tiered'");
    }
    let target = &target;
    strata(target, &create);
    let mut writes: BTreeMap<u64, Change> = BTreeMap::new();
    let start = Instant::now();
    let (mut rounds, mut kills) = (0u64, 0u64);
    while start.elapsed() < Duration::from_secs(seconds) {
        let first_id = writes.len() as u64 + 1;
        let sessions = match mode {
            Mode::Local | Mode::LocalOnS3 => 1,
            Mode::Server { sessions } => sessions,
        };
        let on_s3 = target.s3.is_some();
        let scripts: Vec<String> = (0..sessions)
            .map(|_| round_script(&mut rng, &mut writes, sessions == 1, on_s3))
            .collect();
        let delay = Duration::from_millis(rng.random_range(0..MAX_KILL_DELAY.as_millis() as u64));
        let round_start = Instant::now();
        if keep {
            let scripts = scripts.join("-- next session\n");
            log_round(
                target,
                &format!("--- round, killed after {delay:?}\n{scripts}"),
            );
        }
        let acks = match mode {
            Mode::Local | Mode::LocalOnS3 => run_and_kill(target, scripts.concat(), delay),
            Mode::Server { .. } => serve_and_kill(target, scripts, delay),
        };
        if keep {
            log_round(target, &format!("acknowledged {acks:?}\n"));
        }
        kills += u64::from(round_start.elapsed() >= delay);
        rounds += 1;
        acknowledge(target, &mut writes, first_id, &acks);
        check(target, &writes);
        check_objects(target);
        settle(target, &mut writes);
    }
    let acknowledged = writes
        .values()
        .filter(|w| matches!(w, Change::Acknowledged { .. }))
        .count();
    eprintln!(
        "torture {mode:?} (seed {seed}): {rounds} rounds, {kills} kills, {acknowledged} inserts kept of {} statements that write",
        writes.len()
    );
    assert!(rounds > 0);
}

#[test]
fn killed_at_random_the_table_keeps_exactly_what_was_acknowledged() {
    torture(Mode::Local);
}

#[test]
fn a_server_killed_under_concurrent_sessions_keeps_exactly_what_was_acknowledged() {
    torture(Mode::Server { sessions: 3 });
}

#[test]
fn killed_at_random_with_parts_on_s3_the_table_keeps_exactly_what_was_acknowledged() {
    torture(Mode::LocalOnS3);
}
