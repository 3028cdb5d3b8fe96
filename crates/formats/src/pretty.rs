//! Pretty, PrettyCompact, PrettySpace and Vertical: human-oriented layouts,
//! with box drawing or aligned with spaces.
//!
//! Column widths depend on every value, so rows are rendered to text as they
//! arrive and laid out at the end, up to `output_format_pretty_max_rows`. As
//! the whole result is one table, the MonoBlock variants are the same layouts;
//! Strata writes no colours, so the NoEscapes variants are too.

use std::io::Write;

use datafusion::arrow::datatypes::{Field, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;

use strata_common::types::{enum_type, is_ipv4};

use crate::value::{Style, ValueOptions, aligns_right, write_value};
use crate::{FormatOptions, OutputFormat, ResultWriter, Statistics};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Pretty: heavy header box, a rule between rows.
    Grid,
    /// PrettyCompact: names in the top border, no rules between rows.
    Compact,
    /// PrettySpace: no borders, columns three spaces apart.
    Space,
}

impl Layout {
    pub(crate) fn of(format: OutputFormat) -> Self {
        use OutputFormat::*;
        match format {
            PrettyCompact
            | PrettyCompactMonoBlock
            | PrettyCompactNoEscapes
            | PrettyCompactNoEscapesMonoBlock => Layout::Compact,
            PrettySpace
            | PrettySpaceMonoBlock
            | PrettySpaceNoEscapes
            | PrettySpaceNoEscapesMonoBlock => Layout::Space,
            _ => Layout::Grid,
        }
    }
}

/// Whether ClickHouse follows a value of `field` with its size in words:
/// numbers, not the addresses and enums stored as numbers.
fn is_number(field: &Field) -> bool {
    field.data_type().is_numeric() && !is_ipv4(field) && enum_type(field).is_none()
}

/// ` -- 1.23 million` after a number shown as `cell` that is larger than
/// `threshold`; none for 0, and none from 1e17 to 2^64, where most values
/// are hashes.
fn number_tip(cell: &str, threshold: u64) -> String {
    let Ok(value) = cell.parse::<f64>() else {
        return String::new();
    };
    let size = value.abs();
    let hash_like = size > 1e17 && size < 1.844675e19;
    if threshold == 0 || !value.is_finite() || size <= threshold as f64 || hash_like {
        return String::new();
    }
    format!(" -- {}", strata_common::readable::readable_quantity(value))
}

fn width(text: &str) -> usize {
    strata_common::visible_width::visible_width(text)
}

fn render_rows(
    batch: &RecordBatch,
    values: ValueOptions,
    limit: usize,
    rows: &mut Vec<Vec<String>>,
) -> usize {
    let mut skipped = 0;
    for row in 0..batch.num_rows() {
        if rows.len() >= limit {
            skipped += 1;
            continue;
        }
        let cells = batch
            .columns()
            .iter()
            .map(|column| {
                let mut cell = String::new();
                write_value(column.as_ref(), row, Style::Raw, values, &mut cell);
                cell
            })
            .collect();
        rows.push(cells);
    }
    skipped
}

/// A value's lines as Pretty formats show them: a line break that ends the
/// value starts no line of its own, but still marks the line it ends.
struct Lines<'a> {
    texts: Vec<&'a str>,
    /// The value ends with a line break.
    trailing_break: bool,
}

impl<'a> Lines<'a> {
    fn of(cell: &'a str) -> Self {
        let mut texts: Vec<&str> = cell.split('\n').collect();
        let trailing_break = texts.len() > 1 && texts.last() == Some(&"");
        if trailing_break {
            texts.pop();
        }
        Lines {
            texts,
            trailing_break,
        }
    }

    /// Whether line `k` goes on to another line of the value.
    fn continues(&self, k: usize) -> bool {
        k + 1 < self.texts.len() || (self.trailing_break && k + 1 == self.texts.len())
    }
}

/// `output_format_pretty_max_column_name_width_cut_to` and `..._min_chars_to_cut`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameCut {
    pub cut_to: usize,
    pub min_chars_to_cut: usize,
}

impl Default for NameCut {
    fn default() -> Self {
        NameCut {
            cut_to: 24,
            min_chars_to_cut: 4,
        }
    }
}

