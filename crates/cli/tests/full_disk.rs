//! Full disks: an insert, a merge, a mutation or a spill that runs out of
//! space fails with ClickHouse's code and the system's message, leaves the
//! table as it was, removes what it had written, and the next statement
//! works once space is back.
//!
//! Each test mounts a small tmpfs of its own (`mount -t tmpfs -o size=...`)
//! and grows it with `remount` to give space back. Mounting needs root; where
//! it is refused the test prints why and returns.

mod common;

use std::path::Path;
use std::process::Command;

use common::{
    CREATE, assert_checked, assert_intact, assert_no_temporary_data, bytes_under, rows, run,
    strata, temporary_entries,
};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// A tmpfs mounted for one test, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: u64) -> Result<Tmpfs, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("mount could not run: {e}"))?;
        if !status.status.success() {
            return Err(format!(
                "mount -t tmpfs was refused (needs root): {}",
                String::from_utf8_lossy(&status.stderr).trim()
            ));
        }
        Ok(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Gives the filesystem `size` bytes, keeping what it holds.
    fn resize(&self, size: u64) {
        let out = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(self.path())
            .output()
            .expect("mount runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Mounts a tmpfs or, where that is refused, says why the test is skipped.
fn tmpfs_or_skip(test: &str, size: u64) -> Option<Tmpfs> {
    match Tmpfs::mount(size) {
        Ok(fs) => Some(fs),
        Err(reason) => {
            eprintln!("skipped {test}: {reason}");
            None
        }
    }
}

/// Runs `sql` on the data path `path`, which must fail for lack of space with 75.
fn strata_out_of_space_on(path: &Path, sql: &str) {
    strata_out_of_space(75, &["local", "--path", path.to_str().unwrap(), "-q", sql]);
}

/// Runs `args`, which must fail for lack of space with `code` (the exit
/// status is the code modulo 256).
fn strata_out_of_space(code: i32, args: &[&str]) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "succeeded: {args:?}");
    assert_eq!(out.status.code(), Some(code % 256), "{err}");
    assert!(err.starts_with(&format!("Code: {code}.")), "{err}");
    assert!(err.contains("Code: 75."), "{err}");
    assert!(err.contains("(CANNOT_WRITE_TO_FILE_DESCRIPTOR)"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

#[test]
fn an_insert_that_fills_the_disk_fails_whole_and_the_next_one_works() {
    let Some(fs) = tmpfs_or_skip("an_insert_that_fills_the_disk", 8 * MIB) else {
        return;
    };
    let data = fs.path().join("data");
    let path = data.as_path();
    strata(path, &format!("{CREATE}; INSERT INTO t {}", rows(0, 1000)));
    let before = bytes_under(path);

    let insert = format!("INSERT INTO t {}", rows(1000, 2_000_000));
    strata_out_of_space_on(path, &insert);

    assert_eq!(
        strata(path, "SELECT count(), sum(k) FROM t"),
        "1000\t499500"
    );
    assert_intact(path);
    assert!(
        bytes_under(path) < before + 64 * KIB,
        "the failed insert left {} bytes",
        bytes_under(path) - before
    );
    strata(path, &format!("INSERT INTO t {}", rows(1000, 1000)));
    assert_eq!(
        strata(path, "SELECT count(), uniqExact(k) FROM t"),
        "2000\t2000"
    );
}

#[test]
fn a_merge_without_room_keeps_its_parts_and_runs_once_space_is_back() {
    let Some(fs) = tmpfs_or_skip("a_merge_without_room", 12 * MIB) else {
        return;
    };
    let data = fs.path().join("data");
    let path = data.as_path();
    // Four parts (fewer than a background merge waits for): merging them
    // needs as much room again.
    strata(
        path,
        &format!(
            "{CREATE}; INSERT INTO t {}; INSERT INTO t {}; INSERT INTO t {}; INSERT INTO t {}",
            rows(0, 40_000),
            rows(40_000, 40_000),
            rows(80_000, 40_000),
            rows(120_000, 40_000)
        ),
    );
    let parts = "SELECT count() FROM system.parts WHERE table = 't' AND active";
    assert_eq!(strata(path, parts), "4");
    let check = "SELECT count(), sum(k), sum(length(s)) FROM t";
    let expected = strata(path, check);
    // Shrink the filesystem so the merged part cannot fit.
    let used = bytes_under(path);
    fs.resize(used + used / 2);

    strata_out_of_space_on(path, "OPTIMIZE TABLE t FINAL");
    assert_eq!(strata(path, parts), "4");
    assert_eq!(strata(path, check), expected);
    assert_intact(path);

    fs.resize(4 * used);
    strata(path, "OPTIMIZE TABLE t FINAL");
    assert_eq!(strata(path, parts), "1");
    assert_eq!(strata(path, check), expected);
    assert_intact(path);
}

#[test]
fn a_mutation_without_room_fails_on_its_part_and_finishes_once_space_is_back() {
    let Some(fs) = tmpfs_or_skip("a_mutation_without_room", 12 * MIB) else {
        return;
    };
    let data = fs.path().join("data");
    let path = data.as_path();
    strata(
        path,
        &format!("{CREATE}; INSERT INTO t {}", rows(0, 100_000)),
    );
    let used = bytes_under(path);
    // Room for less than the rewritten column `s`.
    fs.resize(used + used / 4);

    // The failure is kept in memory, as ClickHouse keeps it, so it is read
    // in the same process. As in ClickHouse, a synchronous mutation that
    // fails on a part is UNFINISHED, with the part's error inside.
    let out = run(&[
        "local",
        "--ignore-error",
        "--path",
        path.to_str().unwrap(),
        "-q",
        "ALTER TABLE t UPDATE s = concat(s, 'x') WHERE 1 SETTINGS mutations_sync = 2; \
         SELECT is_done, parts_to_do, latest_failed_part, \
         latest_fail_reason LIKE '%No space left on device%' FROM system.mutations",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("Code: 341."), "{err}");
    assert!(err.contains("(CANNOT_WRITE_TO_FILE_DESCRIPTOR)"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "0\t1\tall_1_1_0\t1"
    );
    // Read before another process starts: each one resumes the pending
    // mutation in the background, and one ending mid-write leaves its
    // temporary part for the next start to remove.
    assert_no_temporary_data(path);
    assert_eq!(
        strata(path, "SELECT count(), countIf(endsWith(s, 'x')) FROM t"),
        "100000\t0"
    );
    assert_checked(path);

    // With space back, the mutation resumes at the next start; OPTIMIZE
    // FINAL runs pending mutations before it merges, so it waits for it.
    fs.resize(4 * used);
    let done = strata(
        path,
        "OPTIMIZE TABLE t FINAL; SELECT count(), countIf(endsWith(s, 'x')) FROM t",
    );
    assert_eq!(done, "100000\t100000");
    assert_eq!(
        strata(
            path,
            "SELECT is_done, latest_fail_reason = '' FROM system.mutations"
        ),
        "1\t1"
    );
    assert_intact(path);
}

#[test]
fn a_spill_without_room_fails_the_query_and_frees_its_files() {
    let Some(tmp) = tmpfs_or_skip("a_spill_without_room", 2 * MIB) else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let tmp_path = format!("--tmp_path={}", tmp.path().display());
    // Spilled groups of 1e6 distinct keys take about 13 MiB.
    let spilling = "SELECT count() FROM (SELECT number % 1000000 AS k, count() FROM numbers_mt(2000000) GROUP BY k) \
         SETTINGS max_bytes_before_external_group_by = 1000000, temporary_data_warm_ratio = 0, \
         temporary_data_compression = 'none'";
    let args = [
        "local",
        "--path",
        data.path().to_str().unwrap(),
        &tmp_path,
        "-q",
        spilling,
    ];
    strata_out_of_space(75, &args);
    assert_eq!(
        bytes_under(tmp.path()),
        0,
        "{:?}",
        temporary_entries(tmp.path())
    );

    tmp.resize(256 * MIB);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1000000");
    assert_eq!(bytes_under(tmp.path()), 0);
}
