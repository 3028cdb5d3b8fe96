//! `tokenbf_v1(bytes, hashes, seed)` and `ngrambf_v1(n, bytes, hashes,
//! seed)`: a Bloom filter of `bytes` per index granule over the tokens
//! (runs of ASCII letters and digits, and of non-ASCII bytes) or the
//! n-grams (of code points) of each string, or of each string of an array.
//!
//! A condition prunes by what every matching string must contain: `=` and
//! `IN` all of a constant's tokens or n-grams, `LIKE` those its literal
//! parts pin down (for tokens, only those a separator or an end of the
//! pattern bounds on both sides), `hasToken` its token, `has` (of an
//! array) its element, `startsWith`, `endsWith` and `multiSearchAny` their
//! needles.

use std::hash::Hasher;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryArray, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{BinaryExpr, Column, LikeExpr, Literal};
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};
use twox_hash::XxHash64;

use super::Summary;
use super::bloom::probes_of;

/// What a text index keeps of each string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TextSplit {
    Tokens,
    /// Runs of `n` code points.
    NGrams(usize),
}

/// A text index's declaration: how strings split and the filter's shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextBloom {
    pub split: TextSplit,
    /// Bytes of filter per index granule.
    pub bytes: usize,
    pub hashes: u32,
    pub seed: u64,
}

impl TextBloom {
    /// Words of filter per index granule: `bytes` rounded up to whole
    /// words, all of whose bits probes use.
    fn words(&self) -> usize {
        self.bytes.div_ceil(8).max(1)
    }

    fn hash(&self, item: &[u8]) -> u64 {
        let mut hasher = XxHash64::with_seed(self.seed);
        hasher.write(item);
        hasher.finish()
    }

    /// Calls `f` with each item of a whole string.
    fn for_each_item(&self, text: &[u8], f: impl FnMut(&[u8])) {
        match self.split {
            TextSplit::Tokens => tokens(text).for_each(f),
            TextSplit::NGrams(n) => ngrams(text, n).for_each(f),
        }
    }

    /// Each item of `text` (a whole string when `anchored` is (true, true);
    /// a part of one otherwise, whose cut ends bound no token).
    fn items<'a>(&self, text: &'a [u8], anchored: (bool, bool)) -> Vec<&'a [u8]> {
        match self.split {
            TextSplit::Tokens => tokens(text)
                .filter(|token| {
                    let start = token.as_ptr() as usize - text.as_ptr() as usize;
                    (anchored.0 || start > 0) && (anchored.1 || start + token.len() < text.len())
                })
                .collect(),
            TextSplit::NGrams(n) => ngrams(text, n).collect(),
        }
    }

    /// The filter of each index granule (`ranges` of rows) of `values`;
    /// unknown for a type that holds no strings.
    pub(super) fn build(&self, values: &ArrayRef, ranges: &[Range<usize>]) -> Summary {
        let Some((strings, element_rows)) = strings_of(values) else {
            return Summary::Unknown;
        };
        let words_per_granule = self.words();
        let bits = words_per_granule * 64;
        let mut words = vec![0u64; words_per_granule * ranges.len()];
        for (granule, range) in ranges.iter().enumerate() {
            let filter = &mut words[granule * words_per_granule..][..words_per_granule];
            for element in element_rows(range.clone()) {
                if strings.is_null(element) {
                    continue;
                }
                // Inserts write every part: no allocation per string.
                self.for_each_item(strings.value(element), |item| {
                    for bit in probes_of(self.hash(item), self.hashes, bits) {
                        filter[bit / 64] |= 1 << (bit % 64);
                    }
                });
            }
        }
        let starts = (0..=ranges.len()).map(|g| (g * words_per_granule) as u64);
        Summary::Bloom {
            hashes: self.hashes,
            starts: UInt64Array::from_iter_values(starts),
            words: UInt64Array::from(words),
        }
    }

    /// What a match of `predicate` must contain, where `columns[e]` names
    /// the column that stands for the index's expression `e`.
    pub fn need(&self, predicate: &Arc<dyn PhysicalExpr>, columns: &[String]) -> Need {
        let element = |expr: &Arc<dyn PhysicalExpr>| {
            let column = expr.downcast_ref::<Column>()?;
            columns.iter().position(|name| name == column.name())
        };
        let contains = |element: usize, parts: &[(Vec<u8>, (bool, bool))]| {
            let hashes = parts
                .iter()
                .flat_map(|(text, anchored)| self.items(text, *anchored))
                .map(|item| self.hash(item))
                .collect();
            Need::Contains { element, hashes }
        };
        if let Some(binary) = predicate.downcast_ref::<BinaryExpr>() {
            let (left, right) = (binary.left(), binary.right());
            return match binary.op() {
                Operator::And => {
                    Need::And(vec![self.need(left, columns), self.need(right, columns)])
                }
                Operator::Or => Need::Or(vec![self.need(left, columns), self.need(right, columns)]),
                Operator::Eq => match (element(left), text(right), element(right), text(left)) {
                    (Some(e), Some(value), ..) | (_, _, Some(e), Some(value)) => {
                        contains(e, &[(value.into_bytes(), (true, true))])
                    }
                    _ => Need::Unknown,
                },
                // `f(...) != 0`: a function's UInt8 result as a condition.
                Operator::NotEq if is_zero(right) => self.need(left, columns),
                _ => Need::Unknown,
            };
        }
        if let Some(like) = predicate.downcast_ref::<LikeExpr>()
            && !like.negated()
            && !like.case_insensitive()
            && let (Some(e), Some(pattern)) = (element(like.expr()), text(like.pattern()))
        {
            return contains(e, &like_parts(&pattern));
        }
        if let Some(function) = predicate.downcast_ref::<ScalarFunctionExpr>()
            && let [haystack, needle] = function.args()
            && let Some(e) = element(haystack)
        {
            let needles = match needle.downcast_ref::<Literal>().map(Literal::value) {
                Some(ScalarValue::List(list)) if list.len() == 1 => strings_in(&list.value(0)),
                _ => text(needle).map(|needle| vec![needle]),
            };
            let Some(needles) = needles else {
                return Need::Unknown;
            };
            let anchored = match function.name() {
                // `has(array, s)`: an element equal to `s`.
                "hasToken" | "hasTokenOrNull" | "has" => (true, true),
                "startsWith" | "starts_with" => (true, false),
                "endsWith" | "ends_with" => (false, true),
                "multiSearchAny" => (false, false),
                _ => return Need::Unknown,
            };
            return Need::Or(
                needles
                    .into_iter()
                    .map(|needle| contains(e, &[(needle.into_bytes(), anchored)]))
                    .collect(),
            );
        }
        Need::Unknown
    }
}

