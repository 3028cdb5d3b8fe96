//! ORDER BY: DataFusion's external sort, which spills sorted runs through
//! [`crate::spill::RunFileFactory`], and a rule ([`rule`]) that keeps large
//! `ORDER BY ... LIMIT` queries on it.

pub mod rule;
