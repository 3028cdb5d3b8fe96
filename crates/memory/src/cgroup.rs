//! The memory limit of the cgroup this process runs in.
//!
//! Containers limit memory through cgroups, and physical RAM says nothing about
//! that limit: a database that sizes itself from RAM inside an 11 GB container
//! gets killed. The limit that applies is the smallest one on the path from the
//! process's own cgroup up to the root (a parent may be tighter than the child).

use std::path::{Path, PathBuf};

/// cgroup v1 reports "no limit" as a huge, page-rounded number.
const V1_UNLIMITED_FROM: u64 = 1 << 62;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CgroupLimit {
    pub bytes: u64,
    /// The file the limit was read from.
    pub file: PathBuf,
}

/// Reads the limit given the text of `/proc/self/cgroup` and the cgroup
/// filesystem root (normally `/sys/fs/cgroup`); None when no cgroup on the path
/// has a limit.
pub fn memory_limit(proc_self_cgroup: &str, root: &Path) -> Option<CgroupLimit> {
    let mut best: Option<CgroupLimit> = None;
    for line in proc_self_cgroup.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(hierarchy), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let (bases, file): (Vec<PathBuf>, &str) = if hierarchy == "0" && controllers.is_empty() {
            (vec![root.to_path_buf(), root.join("unified")], "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (vec![root.join("memory")], "memory.limit_in_bytes")
        } else {
            continue;
        };
        for base in bases {
            for dir in ancestors(&base, path) {
                let candidate = dir.join(file);
                if let Some(bytes) = read_limit(&candidate) {
                    if best.as_ref().is_none_or(|b| bytes < b.bytes) {
                        best = Some(CgroupLimit {
                            bytes,
                            file: candidate,
                        });
                    }
                }
            }
        }
    }
    best
}

/// `base/a/b/c`, `base/a/b`, `base/a`, `base`: where a cgroup and its parents
/// appear under the mount. Inside a container the mount is often the cgroup
/// itself, so `base` alone is tried as well.
fn ancestors(base: &Path, cgroup_path: &str) -> Vec<PathBuf> {
    let parts: Vec<&str> = cgroup_path.split('/').filter(|p| !p.is_empty()).collect();
    (0..=parts.len())
        .rev()
        .map(|n| {
            parts[..n]
                .iter()
                .fold(base.to_path_buf(), |p, part| p.join(part))
        })
        .collect()
}

fn read_limit(file: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let text = text.trim();
    if text == "max" {
        return None;
    }
    let value: u64 = text.parse().ok()?;
    (value < V1_UNLIMITED_FROM).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        dir
    }

    #[test]
    fn v2_limit_of_own_cgroup() {
        let root = fixture(&[("system.slice/db.service/memory.max", "11000000000\n")]);
        let limit = memory_limit("0::/system.slice/db.service\n", root.path()).unwrap();
        assert_eq!(limit.bytes, 11_000_000_000);
        assert!(limit.file.ends_with("db.service/memory.max"));
    }

    #[test]
    fn v2_max_means_no_limit() {
        let root = fixture(&[("a/memory.max", "max\n")]);
        assert_eq!(memory_limit("0::/a\n", root.path()), None);
    }

    #[test]
    fn nested_parent_tighter_than_child_wins() {
        let root = fixture(&[
            ("outer/memory.max", "2147483648\n"),
            ("outer/inner/memory.max", "max\n"),
        ]);
        assert_eq!(
            memory_limit("0::/outer/inner\n", root.path())
                .unwrap()
                .bytes,
            2 << 30
        );
    }

    #[test]
    fn container_view_where_the_mount_is_the_cgroup() {
        // /proc/self/cgroup names a path the namespaced mount does not have.
        let root = fixture(&[("memory.max", "536870912\n")]);
        assert_eq!(
            memory_limit("0::/docker/abc\n", root.path()).unwrap().bytes,
            512 << 20
        );
    }

    #[test]
    fn v1_limit_and_v1_unlimited() {
        let proc = "4:memory:/job/42\n1:cpu,cpuacct:/\n";
        let limited = fixture(&[("memory/job/42/memory.limit_in_bytes", "3221225472\n")]);
        assert_eq!(memory_limit(proc, limited.path()).unwrap().bytes, 3 << 30);
        let unlimited = fixture(&[
            (
                "memory/job/42/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
            ("memory/memory.limit_in_bytes", "9223372036854771712\n"),
        ]);
        assert_eq!(memory_limit(proc, unlimited.path()), None);
    }

    #[test]
    fn unified_hierarchy_under_v1_mounts() {
        let root = fixture(&[("unified/svc/memory.max", "1000000\n")]);
        assert_eq!(
            memory_limit("0::/svc\n", root.path()).unwrap().bytes,
            1_000_000
        );
    }

    #[test]
    fn nothing_readable_means_unknown() {
        let root = fixture(&[]);
        assert_eq!(memory_limit("0::/\n", root.path()), None);
        assert_eq!(memory_limit("garbage", root.path()), None);
    }
}
