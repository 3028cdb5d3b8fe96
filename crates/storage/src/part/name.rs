//! Part names, `{partition}_{min_block}_{max_block}_{level}` as ClickHouse
//! writes them: the block range says which inserts a part holds, so two
//! parts of a partition can be merged only if their ranges are adjacent, and
//! the level counts how many merges built it.

use std::fmt;

use strata_common::error::{ErrorCode, Result, StrataError};

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PartName {
    pub partition_id: String,
    pub min_block: u64,
    pub max_block: u64,
    pub level: u32,
}

impl PartName {
    /// The name of a freshly inserted part: one block, level 0.
    pub fn inserted(partition_id: &str, block: u64) -> Self {
        PartName {
            partition_id: partition_id.to_string(),
            min_block: block,
            max_block: block,
            level: 0,
        }
    }

    pub fn parse(name: &str) -> Result<PartName> {
        let invalid = || {
            StrataError::new(
                ErrorCode::BAD_DATA_PART_NAME,
                format!("Unexpected part name: {name}"),
            )
        };
        // The partition id may itself contain '_', so read from the right.
        let mut fields = name.rsplitn(4, '_');
        let level = fields.next().ok_or_else(invalid)?;
        let max_block = fields.next().ok_or_else(invalid)?;
        let min_block = fields.next().ok_or_else(invalid)?;
        let partition_id = fields.next().ok_or_else(invalid)?;
        let part = PartName {
            partition_id: partition_id.to_string(),
            min_block: min_block.parse().map_err(|_| invalid())?,
            max_block: max_block.parse().map_err(|_| invalid())?,
            level: level.parse().map_err(|_| invalid())?,
        };
        if part.partition_id.is_empty() || part.min_block > part.max_block {
            return Err(invalid());
        }
        Ok(part)
    }
}

impl fmt::Display for PartName {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{}_{}_{}_{}",
            self.partition_id, self.min_block, self.max_block, self.level
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_ones_are_refused() {
        for text in ["all_1_1_0", "20240101_3_9_2", "a_b_c_7_7_0"] {
            assert_eq!(PartName::parse(text).unwrap().to_string(), text);
        }
        let part = PartName::parse("a_b_c_7_8_1").unwrap();
        assert_eq!(
            (
                part.partition_id.as_str(),
                part.min_block,
                part.max_block,
                part.level
            ),
            ("a_b_c", 7, 8, 1)
        );
        for bad in [
            "",
            "all_1_1",
            "all_x_1_0",
            "all_2_1_0",
            "_1_1_0",
            "tmp_insert",
        ] {
            assert_eq!(
                PartName::parse(bad).unwrap_err().code,
                ErrorCode::BAD_DATA_PART_NAME,
                "{bad}"
            );
        }
    }
}
