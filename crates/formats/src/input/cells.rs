//! A block of text cells, one column per target column, converted to typed
//! arrays when the block is full.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, StringArray};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::{ErrorCode, Result};

use super::{InputTarget, MAX_BLOCK_BYTES, at_row, convert};

/// What a row gave for one column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Text,
    /// An explicit NULL (`\N`, JSON `null`).
    Null,
    /// No value: a missing JSON key, an empty CSV field of a non-string
    /// column, a column the data's header does not name.
    Omitted,
}

#[derive(Default)]
struct CellColumn {
    bytes: Vec<u8>,
    /// Starts at 0; one more entry per cell.
    offsets: Vec<i32>,
    kinds: Vec<Cell>,
}

impl CellColumn {
    fn push(&mut self, kind: Cell, text: &[u8]) {
        self.bytes.extend_from_slice(text);
        self.offsets.push(self.bytes.len() as i32);
        self.kinds.push(kind);
    }
}

pub(crate) struct CellBlock {
    target: Arc<InputTarget>,
    schema: SchemaRef,
    columns: Vec<CellColumn>,
    rows: usize,
    /// The 1-based number of the block's first row in the whole input.
    first_row: u64,
}

impl CellBlock {
    pub(crate) fn new(target: Arc<InputTarget>) -> Self {
        let mut block = CellBlock {
            columns: (0..target.fields.len())
                .map(|_| CellColumn::default())
                .collect(),
            schema: target.schema(),
            target,
            rows: 0,
            first_row: 1,
        };
        block.reset();
        block
    }

    fn reset(&mut self) {
        for column in &mut self.columns {
            column.bytes.clear();
            column.offsets.clear();
            column.offsets.push(0);
            column.kinds.clear();
        }
        self.rows = 0;
    }

    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// The row number the next row will have.
    pub(crate) fn next_row_number(&self) -> u64 {
        self.first_row + self.rows as u64
    }

    pub(crate) fn is_full(&self, block_rows: usize) -> bool {
        self.rows >= block_rows
            || self.columns.iter().map(|c| c.bytes.len()).sum::<usize>() >= MAX_BLOCK_BYTES
    }

    /// Whether the current row already has a value for `column`.
    pub(crate) fn has_value(&self, column: usize) -> bool {
        self.columns[column].kinds.len() > self.rows
    }

    pub(crate) fn push_text(&mut self, column: usize, text: &[u8]) {
        debug_assert!(!self.has_value(column));
        self.columns[column].push(Cell::Text, text);
    }

    pub(crate) fn push_null(&mut self, column: usize) {
        debug_assert!(!self.has_value(column));
        self.columns[column].push(Cell::Null, b"");
    }

    pub(crate) fn push_omitted(&mut self, column: usize) {
        debug_assert!(!self.has_value(column));
        self.columns[column].push(Cell::Omitted, b"");
    }

    /// Ends the current row; columns it gave no value count as omitted.
    pub(crate) fn end_row(&mut self) {
        for column in &mut self.columns {
            if column.kinds.len() == self.rows {
                column.push(Cell::Omitted, b"");
            }
            assert_eq!(column.kinds.len(), self.rows + 1, "one cell per row");
        }
        self.rows += 1;
    }

    /// Converts the block to the target's schema and starts an empty one.
    pub(crate) fn finish(&mut self) -> Result<RecordBatch> {
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.columns.len());
        let mut masks: Vec<ArrayRef> = Vec::new();
        for (index, column) in self.columns.iter_mut().enumerate() {
            let field = &self.target.fields[index];
            if let Err(invalid_at) = std::str::from_utf8(&column.bytes) {
                let offset = invalid_at.valid_up_to() as i32;
                let row = column.offsets.partition_point(|&o| o <= offset) - 1;
                return Err(at_row(
                    ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                    format!(
                        "Cannot parse input: invalid UTF-8 in column {index}, name: {}",
                        field.name()
                    ),
                    self.first_row + row as u64,
                ));
            }
            let nulls = NullBuffer::from_iter(column.kinds.iter().map(|k| *k == Cell::Text));
            let texts = StringArray::try_new(
                OffsetBuffer::new(ScalarBuffer::from(std::mem::take(&mut column.offsets))),
                std::mem::take(&mut column.bytes).into(),
                Some(nulls),
            )?;
            // A NULL for a column that cannot hold one takes the column's
            // default, as ClickHouse's input_format_null_as_default does.
            let defaulted = |kind: &Cell| match kind {
                Cell::Text => false,
                Cell::Null => !field.is_nullable(),
                Cell::Omitted => true,
            };
            arrays.push(convert::to_target(
                &(Arc::new(texts) as ArrayRef),
                field,
                index,
                self.first_row,
            )?);
            if self.target.has_default[index] {
                let mask: BooleanArray = column.kinds.iter().map(|k| Some(defaulted(k))).collect();
                masks.push(Arc::new(mask));
            }
        }
        arrays.extend(masks);
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), arrays)?;
        self.first_row += self.rows as u64;
        self.reset();
        Ok(batch)
    }
}
