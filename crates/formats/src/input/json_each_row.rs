//! JSONEachRow: one JSON object per row, keys naming columns. Keys that name
//! no column are skipped and missing keys take the column's default, as
//! ClickHouse does by default. JSONCompactEachRow: one JSON array per row,
//! values in the columns' order, or in the order of a first array of names
//! (`WithNames`), which a second array of types may follow (`AndTypes`).
//! Rows may be separated by commas, and JSONEachRow's rows may be wrapped in
//! one array (`[{...}, {...}]`), as ClickHouse reads them.

use std::io::{BufReader, Read};
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use serde_json::Value;
use strata_common::{ErrorCode, Result};

use super::cells::CellBlock;
use super::{InputBlocks, InputTarget, at_row};

type ObjectStream =
    serde_json::StreamDeserializer<'static, serde_json::de::IoRead<BufReader<RowsOnly>>, Value>;

/// How a row is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Objects,
    Arrays { names: bool, types: bool },
}

pub(crate) struct JsonEachRowReader {
    target: Arc<InputTarget>,
    layout: Layout,
    objects: ObjectStream,
    block: CellBlock,
    block_rows: usize,
    /// For each value of an array row, the target column it fills.
    mapping: Vec<Option<usize>>,
}

impl JsonEachRowReader {
    pub(crate) fn new(
        layout: Layout,
        target: Arc<InputTarget>,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Self> {
        let rows = RowsOnly::new(source, layout == Layout::Objects);
        let reader = BufReader::with_capacity(1 << 20, rows);
        let mut reader = JsonEachRowReader {
            block: CellBlock::new(Arc::clone(&target)),
            mapping: (0..target.fields.len()).map(Some).collect(),
            target,
            layout,
            objects: serde_json::Deserializer::from_reader(reader).into_iter(),
            block_rows,
        };
        if let Layout::Arrays { names: true, types } = layout {
            if let Some(names) = reader.header_row()? {
                reader.mapping = names
                    .iter()
                    .map(|name| reader.target.position(&text_of(name)))
                    .collect();
            }
            if types {
                reader.header_row()?;
            }
        }
        Ok(reader)
    }

    /// A header array (names or types); none at the end of the data.
    fn header_row(&mut self) -> Result<Option<Vec<Value>>> {
        match self.objects.next() {
            None => Ok(None),
            Some(Ok(Value::Array(values))) => Ok(Some(values)),
            Some(Ok(_)) | Some(Err(_)) => Err(at_row(
                ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                "Cannot parse input: expected '[' for the header row",
                0,
            )),
        }
    }
}

/// The input without what ClickHouse allows between rows and serde_json's
/// stream of values does not: commas, and for object rows the brackets of
/// an array around them all.
pub(crate) struct RowsOnly {
    source: Box<dyn Read + Send>,
    unwrap_array: bool,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl RowsOnly {
    pub(crate) fn new(source: Box<dyn Read + Send>, unwrap_array: bool) -> RowsOnly {
        RowsOnly {
            source,
            unwrap_array,
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }

    /// Whether `byte`, the next byte of the input, is kept.
    fn keeps(&mut self, byte: u8) -> bool {
        if self.in_string {
            match (self.escaped, byte) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                _ => {}
            }
            return true;
        }
        match byte {
            b'"' => self.in_string = true,
            b',' if self.depth == 0 => return false,
            b'[' | b']' if self.depth == 0 && self.unwrap_array => return false,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        true
    }
}

impl Read for RowsOnly {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let read = self.source.read(buf)?;
            if read == 0 {
                return Ok(0);
            }
            let mut kept = 0;
            for i in 0..read {
                if self.keeps(buf[i]) {
                    buf[kept] = buf[i];
                    kept += 1;
                }
            }
            // Zero would read as the end of the input.
            if kept > 0 {
                return Ok(kept);
            }
        }
    }
}

/// A JSON value as the text a cell holds: a string's contents, else its JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

impl InputBlocks for JsonEachRowReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        while !self.block.is_full(self.block_rows) {
            let row = self.block.next_row_number();
            let filled = match (self.objects.next(), self.layout) {
                (None, _) => break,
                (Some(Ok(Value::Object(object))), Layout::Objects) => self.fill_row(&object, row),
                (Some(Ok(Value::Array(values))), Layout::Arrays { .. }) => {
                    self.fill_array_row(&values, row)
                }
                (Some(Ok(other)), layout) => {
                    let expected = if layout == Layout::Objects { '{' } else { '[' };
                    self.block.skip_row(at_row(
                        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                        format!(
                            "Cannot parse input: expected '{expected}' before: '{}'",
                            other.to_string().chars().take(40).collect::<String>()
                        ),
                        row,
                    ))?;
                    continue;
                }
                (Some(Err(e)), _) if e.is_eof() => {
                    return Err(at_row(
                        ErrorCode::CANNOT_READ_ALL_DATA,
                        "Unexpected end of stream while parsing JSONEachRow format",
                        row,
                    ));
                }
                (Some(Err(e)), _) => {
                    return Err(at_row(
                        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                        format!("Cannot parse input: {e}"),
                        row,
                    ));
                }
            };
            match filled {
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
            self.push_value(column, value);
        }
        Ok(())
    }

    /// The array's values into the block's current row, by position.
    fn fill_array_row(&mut self, values: &[Value], row: u64) -> Result<()> {
        if values.len() != self.mapping.len() {
            return Err(at_row(
                ErrorCode::INCORRECT_DATA,
                format!(
                    "Cannot parse input: the row has {} values, {} expected",
                    values.len(),
                    self.mapping.len()
                ),
                row,
            ));
        }
        for (value, column) in values.iter().zip(self.mapping.clone()) {
            if let Some(column) = column {
                self.push_value(column, value);
            }
        }
        Ok(())
    }

    fn push_value(&mut self, column: usize, value: &Value) {
        match value {
            Value::Null => self.block.push_null(column),
            Value::String(text) => self.block.push_text(column, text.as_bytes()),
            Value::Bool(b) => self
                .block
                .push_text(column, if *b { b"true" } else { b"false" }),
            other => self.block.push_text(column, other.to_string().as_bytes()),
        }
    }
}
