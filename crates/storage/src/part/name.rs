//! Part names, `{partition}_{min_block}_{max_block}_{level}[_{mutation}]` as
//! ClickHouse writes them: the block range says which inserts a part holds,
//! so two parts of a partition can be merged only if their ranges are
//! adjacent; the level counts how many merges built it; the mutation is the
//! number of the last mutation applied to its rows, absent until one is.

use std::fmt;

use strata_common::error::{ErrorCode, Result, StrataError};

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PartName {
    pub partition_id: String,
    pub min_block: u64,
    pub max_block: u64,
    pub level: u32,
    /// The last mutation applied to the part's rows; 0 for none.
    pub mutation: u64,
}

impl PartName {
    /// The name of a freshly inserted part: one block, level 0.
    pub fn inserted(partition_id: &str, block: u64) -> Self {
        PartName {
            partition_id: partition_id.to_string(),
            min_block: block,
            max_block: block,
            level: 0,
            mutation: 0,
        }
    }

    /// Which mutations the rows already reflect: every one numbered at
    /// most this. An unmutated part's rows are as inserted, so its first
    /// block number, taken after every earlier mutation's, stands in.
    pub fn data_version(&self) -> u64 {
        if self.mutation > 0 {
            self.mutation
        } else {
            self.min_block
        }
    }

    pub fn parse(name: &str) -> Result<PartName> {
        let invalid = || {
            StrataError::new(
                ErrorCode::BAD_DATA_PART_NAME,
                format!("Unexpected part name: {name}"),
            )
        };
        // Partition ids never hold '_' (values join with '-'), as in ClickHouse.
        let fields: Vec<&str> = name.split('_').collect();
        let (partition_id, numbers) = match fields.as_slice() {
            [partition_id, numbers @ ..] if (3..=4).contains(&numbers.len()) => {
                (*partition_id, numbers)
            }
            _ => return Err(invalid()),
        };
        let number = |i: usize| -> Result<u64> {
            numbers
                .get(i)
                .map_or(Ok(0), |n| n.parse().map_err(|_| invalid()))
        };
        let part = PartName {
            partition_id: partition_id.to_string(),
            min_block: number(0)?,
            max_block: number(1)?,
            level: u32::try_from(number(2)?).map_err(|_| invalid())?,
            mutation: number(3)?,
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
        )?;
        if self.mutation > 0 {
            write!(f, "_{}", self.mutation)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_ones_are_refused() {
        for text in ["all_1_1_0", "20240101_3_9_2", "1-2_7_7_0", "all_1_1_0_5"] {
            assert_eq!(PartName::parse(text).unwrap().to_string(), text);
        }
        let part = PartName::parse("2024-1_7_8_1_12").unwrap();
        assert_eq!(
            (
                part.partition_id.as_str(),
                part.min_block,
                part.max_block,
                part.level,
                part.mutation,
                part.data_version()
            ),
            ("2024-1", 7, 8, 1, 12, 12)
        );
        assert_eq!(PartName::parse("all_3_4_1").unwrap().data_version(), 3);
        for bad in [
            "",
            "all_1_1",
            "all_x_1_0",
            "all_2_1_0",
            "_1_1_0",
            "tmp_insert",
            "a_b_7_7_0",
            "all_1_1_0_5_6",
        ] {
            assert_eq!(
                PartName::parse(bad).unwrap_err().code,
                ErrorCode::BAD_DATA_PART_NAME,
                "{bad}"
            );
        }
    }
}
