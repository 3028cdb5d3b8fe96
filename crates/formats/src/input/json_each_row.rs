//! JSONEachRow: one JSON object per row, keys naming columns. Keys that name
//! no column are skipped and missing keys take the column's default, as
//! ClickHouse does by default.

use std::io::{BufReader, Read};
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use serde_json::Value;
use strata_common::{ErrorCode, Result};

use super::cells::CellBlock;
use super::{InputBlocks, InputTarget, at_row};

type ObjectStream = serde_json::StreamDeserializer<
    'static,
    serde_json::de::IoRead<BufReader<Box<dyn Read + Send>>>,
    Value,
>;

pub(crate) struct JsonEachRowReader {
    target: Arc<InputTarget>,
    objects: ObjectStream,
    block: CellBlock,
    block_rows: usize,
}

impl JsonEachRowReader {
    pub(crate) fn new(
        target: Arc<InputTarget>,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Self {
        let reader = BufReader::with_capacity(1 << 20, source);
        JsonEachRowReader {
            block: CellBlock::new(Arc::clone(&target)),
            target,
            objects: serde_json::Deserializer::from_reader(reader).into_iter(),
            block_rows,
        }
    }
}

impl InputBlocks for JsonEachRowReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        while !self.block.is_full(self.block_rows) {
            let row = self.block.next_row_number();
            let object = match self.objects.next() {
                None => break,
                Some(Ok(Value::Object(object))) => object,
                Some(Ok(other)) => {
                    self.block.skip_row(at_row(
                        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                        format!(
                            "Cannot parse input: expected '{{' before: '{}'",
                            other.to_string().chars().take(40).collect::<String>()
                        ),
                        row,
                    ))?;
                    continue;
                }
                Some(Err(e)) if e.is_eof() => {
                    return Err(at_row(
                        ErrorCode::CANNOT_READ_ALL_DATA,
                        "Unexpected end of stream while parsing JSONEachRow format",
                        row,
                    ));
                }
                Some(Err(e)) => {
                    return Err(at_row(
                        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                        format!("Cannot parse input: {e}"),
                        row,
                    ));
                }
            };
            match self.fill_row(&object, row) {
                Ok(()) => self.block.end_row(),
                Err(error) => self.block.skip_row(error)?,
            }
        }
        if self.block.rows() == 0 {
            return Ok(None);
        }
        self.block.finish().map(Some)
    }
}

impl JsonEachRowReader {
    /// The object's values into the block's current row.
    fn fill_row(&mut self, object: &serde_json::Map<String, Value>, row: u64) -> Result<()> {
        for (key, value) in object {
            let Some(column) = self.target.position(key) else {
                continue;
            };
            if self.block.has_value(column) {
                return Err(at_row(
                    ErrorCode::INCORRECT_DATA,
                    format!("Duplicate field found while parsing JSONEachRow format: {key}"),
                    row,
                ));
            }
            match value {
                Value::Null => self.block.push_null(column),
                Value::String(text) => self.block.push_text(column, text.as_bytes()),
                Value::Bool(b) => self
                    .block
                    .push_text(column, if *b { b"true" } else { b"false" }),
                other => self.block.push_text(column, other.to_string().as_bytes()),
            }
        }
        Ok(())
    }
}
