//! Compressions of HTTP bodies and files, both ways: a request body in the
//! encoding its `Content-Encoding` names is read decoded, a response is
//! compressed in the first encoding of the client's `Accept-Encoding` that
//! Strata writes (with `enable_http_compression = 1`), and `file()` reads a
//! file in the compression its extension or `compression` argument names.
//! gzip, deflate (zlib), br, zstd and lz4 (frame format), as ClickHouse
//! offers them.

use std::io::{Read, Write};

use strata_common::{ErrorCode, Result, StrataError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Gzip,
    Deflate,
    Brotli,
    Zstd,
    Lz4,
}

impl Encoding {
    pub fn from_name(name: &str) -> Option<Encoding> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "gzip" | "x-gzip" => Encoding::Gzip,
            "deflate" => Encoding::Deflate,
            "br" => Encoding::Brotli,
            "zstd" => Encoding::Zstd,
            "lz4" => Encoding::Lz4,
            _ => return None,
        })
    }

    /// The compression of `file()`'s `compression` argument: `Ok(None)` for
    /// `none`, an error for one Strata does not read.
    pub fn from_compression_name(name: &str) -> Result<Option<Encoding>> {
        Ok(Some(match name.to_ascii_lowercase().as_str() {
            "none" | "" => return Ok(None),
            "gzip" | "gz" => Encoding::Gzip,
            "deflate" | "zlib" => Encoding::Deflate,
            "br" | "brotli" => Encoding::Brotli,
            "zstd" | "zst" => Encoding::Zstd,
            "lz4" => Encoding::Lz4,
            _ => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!(
                        "Compression method '{name}' is not supported: Strata reads none, gzip, \
                         deflate, br, zstd and lz4"
                    ),
                ));
            }
        }))
    }

    /// The compression a file's name ends in (`.gz`, `.zst`, ...), if any.
    pub fn from_file_name(name: &str) -> Option<Encoding> {
        let (_, extension) = name.rsplit_once('.')?;
        Some(match extension.to_ascii_lowercase().as_str() {
            "gz" | "gzip" => Encoding::Gzip,
            "deflate" => Encoding::Deflate,
            "br" | "brotli" => Encoding::Brotli,
            "zst" | "zstd" => Encoding::Zstd,
            "lz4" => Encoding::Lz4,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Encoding::Gzip => "gzip",
            Encoding::Deflate => "deflate",
            Encoding::Brotli => "br",
            Encoding::Zstd => "zstd",
            Encoding::Lz4 => "lz4",
        }
    }

    /// The first encoding of an `Accept-Encoding` list Strata can write.
    pub fn accepted(header: &str) -> Option<Encoding> {
        header
            .split(',')
            .map(|item| item.split(';').next().unwrap_or(""))
            .find_map(Encoding::from_name)
    }
}

/// A request body's `Content-Encoding`: none for `identity`, an error for
/// one Strata does not read.
pub fn request_encoding(header: Option<&str>) -> Result<Option<Encoding>> {
    match header.map(str::trim) {
        None | Some("") | Some("identity") => Ok(None),
        Some(name) => Encoding::from_name(name).map(Some).ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_COMPRESSION_METHOD,
                format!("Unknown HTTP compression method: {name}"),
            )
        }),
    }
}

/// `source` read through the decoder of `encoding`.
pub fn decoder(
    encoding: Option<Encoding>,
    source: Box<dyn Read + Send>,
) -> Result<Box<dyn Read + Send>> {
    Ok(match encoding {
        None => source,
        Some(Encoding::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(source)),
        Some(Encoding::Deflate) => Box::new(flate2::read::ZlibDecoder::new(source)),
        Some(Encoding::Brotli) => Box::new(brotli::Decompressor::new(source, 64 * 1024)),
        Some(Encoding::Zstd) => {
            Box::new(zstd::stream::read::Decoder::new(source).map_err(|e| {
                StrataError::new(
                    ErrorCode::CANNOT_DECOMPRESS,
                    format!("Cannot read zstd data: {e}"),
                )
            })?)
        }
        Some(Encoding::Lz4) => Box::new(Lz4Frames::new(source)),
    })
}

/// LZ4 frames one after another, as clients send a body block by block
/// (clickhouse-connect compresses each block as its own frame); a single
/// frame decoder would stop at the end of the first and drop the rest.
struct Lz4Frames {
    frame: Option<lz4_flex::frame::FrameDecoder<Peeked>>,
}

impl Lz4Frames {
    fn new(source: Box<dyn Read + Send>) -> Self {
        let source = Peeked {
            first: None,
            source,
        };
        Lz4Frames {
            frame: Some(lz4_flex::frame::FrameDecoder::new(source)),
        }
    }
}

impl Read for Lz4Frames {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(frame) = self.frame.as_mut() {
            let n = frame.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // The frame ended: a next one starts if the source holds more.
            let mut source = self.frame.take().expect("a frame").into_inner();
            let mut first = [0u8; 1];
            if source.read(&mut first)? == 1 {
                source.first = Some(first[0]);
                self.frame = Some(lz4_flex::frame::FrameDecoder::new(source));
            }
        }
        Ok(0)
    }
}

/// A source with one byte read ahead, to tell its end from another frame.
struct Peeked {
    first: Option<u8>,
    source: Box<dyn Read + Send>,
}

