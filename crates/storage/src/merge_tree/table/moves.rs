//! Moving parts between the disks of a table's storage policy (`ALTER
//! TABLE ... MOVE PART | PARTITION ... TO DISK | VOLUME`). A move copies
//! the part to the other disk at the next level and swaps the copy in, as
//! a rewrite does; the source goes with its last reader. A crash between
//! leaves one active copy: the higher level covers the lower one when the
//! table opens.
//!
//! The policy's `move_factor` moves parts in the background: when the free
//! space of a volume's disks falls below that share of their size, its
//! largest parts go to the next volume until the share would be free again.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use strata_common::error::{ErrorCode, Result, StrataError};

use super::MergeTreeTable;
use crate::disk::{Disk, Volume};
use crate::merge_tree::data_part::DataPart;
use crate::merge_tree::part_log::PartEventType;
use crate::part::writer::copy_part;

impl MergeTreeTable {
    /// The policy's disk `name`.
    pub fn policy_disk(&self, name: &str) -> Result<Arc<Disk>> {
        let policy = &self.settings.policy;
        policy.disk(name).cloned().ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_DISK,
                format!("No such disk `{name}` in storage policy `{}`", policy.name),
            )
        })
    }

    /// The first disk of the policy's volume `name`.
    pub fn policy_volume_disk(&self, name: &str) -> Result<Arc<Disk>> {
        let policy = &self.settings.policy;
        let volume = policy.volume(name).ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_VOLUME,
                format!(
                    "No such volume `{name}` in storage policy `{}`",
                    policy.name
                ),
            )
        })?;
        Ok(Arc::clone(&volume.disks[0]))
    }

    /// `MOVE PART 'name' TO ...`.
    pub fn move_part(&self, name: &str, disk: &Arc<Disk>) -> Result<()> {
        let snapshot = self.snapshot();
        let part = snapshot.iter().find(|p| p.name() == name).ok_or_else(|| {
            StrataError::new(
                ErrorCode::NO_SUCH_DATA_PART,
                format!("Part {name} is not exists or not active"),
            )
        })?;
        if part.part.disk_name() == disk.name {
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_DISK,
                format!("Part '{name}' is already on disk '{}'", disk.name),
            ));
        }
        self.move_one(part, disk)
    }

    /// `MOVE PARTITION ... TO ...`: every part of partition `id` not on
    /// `disk` yet.
    pub fn move_partition(&self, id: &str, disk: &Arc<Disk>) -> Result<()> {
        let snapshot = self.snapshot();
        let parts: Vec<&Arc<DataPart>> = snapshot
            .iter()
            .filter(|p| p.part.name.partition_id == id)
            .collect();
        let elsewhere: Vec<&Arc<DataPart>> = parts
            .iter()
            .copied()
            .filter(|p| p.part.disk_name() != disk.name)
            .collect();
        if elsewhere.is_empty() && !parts.is_empty() {
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_DISK,
                format!(
                    "All parts of partition '{id}' are already on disk '{}'",
                    disk.name
                ),
            ));
        }
        for part in elsewhere {
            self.move_one(part, disk)?;
        }
        Ok(())
    }

    /// Moves parts off each volume but the last whose free space is under
    /// the policy's `move_factor`, largest first, to the next volume's first
    /// disk; returns how many moved.
    pub fn apply_move_factor(&self) -> Result<usize> {
        let policy = &self.settings.policy;
        let mut moved = 0;
        for pair in policy.volumes.windows(2) {
            let (volume, next) = (&pair[0], &pair[1]);
            let wanted = bytes_to_free(volume, policy.move_factor);
            if wanted == 0 {
                continue;
            }
            let mut parts: Vec<Arc<DataPart>> = self
                .snapshot()
                .iter()
                .filter(|p| volume.disks.iter().any(|d| d.name == p.part.disk_name()))
                .cloned()
                .collect();
            parts.sort_by_key(|p| std::cmp::Reverse(p.part.bytes_on_disk()));
            let mut freed = 0;
            for part in parts {
                if freed >= wanted {
                    break;
                }
                if !part.is_active() {
                    continue;
                }
                self.move_one(&part, &next.disks[0])?;
                freed += part.part.bytes_on_disk();
                moved += 1;
            }
        }
        Ok(moved)
    }

    /// Copies `part` to `disk` at the next level and swaps the copy in.
    pub(crate) fn move_one(&self, part: &Arc<DataPart>, disk: &Arc<Disk>) -> Result<()> {
        let mut name = part.part.name.clone();
        name.level += 1;
        let Some(running) = self.start_merge(std::slice::from_ref(part), &name, true) else {
            return Err(StrataError::new(
                ErrorCode::PART_IS_TEMPORARILY_LOCKED,
                format!(
                    "Cannot move part '{}' because it's participating in background process",
                    part.name()
                ),
            ));
        };
        copy_part(&part.part, self.dir(), &name, Some(disk))?;
        let moved = self.open_written(&name)?;
        running
            .progress
            .rows_written
            .store(moved.part.rows, Ordering::Relaxed);
        let started = running.progress.started;
        if !self.swap_parts(
            std::slice::from_ref(part),
            Some(moved),
            PartEventType::MovePart,
            started,
        ) {
            return Err(StrataError::new(
                ErrorCode::ABORTED,
                format!("Part {} was replaced while it was moved", part.name()),
            ));
        }
        Ok(())
    }
}

/// Bytes `volume` must free for `factor` of its disks' space to be free; 0
/// when it is (an object store's space has no limit).
fn bytes_to_free(volume: &Volume, factor: f64) -> u64 {
    let (free, total) = volume
        .disks
        .iter()
        .map(|disk| disk.space())
        .fold((0u64, 0u64), |(free, total), (f, t)| {
            (free.saturating_add(f), total.saturating_add(t))
        });
    let goal = (total as f64 * factor) as u64;
    goal.saturating_sub(free)
}
