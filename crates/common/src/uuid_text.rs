//! The text form of a UUID: what `toUUID`, the input formats and the output
//! formats read and write, in one place so they accept and print the same.
//!
//! ClickHouse reads the 36-character `8-4-4-4-12` form and the 32 bare hex
//! digits, in either case, and writes the lower-case `8-4-4-4-12` form.

use uuid::Uuid;

use crate::error::{ErrorCode, StrataError};

/// The length of a UUID's canonical text.
pub const UUID_TEXT_LEN: usize = 36;

/// The 16 bytes of the UUID `text`, or None when it is not one.
pub fn parse_uuid(text: &[u8]) -> Option<[u8; 16]> {
    // The uuid crate also takes `{...}` and `urn:uuid:...`, which ClickHouse refuses.
    if text.len() != UUID_TEXT_LEN && text.len() != 32 {
        return None;
    }
    Uuid::try_parse_ascii(text).ok().map(Uuid::into_bytes)
}

/// Appends the canonical text of `bytes` to `out`.
pub fn write_uuid(bytes: &[u8], out: &mut String) {
    let uuid = Uuid::from_slice(bytes).expect("a UUID is 16 bytes");
    let mut buffer = [0u8; UUID_TEXT_LEN];
    out.push_str(uuid.hyphenated().encode_lower(&mut buffer));
}

/// ClickHouse's error for text that is not a UUID.
pub fn not_a_uuid(text: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_PARSE_UUID,
        format!("Cannot parse uuid {text}: Cannot parse UUID from String"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_clickhouse_forms_and_writes_the_canonical_one() {
        let canonical = "61f0c404-5cb3-11e7-907b-a6006ad3dba0";
        for text in [
            canonical,
            "61F0C404-5CB3-11E7-907B-A6006AD3DBA0",
            "61f0c4045cb311e7907ba6006ad3dba0",
        ] {
            let bytes = parse_uuid(text.as_bytes()).unwrap();
            let mut out = String::new();
            write_uuid(&bytes, &mut out);
            assert_eq!(out, canonical);
        }
    }

    #[test]
    fn refuses_what_clickhouse_refuses() {
        for text in [
            "",
            "xyz",
            "{61f0c404-5cb3-11e7-907b-a6006ad3dba0}",
            "urn:uuid:61f0c404-5cb3-11e7-907b-a6006ad3dba0",
            "61f0c404-5cb3-11e7-907b-a6006ad3dbaz",
            "61f0c404-5cb3-11e7-907b-a6006ad3dba",
        ] {
            assert!(parse_uuid(text.as_bytes()).is_none(), "{text}");
        }
    }
}
