//! Strata's joins: ClickHouse's ASOF join, and joins that finish under any
//! budget, where DataFusion's hash join holds its whole build side in memory
//! and cannot spill.
//!
//! - `asof_join`: ClickHouse's ASOF join, the right side held in memory.
//! - `grace_hash_join`: every join type of the planner's partitioned hash
//!   joins, run partition by partition with the cold partitions stored.
//! - `hybrid_semi_join`: a partitioned set of the build side's keys, whose
//!   coldest partitions move to the spill store under pressure.
//! - `merge_semi_join`: both inputs sorted on the key, read side by side in
//!   constant memory.
//! - `set_keys`: keys as set members and spill blocks.
//! - `hash_split`: which partition a key hash goes to, split after split.
//! - `prepaid_pool`: the pool an in-memory join inside a spilling one
//!   runs against, so the bytes reserved for it cannot be taken first.
//! - `rule`: replaces DataFusion's hash join where one of these applies.

pub mod asof_join;
pub mod grace_hash_join;
pub mod hash_split;
pub mod hybrid_semi_join;
pub mod merge_semi_join;
pub mod prepaid_pool;
pub mod rule;
pub mod set_keys;
