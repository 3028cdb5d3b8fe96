//! A column's `CODEC(...)`: transformations, then one general-purpose
//! compression, checked against the column's type as ClickHouse checks them.

use strata_common::error::{ErrorCode, Result, StrataError};

use super::Codec;
use super::transforms::TransformKind;

/// The most transformations one chain holds.
pub const MAX_TRANSFORMS: usize = 3;

/// One transformation as declared: its kind and, for `Delta(n)` and
/// `Gorilla(n)`, the value width in bytes that ClickHouse shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transform {
    pub kind: TransformKind,
    pub declared_width: Option<u8>,
}

/// `CODEC(t1, t2, general)`. Without a general codec after transformations
/// that compress on their own (`DoubleDelta`, `Gorilla`, `T64`), blocks are
/// compressed with ZSTD(1), Strata's stand-in for those codecs' own packing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodecChain {
    transforms: [Option<Transform>; MAX_TRANSFORMS],
    general: Option<Codec>,
}

impl Default for CodecChain {
    fn default() -> Self {
        CodecChain::from(Codec::default())
    }
}

impl From<Codec> for CodecChain {
    fn from(codec: Codec) -> Self {
        CodecChain {
            transforms: [None; MAX_TRANSFORMS],
            general: Some(codec),
        }
    }
}

impl CodecChain {
    /// Parses the inside of `CODEC(...)` as declared for a column of
    /// ClickHouse type `column_type`, which each transformation must suit.
    pub fn parse(text: &str, column_type: &str) -> Result<CodecChain> {
        CodecChain::parse_for(text, Some(column_type), true)
    }

    /// [`CodecChain::parse`] under `allow_suspicious_codecs`: a chain of
    /// transformations alone, which compresses nothing, is allowed.
    pub fn parse_suspicious(text: &str, column_type: &str) -> Result<CodecChain> {
        CodecChain::parse_for(text, Some(column_type), false)
    }

    /// Parses a chain a table's definition keeps, checked when it was
    /// declared: a later MODIFY COLUMN of the type keeps it unchecked, as
    /// ClickHouse does, and values it no longer suits are only compressed.
    pub fn stored(text: &str) -> Result<CodecChain> {
        CodecChain::parse_for(text, None, false)
    }

    fn parse_for(text: &str, column_type: Option<&str>, must_compress: bool) -> Result<CodecChain> {
        let mut chain = CodecChain {
            transforms: [None; MAX_TRANSFORMS],
            general: None,
        };
        let mut count = 0;
        for item in split_items(text) {
            let (name, argument) = name_and_argument(item)?;
            if let Some(general) = chain.general {
                return Err(meaningless(
                    &format!("{}, {item}", general.sql()),
                    "it does not make sense to apply any transformations after generic compression algorithm",
                ));
            }
            match transform(&name, argument.as_deref(), column_type)? {
                Some(transform) => {
                    if count == MAX_TRANSFORMS {
                        return Err(StrataError::new(
                            ErrorCode::BAD_ARGUMENTS,
                            format!("A codec chain holds at most {MAX_TRANSFORMS} transformations"),
                        ));
                    }
                    chain.transforms[count] = Some(transform);
                    count += 1;
                }
                None => chain.general = Some(Codec::parse(item)?),
            }
        }
        if count == 0 && chain.general.is_none() {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Compression codec list cannot be empty",
            ));
        }
        let compresses =
            chain.general.is_some() || chain.transforms().any(|t| t.kind != TransformKind::Delta);
        if must_compress && !compresses {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Compression codec {} does not compress anything. You may want to add generic compression algorithm after other transformations, like: {}, LZ4",
                    chain.sql(),
                    chain.sql()
                ),
            ));
        }
        Ok(chain)
    }

    /// The transformations, in the order they apply.
    pub fn transforms(&self) -> impl Iterator<Item = &Transform> {
        self.transforms.iter().flatten()
    }

    /// The general-purpose compression of every block.
    pub fn block_codec(&self) -> Codec {
        self.general.unwrap_or(Codec::Zstd(1))
    }

    /// The chain as ClickHouse shows it: `Delta(8), ZSTD(1)`.
    pub fn sql(&self) -> String {
        let mut items: Vec<String> = self.transforms().map(Transform::sql).collect();
        items.extend(self.general.map(|g| g.sql()));
        items.join(", ")
    }
}

