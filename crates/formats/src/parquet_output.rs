//! Parquet output through Arrow's writer, zstd-compressed as ClickHouse's is by
//! default. Rows are gathered into row groups of up to a million rows (as
//! ClickHouse's `output_format_parquet_row_group_size`), and each finished
//! row group is passed on at once, so memory stays bounded by one group.

use std::io::Write;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::{ResultWriter, Statistics};

const ROW_GROUP_ROWS: usize = 1_000_000;

pub(crate) struct ParquetWriter {
    writer: ArrowWriter<Vec<u8>>,
}

impl ParquetWriter {
    pub(crate) fn new(schema: SchemaRef) -> std::io::Result<Self> {
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
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
