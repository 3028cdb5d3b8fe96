//! Joins that keep one side's rows by whether a key is in the other side:
//! semi and anti joins, which INTERSECT, EXCEPT and `IN` subqueries become.
//! DataFusion's hash join holds its whole build side in memory and cannot
//! spill; these operators finish under any budget.
//!
//! - `hybrid_semi_join`: a partitioned set of the build side's keys, whose
//!   coldest partitions move to the spill store under pressure.
//! - `merge_semi_join`: both inputs sorted on the key, read side by side in
//!   constant memory.
//! - `set_keys`: keys as set members and spill blocks.
//! - `rule`: replaces DataFusion's hash join where one of these applies.

pub mod hybrid_semi_join;
pub mod merge_semi_join;
pub mod rule;
pub mod set_keys;
