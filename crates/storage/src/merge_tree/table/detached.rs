//! Parts outside the active set, in the table's `detached/` directory, as
//! in ClickHouse: a part that failed to open is moved there as
//! `broken_<name>` instead of taking the table down; `DETACH PART` moves a
//! healthy one there, `ATTACH PART` brings one back under a new block
//! number after checking every file, and `DROP DETACHED PART` removes one.
//! Nothing under `detached/` is read by queries or merges.
//!
//! Also here: `CHECK TABLE`, which reads every file of the active parts
//! against their checksums.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use strata_common::error::{ErrorCode, Result, StrataError};

use super::MergeTreeTable;
use crate::merge_tree::data_part::DataPart;
use crate::part::name::PartName;
use crate::part::reader::Part;
use crate::part::writer::{io_error, sync_directory};

/// Where parts taken out of the table go.
pub const DETACHED_DIR: &str = "detached";

/// Why a part was detached, as the prefix of its directory name; ClickHouse's words.
const REASONS: &[&str] = &[
    "broken",
    "unexpected",
    "noquorum",
    "ignored",
    "broken-on-start",
    "clone",
    "attaching",
    "deleting",
    "tmp-fetch",
    "covered-by-broken",
];

/// One directory under `detached/`, for `system.detached_parts`.
#[derive(Debug, Clone)]
pub struct DetachedPart {
    /// The directory's name.
    pub name: String,
    /// The prefix naming why it was detached; empty for `DETACH PART`.
    pub reason: String,
    /// The part name after the prefix, when it is one.
    pub part: Option<PartName>,
    pub bytes_on_disk: u64,
    pub modification_time: SystemTime,
    pub path: PathBuf,
}

/// One active part's result in `CHECK TABLE`.
#[derive(Debug)]
pub struct PartCheck {
    pub name: String,
    pub path: PathBuf,
    /// `None` when every file matched its size and checksum.
    pub error: Option<StrataError>,
}

impl MergeTreeTable {
    fn detached_dir(&self) -> PathBuf {
        self.dir.join(DETACHED_DIR)
    }

    /// The directories under `detached/`, by part (partition and blocks), then name.
    pub fn detached_parts(&self) -> Result<Vec<DetachedPart>> {
        let dir = self.detached_dir();
        if !dir.exists() {
            return Ok(Vec::new());
        }
        let mut parts = Vec::new();
        for entry in fs::read_dir(&dir).map_err(|e| io_error(&dir, e))? {
            let path = entry.map_err(|e| io_error(&dir, e))?.path();
            if !path.is_dir() {
                continue;
            }
            let name = file_name(&path);
            let (reason, part) = reason_and_part(&name);
            let metadata = fs::metadata(&path).map_err(|e| io_error(&path, e))?;
            parts.push(DetachedPart {
                reason,
                part,
                bytes_on_disk: directory_bytes(&path),
                modification_time: metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                path,
                name,
            });
        }
        // In block order, so ATTACH PARTITION keeps the parts' order (the one
        // ReplacingMergeTree's last row depends on); `all_10_10_0` sorts
        // after `all_9_9_0`.
        parts.sort_by_cached_key(|p| {
            let blocks = p.part.as_ref().map(|n| {
                let partition = n.partition_id.clone();
                (partition, n.min_block, n.max_block, n.level, n.mutation)
            });
            (blocks, p.name.clone())
        });
        Ok(parts)
    }

    /// `ALTER TABLE ... DETACH PART 'name'`: the active part leaves the
    /// table and its directory moves to `detached/name`. A merge reading it
    /// finds its source gone at commit and discards its result.
    pub fn detach_part(&self, name: &str) -> Result<()> {
        self.check_open()?;
        let _guard = self.commit.lock();
        let current = self.snapshot();
        let part = current.iter().find(|p| p.name() == name).ok_or_else(|| {
            StrataError::new(
                ErrorCode::NO_SUCH_DATA_PART,
                format!("No part {name} in committed state"),
            )
        })?;
        let detached = self.detached_dir();
        fs::create_dir_all(&detached).map_err(|e| io_error(&detached, e))?;
        let target = free_name(&detached, name);
        fs::rename(&part.part.dir, &target).map_err(|e| io_error(&target, e))?;
        sync_directory(&self.dir)?;
        let next: Vec<Arc<DataPart>> = current
            .iter()
            .filter(|p| !Arc::ptr_eq(p, part))
            .cloned()
            .collect();
        *self.active.write() = Arc::new(next);
        Ok(())
    }

    /// `ALTER TABLE ... ATTACH PART 'name'`: checks every file of
    /// `detached/name` against its checksum and makes it active under a
    /// new block number, so it sorts after every part already there.
    /// Returns the part's new name.
    pub fn attach_part(&self, name: &str) -> Result<String> {
        self.check_open()?;
        let source = self.detached_dir().join(checked_file_name(name)?);
        if !source.is_dir() {
            return Err(detached_not_found(name));
        }
        let (reason, detached_name) = reason_and_part(name);
        let Some(detached_name) = detached_name.filter(|_| reason.is_empty()) else {
            return Err(StrataError::new(
                ErrorCode::BAD_DATA_PART_NAME,
                format!(
                    "Detached part {name} is not named as a part (a prefix such as 'broken_' says why it was detached); rename its directory to attach it"
                ),
            ));
        };
        Part::open(&source, Some(&self.settings.policy))?.verify_checksums()?;
        let _guard = self.commit.lock();
        let block = self.next_block.fetch_add(1, Ordering::Relaxed);
        let new_name = PartName {
            min_block: block,
            max_block: block,
            // A fresh block comes after every mutation so far.
            mutation: 0,
            ..detached_name
        };
        let target = self.dir.join(new_name.to_string());
        fs::rename(&source, &target).map_err(|e| io_error(&target, e))?;
        let part = match DataPart::open(&target, &self.schema, &self.keys, &self.settings.policy) {
            Ok(part) => part,
            Err(error) => {
                // Back where it was, so nothing is lost.
                let _ = fs::rename(&target, &source);
                return Err(error);
            }
        };
        sync_directory(&self.dir)?;
        let mut next: Vec<Arc<DataPart>> = self.snapshot().as_ref().clone();
        next.push(Arc::new(part));
        next.sort_by(|a, b| a.part.name.cmp(&b.part.name));
        *self.active.write() = Arc::new(next);
        Ok(new_name.to_string())
    }