impl Read for Peeked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.first.take(), buf.first_mut()) {
            (Some(byte), Some(slot)) => {
                *slot = byte;
                Ok(1)
            }
            (first, _) => {
                self.first = self.first.or(first);
                self.source.read(buf)
            }
        }
    }
}

/// Where a response body is written: plain bytes, or an encoder over them.
/// `take` hands over what is ready to send so far.
pub trait ChunkWriter: Write + Send {
    fn take(&mut self) -> Vec<u8>;
    /// Ends the encoding and returns the last bytes.
    fn finish(self: Box<Self>) -> std::io::Result<Vec<u8>>;
    fn pending(&self) -> usize;
}

impl ChunkWriter for Vec<u8> {
    fn take(&mut self) -> Vec<u8> {
        std::mem::take(self)
    }
    fn finish(self: Box<Self>) -> std::io::Result<Vec<u8>> {
        Ok(*self)
    }
    fn pending(&self) -> usize {
        self.len()
    }
}

/// An encoder writing into a `Vec<u8>` that can be drained while it runs.
struct Encoder<W: Write + Send> {
    inner: W,
    get: fn(&mut W) -> &mut Vec<u8>,
    end: fn(W) -> std::io::Result<Vec<u8>>,
}

impl<W: Write + Send> Write for Encoder<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write + Send> ChunkWriter for Encoder<W> {
    fn take(&mut self) -> Vec<u8> {
        std::mem::take((self.get)(&mut self.inner))
    }
    fn finish(self: Box<Self>) -> std::io::Result<Vec<u8>> {
        (self.end)(self.inner)
    }
    fn pending(&self) -> usize {
        // Encoders buffer internally; what they emitted is counted when taken.
        0
    }
}

/// ClickHouse's default `http_zlib_compression_level`.
const ZLIB_LEVEL: u32 = 3;
const ZSTD_LEVEL: i32 = 3;
const BROTLI_QUALITY: u32 = 3;
const BROTLI_WINDOW: u32 = 22;

pub fn encoder(encoding: Option<Encoding>) -> Box<dyn ChunkWriter> {
    let level = flate2::Compression::new(ZLIB_LEVEL);
    match encoding {
        None => Box::new(Vec::new()),
        Some(Encoding::Gzip) => Box::new(Encoder {
            inner: flate2::write::GzEncoder::new(Vec::new(), level),
            get: |w| w.get_mut(),
            end: |w| w.finish(),
        }),
        Some(Encoding::Deflate) => Box::new(Encoder {
            inner: flate2::write::ZlibEncoder::new(Vec::new(), level),
            get: |w| w.get_mut(),
            end: |w| w.finish(),
        }),
        Some(Encoding::Brotli) => Box::new(Encoder {
            inner: brotli::CompressorWriter::new(
                Vec::new(),
                64 * 1024,
                BROTLI_QUALITY,
                BROTLI_WINDOW,
            ),
            get: |w| w.get_mut(),
            end: |w| Ok(w.into_inner()),
        }),
        Some(Encoding::Zstd) => Box::new(Encoder {
            inner: zstd::stream::write::Encoder::new(Vec::new(), ZSTD_LEVEL)
                .expect("a zstd encoder at a valid level"),
            get: |w| w.get_mut(),
            end: |w| w.finish(),
        }),
        Some(Encoding::Lz4) => Box::new(Encoder {
            inner: lz4_flex::frame::FrameEncoder::new(Vec::new()),
            get: |w| w.get_mut(),
            end: |w| w.finish().map_err(std::io::Error::other),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_reads_back_what_it_wrote() {
        let text: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        for encoding in [
            Encoding::Gzip,
            Encoding::Deflate,
            Encoding::Brotli,
            Encoding::Zstd,
            Encoding::Lz4,
        ] {
            let mut writer = encoder(Some(encoding));
            let mut encoded = Vec::new();
            for chunk in text.chunks(7_000) {
                writer.write_all(chunk).unwrap();
                encoded.extend(writer.take());
            }
            encoded.extend(writer.finish().unwrap());
            let mut decoded = Vec::new();
            decoder(Some(encoding), Box::new(std::io::Cursor::new(encoded)))
                .unwrap()
                .read_to_end(&mut decoded)
                .unwrap();
            assert_eq!(decoded, text, "{encoding:?}");
        }
    }

    #[test]
    fn every_lz4_frame_of_a_body_is_read() {
        let mut body = Vec::new();
        for part in [&b"first frame, "[..], b"second, ", b"third"] {
            let mut frame = lz4_flex::frame::FrameEncoder::new(Vec::new());
            frame.write_all(part).unwrap();
            body.extend(frame.finish().unwrap());
        }
        let mut decoded = String::new();
        decoder(Some(Encoding::Lz4), Box::new(std::io::Cursor::new(body)))
            .unwrap()
            .read_to_string(&mut decoded)
            .unwrap();
        assert_eq!(decoded, "first frame, second, third");
    }

    #[test]
    fn accept_encoding_picks_the_first_known() {
        assert_eq!(
            Encoding::accepted("lz4, zstd, br, gzip"),
            Some(Encoding::Lz4)
        );
        assert_eq!(
            Encoding::accepted("identity, gzip;q=0.5"),
            Some(Encoding::Gzip)
        );
        assert_eq!(Encoding::accepted("compress"), None);
        assert!(request_encoding(Some("snappy")).is_err());
    }
}
