//! Compressed blocks: the unit in which column files are written and read.
//!
//! Each block starts with a header that names its codec and sizes and holds a
//! checksum of the compressed bytes, so a reader that knows only where a
//! block starts (a mark) can check and decompress it, and a damaged file
//! shows as a checksum error rather than as wrong rows. A block written by
//! a column's codec chain (`chain`) may have its bytes transformed before
//! compression (`transforms`): its tag's high bit is set and its payload
//! starts with the records that undo them.

use strata_common::error::{ErrorCode, Result, StrataError};
use twox_hash::XxHash64;

/// codec (1) + compressed size (4) + uncompressed size (4) + checksum (8).
pub const HEADER_BYTES: usize = 17;
/// A block never holds more than this many uncompressed bytes, so a size
/// read from a damaged header cannot make a reader allocate without bound.
pub const MAX_BLOCK_BYTES: usize = 1 << 30;

mod chain;
mod transforms;

pub use chain::{CodecChain, MAX_TRANSFORMS, Transform};
pub use transforms::TransformKind;

/// A general-purpose compression of a whole block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    None,
    Lz4,
    /// LZ4 written by the slower high-compression encoder at a level from 1
    /// to 12 (0: its default, 9); read as any LZ4 block.
    Lz4Hc(i32),
    /// ZSTD at a level from 1 to 22.
    Zstd(i32),
}

impl Default for Codec {
    /// LZ4, as ClickHouse's default: fast to decompress, about half the size
    /// on typical column data.
    fn default() -> Self {
        Codec::Lz4
    }
}

/// ClickHouse's default ZSTD level.
const ZSTD_DEFAULT_LEVEL: i32 = 1;
/// The level LZ4HC(0) means.
const LZ4HC_DEFAULT_LEVEL: i32 = 9;

/// The tag bit of a block whose payload starts with transformation records.
const TRANSFORMED: u8 = 0x80;

impl Codec {
    /// Parses one general-purpose codec: `NONE`, `Default`, `LZ4`,
    /// `LZ4HC[(level)]`, `ZSTD[(level)]`.
    pub fn parse(text: &str) -> Result<Codec> {
        let text = text.trim();
        let upper = text.to_ascii_uppercase();
        match upper.as_str() {
            "NONE" => return Ok(Codec::None),
            // The server's default compression, LZ4 here as in ClickHouse.
            "DEFAULT" => return Ok(Codec::default()),
            "LZ4" => return Ok(Codec::Lz4),
            "LZ4HC" => return Ok(Codec::Lz4Hc(0)),
            "ZSTD" => return Ok(Codec::Zstd(ZSTD_DEFAULT_LEVEL)),
            _ => {}
        }
        let leveled = |prefix: &str| {
            upper
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(')'))
                .map(|level| level.trim().to_string())
        };
        if let Some(level) = leveled("ZSTD(") {
            return match level.parse::<i32>() {
                Ok(level @ 1..=22) => Ok(Codec::Zstd(level)),
                _ => Err(StrataError::new(
                    ErrorCode::ILLEGAL_CODEC_PARAMETER,
                    format!("ZSTD codec can't have level more than 22, given {level}"),
                )),
            };
        }
        if let Some(level) = leveled("LZ4HC(") {
            return match level.parse::<i32>() {
                Ok(level @ 0..=12) => Ok(Codec::Lz4Hc(level)),
                _ => Err(StrataError::new(
                    ErrorCode::ILLEGAL_CODEC_PARAMETER,
                    format!("LZ4HC codec level must be from 0 to 12, given {level}"),
                )),
            };
        }
        Err(StrataError::new(
            ErrorCode::UNKNOWN_CODEC,
            format!("Unknown codec family: {text}"),
        ))
    }

    /// The codec as `CODEC(...)` writes it.
    pub fn sql(&self) -> String {
        match self {
            Codec::None => "NONE".to_string(),
            Codec::Lz4 => "LZ4".to_string(),
            Codec::Lz4Hc(level) => format!("LZ4HC({level})"),
            Codec::Zstd(level) => format!("ZSTD({level})"),
        }
    }

    fn tag(&self) -> u8 {
        match self {
            Codec::None => 0,
            Codec::Lz4 | Codec::Lz4Hc(_) => 1,
            Codec::Zstd(_) => 2,
        }
    }

    fn compress(&self, data: &[u8]) -> Result<Vec<u8>> {
        let failed = |what: &str, e: std::io::Error| {
            StrataError::new(
                ErrorCode::CANNOT_COMPRESS,
                format!("{what} compression failed: {e}"),
            )
        };
        Ok(match *self {
            Codec::None => data.to_vec(),
            Codec::Lz4 => lz4_flex::block::compress(data),
            Codec::Lz4Hc(level) => {
                let level = if level == 0 {
                    LZ4HC_DEFAULT_LEVEL
                } else {
                    level
                };
                let mode = lz4::block::CompressionMode::HIGHCOMPRESSION(level);
                lz4::block::compress(data, Some(mode), false).map_err(|e| failed("LZ4HC", e))?
            }
            Codec::Zstd(level) => {
                zstd::bulk::compress(data, level).map_err(|e| failed("ZSTD", e))?
            }
        })
    }
}

