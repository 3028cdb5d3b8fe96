//! CSV and TabSeparated rows, in ClickHouse's dialects.
//!
//! Written here rather than with a CSV library because the dialect carries
//! meaning a generic reader drops: `\N` is NULL, an empty unquoted CSV field
//! is the column's default, TabSeparated escapes with backslashes, and a
//! quote left open at the end of the data is a truncated row, an error.

use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::record_batch::RecordBatch;
use strata_common::types::{field_type_name, is_ipv6, is_uuid};
use strata_common::{ErrorCode, Result, StrataError};

use super::cells::CellBlock;
use super::{InputBlocks, InputTarget, at_row};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Csv,
    TabSeparated,
}

impl Dialect {
    fn delimiter(self) -> u8 {
        match self {
            Dialect::Csv => b',',
            Dialect::TabSeparated => b'\t',
        }
    }

    fn delimiter_name(self) -> &'static str {
        match self {
            Dialect::Csv => "','",
            Dialect::TabSeparated => "'\\t'",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldKind {
    Unquoted,
    Quoted,
    Null,
}

/// How far a buffer of lines got: a whole record, or a quoted field still
/// open at its end (the record goes on in the next line).
enum Split {
    Complete,
    OpenQuote,
}

/// The records of the data, one at a time, split into decoded fields.
pub(crate) struct Records {
    dialect: Dialect,
    source: BufReader<Box<dyn Read + Send>>,
    line: Vec<u8>,
    /// Decoded field bytes of the current record, and each field's range.
    scratch: Vec<u8>,
    fields: Vec<(usize, usize, FieldKind)>,
    /// The current record is read again by the next `read_record`.
    held: bool,
}

pub(crate) struct DelimitedReader {
    records: Records,
    block: CellBlock,
    block_rows: usize,
    /// For each field of a row, the target column it fills (None: skipped).
    mapping: Vec<Option<usize>>,
    /// Whether each target column takes an empty field as a value (a
    /// non-Nullable string's `''`) rather than as omitted.
    keeps_empty: Vec<bool>,
}

impl DelimitedReader {
    pub(crate) fn new(
        dialect: Dialect,
        names: bool,
        types: bool,
        target: Arc<InputTarget>,
        source: Box<dyn Read + Send>,
        block_rows: usize,
    ) -> Result<Self> {
        let keeps_empty = target
            .fields
            .iter()
            .map(|f| {
                // A Nullable string's default, which an empty field stands for, is NULL.
                matches!(f.data_type(), DataType::Utf8 | DataType::FixedSizeBinary(_))
                    && !f.is_nullable()
                    && !is_uuid(f)
                    && !is_ipv6(f)
            })
            .collect();
        let mut reader = DelimitedReader {
            records: Records::new(dialect, source),
            block: CellBlock::new(Arc::clone(&target)),
            block_rows,
            mapping: (0..target.fields.len()).map(Some).collect(),
            keeps_empty,
        };
        if !names {
            reader.skip_matching_header(&target)?;
        } else {
            let records = &mut reader.records;
            if !records.read_record(0)? {
                return Ok(reader);
            }
            let mut mapping = Vec::with_capacity(records.len());
            for field in 0..records.len() {
                let name = String::from_utf8_lossy(records.field(field).0);
                let column = target.position(&name);
                if column.is_some() && mapping.contains(&column) {
                    return Err(StrataError::new(
                        ErrorCode::INCORRECT_DATA,
                        format!("Duplicate column name {name} in the data's header"),
                    ));
                }
                mapping.push(column);
            }
            reader.mapping = mapping;
            if types {
                reader.records.read_record(0)?;
            }
        }
        Ok(reader)
    }

    /// ClickHouse's header detection where the format has no names: a
    /// first record that spells the columns' names (and a second their
    /// types) is a header, not data.
    fn skip_matching_header(&mut self, target: &InputTarget) -> Result<()> {
        let spells = |records: &Records, words: &dyn Fn(usize) -> String| {
            records.len() <= target.fields.len()
                && (0..records.len()).all(|i| {
                    let (text, kind) = records.field(i);
                    kind != FieldKind::Null && text == words(i).as_bytes()
                })
        };
        let name = |i: usize| target.fields[i].name().clone();
        let type_name = |i: usize| field_type_name(&target.fields[i]);
        if !self.records.read_record(0)? {
            return Ok(());
        }
        if !spells(&self.records, &name) {
            self.records.hold();
            return Ok(());
        }
        // Columns the header leaves out take their defaults.
        self.mapping = (0..self.records.len()).map(Some).collect();
        if self.records.read_record(0)? && !spells(&self.records, &type_name) {
            self.records.hold();
        }
        Ok(())
    }
}

impl Records {
    pub(crate) fn new(dialect: Dialect, source: Box<dyn Read + Send>) -> Self {
        Records {
            dialect,
            source: BufReader::with_capacity(1 << 20, source),
            line: Vec::new(),
            scratch: Vec::new(),
            fields: Vec::new(),
            held: false,
        }
    }

    /// Makes the next [`Records::read_record`] return the current record again.
    fn hold(&mut self) {
        self.held = true;
    }

    /// The number of fields of the current record.
    pub(crate) fn len(&self) -> usize {
        self.fields.len()
    }

    /// Field `index` of the current record: its decoded bytes and kind.
    pub(crate) fn field(&self, index: usize) -> (&[u8], FieldKind) {
        let (start, end, kind) = self.fields[index];
        (&self.scratch[start..end], kind)
    }

    /// Reads the next non-empty record into `scratch` and `fields`; false at
    /// the end of the data.
    pub(crate) fn read_record(&mut self, row: u64) -> Result<bool> {
        if std::mem::take(&mut self.held) {
            return Ok(true);
        }
        loop {
            self.line.clear();
            let mut at_end = false;
            loop {
                let read = self.source.read_until(b'\n', &mut self.line).map_err(|e| {
                    StrataError::new(
                        ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
                        format!("Cannot read the data: {e}"),
                    )
                })?;
                if read == 0 {
                    at_end = true;
                }
                if self.line.is_empty() {
                    return Ok(false);
                }
                self.scratch.clear();
                self.fields.clear();
                let split = match self.dialect {
                    Dialect::Csv => split_csv(&self.line, &mut self.scratch, &mut self.fields),
                    Dialect::TabSeparated => {
                        split_tab_separated(&self.line, &mut self.scratch, &mut self.fields);
                        Ok(Split::Complete)
                    }
                };
                match split {
                    Ok(Split::Complete) => break,
                    Ok(Split::OpenQuote) if at_end => {
                        return Err(at_row(
                            ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                            "Cannot parse input: a quoted value is not closed at end of stream",
                            row.max(1),
                        ));
                    }
                    Ok(Split::OpenQuote) => continue,
                    Err(message) => {
                        return Err(at_row(
                            ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                            format!("Cannot parse input: {message}"),
                            row.max(1),
                        ));
                    }
                }
            }
            let blank = self.fields.len() == 1
                && self.fields[0].0 == self.fields[0].1
                && self.fields[0].2 == FieldKind::Unquoted;
            if !blank {
                return Ok(true);
            }
        }
    }
}

impl InputBlocks for DelimitedReader {
    fn next_block(&mut self) -> Result<Option<RecordBatch>> {
        while !self.block.is_full(self.block_rows) {
            let row = self.block.next_row_number();
            if !self.records.read_record(row)? {
                break;
            }
            let expected = self.mapping.len();
            let dialect = self.records.dialect;
            let found = self.records.len();
            if found < expected {
                self.block.skip_row(at_row(
                    ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
                    format!(
                        "Cannot parse input: expected {} before end of line: the row has {} columns, {expected} expected. It's like your data has less columns than expected",
                        dialect.delimiter_name(),
                        found
                    ),
                    row,
                ))?;
                continue;
            }
            if found > expected {
                self.block.skip_row(at_row(
                    ErrorCode::INCORRECT_DATA,
                    format!(
                        "Expected end of line: the row has {found} columns, {expected} expected. It's like your data has more columns than expected"
                    ),
                    row,
                ))?;
                continue;
            }
            for (field, &column) in self.mapping.iter().enumerate() {
                let Some(column) = column else { continue };
                let (text, kind) = self.records.field(field);
                match kind {
                    FieldKind::Null => self.block.push_null(column),
                    FieldKind::Unquoted
                        if text.is_empty()
                            && dialect == Dialect::Csv
                            && !self.keeps_empty[column] =>
                    {
                        self.block.push_omitted(column)
                    }
                    _ => self.block.push_text(column, text),
                }
            }
            self.block.end_row();
        }
        if self.block.rows() == 0 {
            return Ok(None);
        }
        self.block.finish().map(Some)
    }
}

/// Splits a CSV record: fields separated by commas, optionally in double
/// quotes (a doubled quote inside is one quote), ended by `\n` or `\r\n`.
fn split_csv(
    line: &[u8],
    scratch: &mut Vec<u8>,
    fields: &mut Vec<(usize, usize, FieldKind)>,
) -> std::result::Result<Split, String> {
    let mut pos = 0;
    loop {
        let start = scratch.len();
        let kind = if line.get(pos) == Some(&b'"') {
            pos += 1;
            loop {
                match line.get(pos) {
                    None => return Ok(Split::OpenQuote),
                    Some(b'"') if line.get(pos + 1) == Some(&b'"') => {
                        scratch.push(b'"');
                        pos += 2;
                    }
                    Some(b'"') => {
                        pos += 1;
                        break;
                    }
                    Some(&c) => {
                        scratch.push(c);
                        pos += 1;
                    }
                }
            }
            FieldKind::Quoted
        } else {
            while let Some(&c) = line.get(pos) {
                if c == b',' || c == b'\n' {
                    break;
                }
                scratch.push(c);
                pos += 1;
            }
            if line.get(pos) != Some(&b',') && scratch.last() == Some(&b'\r') {
                scratch.pop();
            }
            if &scratch[start..] == b"\\N" {
                FieldKind::Null
            } else {
                FieldKind::Unquoted
            }
        };
        fields.push((start, scratch.len(), kind));
        match line.get(pos) {
            None | Some(b'\n') => return Ok(Split::Complete),
            Some(b'\r') if matches!(line.get(pos + 1), None | Some(b'\n')) => {
                return Ok(Split::Complete);
            }
            Some(b',') => pos += 1,
            Some(&c) => {
                return Err(format!(
                    "expected ',' after a quoted value, found '{}'",
                    (c as char).escape_default()
                ));
            }
        }
    }
}

/// Splits a TabSeparated line: fields separated by tabs, `\N` alone is NULL,
/// and backslash escapes (`\t`, `\n`, `\\`, ...) are decoded.
fn split_tab_separated(
    line: &[u8],
    scratch: &mut Vec<u8>,
    fields: &mut Vec<(usize, usize, FieldKind)>,
) {
    let mut body = line.strip_suffix(b"\n").unwrap_or(line);
    body = body.strip_suffix(b"\r").unwrap_or(body);
    for raw in body.split(|&b| b == Dialect::TabSeparated.delimiter()) {
        let start = scratch.len();
        if raw == b"\\N" {
            fields.push((start, start, FieldKind::Null));
            continue;
        }
        let mut bytes = raw.iter();
        while let Some(&b) = bytes.next() {
            if b != b'\\' {
                scratch.push(b);
                continue;
            }
            match bytes.next() {
                Some(b'n') => scratch.push(b'\n'),
                Some(b't') => scratch.push(b'\t'),
                Some(b'r') => scratch.push(b'\r'),
                Some(b'0') => scratch.push(0),
                Some(b'b') => scratch.push(8),
                Some(b'f') => scratch.push(12),
                Some(&other) => scratch.push(other),
                None => scratch.push(b'\\'),
            }
        }
        fields.push((start, scratch.len(), FieldKind::Unquoted));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(line: &str) -> (Vec<String>, bool) {
        let mut scratch = Vec::new();
        let mut fields = Vec::new();
        let split = split_csv(line.as_bytes(), &mut scratch, &mut fields).unwrap();
        let texts = fields
            .iter()
            .map(|&(s, e, k)| match k {
                FieldKind::Null => "NULL".to_string(),
                _ => String::from_utf8(scratch[s..e].to_vec()).unwrap(),
            })
            .collect();
        (texts, matches!(split, Split::Complete))
    }

    #[test]
    fn csv_fields() {
        assert_eq!(
            csv("1,\"a,b\",\\N\n"),
            (vec!["1".into(), "a,b".into(), "NULL".into()], true)
        );
        assert_eq!(
            csv("\"say \"\"hi\"\"\",\r\n"),
            (vec!["say \"hi\"".into(), "".into()], true)
        );
        assert!(
            !csv("1,\"open\n").1,
            "a quote left open goes on in the next line"
        );
        assert!(split_csv(b"\"a\"b\n", &mut Vec::new(), &mut Vec::new()).is_err());
    }

    #[test]
    fn tab_separated_escapes() {
        let mut scratch = Vec::new();
        let mut fields = Vec::new();
        split_tab_separated(b"a\\tb\t\\N\tc\\\\\n", &mut scratch, &mut fields);
        assert_eq!(fields.len(), 3);
        assert_eq!(&scratch[fields[0].0..fields[0].1], b"a\tb");
        assert_eq!(fields[1].2, FieldKind::Null);
        assert_eq!(&scratch[fields[2].0..fields[2].1], b"c\\");
    }
}
