//! Arrow IPC input: `ArrowStream` read message by message as it arrives,
//! `Arrow` (the file format) read whole, its messages being a stream between
//! the leading magic and the footer. Columns are matched to the target by
//! name and converted as Parquet's are.
//!
//! Arrow's decoder trusts the lengths in a message: it reserves what a
//! compressed buffer claims to expand to and slices where a buffer claims
//! to lie. So each message is read here first, bounded by the bytes really
//! there, and its buffers checked against its body before it is decoded.

use std::io::{BufReader, Cursor, Read};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::StreamDecoder;
use datafusion::arrow::ipc::{Message, MessageHeader, root_as_message};
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::{ErrorCode, Result, StrataError};

use super::convert::block_by_name;
use super::native::{incorrect, read_array, read_bytes, read_failed, truncated};
use super::{InputBlocks, InputTarget};

/// The marker before a message's length in the current IPC framing.
const CONTINUATION: [u8; 4] = [0xff; 4];
/// The magic that starts and ends an Arrow file.
const MAGIC: &[u8] = b"ARROW1";
/// The most a compressed buffer may claim to expand to.
const MAX_BUFFER_BYTES: i64 = 1 << 30;

pub(crate) struct ArrowReader {
    target: Arc<InputTarget>,
    schema: SchemaRef,
    messages: Box<dyn Read + Send>,
    decoder: StreamDecoder,
    /// The rows of the last record batch not yet in a block.
    pending: Option<RecordBatch>,
    block_rows: usize,
    next_row: u64,
}

fn arrow_error(error: impl std::fmt::Display) -> StrataError {
    StrataError::new(
        ErrorCode::INCORRECT_DATA,
        format!("Error while reading Arrow data: {error}"),
    )
}

impl ArrowReader {
    /// `file` reads the IPC file format, otherwise the stream format.
    pub(crate) fn new(
        file: bool,
        target: Arc<InputTarget>,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Self> {
        let messages: Box<dyn Read + Send> = if file {
            Box::new(file_messages(source)?)
        } else {
            Box::new(BufReader::with_capacity(1 << 20, source))
        };
        Ok(ArrowReader {
            schema: target.schema(),
            target,
            messages,
            decoder: StreamDecoder::new(),
            pending: None,
            block_rows,
            next_row: 1,
        })
    }

    /// The next record batch of the data, or `None` at its end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        while let Some(mut message) = next_message(self.messages.as_mut())? {
            let decoder = &mut self.decoder;
            // A decoder panic on data it failed to validate is the data's fault.
            let decoded = catch_unwind(AssertUnwindSafe(|| decoder.decode(&mut message)))
                .map_err(|_| arrow_error("malformed record batch"))?;
            if let Some(batch) = decoded.map_err(arrow_error)? {
                return Ok(Some(batch));
            }
        }
        self.decoder.finish().map_err(arrow_error)?;
        Ok(None)
    }
}

impl InputBlocks for ArrowReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        let batch = loop {
            let batch = match self.pending.take() {
                Some(batch) => batch,
                None => match self.next_batch()? {
                    Some(batch) => batch,
                    None => return Ok(None),
                },
            };
            if batch.num_rows() > 0 {
                break batch;
            }
        };
        let rows = batch.num_rows().min(self.block_rows);
        if rows < batch.num_rows() {
            self.pending = Some(batch.slice(rows, batch.num_rows() - rows));
        }
        let block = block_by_name(
            &self.target,
            &self.schema,
            &batch.slice(0, rows),
            self.next_row,
        )?;
        self.next_row += rows as u64;
        Ok(Some(block))
    }
}

