//! Parquet output through Arrow's writer, zstd-compressed as ClickHouse's is by
//! default. Rows are gathered into row groups of `output_format_parquet_row_group_size`
//! rows at most (a million by default), and each finished row group is
//! passed on at once, so memory stays bounded by one group.

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::{ResultWriter, Statistics};

pub(crate) struct ParquetWriter {
    writer: ArrowWriter<Vec<u8>>,
}

impl ParquetWriter {
    pub(crate) fn new(schema: SchemaRef, row_group_rows: usize) -> std::io::Result<Self> {
        debug_assert!(row_group_rows > 0);
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(row_group_rows))
            .build();
        let writer = ArrowWriter::try_new(Vec::new(), schema, Some(properties))
            .map_err(std::io::Error::other)?;
        Ok(ParquetWriter { writer })
    }

    /// Moves the bytes the Parquet writer has produced so far to `out`. The
    /// writer counts the bytes it writes rather than asking the buffer, so
    /// taking them out does not disturb the offsets it records.
    fn pass_on(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let written = self.writer.inner_mut();
        out.write_all(written)?;
        written.clear();
        Ok(())
    }
}

impl ResultWriter for ParquetWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        self.writer.write(batch).map_err(std::io::Error::other)?;
        self.pass_on(out)
    }

    fn finish(&mut self, out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        self.writer.finish().map_err(std::io::Error::other)?;
        self.pass_on(out)
    }
}
