//! ClickHouse's own block compression over HTTP: `compress=1` compresses a
//! response and `decompress=1` reads a request body in it.
//!
//! A compressed block is a 16-byte CityHash128 (v1.0.2) checksum of the rest,
//! a 9-byte header (method byte, compressed size including the header,
//! uncompressed size, both UInt32 little-endian), then the data. Strata
//! writes LZ4 blocks of up to `max_compress_block_size` bytes and reads
//! LZ4, ZSTD and uncompressed blocks.

use std::io::{Read, Write};

use strata_common::{ErrorCode, Result, StrataError};

use crate::encoding::ChunkWriter;

const CHECKSUM_BYTES: usize = 16;
const HEADER_BYTES: usize = 9;
/// ClickHouse refuses a compressed block larger than this.
const MAX_COMPRESSED_BYTES: usize = 1 << 30;
/// ClickHouse's default `max_compress_block_size`: uncompressed bytes per block.
const BLOCK_BYTES: usize = 1 << 20;

const METHOD_NONE: u8 = 0x02;
const METHOD_LZ4: u8 = 0x82;
const METHOD_ZSTD: u8 = 0x90;

fn checksum(bytes: &[u8]) -> [u8; CHECKSUM_BYTES] {
    cityhash_102_rs::city_hash_128(bytes).to_le_bytes()
}

/// `data` as one LZ4 block with its checksum.
fn compress_block(data: &[u8]) -> Vec<u8> {
    let compressed = lz4_flex::block::compress(data);
    let size = HEADER_BYTES + compressed.len();
    let mut block = Vec::with_capacity(CHECKSUM_BYTES + size);
    block.extend_from_slice(&[0; CHECKSUM_BYTES]);
    block.push(METHOD_LZ4);
    block.extend_from_slice(&(size as u32).to_le_bytes());
    block.extend_from_slice(&(data.len() as u32).to_le_bytes());
    block.extend_from_slice(&compressed);
    let sum = checksum(&block[CHECKSUM_BYTES..]);
    block[..CHECKSUM_BYTES].copy_from_slice(&sum);
    block
}

/// A response writer that compresses what it is given in blocks before the
/// HTTP encoding (if any) sees it, as ClickHouse layers them.
pub struct BlockWriter {
    inner: Box<dyn ChunkWriter>,
    pending: Vec<u8>,
}

impl BlockWriter {
    pub fn new(inner: Box<dyn ChunkWriter>) -> BlockWriter {
        BlockWriter {
            inner,
            pending: Vec::new(),
        }
    }

    fn emit(&mut self, len: usize) -> std::io::Result<()> {
        let block = compress_block(&self.pending[..len]);
        self.pending.drain(..len);
        self.inner.write_all(&block)
    }
}

impl Write for BlockWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while self.pending.len() >= BLOCK_BYTES {
            self.emit(BLOCK_BYTES)?;
        }
        Ok(buf.len())
    }

    /// Ends the current block, as ClickHouse's compressed buffer does.
    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            self.emit(self.pending.len())?;
        }
        self.inner.flush()
    }
}

impl ChunkWriter for BlockWriter {
    fn take(&mut self) -> Vec<u8> {
        self.inner.take()
    }
    fn finish(mut self: Box<Self>) -> std::io::Result<Vec<u8>> {
        self.flush()?;
        self.inner.finish()
    }
    fn pending(&self) -> usize {
        self.pending.len() + self.inner.pending()
    }
}

/// A request body read through its compressed blocks.
pub struct BlockReader<R: Read> {
    source: R,
    block: Vec<u8>,
    position: usize,
    /// `http_native_compression_disable_checksumming_on_decompress` turns it off.
    verify: bool,
}

impl<R: Read> BlockReader<R> {
    pub fn new(source: R, verify: bool) -> BlockReader<R> {
        BlockReader {
            source,
            block: Vec::new(),
            position: 0,
            verify,
        }
    }

    /// Reads and decompresses the next block; false at a clean end.
    fn next_block(&mut self) -> Result<bool> {
        let mut head = [0u8; CHECKSUM_BYTES + HEADER_BYTES];
        if !read_head(&mut self.source, &mut head)? {
            return Ok(false);
        }
        let header = &head[CHECKSUM_BYTES..];
        let method = header[0];
        let compressed_size =
            u32::from_le_bytes(header[1..5].try_into().expect("4 bytes")) as usize;
        let size = u32::from_le_bytes(header[5..9].try_into().expect("4 bytes")) as usize;
        check_sizes(compressed_size, size)?;
        let mut framed = Vec::with_capacity(compressed_size);
        framed.extend_from_slice(header);
        (&mut self.source)
            .take((compressed_size - HEADER_BYTES) as u64)
            .read_to_end(&mut framed)
            .map_err(read_failed)?;
        if framed.len() != compressed_size {
            return Err(truncated());
        }
        if self.verify && checksum(&framed) != head[..CHECKSUM_BYTES] {
            return Err(StrataError::new(
                ErrorCode::CHECKSUM_DOESNT_MATCH,
                "Checksum doesn't match: corrupted data. The compressed block of the request body is damaged",
            ));
        }
        self.block = decompress(method, &framed[HEADER_BYTES..], size)?;
        self.position = 0;
        Ok(true)
    }
}

impl<R: Read> Read for BlockReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.position == self.block.len() {
            if !self.next_block().map_err(std::io::Error::other)? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.block.len() - self.position);
        buf[..n].copy_from_slice(&self.block[self.position..self.position + n]);
        self.position += n;
        Ok(n)
    }
}

