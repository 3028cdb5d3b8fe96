//! How many terminal columns text takes, as ClickHouse measures it for the
//! Pretty formats and `visibleWidth`: East Asian wide characters take two,
//! combining marks and control characters none, a tab runs to the next stop.

use unicode_width::UnicodeWidthChar;

/// Columns between tab stops.
const TAB_STOP: usize = 8;

pub fn visible_width(text: &str) -> usize {
    text.chars().fold(0, |width, c| match c {
        '\t' => width + TAB_STOP - width % TAB_STOP,
        c if c.is_control() => width,
        c => width + c.width().unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_tabs_and_controls() {
        assert_eq!(visible_width("abc"), 3);
        assert_eq!(visible_width("日本"), 4);
        assert_eq!(visible_width("é"), 1);
        assert_eq!(visible_width("e\u{301}"), 1);
        assert_eq!(visible_width("a\nb"), 2);
        assert_eq!(visible_width("\t"), 8);
        assert_eq!(visible_width("abcdefgh\tx"), 17);
        assert_eq!(visible_width("\u{1}"), 0);
    }
}