/// The messages of an Arrow file: what lies between its magic, padded with
/// zeros to 8 bytes or more (Arrow's Rust writer pads to 64), and its
/// footer, whose length precedes the closing magic.
fn file_messages(mut source: Box<dyn Read + Send>) -> Result<impl Read + Send> {
    let mut bytes = Vec::new();
    source.read_to_end(&mut bytes).map_err(read_failed)?;
    let len = bytes.len();
    let footer_start =
        (len >= 2 * MAGIC.len() + 4 && bytes.starts_with(MAGIC) && bytes.ends_with(MAGIC))
            .then(|| {
                let footer_len = i32::from_le_bytes(bytes[len - 10..len - 6].try_into().ok()?);
                (len - 10).checked_sub(usize::try_from(footer_len).ok()?)
            })
            .flatten()
            .filter(|&start| start >= 8)
            .ok_or_else(|| arrow_error("not an Arrow file (its magic or footer is missing)"))?;
    // A message starts with a continuation marker or a non-zero length.
    let mut start = 8;
    while start + 8 <= footer_start && bytes[start..start + 8] == [0; 8] {
        start += 8;
    }
    let mut messages = Cursor::new(bytes);
    messages.set_position(start as u64);
    Ok(messages.take((footer_start - start) as u64))
}

/// The next framed message, checked, or `None` at the end of the stream.
fn next_message(source: &mut dyn Read) -> Result<Option<Buffer>> {
    let mut first = [0u8; 4];
    let read = source.take(4).read(&mut first).map_err(read_failed)?;
    if read == 0 {
        return Ok(None);
    }
    if read < 4 {
        source
            .read_exact(&mut first[read..])
            .map_err(|_| truncated("an Arrow message length"))?;
    }
    let len_bytes = if first == CONTINUATION {
        read_array::<4>(source, "an Arrow message length")?
    } else {
        first
    };
    let len = i32::from_le_bytes(len_bytes);
    if len == 0 {
        return Ok(None);
    }
    let len = u64::try_from(len).map_err(|_| arrow_error("a message length is negative"))?;
    let metadata = read_bytes(source, len, "an Arrow message")?;
    let message = root_as_message(&metadata).map_err(arrow_error)?;
    let body_len = u64::try_from(message.bodyLength())
        .map_err(|_| arrow_error("a message body length is negative"))?;
    let body = read_bytes(source, body_len, "an Arrow message body")?;
    check_buffers(&message, &body)?;
    let mut framed = Vec::with_capacity(8 + metadata.len() + body.len());
    framed.extend_from_slice(&CONTINUATION);
    framed.extend_from_slice(&len_bytes);
    framed.extend_from_slice(&metadata);
    framed.extend_from_slice(&body);
    Ok(Some(Buffer::from_vec(framed)))
}

