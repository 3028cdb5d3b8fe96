//! The reversible byte transformations of a codec chain (`Delta`,
//! `DoubleDelta`, `Gorilla`, `T64`), run before the block's general-purpose
//! compression so that it finds runs and small numbers.
//!
//! A transformation sees a block's bytes as lanes of one value each, `width`
//! bytes wide and little-endian, aligned to the end of the block: that is
//! where a fixed-width column's values end, before the encoding's 8-byte
//! trailer, and 8 is a multiple of every lane width. Bytes before the first
//! lane stay as they are. The files differ from ClickHouse's; the purpose is
//! the same: Delta and DoubleDelta turn steady series into small or constant
//! numbers, Gorilla (XOR with the previous value) zeroes the bytes that
//! floats of a slow series share, and T64 (bytes transposed into planes)
//! gathers the high bytes that small integers leave zero.

use strata_common::error::{ErrorCode, Result, StrataError};

/// How a transformation changes the lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransformKind {
    Delta,
    DoubleDelta,
    Gorilla,
    T64,
}

impl TransformKind {
    fn tag(self) -> u8 {
        match self {
            TransformKind::Delta => 1,
            TransformKind::DoubleDelta => 2,
            TransformKind::Gorilla => 3,
            TransformKind::T64 => 4,
        }
    }

    fn from_tag(tag: u8) -> Option<TransformKind> {
        Some(match tag {
            1 => TransformKind::Delta,
            2 => TransformKind::DoubleDelta,
            3 => TransformKind::Gorilla,
            4 => TransformKind::T64,
            _ => return None,
        })
    }
}

/// Widths a lane can have, in bytes.
pub const LANE_WIDTHS: [usize; 4] = [1, 2, 4, 8];

/// Bytes that record one transformation in a block: kind, lane width, offset
/// of the first lane.
pub const DESCRIPTOR_BYTES: usize = 3;

/// Transforms `data` in place for lanes of `width` bytes and appends the
/// record a reader needs to undo it to `descriptor`.
pub fn apply(kind: TransformKind, width: usize, data: &mut [u8], descriptor: &mut Vec<u8>) {
    assert!(LANE_WIDTHS.contains(&width), "a lane of {width} bytes");
    let start = data.len() % width;
    descriptor.extend_from_slice(&[kind.tag(), width as u8, start as u8]);
    let lanes = &mut data[start..];
    match kind {
        TransformKind::Delta => delta(lanes, width),
        TransformKind::DoubleDelta => {
            delta(lanes, width);
            delta(lanes, width);
        }
        TransformKind::Gorilla => xor_previous(lanes, width),
        TransformKind::T64 => transpose(lanes, width),
    }
}

/// Undoes the transformation recorded in `descriptor` (as [`apply`] wrote
/// it) on `data`.
pub fn undo(descriptor: &[u8], data: &mut [u8]) -> Result<()> {
    let [tag, width, start] = *descriptor else {
        return Err(corrupted("a transformation record is cut short"));
    };
    let (width, start) = (width as usize, start as usize);
    let kind = TransformKind::from_tag(tag)
        .ok_or_else(|| corrupted(&format!("unknown transformation {tag}")))?;
    if !LANE_WIDTHS.contains(&width) || start != data.len() % width {
        return Err(corrupted("a transformation record gives impossible lanes"));
    }
    let lanes = &mut data[start..];
    match kind {
        TransformKind::Delta => undo_delta(lanes, width),
        TransformKind::DoubleDelta => {
            undo_delta(lanes, width);
            undo_delta(lanes, width);
        }
        TransformKind::Gorilla => undo_xor_previous(lanes, width),
        TransformKind::T64 => untranspose(lanes, width),
    }
    Ok(())
}

fn corrupted(what: &str) -> StrataError {
    StrataError::new(ErrorCode::CORRUPTED_DATA, format!("Corrupted data: {what}"))
}

