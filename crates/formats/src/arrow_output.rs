//! `Arrow` (IPC file) and `ArrowStream` (IPC stream) output through Arrow's
//! own IPC writers, shaped as ClickHouse 26 writes them: LZ4-frame compressed
//! buffers (`output_format_arrow_compression_method`), strings as Utf8
//! (`output_format_arrow_string_as_string`), DateTime as UInt32 seconds,
//! DateTime64 as a timestamp that always names its time zone (the session's,
//! UTC in Strata, when the type has none), LowCardinality as its plain type.
//! Each result batch becomes one record batch, passed on as it is written.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::arrow::ipc::CompressionType;
use datafusion::arrow::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::is_uuid;

use crate::{ResultWriter, Statistics};

/// What ClickHouse adds to a UUID field's extension name: the extension's
/// (empty) parameters and the type Parquet would give it.
const UUID_METADATA: [(&str, &str); 2] = [
    ("ARROW:extension:metadata", ""),
    ("PARQUET:logical_type", "UUID"),
];

enum Ipc {
    File(FileWriter<Vec<u8>>),
    Stream(StreamWriter<Vec<u8>>),
}

pub(crate) struct ArrowWriter {
    schema: SchemaRef,
    ipc: Ipc,
}

impl ArrowWriter {
    /// `file` picks the IPC file format over the stream format. The schema
    /// (and the file's magic) is passed on straight away.
    pub(crate) fn new(
        file: bool,
        schema: &SchemaRef,
        out: &mut dyn Write,
    ) -> std::io::Result<Self> {
        let schema = Arc::new(Schema::new(
            schema
                .fields()
                .iter()
                .map(|f| clickhouse_field(f))
                .collect::<Vec<_>>(),
        ));
        let options = IpcWriteOptions::default()
            .try_with_compression(Some(CompressionType::LZ4_FRAME))
            .map_err(std::io::Error::other)?;
        let ipc = if file {
            FileWriter::try_new_with_options(Vec::new(), &schema, options).map(Ipc::File)
        } else {
            StreamWriter::try_new_with_options(Vec::new(), &schema, options).map(Ipc::Stream)
        }
        .map_err(std::io::Error::other)?;
        let mut writer = ArrowWriter { schema, ipc };
        writer.pass_on(out)?;
        Ok(writer)
    }

    /// Moves what the IPC writer has produced so far to `out`. The file
    /// writer counts the bytes it writes for its footer's offsets, so taking
    /// them out of the buffer does not disturb them.
    fn pass_on(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let written = match &mut self.ipc {
            Ipc::File(writer) => writer.get_mut(),
            Ipc::Stream(writer) => writer.get_mut(),
        };
        out.write_all(written)?;
        written.clear();
        Ok(())
    }
}

impl ResultWriter for ArrowWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let columns = batch
            .columns()
            .iter()
            .zip(self.schema.fields())
            .map(|(column, field)| as_type(column, field.data_type()))
            .collect::<std::io::Result<Vec<_>>>()?;
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), columns)
            .map_err(std::io::Error::other)?;
        match &mut self.ipc {
            Ipc::File(writer) => writer.write(&batch),
            Ipc::Stream(writer) => writer.write(&batch),
        }
        .map_err(std::io::Error::other)?;
        self.pass_on(out)
    }

    fn finish(&mut self, out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        match &mut self.ipc {
            Ipc::File(writer) => writer.finish(),
            Ipc::Stream(writer) => writer.finish(),
        }
        .map_err(std::io::Error::other)?;
        self.pass_on(out)
    }
}

/// ClickHouse names an unnamed tuple's elements 1, 2, ...; DataFusion's
/// tuples (`(a, b)`) name them c0, c1, ...
fn tuple_element(index: usize, field: Field) -> Field {
    if field.name() == &format!("c{index}") {
        return field.with_name((index + 1).to_string());
    }
    field
}

fn as_type(column: &ArrayRef, data_type: &DataType) -> std::io::Result<ArrayRef> {
    if column.data_type() == data_type {
        return Ok(Arc::clone(column));
    }
    cast(column, data_type).map_err(std::io::Error::other)
}

/// The Arrow field ClickHouse writes for a column of `field`'s type. Only a
/// UUID keeps metadata: Strata's own markers mean nothing to other readers.
fn clickhouse_field(field: &Field) -> Field {
    let data_type = match field.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => DataType::UInt32,
        DataType::Timestamp(unit, None) => DataType::Timestamp(*unit, Some("UTC".into())),
        DataType::LargeUtf8 | DataType::Utf8View => DataType::Utf8,
        DataType::LargeBinary | DataType::BinaryView => DataType::Binary,
        DataType::Dictionary(_, value) => {
            let plain = Field::new(field.name(), value.as_ref().clone(), field.is_nullable());
            return clickhouse_field(&plain);
        }
        DataType::List(item) | DataType::LargeList(item) => {
            DataType::List(Arc::new(clickhouse_field(item)))
        }
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .enumerate()
                .map(|(i, f)| tuple_element(i, clickhouse_field(f)))
                .collect(),
        ),
        DataType::Map(entries, sorted) => {
            DataType::Map(Arc::new(clickhouse_field(entries)), *sorted)
        }
        other => other.clone(),
    };
    let plain = Field::new(field.name(), data_type, field.is_nullable());
    if !is_uuid(field) {
        return plain;
    }
    let mut metadata: HashMap<String, String> = field.metadata().clone();
    metadata.retain(|key, _| key.starts_with("ARROW:"));
    metadata.extend(UUID_METADATA.map(|(k, v)| (k.to_string(), v.to_string())));
    plain.with_metadata(metadata)
}