/// Every buffer of a batch message lies inside its body, and none claims to
/// expand past [`MAX_BUFFER_BYTES`].
fn check_buffers(message: &Message, body: &[u8]) -> Result<()> {
    let batch = match message.header_type() {
        MessageHeader::RecordBatch => message.header_as_record_batch(),
        MessageHeader::DictionaryBatch => {
            message.header_as_dictionary_batch().and_then(|d| d.data())
        }
        _ => None,
    };
    let Some(batch) = batch else {
        return Ok(());
    };
    let compressed = batch.compression().is_some();
    for buffer in batch.buffers().iter().flat_map(|b| b.iter()) {
        let bytes = usize::try_from(buffer.offset())
            .ok()
            .zip(usize::try_from(buffer.length()).ok())
            .and_then(|(start, len)| body.get(start..start.checked_add(len)?))
            .ok_or_else(|| arrow_error("a buffer lies outside its message"))?;
        if compressed && bytes.len() >= 8 {
            let claimed = i64::from_le_bytes(bytes[..8].try_into().expect("eight bytes"));
            if claimed > MAX_BUFFER_BYTES {
                return Err(incorrect(format!(
                    "A compressed Arrow buffer claims {claimed} bytes, more than the {MAX_BUFFER_BYTES} allowed"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::AsArray;
    use datafusion::arrow::datatypes::{
        DataType, Field, Int32Type, TimeUnit, TimestampSecondType, UInt64Type,
    };

    use super::*;
    use crate::OutputFormat;
    use crate::arrow_output::tests::CLICKHOUSE_ARROW;
    use crate::row_binary::tests::{sample, unhex, written};

    fn read(format: &str, fields: Vec<Field>, data: Vec<u8>) -> Result<RecordBatch> {
        let count = fields.len();
        let target = InputTarget {
            fields: fields.into_iter().map(Arc::new).collect(),
            has_default: vec![false; count],
            allow_errors: Default::default(),
        };
        crate::input::row_binary::tests::read(format, target, data)
    }

    fn sample_fields() -> Vec<Field> {
        let schema = sample().schema();
        schema.fields().iter().map(|f| f.as_ref().clone()).collect()
    }

    #[test]
    fn clickhouse_file_converts_to_the_target() {
        let utc = Some("UTC".into());
        let fields = vec![
            Field::new("dt", DataType::Timestamp(TimeUnit::Second, utc), false),
            Field::new("n", DataType::Int32, false),
            Field::new("absent", DataType::Utf8, false),
        ];
        let batch = read("Arrow", fields, unhex(CLICKHOUSE_ARROW)).unwrap();
        assert_eq!(batch.num_rows(), 2);
        assert_eq!(
            batch
                .column(0)
                .as_primitive::<TimestampSecondType>()
                .value(1),
            1
        );
        assert_eq!(batch.column(1).as_primitive::<Int32Type>().value(1), 1);
        assert_eq!(batch.column(2).as_string::<i32>().value(0), "");
    }

    #[test]
    fn every_type_round_trips_in_both_framings() {
        let expected = sample();
        for format in [OutputFormat::Arrow, OutputFormat::ArrowStream] {
            let data = written(format, &expected);
            let batch = read(format.name(), sample_fields(), data).unwrap();
            for (i, column) in expected.columns().iter().enumerate() {
                assert_eq!(batch.column(i), column, "{}: column {i}", format.name());
            }
        }
    }

    /// The offset in `stream` of the first record batch's first compressed
    /// buffer of eight bytes or more.
    fn first_compressed_buffer(stream: &[u8]) -> usize {
        let mut at = 0;
        loop {
            let len = i32::from_le_bytes(stream[at + 4..at + 8].try_into().unwrap()) as usize;
            let message = root_as_message(&stream[at + 8..at + 8 + len]).unwrap();
            let body = at + 8 + len;
            if let Some(batch) = message.header_as_record_batch() {
                let buffer = batch.buffers().unwrap().iter().find(|b| b.length() >= 8);
                return body + buffer.unwrap().offset() as usize;
            }
            at = body + message.bodyLength() as usize;
        }
    }

    #[test]
    fn lying_or_cut_data_fails_cleanly() {
        let fields = || vec![Field::new("n", DataType::UInt64, false)];
        let expected = sample();
        let stream = written(OutputFormat::ArrowStream, &expected);
        let cut = read(
            "ArrowStream",
            fields(),
            stream[..stream.len() - 40].to_vec(),
        );
        assert_eq!(cut.unwrap_err().code, ErrorCode::CANNOT_READ_ALL_DATA);
        let mut claiming = stream.clone();
        let at = first_compressed_buffer(&claiming);
        claiming[at..at + 8].copy_from_slice(&i64::MAX.to_le_bytes());
        let claimed = read("ArrowStream", fields(), claiming).unwrap_err();
        assert_eq!(
            claimed.code,
            ErrorCode::INCORRECT_DATA,
            "{}",
            claimed.message
        );
        let garbage = read("Arrow", fields(), b"PAR1xx".to_vec());
        assert_eq!(garbage.unwrap_err().code, ErrorCode::INCORRECT_DATA);
        let noise = read(
            "ArrowStream",
            fields(),
            b"\x10\x00\x00\x00garbage!garbage!".to_vec(),
        );
        assert_eq!(noise.unwrap_err().code, ErrorCode::INCORRECT_DATA);
        let empty = read("ArrowStream", fields(), Vec::new()).unwrap();
        assert_eq!(empty.num_rows(), 0);
        let n = read("ArrowStream", fields(), stream).unwrap();
        assert_eq!(n.column(0).as_primitive::<UInt64Type>().values(), &[0, 300]);
    }
}
