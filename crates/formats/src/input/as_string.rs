//! Formats that read each piece of the data, as it is, into one String
//! column: a line (LineAsString), a JSON object (JSONAsString, objects one
//! after another or in one array), or the whole data (RawBLOB).

use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::{ErrorCode, Result, StrataError};

use super::cells::CellBlock;
use super::{InputBlocks, InputTarget, at_row};

/// What one row of the data is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Line,
    JsonObject,
    Whole,
}

impl Piece {
    /// The one column ClickHouse names for data read without a structure.
    pub fn column_name(self) -> &'static str {
        match self {
            Piece::Line => "line",
            Piece::JsonObject => "json",
            Piece::Whole => "raw_blob",
        }
    }
}

pub(crate) struct AsStringReader {
    piece: Piece,
    source: BufReader<Box<dyn Read + Send>>,
    block: CellBlock,
    block_rows: usize,
    text: Vec<u8>,
    finished: bool,
}

impl AsStringReader {
    pub(crate) fn new(
        piece: Piece,
        target: Arc<InputTarget>,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Self> {
        let one_string = matches!(target.fields.as_slice(),
            [field] if matches!(field.data_type(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View));
        if !one_string {
            return Err(StrataError::new(
                ErrorCode::INCORRECT_QUERY,
                "This input format is only suitable for tables with a single column of type String",
            ));
        }
        Ok(AsStringReader {
            piece,
            source: BufReader::with_capacity(1 << 20, source),
            block: CellBlock::new(target),
            block_rows,
            text: Vec::new(),
            finished: false,
        })
    }

    /// Reads the next piece into `text`; false at the end of the data.
    fn read_piece(&mut self, row: u64) -> Result<bool> {
        self.text.clear();
        match self.piece {
            Piece::Line => {
                let read = self
                    .source
                    .read_until(b'\n', &mut self.text)
                    .map_err(read_error)?;
                if self.text.last() == Some(&b'\n') {
                    self.text.pop();
                }
                Ok(read > 0)
            }
            Piece::Whole => {
                self.source
                    .read_to_end(&mut self.text)
                    .map_err(read_error)?;
                self.finished = true;
                Ok(!self.text.is_empty())
            }
            Piece::JsonObject => self.read_object(row),
        }
    }

    /// The next top-level `{...}`, past whitespace and the brackets and
    /// commas of an enclosing array, its text as written.
    fn read_object(&mut self, row: u64) -> Result<bool> {
        loop {
            match self.peek()? {
                None => return Ok(false),
                Some(b'{') => break,
                Some(b) if b.is_ascii_whitespace() || matches!(b, b'[' | b']' | b',') => {
                    self.source.consume(1)
                }
                Some(_) => {
                    return Err(at_row(
                        ErrorCode::INCORRECT_DATA,
                        "JSON object must begin with '{'",
                        row,
                    ));
                }
            }
        }
        let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
        while let Some(b) = self.peek()? {
            self.source.consume(1);
            self.text.push(b);
            match b {
                _ if escaped => escaped = false,
                b'\\' if quoted => escaped = true,
                b'"' => quoted = !quoted,
                b'{' | b'[' if !quoted => depth += 1,
                b'}' | b']' if !quoted => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(true);
                    }
                }
                _ => {}
            }
        }
        Err(at_row(
            ErrorCode::CANNOT_READ_ALL_DATA,
            "Unexpected end of stream while reading a JSON object",
            row,
        ))
    }

    fn peek(&mut self) -> Result<Option<u8>> {
        Ok(self.source.fill_buf().map_err(read_error)?.first().copied())
    }
}

fn read_error(error: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
        format!("Cannot read the data: {error}"),
    )
}

impl InputBlocks for AsStringReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        while !self.finished && !self.block.is_full(self.block_rows) {
            let row = self.block.next_row_number();
            if !self.read_piece(row)? {
                self.finished = true;
                break;
            }
            self.block.push_text(0, &self.text);
            self.block.end_row();
        }
        if self.block.rows() == 0 {
            return Ok(None);
        }
        self.block.finish().map(Some)
    }
}
