//! GROUP BY without cliffs.
//!
//! A GROUP BY's cost is mostly finding each row's group. For keys of 8 or 16
//! bits the key itself is the group's slot in an array ([`dense_keys`]): no
//! hashing, no probing. Each input partition fills its own table
//! ([`dense_table`]); the tables are then merged in parallel, each worker
//! taking an interleaved share of the key space so work is even however the
//! keys cluster, and only over the slots some table occupies. The operator
//! ([`exec`]) is chosen by a planner rule ([`rule`]); other key shapes keep
//! DataFusion's hash aggregation.

pub mod dense_keys;
pub mod dense_table;
pub mod exec;
pub mod group_states;
pub mod hash_table;
pub mod merge;
pub mod rule;