/// Appends `data` to `out` as one block; returns the block's size in bytes.
pub fn write_block(codec: Codec, data: &[u8], out: &mut Vec<u8>) -> Result<usize> {
    let payload = codec.compress(data)?;
    Ok(append_block(codec.tag(), &payload, data.len(), out))
}

/// Appends `data` to `out` as one block compressed by `chain`, whose
/// transformations see lanes of `lane_width` bytes (`None` where the values
/// are not fixed-width, or too wide for lanes, and are only compressed).
pub fn write_chain_block(
    chain: &CodecChain,
    lane_width: Option<usize>,
    data: &[u8],
    out: &mut Vec<u8>,
) -> Result<usize> {
    let codec = chain.block_codec();
    let width = lane_width.filter(|w| transforms::LANE_WIDTHS.contains(w));
    let (Some(width), true) = (width, chain.transforms().next().is_some()) else {
        return write_block(codec, data, out);
    };
    let mut transformed = data.to_vec();
    let mut payload = vec![0u8];
    for transform in chain.transforms() {
        transforms::apply(transform.kind, width, &mut transformed, &mut payload);
        payload[0] += 1;
    }
    payload.extend_from_slice(&codec.compress(&transformed)?);
    Ok(append_block(
        codec.tag() | TRANSFORMED,
        &payload,
        data.len(),
        out,
    ))
}

fn append_block(tag: u8, payload: &[u8], uncompressed: usize, out: &mut Vec<u8>) -> usize {
    assert!(
        uncompressed <= MAX_BLOCK_BYTES,
        "a block of {uncompressed} bytes"
    );
    let start = out.len();
    out.push(tag);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&(uncompressed as u32).to_le_bytes());
    out.extend_from_slice(&XxHash64::oneshot(0, payload).to_le_bytes());
    out.extend_from_slice(payload);
    out.len() - start
}

/// The uncompressed size the header of the block at the start of `bytes`
/// gives, its checksum not checked.
pub fn uncompressed_bytes(bytes: &[u8]) -> Result<usize> {
    let Some(size) = bytes.get(5..9) else {
        return Err(corrupted("a block header is cut short"));
    };
    let size = u32::from_le_bytes(size.try_into().expect("4 bytes")) as usize;
    if size > MAX_BLOCK_BYTES {
        return Err(corrupted("a block header gives an impossible size"));
    }
    Ok(size)
}

/// One block of a column file, its checksum checked, not decoded.
struct CheckedBlock<'a> {
    tag: u8,
    uncompressed: usize,
    payload: &'a [u8],
    /// The bytes the block takes, header included.
    used: usize,
}