/// Fills `head`; false if the source ended before its first byte.
fn read_head(source: &mut impl Read, head: &mut [u8]) -> Result<bool> {
    let mut filled = 0;
    while filled < head.len() {
        match source.read(&mut head[filled..]) {
            Ok(0) if filled == 0 => return Ok(false),
            Ok(0) => return Err(truncated()),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(read_failed(e)),
        }
    }
    Ok(true)
}

fn check_sizes(compressed_size: usize, size: usize) -> Result<()> {
    if compressed_size > MAX_COMPRESSED_BYTES || size > MAX_COMPRESSED_BYTES {
        return Err(StrataError::new(
            ErrorCode::TOO_LARGE_SIZE_COMPRESSED,
            format!(
                "Too large size_compressed_without_checksum: {compressed_size}. Most likely corrupted data"
            ),
        ));
    }
    if compressed_size < HEADER_BYTES {
        return Err(StrataError::new(
            ErrorCode::CORRUPTED_DATA,
            format!(
                "Can't decompress data: the compressed size {compressed_size} is smaller than the header"
            ),
        ));
    }
    Ok(())
}

fn decompress(method: u8, data: &[u8], size: usize) -> Result<Vec<u8>> {
    let corrupted = |e: String| {
        StrataError::new(
            ErrorCode::CANNOT_DECOMPRESS,
            format!("Cannot decompress a block of the request body: {e}"),
        )
    };
    let block = match method {
        METHOD_NONE => data.to_vec(),
        METHOD_LZ4 => {
            lz4_flex::block::decompress(data, size).map_err(|e| corrupted(e.to_string()))?
        }
        METHOD_ZSTD => zstd::bulk::decompress(data, size).map_err(|e| corrupted(e.to_string()))?,
        other => {
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_COMPRESSION_METHOD,
                format!("Unknown compression method: {other:#04x}"),
            ));
        }
    };
    if block.len() != size {
        return Err(corrupted(format!(
            "{} bytes decompressed, {size} expected",
            block.len()
        )));
    }
    Ok(block)
}

fn truncated() -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_READ_ALL_DATA,
        "Cannot read all data: the request body ends inside a compressed block",
    )
}

fn read_failed(e: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_READ_ALL_DATA,
        format!("Cannot read the request: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressed(data: &[u8]) -> Vec<u8> {
        let mut writer: Box<dyn ChunkWriter> = Box::new(BlockWriter::new(Box::new(Vec::new())));
        let mut out = Vec::new();
        for chunk in data.chunks(300_000) {
            writer.write_all(chunk).unwrap();
            out.extend(writer.take());
        }
        out.extend(writer.finish().unwrap());
        out
    }

    fn read_all(bytes: Vec<u8>) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        BlockReader::new(std::io::Cursor::new(bytes), true)
            .read_to_end(&mut out)
            .map_err(|e| strata_common::error::find_io_error(&e).expect("a Strata error"))?;
        Ok(out)
    }

    #[test]
    fn blocks_read_back_what_was_written() {
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let bytes = compressed(&data);
        // 3 MB in blocks of 1 MiB: three blocks.
        assert_eq!(bytes[CHECKSUM_BYTES], METHOD_LZ4);
        assert_eq!(read_all(bytes).unwrap(), data);
        assert!(read_all(Vec::new()).unwrap().is_empty());
    }

    #[test]
    fn the_checksum_is_clickhouse_city_hash_128() {
        // `SELECT 1` with `compress=1`: one LZ4 block of "1\n"; the checksum as
        // clickhouse-driver's CityHash128 computes it for the same bytes.
        let block = compress_block(b"1\n");
        let hex: String = block.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "de79cf087fb635049db816df195b016b820c0000000200000020310a"
        );
        assert_eq!(read_all(block).unwrap(), b"1\n");
    }

    #[test]
    fn damaged_blocks_are_refused_with_clickhouse_codes() {
        let good = compressed(b"some rows of data, some rows of data");
        let code = |bytes: Vec<u8>| read_all(bytes).unwrap_err().code;
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(code(flipped), ErrorCode::CHECKSUM_DOESNT_MATCH);
        assert_eq!(
            code(good[..good.len() - 3].to_vec()),
            ErrorCode::CANNOT_READ_ALL_DATA
        );
        assert_eq!(code(good[..10].to_vec()), ErrorCode::CANNOT_READ_ALL_DATA);
        let mut huge = good.clone();
        huge[CHECKSUM_BYTES + 1..CHECKSUM_BYTES + 5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(code(huge), ErrorCode::TOO_LARGE_SIZE_COMPRESSED);
        let mut method = good.clone();
        method[CHECKSUM_BYTES] = 0x42;
        let sum = checksum(&method[CHECKSUM_BYTES..]);
        method[..CHECKSUM_BYTES].copy_from_slice(&sum);
        assert_eq!(code(method), ErrorCode::UNKNOWN_COMPRESSION_METHOD);
    }

    #[test]
    fn zstd_and_uncompressed_blocks_are_read() {
        for (method, data) in [
            (METHOD_ZSTD, zstd::bulk::compress(b"zstd rows", 3).unwrap()),
            (METHOD_NONE, b"zstd rows".to_vec()),
        ] {
            let mut block = vec![0; CHECKSUM_BYTES];
            block.push(method);
            block.extend_from_slice(&((HEADER_BYTES + data.len()) as u32).to_le_bytes());
            block.extend_from_slice(&9u32.to_le_bytes());
            block.extend_from_slice(&data);
            let sum = checksum(&block[CHECKSUM_BYTES..]);
            block[..CHECKSUM_BYTES].copy_from_slice(&sum);
            assert_eq!(read_all(block).unwrap(), b"zstd rows");
        }
    }
}
