//! One process per data path, as ClickHouse's `status` file makes it: the
//! process that owns a path holds an exclusive lock on `<path>/status`, which
//! names it (PID, start time, version). A second process fails before it
//! touches anything; two writers on one directory would take the same block
//! numbers and write through the same temporary parts.
//!
//! The lock is the kernel's (`flock`), so it goes with the process however the
//! process ends; the file stays, and a later owner rewrites it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use strata_common::{ErrorCode, Result, StrataError};

pub const STATUS_FILE: &str = "status";

/// The held lock on a data path; released when dropped.
#[derive(Debug)]
pub struct StatusFile {
    _file: File,
}

impl StatusFile {
    /// Locks `root/status` and writes this process into it, or fails with
    /// CANNOT_OPEN_FILE naming the path and the holder.
    pub fn lock(root: &Path) -> Result<StatusFile> {
        let path = root.join(STATUS_FILE);
        // Not truncated on open: the holder's contents are read when the lock is refused.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| cannot_open(&path, &e.to_string()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(held_by_another(&path, &mut file));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(cannot_open(&path, &e.to_string()));
            }
        }
        let text = format!(
            "PID: {}\nStarted at: {}\nVersion: {}\n",
            std::process::id(),
            chrono::Local::now().format("%Y-%m-%d %H:%M:%S"),
            crate::engine::VERSION,
        );
        file.set_len(0)
            .and_then(|_| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(text.as_bytes()))
            .and_then(|_| file.sync_data())
            .map_err(|e| cannot_open(&path, &e.to_string()))?;
        Ok(StatusFile { _file: file })
    }
}

fn held_by_another(path: &Path, file: &mut File) -> StrataError {
    let mut holder = String::new();
    // The holder writes its lines just after it takes the lock: they may be missing.
    let _ = file.read_to_string(&mut holder);
    let holder = holder
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    let holder = if holder.is_empty() {
        "a process that has not written its status yet".to_string()
    } else {
        holder
    };
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    StrataError::new(
        ErrorCode::CANNOT_OPEN_FILE,
        format!(
            "Cannot lock file {}. Another server instance in same directory is already running ({holder})",
            path.display()
        ),
    )
}

fn cannot_open(path: &Path, why: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_OPEN_FILE,
        format!("Cannot open file {}: {why}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_owner_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = StatusFile::lock(dir.path()).unwrap();
        let error = StatusFile::lock(dir.path()).unwrap_err();
        assert_eq!(error.code, ErrorCode::CANNOT_OPEN_FILE);
        assert!(error.message.contains("already running"), "{error}");
        assert!(
            error
                .message
                .contains(&format!("PID: {}", std::process::id())),
            "{error}"
        );
        drop(first);
        StatusFile::lock(dir.path()).unwrap();
    }
}