#[cfg(test)]
pub(crate) mod tests {
    use datafusion::arrow::array::{
        Array, ArrayRef, StringArray, TimestampSecondArray, UInt64Array,
    };
    use datafusion::arrow::ipc::reader::{FileReader, StreamReader};

    use super::*;
    use crate::OutputFormat;
    use crate::row_binary::tests::{sample, unhex, written};

    /// chdb 26.9: `SELECT toUInt64(number) n, toString(number) s,
    /// toDateTime(number, 'UTC') dt FROM numbers(2) FORMAT Arrow`.
    pub(crate) const CLICKHOUSE_ARROW: &str = concat!(
        "4152524f57310000ffffffffc80000001000000000000a000c000600050008000a00000000010400",
        "0c00000008000800000004000800000004000000030000006c0000003000000004000000b0ffffff",
        "00000002100000001400000004000000000000000200000064740000a2ffffff20000000d8ffffff",
        "00000005100000001800000004000000000000000100000073000000040004000400000010001400",
        "0800000007000c000000100010000000000000021000000018000000040000000000000001000000",
        "6e000600080004000600000040000000ffffffff0801000014000000000000000c00180006000500",
        "08000c000c000000000304001c0000009000000000000000000000000c001c001000040008000c00",
        "0c000000980000001c00000014000000020000000000000000000000040004000400000007000000",
        "00000000000000000000000000000000000000000000000024000000000000002800000000000000",
        "00000000000000002800000000000000230000000000000050000000000000001900000000000000",
        "7000000000000000000000000000000070000000000000001f000000000000000000000003000000",
        "02000000000000000000000000000000020000000000000000000000000000000200000000000000",
        "0000000000000000100000000000000004224d186040820d00000013000100800100000000000000",
        "00000000000000000c0000000000000004224d186040820c00008000000000010000000200000000",
        "0000000000000000020000000000000004224d186040820200008030310000000000000000000000",
        "080000000000000004224d186040820800008000000000010000000000000000ffffffff00000000",
        "100000000c001400060008000c0010000c0000000000040034000000240000000400000001000000",
        "d8000000000000001001000000000000900000000000000000000000080008000000040008000000",
        "04000000030000006c0000003000000004000000b0ffffff00000002100000001400000004000000",
        "000000000200000064740000a2ffffff20000000d8ffffff00000005100000001800000004000000",
        "0000000001000000730000000400040004000000100014000800000007000c000000100010000000",
        "0000000210000000180000000400000000000000010000006e000600080004000600000040000000",
        "f00000004152524f5731",
    );

    fn read_file(bytes: Vec<u8>) -> Vec<RecordBatch> {
        let reader = FileReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
        reader.collect::<Result<_, _>>().unwrap()
    }

    #[test]
    fn schema_and_values_match_clickhouse() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::UInt64, false),
            Field::new("s", DataType::Utf8, false),
            Field::new(
                "dt",
                DataType::Timestamp(TimeUnit::Second, Some("UTC".into())),
                false,
            ),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from(vec![0, 1])),
            Arc::new(StringArray::from(vec!["0", "1"])),
            Arc::new(TimestampSecondArray::from(vec![0, 1]).with_timezone("UTC")),
        ];
        let batch = RecordBatch::try_new(schema, columns).unwrap();
        let ours = read_file(written(OutputFormat::Arrow, &batch));
        let theirs = read_file(unhex(CLICKHOUSE_ARROW));
        assert_eq!(ours, theirs);
    }

    #[test]
    fn types_are_shaped_as_clickhouse_writes_them() {
        let bytes = written(OutputFormat::ArrowStream, &sample());
        let reader = StreamReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
        let schema = reader.schema();
        let type_of = |name: &str| schema.field_with_name(name).unwrap().data_type().clone();
        assert_eq!(type_of("dt"), DataType::UInt32);
        assert_eq!(
            type_of("dt64"),
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
        );
        assert_eq!(type_of("lc"), DataType::Utf8);
        assert!(schema.field_with_name("d32").unwrap().metadata().is_empty());
        let uuid = schema.field_with_name("u").unwrap();
        assert_eq!(uuid.metadata()["ARROW:extension:name"], "arrow.uuid");
        let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
        assert_eq!(batches[0].num_rows(), 2);
        assert_eq!(batches[0].column(4).null_count(), 0);
    }
}
