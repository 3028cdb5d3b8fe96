//! `INSERT INTO t [(columns)] FORMAT <name> [data]`: the statement head, the
//! format's name and any data written inline after it.
//!
//! The data is not SQL (a CSV row may hold an unpaired quote), so it is cut
//! from the text before any tokenizer sees it. FORMAT counts only at the top
//! level of a head that has no SELECT or VALUES: elsewhere it is a query's
//! output format or text inside a value.

/// The parts of an `INSERT ... FORMAT` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormattedInsert {
    /// `INSERT INTO t (a, b)`, without FORMAT.
    pub head: String,
    pub format: String,
    /// The data after the format name, if any was written inline.
    pub inline_data: Option<String>,
    /// Where the data starts in the text given: after the format name, its
    /// blanks and one line break.
    pub data_at: usize,
}

/// Splits `text` if it is an `INSERT ... FORMAT` statement.
pub fn split_insert_format(text: &str) -> Option<FormattedInsert> {
    let trimmed = text.trim_start();
    let first_word = trimmed.split(|c: char| !c.is_ascii_alphabetic()).next()?;
    if !first_word.eq_ignore_ascii_case("INSERT") {
        return None;
    }
    let format_at = top_level_format_keyword(trimmed)?;
    let head = trimmed[..format_at].trim_end();
    let has_body = head
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|w| {
            ["SELECT", "VALUES", "WITH"]
                .iter()
                .any(|k| w.eq_ignore_ascii_case(k))
        });
    if has_body {
        return None;
    }
    let after = &trimmed[format_at + "FORMAT".len()..];
    let name_start = after.len() - after.trim_start().len();
    let name_len = after[name_start..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(after.len() - name_start);
    if name_len == 0 {
        return None;
    }
    let format = after[name_start..name_start + name_len].to_string();
    let rest = &after[name_start + name_len..];
    // The data starts after the blanks that follow the name, up to and
    // including the first line break.
    let blanks = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    let mut data = &rest[blanks..];
    data = data
        .strip_prefix("\r\n")
        .or_else(|| data.strip_prefix('\n'))
        .unwrap_or(data);
    Some(FormattedInsert {
        head: head.to_string(),
        format,
        inline_data: (!data.trim().is_empty()).then(|| data.to_string()),
        data_at: text.len() - data.len(),
    })
}

/// The byte offset of the first FORMAT keyword outside quotes and brackets.
fn top_level_format_keyword(text: &str) -> Option<usize> {
    top_level_word(text, &["FORMAT"]).map(|(at, _)| at)
}

/// The first of `words` (ASCII, any case) in `text` outside quotes and
/// brackets, with its byte offset.
pub(crate) fn top_level_word<'w>(text: &str, words: &[&'w str]) -> Option<(usize, &'w str)> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' | b'`' => quote = Some(b),
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth = depth.saturating_sub(1),
                _ if depth == 0 && (i == 0 || !is_word_byte(bytes[i - 1])) => {
                    let found = words.iter().find(|word| {
                        let end = i + word.len();
                        bytes.len() >= end
                            && bytes[i..end].eq_ignore_ascii_case(word.as_bytes())
                            && bytes.get(end).is_none_or(|&c| !is_word_byte(c))
                    });
                    if let Some(word) = found {
                        return Some((i, word));
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_head_format_and_data() {
        let split = split_insert_format("INSERT INTO t (a, format) FORMAT CSV 1,2\n3,4").unwrap();
        assert_eq!(split.head, "INSERT INTO t (a, format)");
        assert_eq!(split.format, "CSV");
        assert_eq!(split.inline_data.as_deref(), Some("1,2\n3,4"));
        let split = split_insert_format("insert into t format JSONEachRow\n{\"a\":1}").unwrap();
        assert_eq!(split.inline_data.as_deref(), Some("{\"a\":1}"));
        assert_eq!(
            split_insert_format("INSERT INTO t FORMAT TSV")
                .unwrap()
                .inline_data,
            None
        );
    }

    #[test]
    fn leaves_other_statements_alone() {
        assert_eq!(
            split_insert_format("INSERT INTO t VALUES ('FORMAT CSV')"),
            None
        );
        assert_eq!(
            split_insert_format("INSERT INTO t SELECT 1 FORMAT CSV"),
            None
        );
        assert_eq!(split_insert_format("SELECT 1 FORMAT CSV"), None);
        assert_eq!(split_insert_format("INSERT INTO formats VALUES (1)"), None);
    }
}
