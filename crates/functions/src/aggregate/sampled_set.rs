//! The state of `uniq`: a set of 32-bit hashes thinned by adaptive sampling
//! (the BJKST scheme), which is what ClickHouse's `uniq` documents.
//!
//! A state keeps every distinct hash whose low `skip` bits are zero. When it
//! would hold more than [`MAX_ELEMENTS`], `skip` grows by one and the hashes
//! that no longer qualify are dropped, so a table never exceeds 512 KiB. The
//! estimate scales the count back up by `2^skip` and corrects for collisions
//! among 32-bit hashes. Which hashes survive depends only on the set of values
//! seen, never on insertion or merge order, so the result is deterministic
//! and, with ClickHouse's hash of the value, equal to ClickHouse's own.
//!
//! The table is open addressing with linear probing, indexed by the hash's
//! top bits: those stay uniform after thinning (the low bits become zeros),
//! and they keep the cells in hash order, so a merge of one state into
//! another walks both tables front to back. Zero marks an empty cell; a zero
//! hash is remembered by a flag.

use crate::hashing::crc32c_u64;
use datafusion::common::{Result, exec_err};

/// Hashes a state holds before it thins itself.
pub const MAX_ELEMENTS: u32 = 1 << 16;
/// Cells of a state's first table.
const INITIAL_DEGREE: u8 = 4;
/// The largest table: [`MAX_ELEMENTS`] at half load.
const MAX_DEGREE: u8 = 17;
/// The highest sampling degree a state can reach: at 16, at most 2^16 of
/// the 2^32 possible hashes qualify, which never exceeds [`MAX_ELEMENTS`].
const MAX_SKIP: u8 = 16;

#[derive(Debug, Clone, Default)]
pub struct SampledSet {
    /// `2^degree` cells, or none before the first insert.
    cells: Box<[u32]>,
    /// Distinct hashes held, the zero hash included.
    len: u32,
    degree: u8,
    /// Only hashes divisible by `2^skip` are kept.
    skip: u8,
    has_zero: bool,
}

impl SampledSet {
    /// Adds a hash; returns the bytes the table grew by (0 almost always).
    #[inline]
    pub fn insert(&mut self, hash: u32) -> usize {
        if !self.qualifies(hash) {
            return 0;
        }
        if hash == 0 {
            if !self.has_zero {
                self.has_zero = true;
                self.len += 1;
                return self.make_room();
            }
            return 0;
        }
        if self.cells.is_empty() {
            self.cells = vec![0; 1 << INITIAL_DEGREE].into_boxed_slice();
            self.degree = INITIAL_DEGREE;
            let grown = self.heap_bytes();
            return grown + self.insert(hash);
        }
        if self.place(hash) {
            self.len += 1;
            return self.make_room();
        }
        0
    }

