//! A block of text cells, one column per target column, converted to typed
//! arrays when the block is full.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, StringArray};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::compute::filter;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::{ErrorCode, Result, StrataError};

use super::{AllowErrors, InputTarget, MAX_BLOCK_BYTES, at_row, convert};

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
    /// Rows of this block skipped for errors, and such rows in all blocks.
    skipped: u64,
    errors: u64,
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
            skipped: 0,
            errors: 0,
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
        self.skipped = 0;
    }

    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// The row number the next row will have.
    pub(crate) fn next_row_number(&self) -> u64 {
        self.first_row + self.rows as u64 + self.skipped
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

    /// Drops the current row's cells after `error` where
    /// `input_format_allow_errors_*` allow it; else fails with `error`.
    pub(crate) fn skip_row(&mut self, error: StrataError) -> Result<()> {
        let rows = self.rows;
        for column in &mut self.columns {
            column.offsets.truncate(rows + 1);
            column.bytes.truncate(column.offsets[rows] as usize);
            column.kinds.truncate(rows);
        }
        self.tolerate(error, 1)
    }

    /// Counts `count` more skipped rows; `error` once they are too many.
    fn tolerate(&mut self, error: StrataError, count: u64) -> Result<()> {
        self.skipped += count;
        self.errors += count;
        let read = self.next_row_number() - 1;
        match self.target.allow_errors.allows(self.errors, read) {
            true => Ok(()),
            false => Err(error),
        }
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
        let mut texts = self.texts()?;
        let mut kinds: Vec<Vec<Cell>> = self
            .columns
            .iter_mut()
            .map(|c| std::mem::take(&mut c.kinds))
            .collect();
        let arrays = match self.convert(&texts) {
            Ok(arrays) => arrays,
            Err(error) if self.target.allow_errors != AllowErrors::default() => {
                // Only now, row by row: which rows fail, to skip them.
                let keep = self.parsable_rows(&texts);
                let bad = keep.false_count();
                self.rows -= bad;
                self.tolerate(error, bad as u64)?;
                for (text, kind) in texts.iter_mut().zip(&mut kinds) {
                    *text = filter(text, &keep)?;
                    let mut rows = keep.iter();
                    kind.retain(|_| rows.next() == Some(Some(true)));
                }
                self.convert(&texts)?
            }
            Err(error) => return Err(error),
        };
        let masks = self.masks(&kinds);
        let columns = arrays.into_iter().chain(masks).collect();
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), columns)?;
        self.first_row += self.rows as u64 + self.skipped;
        self.reset();
        Ok(batch)
    }

    /// Each column's cells as strings, NULL where a cell holds no text.
    fn texts(&mut self) -> Result<Vec<ArrayRef>> {
        let mut texts: Vec<ArrayRef> = Vec::with_capacity(self.columns.len());
        for (index, column) in self.columns.iter_mut().enumerate() {
            if let Err(invalid_at) = std::str::from_utf8(&column.bytes) {
                let offset = invalid_at.valid_up_to() as i32;
                let row = column.offsets.partition_point(|&o| o <= offset) - 1;
                return Err(at_row(
                    ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                    format!(
                        "Cannot parse input: invalid UTF-8 in column {index}, name: {}",
                        self.target.fields[index].name()
                    ),
                    self.first_row + row as u64,
                ));
            }
            let nulls = NullBuffer::from_iter(column.kinds.iter().map(|k| *k == Cell::Text));
            texts.push(Arc::new(StringArray::try_new(
                OffsetBuffer::new(ScalarBuffer::from(std::mem::take(&mut column.offsets))),
                std::mem::take(&mut column.bytes).into(),
                Some(nulls),
            )?));
        }
        Ok(texts)
    }

    fn convert(&self, texts: &[ArrayRef]) -> Result<Vec<ArrayRef>> {
        let fields = self.target.fields.iter().enumerate();
        fields
            .zip(texts)
            .map(|((index, field), text)| convert::to_target(text, field, index, self.first_row))
            .collect()
    }

    /// True for each row whose every cell converts.
    fn parsable_rows(&self, texts: &[ArrayRef]) -> BooleanArray {
        let rows = texts.first().map_or(0, |t| t.len());
        (0..rows)
            .map(|row| {
                let converts = self.target.fields.iter().enumerate().zip(texts).all(
                    |((index, field), text)| {
                        convert::to_target(&text.slice(row, 1), field, index, 0).is_ok()
                    },
                );
                Some(converts)
            })
            .collect()
    }

    /// For each column with a default, true where its value was omitted.
    fn masks(&self, kinds: &[Vec<Cell>]) -> Vec<ArrayRef> {
        let mut masks: Vec<ArrayRef> = Vec::new();
        for (index, kinds) in kinds.iter().enumerate() {
            if !self.target.has_default[index] {
                continue;
            }
            let field = &self.target.fields[index];
            // A NULL for a column that cannot hold one takes the column's
            // default, as ClickHouse's input_format_null_as_default does.
            let defaulted = |kind: &Cell| match kind {
                Cell::Text => false,
                Cell::Null => !field.is_nullable(),
                Cell::Omitted => true,
            };
            let mask: BooleanArray = kinds.iter().map(|k| Some(defaulted(k))).collect();
            masks.push(Arc::new(mask));
        }
        masks
    }
}
