//! GROUP BY without cliffs.
//!
//! A GROUP BY's cost is mostly finding each row's group, and the method is
//! chosen from the key types:
//! - keys of 8 or 16 bits are their group's slot in an array
//!   ([`dense_keys`], [`dense_table`]): no hashing, no probing;
//! - integer, boolean and date keys that fit side by side in 64 or 128 bits
//!   are packed into one word ([`crate::fixed_keys`]) and found in an
//!   open-addressing table that splits into 256 buckets when large
//!   ([`fixed_table`]); when its keys barely repeat, the table instead
//!   flushes its groups into 256 hash partitions whenever it fills the
//!   cache, and each partition merges on its own ([`flushed`]);
//! - any other keys (strings, several columns of them) go to DataFusion's
//!   per-type group tables ([`hash_table`]).
//!
//! Each input partition fills its own table, then the tables merge in
//! parallel, each worker owning a disjoint share of the keys: interleaved
//! blocks of slots, buckets, or hash partitions. Aggregate states are shared
//! by all three ([`group_states`]). Tables past their share of the memory
//! budget move their states to the spill store by key partition, and the
//! partitions merge one by one ([`spill`]). The operator ([`exec`]) is chosen
//! by a planner rule ([`rule`]); other plans keep DataFusion's hash
//! aggregation.

pub mod dense_keys;
pub mod dense_table;
pub mod exec;
pub mod fixed_table;
pub mod flushed;
pub mod group_states;
pub mod hash_table;
pub mod merge;
pub mod rule;
pub mod spill;
