//! ClickHouse lexical forms sqlparser's tokenizer does not read, rewritten
//! in the text before tokenizing. Each rewrite keeps the text's length, so
//! positions in error messages and statement spans stay those of the input:
//!
//! - `#!` and `# ` start a line comment (a shebang, MySQL's comments), as `--`;
//! - `` \` `` inside a backquoted identifier is a backquote, as `` `` ``.

use std::borrow::Cow;

/// `sql` with the forms above rewritten; borrowed when it has none.
pub fn normalize(sql: &str) -> Cow<'_, str> {
    if !sql.contains('#') && !sql.contains("\\`") {
        return Cow::Borrowed(sql);
    }
    let mut bytes = sql.as_bytes().to_vec();
    let mut i = 0;
    while i < bytes.len() {
        i = match bytes[i] {
            quote @ (b'\'' | b'"' | b'`') => skip_quoted(&mut bytes, i, quote),
            b'-' if bytes.get(i + 1) == Some(&b'-') => line_end(&bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => block_end(&bytes, i),
            b'#' if matches!(bytes.get(i + 1), Some(b'!' | b' ')) => {
                bytes[i] = b'-';
                bytes[i + 1] = b'-';
                line_end(&bytes, i)
            }
            _ => i + 1,
        };
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    Cow::Owned(String::from_utf8(bytes).expect("ASCII replacements keep UTF-8"))
}

/// Past the quoted text opened at `open`; a backslash escapes the next byte.
fn skip_quoted(bytes: &mut [u8], open: usize, quote: u8) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'`' && bytes.get(i + 1) == Some(&b'`') => {
                bytes[i] = b'`';
                i += 2;
            }
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| from + p)
}

fn block_end(bytes: &[u8], from: usize) -> usize {
    bytes[from + 2..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(bytes.len(), |p| from + 2 + p + 2)
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn hash_comments_and_escaped_backquotes() {
        assert_eq!(normalize("#!/bin/x\nSELECT 1"), "--/bin/x\nSELECT 1");
        assert_eq!(normalize("SELECT 1 # note"), "SELECT 1 --note");
        assert_eq!(normalize("SELECT '#! x', 1 #x"), "SELECT '#! x', 1 #x");
        assert_eq!(normalize(r"SELECT 1 AS `a\`b`"), "SELECT 1 AS `a``b`");
        assert_eq!(normalize(r"SELECT '\`', `a\\`"), r"SELECT '\`', `a\\`");
    }
}
