//! `SELECT ... INTO OUTFILE 'path'`: `strata local` writes the rows into a
//! file, in the statement's format, else the one the file's name names,
//! else TabSeparated, compressed as the clause or the name says.

use std::io::Write;
use std::path::Path;

use strata_common::Result;
use strata_formats::encoding::Encoding;
use strata_formats::{OutputFormat, format_name_of_file};
use strata_sql::{OutFile, OutFileMode};

use super::QueryResult;
use super::file_sink::{Existing, FileSink};

impl QueryResult {
    /// Writes the rows into the file `outfile` names, and to `stdout` as
    /// well with `AND STDOUT`; returns the number of rows written.
    /// `LEVEL` is accepted but the encoders keep their own levels.
    pub async fn write_to_outfile(self, outfile: &OutFile, stdout: &mut dyn Write) -> Result<u64> {
        let format = match self.format {
            Some(format) => format,
            None => format_name_of_file(&outfile.path)
                .map(OutputFormat::from_name)
                .transpose()?
                .unwrap_or(OutputFormat::TabSeparated),
        };
        let encoding = match &outfile.compression {
            Some(name) => Encoding::from_compression_name(name)?,
            None => Encoding::from_file_name(&outfile.path),
        };
        let existing = match outfile.mode {
            OutFileMode::New => Existing::Refuse,
            OutFileMode::Append => Existing::Append,
            OutFileMode::Truncate => Existing::Truncate,
        };
        let mut sink = FileSink::open(Path::new(&outfile.path), existing, encoding)?;
        let rows = if outfile.and_stdout {
            let mut both = Both(&mut sink, stdout);
            self.write_rows(format, &mut both, false).await?
        } else {
            self.write_rows(format, &mut sink, false).await?
        };
        sink.finish()?;
        Ok(rows)
    }
}

/// Bytes written to a file and to the client's output alike.
struct Both<'a>(&'a mut FileSink, &'a mut dyn Write);

impl Write for Both<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write_all(buf)?;
        self.1.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()?;
        self.1.flush()
    }
}