/// What a row matching a condition must contain.
#[derive(Debug, Clone, PartialEq)]
pub enum Need {
    /// Nothing known.
    Unknown,
    /// Every one of `hashes` among expression `element`'s items.
    Contains {
        element: usize,
        hashes: Vec<u64>,
    },
    And(Vec<Need>),
    Or(Vec<Need>),
}

impl Need {
    /// Whether a granule may match, given whether its filter of
    /// expression `e` may hold an item hashing to `h` (`may_hold(e, h)`).
    pub fn may_match(&self, may_hold: &impl Fn(usize, u64) -> bool) -> bool {
        match self {
            Need::Unknown => true,
            Need::Contains { element, hashes } => hashes.iter().all(|&h| may_hold(*element, h)),
            Need::And(needs) => needs.iter().all(|need| need.may_match(may_hold)),
            Need::Or(needs) => needs.iter().any(|need| need.may_match(may_hold)),
        }
    }

    /// Whether the condition prunes anything at all.
    pub fn is_known(&self) -> bool {
        match self {
            Need::Unknown => false,
            Need::Contains { .. } => true,
            Need::And(needs) => needs.iter().any(Need::is_known),
            Need::Or(needs) => needs.iter().all(Need::is_known),
        }
    }
}

/// Whether an index granule's `filter` may hold an item hashing to `hash`.
pub(super) fn filter_may_hold(filter: &[u64], hashes: u32, hash: u64) -> bool {
    let bits = filter.len() * 64;
    probes_of(hash, hashes, bits).all(|bit| filter[bit / 64] & (1 << (bit % 64)) != 0)
}

fn is_separator(byte: u8) -> bool {
    byte.is_ascii() && !byte.is_ascii_alphanumeric()
}

fn tokens(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| is_separator(b))
        .filter(|token| !token.is_empty())
}

/// The runs of `n` code points of `text` (a byte that starts no valid
/// sequence counts as one).
fn ngrams(text: &[u8], n: usize) -> impl Iterator<Item = &[u8]> {
    let starts: Vec<usize> = (0..text.len())
        .filter(|&i| text[i] & 0xC0 != 0x80)
        .chain(std::iter::once(text.len()))
        .collect();
    let count = (starts.len() - 1).saturating_sub(n.saturating_sub(1));
    (0..count).map(move |i| &text[starts[i]..starts[i + n]])
}