/// `name` cut in the middle to `max(cut_to, room)` characters, with `⋯`
/// where the middle was, as ClickHouse shows a long expression's name. A
/// plain identifier (an alias, a column) is never cut, nor a name that
/// would lose no more than `min_chars_to_cut` characters.
pub(crate) fn cut_name(name: &str, cut: NameCut, room: usize) -> String {
    let identifier = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let target = cut.cut_to.max(room);
    let length = name.chars().count();
    if identifier || target == 0 || length <= target + cut.min_chars_to_cut {
        return name.to_string();
    }
    let head = target / 2;
    let tail = target - head - 1;
    let start: String = name.chars().take(head).collect();
    let end: String = name.chars().skip(length - tail).collect();
    format!("{start}⋯{end}")
}

pub(crate) struct PrettyWriter {
    layout: Layout,
    names: Vec<String>,
    right_aligned: Vec<bool>,
    /// The last column is a number, followed by its size in words where large.
    last_is_number: bool,
    options: FormatOptions,
    rows: Vec<Vec<String>>,
    total_rows: usize,
    /// The WITH TOTALS row, drawn as a table of its own after `Totals:`.
    totals: Option<Vec<Vec<String>>>,
    /// The extremes' two rows, drawn after `Extremes:`.
    extremes: Option<Vec<Vec<String>>>,
}

impl PrettyWriter {
    pub(crate) fn new(layout: Layout, schema: SchemaRef, options: FormatOptions) -> Self {
        PrettyWriter {
            layout,
            names: schema.fields().iter().map(|f| f.name().clone()).collect(),
            right_aligned: schema.fields().iter().map(|f| aligns_right(f)).collect(),
            last_is_number: schema.fields().last().is_some_and(|f| is_number(f)),
            options,
            rows: Vec::new(),
            total_rows: 0,
            totals: None,
            extremes: None,
        }
    }

    /// The size in words that follows `row`, if any.
    fn tip(&self, row: &[String]) -> String {
        match row.last() {
            Some(last) if self.last_is_number => {
                number_tip(last, self.options.pretty_number_tip_threshold)
            }
            _ => String::new(),
        }
    }

    fn pad(text: &str, width_wanted: usize, right: bool, fill: char) -> String {
        let padding: String =
            std::iter::repeat_n(fill, width_wanted.saturating_sub(width(text))).collect();
        if right {
            format!("{padding}{text}")
        } else {
            format!("{text}{padding}")
        }
    }

    fn render(&self) -> String {
        if self.rows.is_empty() {
            return String::new();
        }
        let names: Vec<String> = (0..self.names.len())
            .map(|c| {
                cut_name(
                    &self.names[c],
                    self.options.pretty_name_cut,
                    self.values_width(c),
                )
            })
            .collect();
        let widths: Vec<usize> = names
            .iter()
            .enumerate()
            .map(|(c, name)| self.values_width(c).max(width(name)))
            .collect();
        let prefix_width = if self.options.pretty_row_numbers {
            self.rows.len().to_string().len() + 2
        } else {
            0
        };
        let mut out = match self.layout {
            Layout::Space => self.render_space(&names, &widths, prefix_width),
            Layout::Grid | Layout::Compact => self.render_boxes(&names, &widths, prefix_width),
        };
        if self.total_rows > self.rows.len() {
            out.push_str(&format!(
                "  Showed {} out of {} rows.\n",
                self.rows.len(),
                self.total_rows
            ));
        }
        out
    }

    /// The widest line of column `c`'s values.
    fn values_width(&self, c: usize) -> usize {
        self.rows
            .iter()
            .flat_map(|r| Lines::of(&r[c]).texts)
            .map(width)
            .max()
            .unwrap_or(0)
    }

    /// `1. ` before a row when rows are numbered, right-aligned to `prefix_width`.
    fn row_number(&self, row: usize, prefix_width: usize) -> String {
        if self.options.pretty_row_numbers {
            Self::pad(&format!("{}. ", row + 1), prefix_width, true, ' ')
        } else {
            String::new()
        }
    }