impl Transform {
    fn sql(&self) -> String {
        let name = match self.kind {
            TransformKind::Delta => "Delta",
            TransformKind::DoubleDelta => "DoubleDelta",
            TransformKind::Gorilla => "Gorilla",
            TransformKind::T64 => "T64",
        };
        match self.declared_width {
            Some(width) => format!("{name}({width})"),
            None => name.to_string(),
        }
    }
}

/// The codecs of a list, split at the commas outside parentheses.
fn split_items(text: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(text[start..].trim());
    items.retain(|item| !item.is_empty());
    items
}

/// `Name(argument)` as its name and the argument's text.
fn name_and_argument(item: &str) -> Result<(String, Option<String>)> {
    match item.split_once('(') {
        None => Ok((item.to_string(), None)),
        Some((name, rest)) => {
            let argument = rest.strip_suffix(')').ok_or_else(|| {
                StrataError::new(
                    ErrorCode::SYNTAX_ERROR,
                    format!("Syntax error: unbalanced parentheses in codec {item}"),
                )
            })?;
            Ok((name.trim().to_string(), Some(argument.trim().to_string())))
        }
    }
}

/// The transformation `name` names, checked against the column's type
/// where one is given; `None` for a general-purpose codec.
fn transform(
    name: &str,
    argument: Option<&str>,
    column_type: Option<&str>,
) -> Result<Option<Transform>> {
    let kind = match name {
        "Delta" => TransformKind::Delta,
        "DoubleDelta" => TransformKind::DoubleDelta,
        "Gorilla" => TransformKind::Gorilla,
        "T64" => TransformKind::T64,
        "FPC" | "GCD" | "ZSTD_QAT" | "DEFLATE_QPL" | "AES_128_GCM_SIV" | "AES_256_GCM_SIV" => {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("Codec {name} is not supported yet"),
            ));
        }
        _ => return Ok(None),
    };
    let type_width = column_type.map(|t| applicable(name, kind, t)).transpose()?;
    let declared_width = match (kind, argument) {
        (TransformKind::Delta | TransformKind::Gorilla, Some(argument)) => {
            Some(declared(name, argument)?)
        }
        (TransformKind::Delta | TransformKind::Gorilla, None) => type_width.map(|w| w as u8),
        (TransformKind::DoubleDelta | TransformKind::T64, _) => None,
    };
    Ok(Some(Transform {
        kind,
        declared_width,
    }))
}

/// The width of `column_type`'s values, if transformation `kind` applies to
/// them; the error ClickHouse gives if not.
fn applicable(name: &str, kind: TransformKind, column_type: &str) -> Result<usize> {
    let value_type = value_type(column_type);
    let width = fixed_width(value_type).ok_or_else(|| {
        StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Codec {name} is not applicable for {value_type} because the data type is not of fixed size"
            ),
        )
    })?;
    let float = value_type.starts_with("Float");
    match kind {
        TransformKind::Gorilla if !float => {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "The combination of compression codecs Gorilla({width}) is meaningless, because it does not make sense to apply a floating-point time series codec to non-floating-point columns"
                ),
            ));
        }
        TransformKind::T64 if float => {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_SYNTAX_FOR_CODEC_TYPE,
                format!("T64 codec is not supported for specified type {value_type}"),
            ));
        }
        _ => {}
    }
    if kind != TransformKind::T64 && !super::transforms::LANE_WIDTHS.contains(&width) {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Codec {name} is only applicable for data types of size 1, 2, 4, 8 bytes. Given type {value_type}"
            ),
        ));
    }
    Ok(width)
}

/// The width written in `Delta(n)`.
fn declared(name: &str, argument: &str) -> Result<u8> {
    match argument.parse::<u8>() {
        Ok(n @ (1 | 2 | 4 | 8)) => Ok(n),
        _ => Err(StrataError::new(
            ErrorCode::ILLEGAL_CODEC_PARAMETER,
            format!(
                "{name} value for {} codec can be 1, 2, 4 or 8, given {argument}",
                name.to_ascii_lowercase()
            ),
        )),
    }
}

/// The type a codec sees: the values inside `Nullable` and `LowCardinality`.
fn value_type(column_type: &str) -> &str {
    let mut inner = column_type.trim();
    for wrapper in ["Nullable(", "LowCardinality("] {
        if let Some(rest) = inner
            .strip_prefix(wrapper)
            .and_then(|r| r.strip_suffix(')'))
        {
            inner = value_type(rest);
        }
    }
    inner
}

