//! ORDER BY: DataFusion's external sort, which spills sorted runs through
//! [`crate::spill::RunFileFactory`] once its buffers reach the threshold
//! [`budget`] holds them to, and a rule ([`rule`]) that keeps large
//! `ORDER BY ... LIMIT` queries on it.

pub mod budget;
pub mod offset_barrier;
pub mod rule;
