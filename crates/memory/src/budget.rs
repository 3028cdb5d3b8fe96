//! The server's memory limit and where it came from.
//!
//! As ClickHouse documents it: `max_server_memory_usage` when set, else
//! `max_server_memory_usage_to_ram_ratio` times the available memory, where
//! available means the smaller of physical RAM and the cgroup limit; an explicit
//! value above that product is capped to it, because a limit the machine cannot
//! honour ends in swapping or the OOM killer instead of a clean error.

use std::path::PathBuf;

use strata_common::readable::readable_size;
use strata_common::settings::Settings;

use crate::cgroup::{self, CgroupLimit};
use crate::process;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetConfig {
    /// 0 derives the limit from the ratio.
    pub max_server_memory_usage: u64,
    pub ratio: f64,
}

impl BudgetConfig {
    pub fn from_settings(server: &Settings) -> Self {
        BudgetConfig {
            max_server_memory_usage: server.max_server_memory_usage(),
            ratio: server.max_server_memory_usage_to_ram_ratio(),
        }
    }
}

/// Where the facts about this machine are read from; tests point it at fixtures.
#[derive(Debug, Clone)]
pub struct SystemProbe {
    pub meminfo: PathBuf,
    pub proc_self_cgroup: PathBuf,
    pub cgroup_root: PathBuf,
}

impl Default for SystemProbe {
    fn default() -> Self {
        SystemProbe {
            meminfo: "/proc/meminfo".into(),
            proc_self_cgroup: "/proc/self/cgroup".into(),
            cgroup_root: "/sys/fs/cgroup".into(),
        }
    }
}

impl SystemProbe {
    pub fn physical_memory(&self) -> Option<u64> {
        process::physical_memory(&std::fs::read_to_string(&self.meminfo).ok()?)
    }

    pub fn cgroup_limit(&self) -> Option<CgroupLimit> {
        let text = std::fs::read_to_string(&self.proc_self_cgroup).ok()?;
        cgroup::memory_limit(&text, &self.cgroup_root)
    }
}

/// The server limit with the facts it was derived from.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// Bytes; `u64::MAX` when nothing about the machine could be read.
    pub limit: u64,
    pub physical_memory: Option<u64>,
    pub cgroup: Option<CgroupLimit>,
    /// A sentence saying where `limit` came from.
    pub source: String,
}

impl Budget {
    pub fn compute(config: BudgetConfig, probe: &SystemProbe) -> Budget {
        let physical_memory = probe.physical_memory();
        let cgroup = probe.cgroup_limit();
        let available = match (physical_memory, &cgroup) {
            (Some(ram), Some(cg)) if cg.bytes < ram => Some((
                cg.bytes,
                format!(
                    "the cgroup limit {} ({})",
                    readable_size(cg.bytes as f64),
                    cg.file.display()
                ),
            )),
            (Some(ram), _) => Some((ram, format!("physical RAM {}", readable_size(ram as f64)))),
            (None, Some(cg)) => Some((
                cg.bytes,
                format!(
                    "the cgroup limit {} ({})",
                    readable_size(cg.bytes as f64),
                    cg.file.display()
                ),
            )),
            (None, None) => None,
        };
        let derived = available
            .as_ref()
            .map(|(bytes, what)| ((*bytes as f64 * config.ratio) as u64, what));
        let (limit, source) = match (config.max_server_memory_usage, derived) {
            (0, Some((limit, what))) => (
                limit,
                format!(
                    "max_server_memory_usage_to_ram_ratio {} x {what}",
                    config.ratio
                ),
            ),
            (0, None) => (
                u64::MAX,
                "unlimited: neither physical RAM nor a cgroup limit could be read".to_string(),
            ),
            (set, Some((limit, what))) if set > limit => (
                limit,
                format!(
                    "max_server_memory_usage {} capped to max_server_memory_usage_to_ram_ratio {} x {what}",
                    readable_size(set as f64),
                    config.ratio
                ),
            ),
            (set, _) => (set, "max_server_memory_usage".to_string()),
        };
        Budget {
            limit,
            physical_memory,
            cgroup,
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(meminfo: &str, cgroup_file: Option<&str>) -> (tempfile::TempDir, SystemProbe) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("meminfo"), meminfo).unwrap();
        std::fs::write(dir.path().join("cgroup"), "0::/box\n").unwrap();
        if let Some(limit) = cgroup_file {
            std::fs::create_dir_all(dir.path().join("fs/box")).unwrap();
            std::fs::write(dir.path().join("fs/box/memory.max"), limit).unwrap();
        }
        let probe = SystemProbe {
            meminfo: dir.path().join("meminfo"),
            proc_self_cgroup: dir.path().join("cgroup"),
            cgroup_root: dir.path().join("fs"),
        };
        (dir, probe)
    }

    const RAM_16G: &str = "MemTotal: 16777216 kB\n";
    const DEFAULT: BudgetConfig = BudgetConfig {
        max_server_memory_usage: 0,
        ratio: 0.9,
    };

    #[test]
    fn ratio_of_physical_ram_without_a_cgroup_limit() {
        let (_d, p) = probe(RAM_16G, Some("max"));
        let b = Budget::compute(DEFAULT, &p);
        assert_eq!(b.limit, (16u64 << 30) * 9 / 10);
        assert!(b.source.contains("physical RAM 16.00 GiB"), "{}", b.source);
    }

    #[test]
    fn cgroup_limit_below_ram_is_what_is_available() {
        let (_d, p) = probe(RAM_16G, Some("11000000000"));
        let b = Budget::compute(DEFAULT, &p);
        assert_eq!(b.limit, 9_900_000_000);
        assert!(b.source.contains("cgroup limit"), "{}", b.source);
    }

    #[test]
    fn explicit_limit_is_used_but_capped_to_what_the_machine_has() {
        let (_d, p) = probe(RAM_16G, Some("11000000000"));
        let set = |bytes| BudgetConfig {
            max_server_memory_usage: bytes,
            ratio: 0.9,
        };
        assert_eq!(Budget::compute(set(4 << 30), &p).limit, 4 << 30);
        let capped = Budget::compute(set(12 << 30), &p);
        assert_eq!(capped.limit, 9_900_000_000);
        assert!(capped.source.contains("capped"), "{}", capped.source);
        // The seed's workaround: a ratio above 1 lets the limit pass the cgroup's.
        let faked = Budget::compute(
            BudgetConfig {
                max_server_memory_usage: 0,
                ratio: 1.2,
            },
            &p,
        );
        assert_eq!(faked.limit, 13_200_000_000);
    }

    #[test]
    fn unknown_machine_means_unlimited() {
        let (_d, mut p) = probe("", None);
        p.meminfo = "/nonexistent".into();
        let b = Budget::compute(DEFAULT, &p);
        assert_eq!(b.limit, u64::MAX);
        assert!(b.source.starts_with("unlimited"));
    }
}