/// The block at the start of `bytes`.
fn checked_block(bytes: &[u8]) -> Result<CheckedBlock<'_>> {
    let Some(header) = bytes.get(..HEADER_BYTES) else {
        return Err(corrupted("a block header is cut short"));
    };
    let tag = header[0];
    let compressed = u32::from_le_bytes(header[1..5].try_into().expect("4 bytes")) as usize;
    let uncompressed = u32::from_le_bytes(header[5..9].try_into().expect("4 bytes")) as usize;
    let checksum = u64::from_le_bytes(header[9..17].try_into().expect("8 bytes"));
    if uncompressed > MAX_BLOCK_BYTES {
        return Err(corrupted("a block header gives an impossible size"));
    }
    let Some(payload) = bytes.get(HEADER_BYTES..HEADER_BYTES + compressed) else {
        return Err(corrupted("a block is cut short"));
    };
    let actual = XxHash64::oneshot(0, payload);
    if actual != checksum {
        return Err(StrataError::new(
            ErrorCode::CHECKSUM_DOESNT_MATCH,
            format!(
                "Checksum doesn't match in a compressed block: expected {checksum:016x}, got {actual:016x}"
            ),
        ));
    }
    Ok(CheckedBlock {
        tag,
        uncompressed,
        payload,
        used: HEADER_BYTES + compressed,
    })
}

/// Checks each block of `bytes`, which holds whole blocks (granules of a
/// column file copied without decoding), and returns their uncompressed
/// bytes.
pub fn check_blocks(mut bytes: &[u8]) -> Result<u64> {
    let mut uncompressed = 0;
    while !bytes.is_empty() {
        let block = checked_block(bytes)?;
        uncompressed += block.uncompressed as u64;
        bytes = &bytes[block.used..];
    }
    Ok(uncompressed)
}

/// Reads the block at the start of `bytes`: its uncompressed data and the
/// bytes the block took.
pub fn read_block(bytes: &[u8]) -> Result<(Vec<u8>, usize)> {
    let mut data = Vec::new();
    let (uncompressed, used) = read_block_into(bytes, &mut data)?;
    data.truncate(uncompressed);
    Ok((data, used))
}

/// Reads the block at the start of `bytes` into the first bytes of `out`:
/// its uncompressed size and the bytes the block took. `out` grows, and
/// never shrinks, so a buffer reused for many blocks is zeroed once.
pub fn read_block_into(bytes: &[u8], out: &mut Vec<u8>) -> Result<(usize, usize)> {
    let CheckedBlock {
        tag,
        uncompressed,
        payload,
        used,
    } = checked_block(bytes)?;
    let (records, compressed_data) = match tag & TRANSFORMED {
        0 => (&[][..], payload),
        _ => split_records(payload)?,
    };
    if out.len() < uncompressed {
        out.resize(uncompressed, 0);
    }
    let data = &mut out[..uncompressed];
    let written = match tag & !TRANSFORMED {
        0 if compressed_data.len() == uncompressed => {
            data.copy_from_slice(compressed_data);
            uncompressed
        }
        0 => {
            return Err(cannot_decompress(
                "the block decompressed to the wrong size",
            ));
        }
        1 => lz4::block::decompress_to_buffer(compressed_data, Some(uncompressed as i32), data)
            .map_err(|e| cannot_decompress(&e.to_string()))?,
        2 => zstd::bulk::decompress_to_buffer(compressed_data, data)
            .map_err(|e| cannot_decompress(&e.to_string()))?,
        other => return Err(corrupted(&format!("unknown codec tag {other}"))),
    };
    if written != uncompressed {
        return Err(cannot_decompress(
            "the block decompressed to the wrong size",
        ));
    }
    for record in records.chunks(transforms::DESCRIPTOR_BYTES).rev() {
        transforms::undo(record, data)?;
    }
    Ok((uncompressed, used))
}

/// A transformed block's payload as its transformation records and its
/// compressed data.
fn split_records(payload: &[u8]) -> Result<(&[u8], &[u8])> {
    let count = *payload
        .first()
        .ok_or_else(|| corrupted("a transformed block has no records"))? as usize;
    if count == 0 || count > MAX_TRANSFORMS {
        return Err(corrupted(
            "a transformed block gives an impossible record count",
        ));
    }
    let end = 1 + count * transforms::DESCRIPTOR_BYTES;
    let records = payload
        .get(1..end)
        .ok_or_else(|| corrupted("transformation records are cut short"))?;
    Ok((records, &payload[end..]))
}

fn corrupted(what: &str) -> StrataError {
    StrataError::new(ErrorCode::CORRUPTED_DATA, format!("Corrupted data: {what}"))
}

