//! A file or an object that a result is written into (`INTO OUTFILE`,
//! `INSERT INTO FUNCTION file(...)` or `s3(...)`), through its
//! compression's encoder.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;

use strata_common::{ErrorCode, Result, StrataError};
use strata_formats::OutputFormat;
use strata_formats::encoding::{ChunkWriter, Encoding, encoder};
use strata_storage::disk::ObjectWriter;

/// A file or object written through its compression's encoder.
pub(crate) struct FileSink {
    destination: Destination,
    encoder: Box<dyn ChunkWriter>,
}

/// Where a sink's encoded bytes go.
enum Destination {
    File(BufWriter<File>),
    /// A new object, stored when the sink finishes (an unfinished one is
    /// never stored).
    Object(ObjectWriter),
}

impl Destination {
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Destination::File(file) => file.write_all(bytes),
            Destination::Object(writer) => writer.write(bytes).map_err(std::io::Error::other),
        }
    }
}

/// What opening a file does with one that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Existing {
    /// Refuse it (FILE_ALREADY_EXISTS).
    Refuse,
    Append,
    Truncate,
}

impl FileSink {
    pub(crate) fn open(
        path: &Path,
        existing: Existing,
        encoding: Option<Encoding>,
    ) -> Result<Self> {
        let mut options = OpenOptions::new();
        match existing {
            Existing::Refuse => options.write(true).create_new(true),
            Existing::Append => options.append(true).create(true),
            Existing::Truncate => options.write(true).create(true).truncate(true),
        };
        let file = options.open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => StrataError::new(
                ErrorCode::FILE_ALREADY_EXISTS,
                format!(
                    "File {} exists, consider using APPEND or TRUNCATE",
                    path.display()
                ),
            ),
            _ => StrataError::new(
                ErrorCode::CANNOT_OPEN_FILE,
                format!("Cannot open file {} for writing: {e}", path.display()),
            ),
        })?;
        Ok(FileSink {
            destination: Destination::File(BufWriter::with_capacity(1 << 20, file)),
            encoder: encoder(encoding),
        })
    }

    /// A sink into the object `writer` uploads.
    pub(crate) fn object(writer: ObjectWriter, encoding: Option<Encoding>) -> Self {
        FileSink {
            destination: Destination::Object(writer),
            encoder: encoder(encoding),
        }
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        let rest = self.encoder.finish()?;
        self.destination.write_all(&rest)?;
        match self.destination {
            Destination::File(file) => {
                let file = file.into_inner().map_err(|e| e.into_error())?;
                file.sync_data()?;
            }
            Destination::Object(writer) => {
                writer.finish()?;
            }
        }
        Ok(())
    }
}

impl Write for FileSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.encoder.write(buf)?;
        let ready = self.encoder.take();
        self.destination.write_all(&ready)?;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.encoder.flush()?;
        let ready = self.encoder.take();
        self.destination.write_all(&ready)
    }
}

/// A sink into the file at `path` for an insert of `format`, and whether it
/// appends to what the file holds (so the format's header is left out);
/// `truncate` (`engine_file_truncate_on_insert`) empties the file first.
pub(crate) fn open_for_insert(
    path: &Path,
    format: OutputFormat,
    format_name: &str,
    encoding: Option<Encoding>,
    truncate: bool,
) -> Result<(FileSink, bool)> {
    let appending = !truncate && path.metadata().is_ok_and(|m| m.len() > 0);
    if appending && (!format.supports_append() || encoding.is_some()) {
        return Err(StrataError::new(
            ErrorCode::CANNOT_APPEND_TO_FILE,
            format!(
                "File {} already exists and data cannot be appended to it in format \
                 {format_name}{}. Set engine_file_truncate_on_insert = 1 to replace its contents",
                path.display(),
                if encoding.is_some() {
                    " with compression"
                } else {
                    ""
                }
            ),
        ));
    }
    let existing = match truncate {
        true => Existing::Truncate,
        false => Existing::Append,
    };
    Ok((FileSink::open(path, existing, encoding)?, appending))
}
