//! Strata's storage: MergeTree tables kept as immutable parts on disk.
//!
//! A part holds a sorted run of rows, one file per column, each a sequence of
//! compressed blocks with a mark per granule so a read can start at any
//! granule; a sparse primary index keeps the first key of every granule. This
//! crate knows files and Arrow arrays; the engine above it turns SQL into
//! calls here, and nothing here reaches back up.

pub mod cache;
pub mod compression;
pub mod disk;
pub mod merge_tree;
pub mod part;