fn cannot_decompress(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_DECOMPRESS,
        format!("Cannot decompress: {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..100_000u32)
            .flat_map(|i| (i / 7).to_le_bytes())
            .collect()
    }

    #[test]
    fn copied_blocks_are_checked_and_sized_from_their_headers() {
        let data = sample();
        let mut blocks = Vec::new();
        write_block(Codec::Lz4, &data, &mut blocks).unwrap();
        write_block(Codec::Zstd(1), &data[..1000], &mut blocks).unwrap();
        assert_eq!(check_blocks(&blocks).unwrap(), data.len() as u64 + 1000);
        assert_eq!(check_blocks(&[]).unwrap(), 0);
        let cut = check_blocks(&blocks[..blocks.len() - 1]).unwrap_err();
        assert_eq!(cut.code, ErrorCode::CORRUPTED_DATA);
        let last = blocks.len() - 1;
        blocks[last] ^= 1;
        let damaged = check_blocks(&blocks).unwrap_err();
        assert_eq!(damaged.code, ErrorCode::CHECKSUM_DOESNT_MATCH);
    }

    #[test]
    fn every_codec_round_trips_and_compresses() {
        let data = sample();
        for codec in [
            Codec::None,
            Codec::Lz4,
            Codec::Lz4Hc(0),
            Codec::Zstd(1),
            Codec::Zstd(9),
        ] {
            let mut file = vec![0xAB];
            let written = write_block(codec, &data, &mut file).unwrap();
            let (read, used) = read_block(&file[1..]).unwrap();
            assert_eq!(read, data, "{codec:?}");
            assert_eq!(used, written);
            if codec != Codec::None {
                assert!(written < data.len() / 3, "{codec:?} wrote {written}");
            }
        }
    }

    #[test]
    fn chains_round_trip_and_delta_helps_a_steady_series() {
        let data = sample();
        let mut plain = Vec::new();
        let plain_bytes = write_block(Codec::Zstd(1), &data, &mut plain).unwrap();
        for text in [
            "Delta, ZSTD",
            "DoubleDelta",
            "T64, LZ4",
            "Delta, LZ4HC(3)",
            "T64, NONE",
        ] {
            let chain = CodecChain::parse(text, "UInt32").unwrap();
            let mut file = Vec::new();
            let written = write_chain_block(&chain, Some(4), &data, &mut file).unwrap();
            let (read, used) = read_block(&file).unwrap();
            assert_eq!(read, data, "{text}");
            assert_eq!(used, written);
            if text.starts_with("Delta, ZSTD") {
                assert!(
                    written < plain_bytes,
                    "{text} wrote {written}, ZSTD alone {plain_bytes}"
                );
            }
        }
    }

    #[test]
    fn damage_is_reported_not_read() {
        let mut file = Vec::new();
        write_block(Codec::Lz4, &sample(), &mut file).unwrap();
        let mut flipped = file.clone();
        flipped[HEADER_BYTES + 10] ^= 1;
        assert_eq!(
            read_block(&flipped).unwrap_err().code,
            ErrorCode::CHECKSUM_DOESNT_MATCH
        );
        assert_eq!(
            read_block(&file[..file.len() - 1]).unwrap_err().code,
            ErrorCode::CORRUPTED_DATA
        );
        assert_eq!(
            read_block(&file[..5]).unwrap_err().code,
            ErrorCode::CORRUPTED_DATA
        );
    }

    #[test]
    fn codecs_parse_as_clickhouse_writes_them() {
        assert_eq!(Codec::parse("lz4").unwrap(), Codec::Lz4);
        assert_eq!(Codec::parse("ZSTD").unwrap(), Codec::Zstd(1));
        assert_eq!(Codec::parse("ZSTD(3)").unwrap(), Codec::Zstd(3));
        assert_eq!(Codec::parse("NONE").unwrap(), Codec::None);
        assert_eq!(
            Codec::parse("ZSTD(30)").unwrap_err().code,
            ErrorCode::ILLEGAL_CODEC_PARAMETER
        );
        assert_eq!(
            Codec::parse("Gorilla2").unwrap_err().code,
            ErrorCode::UNKNOWN_CODEC
        );
        assert_eq!(Codec::Zstd(3).sql(), "ZSTD(3)");
    }
}
