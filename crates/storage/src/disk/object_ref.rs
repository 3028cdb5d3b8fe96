//! The local file that stands for a part file kept as an object: a header
//! line, then the object's size and key, tab-separated.
//!
//! It is written before the object is uploaded, so a sweep that lists the
//! bucket and then reads the references never removes an object a part is
//! being written with.

use std::fs;
use std::path::Path;

use strata_common::error::{ErrorCode, Result, StrataError};

const HEADER: &str = "strata object reference 1";

/// An object that holds one file of a part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRef {
    /// The key under the disk's prefix.
    pub key: String,
    pub size: u64,
}

impl ObjectRef {
    pub fn encode(&self) -> String {
        format!("{HEADER}\n{}\t{}\n", self.size, self.key)
    }

    pub fn decode(text: &str) -> Option<ObjectRef> {
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return None;
        }
        let (size, key) = lines.next()?.split_once('\t')?;
        if key.is_empty() || key.contains(['\t', '\n']) || lines.next().is_some() {
            return None;
        }
        Some(ObjectRef {
            key: key.to_string(),
            size: size.parse().ok()?,
        })
    }

    /// Reads the reference in `path`.
    pub fn read(path: &Path) -> Result<ObjectRef> {
        let text = fs::read_to_string(path).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
                format!("Cannot read object reference {}: {e}", path.display()),
            )
        })?;
        ObjectRef::decode(&text).ok_or_else(|| {
            StrataError::new(
                ErrorCode::CORRUPTED_DATA,
                format!("{} is not an object reference", path.display()),
            )
        })
    }

    /// Writes the reference to `path` and syncs it.
    pub fn write(&self, path: &Path) -> Result<()> {
        use std::io::Write;
        let mut file = fs::File::create(path)
            .and_then(|mut f| {
                f.write_all(self.encode().as_bytes())?;
                Ok(f)
            })
            .map_err(|e| write_error(path, e))?;
        file.flush().map_err(|e| write_error(path, e))?;
        file.sync_all().map_err(|e| write_error(path, e))
    }
}

fn write_error(path: &Path, error: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR,
        format!("Cannot write object reference {}: {error}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_round_trip_and_reject_other_text() {
        let reference = ObjectRef {
            key: "ab/cdef".to_string(),
            size: 42,
        };
        assert_eq!(ObjectRef::decode(&reference.encode()), Some(reference));
        assert_eq!(ObjectRef::decode("42\tab"), None);
        assert_eq!(ObjectRef::decode(&format!("{HEADER}\nx\tab\n")), None);
        assert_eq!(ObjectRef::decode(&format!("{HEADER}\n1\t\n")), None);
    }
}
