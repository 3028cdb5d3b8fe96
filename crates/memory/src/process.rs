//! What the kernel says this process uses, for error messages and metrics.
//! These are cross-checks: limits are enforced on tracked memory, which is
//! known before an allocation happens rather than after.

/// Current and peak resident set size in bytes, from `/proc/self/status`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Resident {
    pub current: u64,
    pub peak: u64,
    pub virtual_size: u64,
}

pub fn resident() -> Resident {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return Resident::default();
    };
    let field = |name: &str| kib_field(&status, name).unwrap_or(0);
    Resident {
        current: field("VmRSS:"),
        peak: field("VmHWM:"),
        virtual_size: field("VmSize:"),
    }
}

/// Physical RAM in bytes from `/proc/meminfo`, None where unreadable.
pub fn physical_memory(meminfo: &str) -> Option<u64> {
    kib_field(meminfo, "MemTotal:")
}

/// A `Name:   1234 kB` line of a /proc file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map(|kib| kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_resident_set() {
        let r = resident();
        assert!(r.current > 0 && r.peak >= r.current && r.virtual_size >= r.current);
    }

    #[test]
    fn parses_meminfo() {
        let text = "MemTotal:       24634420 kB\nMemFree:  1 kB\n";
        assert_eq!(physical_memory(text), Some(24_634_420 * 1024));
        assert_eq!(physical_memory("nonsense"), None);
    }
}