    fn render_space(&self, names: &[String], widths: &[usize], prefix_width: usize) -> String {
        let names: Vec<String> = names
            .iter()
            .zip(widths)
            .zip(&self.right_aligned)
            .map(|((name, w), right)| Self::pad(name, *w, *right, ' '))
            .collect();
        let mut out = format!("{} {}\n\n", " ".repeat(prefix_width), names.join("   "));
        for (i, row) in self.rows.iter().enumerate() {
            let number = self.row_number(i, prefix_width);
            for (k, cells) in self.row_lines(row, widths).into_iter().enumerate() {
                out.push_str(&match k {
                    0 => number.clone(),
                    _ => " ".repeat(prefix_width),
                });
                let joined: Vec<String> = cells
                    .iter()
                    .map(|(before, text, after)| format!("{before}{text}{after}"))
                    .collect();
                out.push_str(&joined.join(" "));
                // ClickHouse repeats the tip on each line of the row.
                out.push_str(&self.tip(row));
                out.push('\n');
            }
        }
        out
    }

    /// The text lines of `row`: each cell's line padded to its column's
    /// width, with the marks before and after it (`↳` continues a value
    /// from the line above, `↴` goes on to the line below).
    fn row_lines(&self, row: &[String], widths: &[usize]) -> Vec<Vec<(char, String, char)>> {
        let cells: Vec<Lines> = row.iter().map(|cell| Lines::of(cell)).collect();
        let height = cells.iter().map(|c| c.texts.len()).max().unwrap_or(1);
        (0..height)
            .map(|k| {
                cells
                    .iter()
                    .zip(widths)
                    .zip(&self.right_aligned)
                    .map(|((cell, w), right)| {
                        let text = cell.texts.get(k).copied().unwrap_or("");
                        let before = if k > 0 && k < cell.texts.len() {
                            '↳'
                        } else {
                            ' '
                        };
                        let after = if cell.continues(k) { '↴' } else { ' ' };
                        (before, Self::pad(text, *w, *right, ' '), after)
                    })
                    .collect()
            })
            .collect()
    }

    fn render_boxes(&self, names: &[String], widths: &[usize], prefix_width: usize) -> String {
        let compact = self.layout == Layout::Compact;
        let blank_prefix = " ".repeat(prefix_width);
        let line = |left: &str, fill: char, mid: &str, right: &str| -> String {
            let mut s = blank_prefix.clone();
            s.push_str(left);
            for (c, w) in widths.iter().enumerate() {
                if c > 0 {
                    s.push_str(mid);
                }
                s.extend(std::iter::repeat_n(fill, w + 2));
            }
            s.push_str(right);
            s.push('\n');
            s
        };
        let mut out = String::new();
        if compact {
            out.push_str(&blank_prefix);
            out.push('┌');
            for (c, w) in widths.iter().enumerate() {
                if c > 0 {
                    out.push('┬');
                }
                out.push('─');
                out.push_str(&Self::pad(&names[c], *w, self.right_aligned[c], '─'));
                out.push('─');
            }
            out.push_str("┐\n");
        } else {
            out.push_str(&line("┏", '━', "┳", "┓"));
            out.push_str(&blank_prefix);
            out.push('┃');
            for (c, w) in widths.iter().enumerate() {
                if c > 0 {
                    out.push('┃');
                }
                out.push(' ');
                out.push_str(&Self::pad(&names[c], *w, self.right_aligned[c], ' '));
                out.push(' ');
            }
            out.push_str("┃\n");
            out.push_str(&line("┡", '━', "╇", "┩"));
        }
        for (i, row) in self.rows.iter().enumerate() {
            if !compact && i > 0 {
                out.push_str(&line("├", '─', "┼", "┤"));
            }
            for (k, cells) in self.row_lines(row, widths).into_iter().enumerate() {
                out.push_str(&match k {
                    0 => self.row_number(i, prefix_width),
                    _ => blank_prefix.clone(),
                });
                out.push('│');
                for (c, (before, text, after)) in cells.iter().enumerate() {
                    if c > 0 {
                        out.push('│');
                    }
                    out.push(*before);
                    out.push_str(text);
                    out.push(*after);
                }
                out.push('│');
                // ClickHouse repeats the tip on each line of the row.
                out.push_str(&self.tip(row));
                out.push('\n');
            }
        }
        out.push_str(&line("└", '─', "┴", "┘"));
        out
    }
}

impl ResultWriter for PrettyWriter {
    fn write_batch(&mut self, _out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        self.total_rows += batch.num_rows();
        render_rows(
            batch,
            self.options.values,
            self.options.pretty_max_rows,
            &mut self.rows,
        );
        Ok(())
    }

    fn write_totals(&mut self, _out: &mut dyn Write, totals: &RecordBatch) -> std::io::Result<()> {
        let mut rows = Vec::new();
        render_rows(totals, self.options.values, usize::MAX, &mut rows);
        self.totals = Some(rows);
        Ok(())
    }