    /// `ALTER TABLE ... DROP DETACHED PART 'name'`: removes `detached/name`.
    pub fn drop_detached_part(&self, name: &str) -> Result<()> {
        let path = self.detached_dir().join(checked_file_name(name)?);
        if !path.is_dir() {
            return Err(detached_not_found(name));
        }
        // Nothing reads detached/, so a removal cut short harms nothing.
        fs::remove_dir_all(&path).map_err(|e| io_error(&path, e))
    }

    /// `CHECK TABLE`: each active part of `partition_id` (or every one),
    /// every file read whole and compared with its size and checksum.
    pub fn check_parts(&self, partition_id: Option<&str>) -> Vec<PartCheck> {
        self.snapshot()
            .iter()
            .filter(|p| partition_id.is_none_or(|id| p.part.name.partition_id == id))
            .map(|p| PartCheck {
                name: p.name(),
                path: p.part.dir.clone(),
                error: p.part.verify_checksums().err(),
            })
            .collect()
    }
}

/// Moves each part that failed to open to `detached/broken_<name>`, unless
/// there are more than `most`: then nothing moves and the table does not
/// load, since so many broken parts mean something larger is wrong.
pub(super) fn detach_broken(
    dir: &Path,
    broken: Vec<(PathBuf, StrataError)>,
    most: usize,
) -> Result<()> {
    if broken.len() > most {
        let (first, error) = &broken[0];
        return Err(StrataError::new(
            ErrorCode::TOO_MANY_UNEXPECTED_DATA_PARTS,
            format!(
                "Suspiciously many ({}) broken parts in {}, more than max_suspicious_broken_parts ({most}); none was detached. The first, {}: {}",
                broken.len(),
                dir.display(),
                file_name(first),
                error.message
            ),
        ));
    }
    if broken.is_empty() {
        return Ok(());
    }
    let detached = dir.join(DETACHED_DIR);
    fs::create_dir_all(&detached).map_err(|e| io_error(&detached, e))?;
    for (path, error) in broken {
        let target = free_name(&detached, &format!("broken_{}", file_name(&path)));
        fs::rename(&path, &target).map_err(|e| io_error(&target, e))?;
        log::warn!(
            "Detached broken part {} as {}: {error}",
            path.display(),
            target.display()
        );
    }
    sync_directory(dir)
}

fn detached_not_found(name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_DATA_PART_NAME,
        format!("Detached part \"{name}\" not found"),
    )
}

/// `dir/name`, or `dir/name_tryN` for the first free N, as ClickHouse names repeats.
fn free_name(dir: &Path, name: &str) -> PathBuf {
    let mut target = dir.join(name);
    let mut attempt = 1;
    while target.exists() {
        target = dir.join(format!("{name}_try{attempt}"));
        attempt += 1;
    }
    target
}

/// A detached part's name as given in SQL, refused if it could leave `detached/`.
fn checked_file_name(name: &str) -> Result<&str> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        return Err(StrataError::new(
            ErrorCode::BAD_DATA_PART_NAME,
            format!("Invalid part name '{name}'"),
        ));
    }
    Ok(name)
}

/// The reason prefix of a detached directory's name and the part name after it.
fn reason_and_part(name: &str) -> (String, Option<PartName>) {
    for reason in REASONS {
        if let Some(rest) = name.strip_prefix(reason).and_then(|r| r.strip_prefix('_'))
            && let Ok(part) = PartName::parse(rest)
        {
            return (reason.to_string(), Some(part));
        }
    }
    (String::new(), PartName::parse(name).ok())
}

fn directory_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.metadata().ok())
        .filter(|metadata| metadata.is_file())
        .map(|metadata| metadata.len())
        .sum()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detached_names_split_into_reason_and_part() {
        let (reason, part) = reason_and_part("broken_all_1_1_0");
        assert_eq!(reason, "broken");
        assert_eq!(part.unwrap().to_string(), "all_1_1_0");
        let (reason, part) = reason_and_part("202401_3_9_2");
        assert_eq!(reason, "");
        assert_eq!(part.unwrap().to_string(), "202401_3_9_2");
        let (reason, part) = reason_and_part("broken_all_1_1_0_try1");
        assert_eq!(reason, "");
        assert!(part.is_none());
    }

    #[test]
    fn names_that_leave_the_directory_are_refused() {
        for name in ["", ".", "..", "../x", "a/b"] {
            assert_eq!(
                checked_file_name(name).unwrap_err().code,
                ErrorCode::BAD_DATA_PART_NAME
            );
        }
    }
}
