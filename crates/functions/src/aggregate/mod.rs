//! ClickHouse aggregate functions whose results or types differ from DataFusion's.

pub mod arg_min_max;
pub mod count;
pub mod group_array;
pub mod native;
pub mod sampled_set;
pub mod sketch;
pub mod uniq;