/// Bytes per value of a fixed-size ClickHouse type; `None` for the others.
fn fixed_width(value_type: &str) -> Option<usize> {
    let family = value_type.split('(').next().unwrap_or(value_type).trim();
    Some(match family {
        "UInt8" | "Int8" | "Bool" | "Enum8" => 1,
        "UInt16" | "Int16" | "Date" | "Enum16" => 2,
        "UInt32" | "Int32" | "Float32" | "Date32" | "DateTime" | "Decimal32" | "IPv4" => 4,
        "UInt64" | "Int64" | "Float64" | "DateTime64" | "Decimal64" | "Time64" => 8,
        "UInt128" | "Int128" | "Decimal128" | "UUID" | "IPv6" => 16,
        "UInt256" | "Int256" | "Decimal256" => 32,
        "Decimal" => {
            let precision: usize = value_type
                .split(['(', ','])
                .nth(1)?
                .trim()
                .trim_end_matches(')')
                .parse()
                .ok()?;
            match precision {
                0..=9 => 4,
                10..=18 => 8,
                19..=38 => 16,
                _ => 32,
            }
        }
        "FixedString" => value_type
            .trim_start_matches("FixedString(")
            .trim_end_matches(')')
            .parse()
            .ok()?,
        _ => return None,
    })
}

fn meaningless(codecs: &str, because: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("The combination of compression codecs {codecs} is meaningless, because {because}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str, column_type: &str) -> String {
        CodecChain::parse(text, column_type).unwrap().sql()
    }

    fn code(text: &str, column_type: &str) -> ErrorCode {
        CodecChain::parse(text, column_type).unwrap_err().code
    }

    #[test]
    fn chains_show_as_clickhouse_shows_them() {
        assert_eq!(shown("Delta, ZSTD", "UInt64"), "Delta(8), ZSTD(1)");
        assert_eq!(shown("Delta, LZ4", "Nullable(UInt32)"), "Delta(4), LZ4");
        assert_eq!(shown("Delta, ZSTD", "Date"), "Delta(2), ZSTD(1)");
        assert_eq!(shown("DoubleDelta", "DateTime"), "DoubleDelta");
        assert_eq!(shown("Gorilla", "Float32"), "Gorilla(4)");
        assert_eq!(shown("T64, ZSTD(5)", "Int16"), "T64, ZSTD(5)");
        assert_eq!(
            shown("Delta(4), T64, ZSTD", "UInt32"),
            "Delta(4), T64, ZSTD(1)"
        );
        assert_eq!(shown("LZ4HC", "UInt32"), "LZ4HC(0)");
        assert_eq!(shown("ZSTD(3)", "String"), "ZSTD(3)");
    }

    #[test]
    fn a_stored_chain_reads_whatever_the_type_became() {
        let declared = CodecChain::parse("Delta, ZSTD", "UInt64").unwrap();
        assert_eq!(CodecChain::stored(&declared.sql()).unwrap(), declared);
        assert_eq!(CodecChain::stored("T64, LZ4").unwrap().sql(), "T64, LZ4");
    }

    #[test]
    fn chains_that_cannot_work_are_refused() {
        assert_eq!(code("Delta, ZSTD", "String"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(
            code("Delta, ZSTD", "Decimal(38, 2)"),
            ErrorCode::BAD_ARGUMENTS
        );
        assert_eq!(code("Delta", "UInt64"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(code("ZSTD, Delta", "UInt64"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(code("LZ4, ZSTD", "UInt64"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(code("Gorilla", "UInt64"), ErrorCode::BAD_ARGUMENTS);
        assert_eq!(
            code("T64", "Float64"),
            ErrorCode::ILLEGAL_SYNTAX_FOR_CODEC_TYPE
        );
        assert_eq!(
            code("Delta(3), ZSTD", "UInt64"),
            ErrorCode::ILLEGAL_CODEC_PARAMETER
        );
        assert_eq!(code("Foo", "UInt64"), ErrorCode::UNKNOWN_CODEC);
        assert_eq!(code("FPC", "Float64"), ErrorCode::NOT_IMPLEMENTED);
    }
}
