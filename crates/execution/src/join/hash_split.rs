//! Which partition a row goes to in a partitioned join, by the bits of its
//! key's hash: the top bits at the first split, the next bits at each
//! split of a partition that is still too large.

/// Partitions at one split, at most (8 bits of the hash).
pub const MAX_PARTITIONS: usize = 256;
/// Hash bits below this are never used for partitions: hash tables use the
/// low bits, and keeping a margin makes the split depth an explicit limit.
const LOWEST_SPLIT_SHIFT: u32 = 8;

/// Which bits of the partition hash pick a partition at one split.
#[derive(Debug, Clone, Copy)]
pub struct Split {
    shift: u32,
    mask: u64,
}

impl Split {
    pub fn first(partitions: usize) -> Self {
        assert!(partitions.is_power_of_two() && (2..=MAX_PARTITIONS).contains(&partitions));
        let bits = partitions.trailing_zeros();
        Split {
            shift: 64 - bits,
            mask: (partitions as u64) - 1,
        }
    }

    /// The split below this one into `partitions` (a power of two), or
    /// `None` when the hash has no bits left.
    pub fn next(self, partitions: usize) -> Option<Self> {
        assert!(partitions.is_power_of_two() && (2..=MAX_PARTITIONS).contains(&partitions));
        let bits = partitions.trailing_zeros();
        let shift = self.shift.checked_sub(bits)?;
        (shift >= LOWEST_SPLIT_SHIFT).then_some(Split {
            shift,
            mask: (partitions as u64) - 1,
        })
    }

    pub fn count(self) -> usize {
        self.mask as usize + 1
    }

    pub fn of(self, hash: u64) -> usize {
        ((hash >> self.shift) & self.mask) as usize
    }
}
