//! Events of a table's parts, for `system.part_log`: parts written by
//! inserts, made by merges and mutations, moved between disks and removed,
//! each handed to the log the engine gave the table when the active set
//! changes.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::data_part::DataPart;

/// ClickHouse's `event_type` values that Strata's parts go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartEventType {
    NewPart,
    MergeParts,
    RemovePart,
    MutatePart,
    MovePart,
}

impl PartEventType {
    pub fn name(self) -> &'static str {
        match self {
            PartEventType::NewPart => "NewPart",
            PartEventType::MergeParts => "MergeParts",
            PartEventType::RemovePart => "RemovePart",
            PartEventType::MutatePart => "MutatePart",
            PartEventType::MovePart => "MovePart",
        }
    }
}

#[derive(Debug, Clone)]
pub struct PartEvent {
    pub event_type: PartEventType,
    pub event_time: SystemTime,
    /// From the start of the work that made the part to the change of the
    /// active set; zero for a removal.
    pub duration: Duration,
    pub part_name: String,
    pub partition_id: String,
    pub rows: u64,
    pub size_in_bytes: u64,
    /// The parts a merge, mutation or move made this one from.
    pub merged_from: Vec<String>,
    pub disk_name: String,
    pub path_on_disk: String,
}

impl PartEvent {
    pub fn of(
        event_type: PartEventType,
        part: &DataPart,
        started: Instant,
        merged_from: &[Arc<DataPart>],
    ) -> PartEvent {
        PartEvent {
            event_type,
            event_time: SystemTime::now(),
            duration: started.elapsed(),
            part_name: part.name(),
            partition_id: part.part.name.partition_id.clone(),
            rows: part.part.rows,
            size_in_bytes: part.part.bytes_on_disk(),
            merged_from: merged_from.iter().map(|p| p.name()).collect(),
            disk_name: part.part.disk_name().to_string(),
            path_on_disk: format!("{}/", part.part.dir.display()),
        }
    }
}

/// Where a table's part events go (the engine's `system.part_log`).
pub type PartLog = Arc<dyn Fn(PartEvent) + Send + Sync>;