    fn write_extremes(
        &mut self,
        _out: &mut dyn Write,
        extremes: &RecordBatch,
    ) -> std::io::Result<()> {
        let mut rows = Vec::new();
        render_rows(extremes, self.options.values, usize::MAX, &mut rows);
        self.extremes = Some(rows);
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        out.write_all(self.render().as_bytes())?;
        let sections = [
            ("Totals", self.totals.take()),
            ("Extremes", self.extremes.take()),
        ];
        for (title, rows) in sections {
            let Some(rows) = rows else {
                continue;
            };
            let table = PrettyWriter {
                total_rows: rows.len(),
                rows,
                names: self.names.clone(),
                right_aligned: self.right_aligned.clone(),
                last_is_number: self.last_is_number,
                options: self.options.clone(),
                layout: self.layout,
                totals: None,
                extremes: None,
            };
            out.write_all(format!("\n{title}:\n{}", table.render()).as_bytes())?;
        }
        Ok(())
    }
}

pub(crate) struct VerticalWriter {
    names: Vec<String>,
    /// Which columns are numbers, followed by their size in words where large.
    numbers: Vec<bool>,
    tip_threshold: u64,
    rows_written: usize,
    totals_written: bool,
}

impl VerticalWriter {
    pub(crate) fn new(schema: SchemaRef, tip_threshold: u64, cut: NameCut) -> Self {
        VerticalWriter {
            names: schema
                .fields()
                .iter()
                .map(|f| cut_name(f.name(), cut, 0))
                .collect(),
            numbers: schema.fields().iter().map(|f| is_number(f)).collect(),
            tip_threshold,
            rows_written: 0,
            totals_written: false,
        }
    }
}

impl VerticalWriter {
    /// `name: value` lines of one row, the values aligned.
    fn push_fields(&self, row: &[String], text: &mut String) {
        let name_width = self.names.iter().map(|n| width(n)).max().unwrap_or(0);
        for ((name, value), number) in self.names.iter().zip(row).zip(&self.numbers) {
            let padding = " ".repeat(name_width - width(name));
            let tip = if *number {
                number_tip(value, self.tip_threshold)
            } else {
                String::new()
            };
            text.push_str(&format!("{name}:{padding} {value}{tip}\n"));
        }
    }
}

impl ResultWriter for VerticalWriter {
    fn write_batch(&mut self, out: &mut dyn Write, batch: &RecordBatch) -> std::io::Result<()> {
        let mut rows = Vec::new();
        render_rows(batch, ValueOptions::default(), usize::MAX, &mut rows);
        let mut text = String::new();
        for row in rows {
            if self.rows_written > 0 {
                text.push('\n');
            }
            self.rows_written += 1;
            let title = format!("Row {}:", self.rows_written);
            text.push_str(&title);
            text.push('\n');
            // ClickHouse sizes the rule by the next row's number: `Row 9:`
            // gets as many as `Row 10:`.
            let rule = width(&format!("Row {}:", self.rows_written + 1));
            text.extend(std::iter::repeat_n('─', rule));
            text.push('\n');
            self.push_fields(&row, &mut text);
        }
        out.write_all(text.as_bytes())
    }

    fn write_totals(&mut self, out: &mut dyn Write, totals: &RecordBatch) -> std::io::Result<()> {
        let mut rows = Vec::new();
        render_rows(totals, ValueOptions::default(), usize::MAX, &mut rows);
        let mut text = String::from("\n\nTotals:\n───────\n");
        self.push_fields(&rows[0], &mut text);
        self.totals_written = true;
        out.write_all(text.as_bytes())
    }

    fn write_extremes(
        &mut self,
        out: &mut dyn Write,
        extremes: &RecordBatch,
    ) -> std::io::Result<()> {
        let mut rows = Vec::new();
        render_rows(extremes, ValueOptions::default(), usize::MAX, &mut rows);
        // A blank line more after rows than after the totals.
        let mut text = String::from(if self.totals_written { "\n" } else { "\n\n" });
        text.push_str("Min:\n────\n");
        self.push_fields(&rows[0], &mut text);
        text.push_str("\nMax:\n────\n");
        self.push_fields(&rows[1], &mut text);
        out.write_all(text.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write, _statistics: &Statistics) -> std::io::Result<()> {
        Ok(())
    }
}