fn read_lane(lanes: &[u8], at: usize, width: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..width].copy_from_slice(&lanes[at..at + width]);
    u64::from_le_bytes(bytes)
}

fn write_lane(lanes: &mut [u8], at: usize, width: usize, value: u64) {
    lanes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
}

/// Each lane minus the one before it, wrapping at the lane's width (the
/// first lane minus zero).
fn delta(lanes: &mut [u8], width: usize) {
    let mut previous = 0u64;
    for at in (0..lanes.len()).step_by(width) {
        let value = read_lane(lanes, at, width);
        write_lane(lanes, at, width, value.wrapping_sub(previous));
        previous = value;
    }
}

fn undo_delta(lanes: &mut [u8], width: usize) {
    let mut previous = 0u64;
    for at in (0..lanes.len()).step_by(width) {
        let value = read_lane(lanes, at, width).wrapping_add(previous);
        write_lane(lanes, at, width, value);
        previous = value;
    }
}

fn xor_previous(lanes: &mut [u8], width: usize) {
    let mut previous = 0u64;
    for at in (0..lanes.len()).step_by(width) {
        let value = read_lane(lanes, at, width);
        write_lane(lanes, at, width, value ^ previous);
        previous = value;
    }
}

fn undo_xor_previous(lanes: &mut [u8], width: usize) {
    let mut previous = 0u64;
    for at in (0..lanes.len()).step_by(width) {
        let value = read_lane(lanes, at, width) ^ previous;
        write_lane(lanes, at, width, value);
        previous = value;
    }
}

/// Byte `b` of every lane, for each `b` in turn.
fn transpose(lanes: &mut [u8], width: usize) {
    let count = lanes.len() / width;
    let copy = lanes.to_vec();
    for (lane, value) in copy.chunks_exact(width).enumerate() {
        for (byte, &b) in value.iter().enumerate() {
            lanes[byte * count + lane] = b;
        }
    }
}

fn untranspose(lanes: &mut [u8], width: usize) {
    let count = lanes.len() / width;
    let copy = lanes.to_vec();
    for (lane, value) in lanes.chunks_exact_mut(width).enumerate() {
        for (byte, b) in value.iter_mut().enumerate() {
            *b = copy[byte * count + lane];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transformation_undoes_at_every_width_and_offset() {
        let kinds = [
            TransformKind::Delta,
            TransformKind::DoubleDelta,
            TransformKind::Gorilla,
            TransformKind::T64,
        ];
        for kind in kinds {
            for width in LANE_WIDTHS {
                for length in [0, 1, 7, 25, 64, 1001] {
                    let original: Vec<u8> = (0..length).map(|i| (i * 37 % 251) as u8).collect();
                    let mut data = original.clone();
                    let mut descriptor = Vec::new();
                    apply(kind, width, &mut data, &mut descriptor);
                    assert_eq!(descriptor.len(), DESCRIPTOR_BYTES);
                    undo(&descriptor, &mut data).unwrap();
                    assert_eq!(data, original, "{kind:?} over lanes of {width}");
                }
            }
        }
    }

    #[test]
    fn delta_makes_a_steady_series_constant() {
        let mut data: Vec<u8> = (100u32..110).flat_map(|v| (v * 3).to_le_bytes()).collect();
        apply(TransformKind::Delta, 4, &mut data, &mut Vec::new());
        let lanes: Vec<u32> = data
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(lanes[0], 300);
        assert!(lanes[1..].iter().all(|&d| d == 3));
    }

    #[test]
    fn a_damaged_record_is_reported() {
        let mut data = vec![0u8; 16];
        assert!(undo(&[9, 4, 0], &mut data).is_err());
        assert!(undo(&[1, 3, 0], &mut data).is_err());
        assert!(undo(&[1, 8, 1], &mut data).is_err());
        assert!(undo(&[1, 8], &mut data).is_err());
    }
}