    /// Hints the CPU to load the cell `hash` would probe first, so a batch of
    /// inserts into many states overlaps its cache misses.
    #[inline]
    pub fn prefetch(&self, hash: u32) {
        #[cfg(target_arch = "x86_64")]
        if !self.cells.is_empty() {
            let cell = self.cells.as_ptr().wrapping_add(self.home(hash));
            // SAFETY: prefetching is a hint; it never faults or reads.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(cell.cast())
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// Adds every hash of another state (its serialized form, as written by
    /// [`SampledSet::serialize`]); returns the bytes this table grew by.
    pub fn merge_serialized(&mut self, bytes: &[u8]) -> Result<usize> {
        let (skip, hashes) = parse(bytes)?;
        let before = self.heap_bytes();
        let hashes = hashes
            .chunks_exact(4)
            .map(|chunk| u32::from_le_bytes(chunk.try_into().expect("4 bytes")));
        self.absorb(skip, hashes.len(), hashes);
        Ok(self.heap_bytes().saturating_sub(before))
    }

    /// Merges another state in place, keeping the larger table of the two;
    /// returns how many bytes this state's table grew (or shrank) by.
    pub fn merge(&mut self, other: &mut SampledSet) -> isize {
        if other.len == 0 {
            return 0;
        }
        let before = self.heap_bytes() as isize;
        if other.len > self.len {
            std::mem::swap(self, other);
        }
        let zero = other.has_zero.then_some(0);
        let hashes = zero
            .into_iter()
            .chain(other.cells.iter().copied().filter(|&h| h != 0));
        self.absorb(other.skip, other.len as usize, hashes);
        self.heap_bytes() as isize - before
    }

    /// Adds `count` hashes of a state sampled at degree `skip`: this state
    /// first samples at least as coarsely, and makes room for the union, so
    /// the table grows at most once.
    fn absorb(&mut self, skip: u8, count: usize, hashes: impl Iterator<Item = u32>) {
        if skip > self.skip {
            self.skip = skip;
            self.rebuild(self.degree);
        }
        let wanted = degree_for(self.len as usize + count);
        if wanted > self.degree {
            self.rebuild(wanted);
        }
        for hash in hashes {
            self.insert(hash);
        }
    }

    /// ClickHouse's estimate: the count scaled by `2^skip` plus a
    /// pseudo-random remainder (so results do not all end in zeros), then
    /// corrected for values whose 32-bit hashes collided.
    pub fn estimate(&self) -> u64 {
        if self.skip == 0 {
            return u64::from(self.len);
        }
        let low_bits = (1u64 << self.skip) - 1;
        let scaled = (u64::from(self.len) << self.skip)
            + (u64::from(crc32c_u64(u32::MAX, u64::from(self.len))) & low_bits);
        let buckets = (1u64 << 32) as f64;
        (buckets * (buckets.ln() - (buckets - scaled as f64).ln())).round() as u64
    }

    /// ClickHouse's layout of a `uniq` state: the skip degree, the count as a
    /// varint, then the hashes as little-endian u32 (a zero hash first).
    pub fn serialize(&self, out: &mut Vec<u8>) {
        out.push(self.skip);
        let mut count = u64::from(self.len);
        loop {
            let byte = (count & 0x7f) as u8;
            count >>= 7;
            if count == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
        out.reserve(self.len as usize * 4);
        if self.has_zero {
            out.extend_from_slice(&0u32.to_le_bytes());
        }
        for &h in self.cells.iter().filter(|&&h| h != 0) {
            out.extend_from_slice(&h.to_le_bytes());
        }
    }

    /// Bytes of the table on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.cells.len() * size_of::<u32>()
    }

    fn qualifies(&self, hash: u32) -> bool {
        hash.trailing_zeros() >= u32::from(self.skip)
    }

    fn home(&self, hash: u32) -> usize {
        (hash >> (32 - u32::from(self.degree))) as usize
    }

    /// Puts a non-zero hash in the table; true if it was not there.
    #[inline]
    fn place(&mut self, hash: u32) -> bool {
        let mask = self.cells.len() - 1;
        let mut i = self.home(hash);
        loop {
            let cell = self.cells[i];
            if cell == hash {
                return false;
            }
            if cell == 0 {
                self.cells[i] = hash;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    /// Keeps the load at most 3/4 and the count at most [`MAX_ELEMENTS`].
    fn make_room(&mut self) -> usize {
        let before = self.heap_bytes();
        if self.len > MAX_ELEMENTS {
            while self.len > MAX_ELEMENTS {
                self.skip += 1;
                debug_assert!(self.skip <= MAX_SKIP, "sampling past the hash width");
                self.rebuild(self.degree);
            }
        } else if self.len as usize * 4 > self.cells.len() * 3 {
            self.rebuild(self.degree + 1);
        }
        self.heap_bytes() - before
    }

    /// Re-places the qualifying hashes into a table of `2^degree` cells.
    fn rebuild(&mut self, degree: u8) {
        let degree = degree.clamp(INITIAL_DEGREE, MAX_DEGREE);
        let old = std::mem::replace(&mut self.cells, vec![0; 1 << degree].into_boxed_slice());
        self.degree = degree;
        self.len = u32::from(self.has_zero);
        for h in old.iter().copied().filter(|&h| h != 0) {
            if self.qualifies(h) {
                self.place(h);
                self.len += 1;
            }
        }
    }
}

/// The smallest table degree that holds `count` hashes at 3/4 load.
fn degree_for(count: usize) -> u8 {
    let cells = (count * 4).div_ceil(3).next_power_of_two();
    (cells.trailing_zeros() as u8).clamp(INITIAL_DEGREE, MAX_DEGREE)
}

/// Splits a serialized state into its skip degree and its hash bytes.
fn parse(bytes: &[u8]) -> Result<(u8, &[u8])> {
    let Some((&skip, rest)) = bytes.split_first() else {
        return exec_err!("truncated uniq state");
    };
    let mut count = 0u64;
    let mut used = 0;
    for (i, &byte) in rest.iter().enumerate().take(10) {
        count |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            used = i + 1;
            break;
        }
    }
    let hashes = &rest[used.min(rest.len())..];
    if used == 0
        || skip > MAX_SKIP
        || count > u64::from(MAX_ELEMENTS)
        || hashes.len() as u64 != count * 4
    {
        return exec_err!("corrupt uniq state");
    }
    Ok((skip, hashes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hashing::murmur_finalizer;

    /// ClickHouse's hash of an integer for `uniq`.
    fn hash(v: u64) -> u32 {
        murmur_finalizer(v) as u32
    }

    fn set_of(values: impl Iterator<Item = u64>) -> SampledSet {
        let mut set = SampledSet::default();
        for v in values {
            set.insert(hash(v));
        }
        set
    }

    #[test]
    fn equals_clickhouse_for_numbers() {
        // `SELECT uniq(number) FROM numbers(n)` in ClickHouse.
        for (n, expected) in [
            (0, 0),
            (1000, 1000),
            (70_000, 70_359),
            (200_000, 199_902),
            (1_000_000, 1_001_943),
        ] {
            assert_eq!(set_of(0..n).estimate(), expected, "n = {n}");
        }
    }

    #[test]
    fn merge_in_any_order_equals_one_pass() {
        let whole = set_of(0..300_000);
        let parts = [0..50_000u64, 50_000..180_000, 180_000..300_000, 10..20];
        for order in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
            let mut merged = SampledSet::default();
            for i in order {
                let mut bytes = Vec::new();
                set_of(parts[i].clone()).serialize(&mut bytes);
                merged.merge_serialized(&bytes).unwrap();
            }
            assert_eq!(merged.estimate(), whole.estimate());
        }
    }

    #[test]
    fn merge_in_place_equals_one_pass() {
        let whole = set_of(0..300_000);
        let mut small = set_of(250_000..300_000);
        let mut large = set_of(0..260_000);
        small.merge(&mut large);
        assert_eq!(small.estimate(), whole.estimate());
        let mut empty = SampledSet::default();
        empty.merge(&mut set_of(0..10));
        assert_eq!(empty.estimate(), 10);
    }

    #[test]
    fn zero_hash_and_duplicates_count_once() {
        let mut set = SampledSet::default();
        for _ in 0..3 {
            set.insert(0);
            set.insert(7);
        }
        assert_eq!(set.estimate(), 2);
        let mut bytes = Vec::new();
        set.serialize(&mut bytes);
        assert_eq!(bytes, [0, 2, 0, 0, 0, 0, 7, 0, 0, 0]);
    }

    #[test]
    fn memory_is_bounded() {
        let set = set_of(0..2_000_000);
        assert!(set.len <= MAX_ELEMENTS);
        assert_eq!(set.heap_bytes(), (1 << MAX_DEGREE) * 4);
    }

    #[test]
    fn corrupt_states_are_errors() {
        let mut set = SampledSet::default();
        assert!(set.merge_serialized(&[]).is_err());
        assert!(set.merge_serialized(&[0, 2, 1, 0, 0, 0]).is_err());
        assert!(set.merge_serialized(&[0, 0x80]).is_err());
    }
}