/// A LIKE pattern's literal parts, each with whether the pattern's own
/// start and end (not a wildcard) bound it.
fn like_parts(pattern: &str) -> Vec<(Vec<u8>, (bool, bool))> {
    let mut parts = Vec::new();
    let mut current = Vec::new();
    let mut starts_anchored = true;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        let literal = match c {
            '\\' => chars.next().unwrap_or('\\'),
            '%' | '_' => {
                if !current.is_empty() {
                    parts.push((std::mem::take(&mut current), (starts_anchored, false)));
                }
                starts_anchored = false;
                continue;
            }
            c => c,
        };
        let mut buffer = [0; 4];
        current.extend_from_slice(literal.encode_utf8(&mut buffer).as_bytes());
    }
    if !current.is_empty() {
        parts.push((current, (starts_anchored, true)));
    }
    parts
}

/// A string literal's value.
fn text(expr: &Arc<dyn PhysicalExpr>) -> Option<String> {
    let literal = expr.downcast_ref::<Literal>()?;
    literal.value().try_as_str().flatten().map(str::to_string)
}

fn is_zero(expr: &Arc<dyn PhysicalExpr>) -> bool {
    expr.downcast_ref::<Literal>().is_some_and(|literal| {
        let value = literal.value();
        ScalarValue::new_zero(&value.data_type()).is_ok_and(|zero| zero == *value)
    })
}

fn strings_in(values: &ArrayRef) -> Option<Vec<String>> {
    let strings = cast(values, &DataType::Utf8).ok()?;
    let strings = strings.as_string::<i32>();
    strings.iter().map(|s| s.map(str::to_string)).collect()
}

/// The strings of `values` as bytes, and for a range of rows the range of
/// those strings they hold (an array's elements, or the row's one string).
type ElementRows = Box<dyn Fn(Range<usize>) -> Range<usize>>;

fn strings_of(values: &ArrayRef) -> Option<(BinaryArray, ElementRows)> {
    let binary = |array: &ArrayRef| -> Option<BinaryArray> {
        let array = match array.data_type() {
            DataType::Dictionary(_, value) => cast(array, value).ok()?,
            _ => Arc::clone(array),
        };
        match array.data_type() {
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::FixedSizeBinary(_) => {
                Some(cast(&array, &DataType::Binary).ok()?.as_binary().clone())
            }
            _ => None,
        }
    };
    match values.data_type() {
        DataType::List(_) => {
            let list = values.as_list::<i32>();
            let offsets: Vec<usize> = list.offsets().iter().map(|&o| o as usize).collect();
            let strings = binary(list.values())?;
            Some((
                strings,
                Box::new(move |rows: Range<usize>| offsets[rows.start]..offsets[rows.end]),
            ))
        }
        _ => Some((binary(values)?, Box::new(|rows| rows))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all<'a>(items: impl Iterator<Item = &'a [u8]>) -> Vec<&'a str> {
        items.map(|i| std::str::from_utf8(i).unwrap()).collect()
    }

    #[test]
    fn strings_split_into_tokens_and_ngrams() {
        assert_eq!(
            all(tokens(b"GET /api/v1?id=42 \xc3\xa9t\xc3\xa9")),
            ["GET", "api", "v1", "id", "42", "été"]
        );
        assert_eq!(all(ngrams("abcd".as_bytes(), 3)), ["abc", "bcd"]);
        assert_eq!(all(ngrams("été!".as_bytes(), 3)), ["été", "té!"]);
        assert_eq!(all(ngrams(b"ab", 3)), Vec::<&str>::new());
    }

    #[test]
    fn like_patterns_pin_down_only_bounded_tokens() {
        let shape = TextBloom {
            split: TextSplit::Tokens,
            bytes: 64,
            hashes: 2,
            seed: 0,
        };
        let tokens_of = |pattern: &str| -> Vec<String> {
            like_parts(pattern)
                .iter()
                .flat_map(|(text, anchored)| shape.items(text, *anchored))
                .map(|i| String::from_utf8(i.to_vec()).unwrap())
                .collect()
        };
        assert_eq!(tokens_of("%error%"), Vec::<String>::new());
        assert_eq!(tokens_of("% error %"), ["error"]);
        assert_eq!(tokens_of("GET /api%"), ["GET"]);
        assert_eq!(tokens_of("GET /api/%"), ["GET", "api"]);
        assert_eq!(tokens_of("%x=1 y=2"), ["1", "y", "2"]);
        assert_eq!(tokens_of("a\\%b c%"), ["a", "b"]);
        assert_eq!(tokens_of("_ab cd_"), Vec::<String>::new());
    }
}
