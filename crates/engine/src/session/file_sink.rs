//! A file that a result is written into (`INTO OUTFILE`, `INSERT INTO
//! FUNCTION file(...)`), through its compression's encoder.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;

use strata_common::{ErrorCode, Result, StrataError};
use strata_formats::encoding::{ChunkWriter, Encoding, encoder};

/// A file written through its compression's encoder.
pub(crate) struct FileSink {
    file: BufWriter<File>,
    encoder: Box<dyn ChunkWriter>,
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
            file: BufWriter::with_capacity(1 << 20, file),
            encoder: encoder(encoding),
        })
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        let rest = self.encoder.finish()?;
        self.file.write_all(&rest)?;
        let file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.sync_data()?;
        Ok(())
    }
}

impl Write for FileSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.encoder.write(buf)?;
        let ready = self.encoder.take();
        self.file.write_all(&ready)?;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.encoder.flush()?;
        let ready = self.encoder.take();
        self.file.write_all(&ready)
    }
}
