//! `ALTER TABLE t ATTACH | REPLACE PARTITION p FROM s` and `ALTER TABLE s
//! MOVE PARTITION p TO TABLE t`: a partition's parts copied from one table
//! into another of the same columns and keys, each under a new block of its
//! new table, all committed together as an insert's parts are. The copies
//! are whole files, so they may go to another disk than the originals.

use std::sync::Arc;

use datafusion::physical_expr::PhysicalExpr;
use strata_common::error::{ErrorCode, Result, StrataError};

use super::MergeTreeTable;
use crate::merge_tree::data_part::DataPart;
use crate::part::name::PartName;
use crate::part::writer::copy_part;

impl MergeTreeTable {
    /// Fails unless `other`'s parts could be this table's as they are: the
    /// same columns, partition key and sorting key, as ClickHouse requires.
    pub fn check_same_structure(&self, other: &MergeTreeTable) -> Result<()> {
        let columns = |table: &MergeTreeTable| -> Vec<(String, String)> {
            let fields = table.schema.fields().iter();
            fields
                .map(|f| (f.name().clone(), f.data_type().to_string()))
                .collect()
        };
        if columns(self) != columns(other) {
            return Err(StrataError::new(
                ErrorCode::INCOMPATIBLE_COLUMNS,
                "Tables have different structure",
            ));
        }
        let text = |exprs: &[Arc<dyn PhysicalExpr>]| -> Vec<String> {
            exprs.iter().map(|e| e.to_string()).collect()
        };
        if text(&self.keys.partition) != text(&other.keys.partition) {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Tables have different partition key",
            ));
        }
        if text(&self.keys.sorting) != text(&other.keys.sorting)
            || self.keys.primary_len != other.keys.primary_len
        {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Tables have different ordering",
            ));
        }
        Ok(())
    }

    /// Copies `source`'s active parts of partition `id` into this table and
    /// commits them together; with `replace`, this table's parts of the
    /// partition are dropped once the copies are written, before they are
    /// committed. Returns the names of the source parts copied.
    pub fn copy_partition_from(
        &self,
        source: &MergeTreeTable,
        id: &str,
        replace: bool,
    ) -> Result<Vec<String>> {
        self.check_open()?;
        let parts: Vec<Arc<DataPart>> = source
            .snapshot()
            .iter()
            .filter(|p| p.part.name.partition_id == id)
            .cloned()
            .collect();
        let insert = self.begin_insert();
        let mut copies = Vec::with_capacity(parts.len());
        for part in &parts {
            let block = self.take_insert_block();
            let name = PartName::inserted(id, block);
            let copy = insert.record(&name).and_then(|_| {
                let bytes = part.part.files.values().map(|&(size, _)| size).sum();
                let disk = self.settings.policy.disk_for(bytes);
                copy_part(&part.part, &self.dir, &name, Some(disk))?;
                self.open_written(&name)
            });
            match copy {
                Ok(copy) => copies.push(copy),
                Err(error) => {
                    self.release_blocks(&[block]);
                    self.discard(&insert, copies);
                    return Err(error);
                }
            }
        }
        if replace && let Err(error) = self.drop_parts(|name| name.partition_id == id) {
            self.discard(&insert, copies);
            return Err(error);
        }
        self.commit(&insert, copies)?;
        Ok(parts.iter().map(|p| p.name()).collect())
    }
}
