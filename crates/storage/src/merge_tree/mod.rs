//! MergeTree tables: rows kept as immutable sorted parts, read through a
//! sparse primary index, and merged in the background into fewer, larger
//! parts.

pub mod data_part;
pub mod final_scan;
pub mod keys;
pub mod merge_mode;
pub mod mutation;
pub mod part_log;
pub mod pruning;
pub mod scan;
pub mod skip_index;
pub mod statistics;
pub mod table;
pub mod virtual_columns;

pub use data_part::{Conversion, DataPart, PastColumns};
pub use final_scan::FinalScanExec;
pub use keys::TableKeys;
pub use merge_mode::{CombinedColumn, GroupCombiner, MergeMode};
pub use mutation::{Condition, MutationCommand, MutationEntry, MutationKind};
pub use part_log::{PartEvent, PartEventType, PartLog};
pub use pruning::{
    GranuleRange, PruningReport, PruningStep, Selection, StepKind, Summaries, select_granules,
};
pub use scan::{MergeTreeScanExec, ReadCounter, ScanColumns, ScanFilter};
pub use skip_index::{IndexKind, SkipIndexKey, TextBloom, TextSplit, index_file_name};
pub use statistics::table_statistics;
pub use table::{
    DETACHED_DIR, DetachedPart, MergeMemory, MergeProgress, MergeTreeSettings, MergeTreeTable,
    MutationFailure, MutationStatus, PartCheck, RemovalList, Snapshot, TableTtl, TtlTarget,
    select_merge,
};
pub use virtual_columns::{VirtualColumn, virtual_columns};
