//! Errors in ClickHouse's shape: `Code: 62. DB::Exception: <message>. (SYNTAX_ERROR)`.
//!
//! Every code Strata can report is declared once, in [`ErrorCode`]'s constants, with
//! ClickHouse's number and name, so clients that match on codes keep working.
//! DataFusion errors are classified into these codes in [`StrataError::from_datafusion`].

use std::fmt;

use datafusion::error::DataFusionError;

/// A ClickHouse error code: the number and the upper-case name clients match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorCode {
    pub code: i32,
    pub name: &'static str,
}

macro_rules! error_codes {
    ($($ident:ident = $code:literal),* $(,)?) => {
        impl ErrorCode {
            $(pub const $ident: ErrorCode = ErrorCode { code: $code, name: stringify!($ident) };)*

            /// Every code Strata knows, for lookups by name (test annotations, `errorCodeToName`).
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$ident),*];
        }
    };
}

error_codes! {
    UNSUPPORTED_METHOD = 1,
    CANNOT_PARSE_TEXT = 6,
    THERE_IS_NO_COLUMN = 8,
    NOT_FOUND_COLUMN_IN_BLOCK = 10,
    PARAMETER_OUT_OF_BOUND = 12,
    DUPLICATE_COLUMN = 15,
    NO_SUCH_COLUMN_IN_TABLE = 16,
    SIZE_OF_FIXED_STRING_DOESNT_MATCH = 19,
    NUMBER_OF_COLUMNS_DOESNT_MATCH = 20,
    CANNOT_PARSE_QUOTED_STRING = 26,
    CANNOT_PARSE_INPUT_ASSERTION_FAILED = 27,
    CANNOT_PRINT_FLOAT_OR_DOUBLE_NUMBER = 28,
    CANNOT_READ_ALL_DATA = 33,
    TOO_MANY_ARGUMENTS_FOR_FUNCTION = 34,
    TOO_FEW_ARGUMENTS_FOR_FUNCTION = 35,
    BAD_ARGUMENTS = 36,
    CANNOT_PARSE_DATE = 38,
    TOO_LARGE_SIZE_COMPRESSED = 39,
    CHECKSUM_DOESNT_MATCH = 40,
    CANNOT_PARSE_DATETIME = 41,
    NUMBER_OF_ARGUMENTS_DOESNT_MATCH = 42,
    ILLEGAL_TYPE_OF_ARGUMENT = 43,
    ILLEGAL_COLUMN = 44,
    UNKNOWN_FUNCTION = 46,
    UNKNOWN_IDENTIFIER = 47,
    NOT_IMPLEMENTED = 48,
    LOGICAL_ERROR = 49,
    UNKNOWN_TYPE = 50,
    EMPTY_LIST_OF_COLUMNS_QUERIED = 51,
    TYPE_MISMATCH = 53,
    UNKNOWN_STORAGE = 56,
    TABLE_ALREADY_EXISTS = 57,
    ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER = 59,
    UNKNOWN_TABLE = 60,
    SYNTAX_ERROR = 62,
    UNKNOWN_AGGREGATE_FUNCTION = 63,
    ARGUMENT_OUT_OF_BOUND = 69,
    CANNOT_CONVERT_TYPE = 70,
    CANNOT_PARSE_NUMBER = 72,
    UNKNOWN_FORMAT = 73,
    CANNOT_READ_FROM_FILE_DESCRIPTOR = 74,
    CANNOT_WRITE_TO_FILE_DESCRIPTOR = 75,
    CANNOT_OPEN_FILE = 76,
    INCORRECT_QUERY = 80,
    UNKNOWN_DATABASE = 81,
    DATABASE_ALREADY_EXISTS = 82,
    DIRECTORY_ALREADY_EXISTS = 84,
    UNKNOWN_COMPRESSION_METHOD = 89,
    EMPTY_DATA_PASSED = 92,
    FILE_DOESNT_EXIST = 107,
    NO_DATA_TO_INSERT = 108,
    UNKNOWN_SETTING = 115,
    INCORRECT_DATA = 117,
    ENGINE_REQUIRED = 119,
    INCOMPATIBLE_COLUMNS = 122,
    INCORRECT_RESULT_OF_SCALAR_SUBQUERY = 125,
    ILLEGAL_INDEX = 127,
    TOO_LARGE_ARRAY_SIZE = 128,
    CANNOT_READ_ARRAY_FROM_TEXT = 130,
    TOO_LARGE_STRING_SIZE = 131,
    AGGREGATE_FUNCTION_DOESNT_ALLOW_PARAMETERS = 133,
    SAMPLING_NOT_SUPPORTED = 141,
    ILLEGAL_DIVISION = 153,
    UNKNOWN_OVERFLOW_MODE = 145,
    TOO_MANY_ROWS = 158,
    TIMEOUT_EXCEEDED = 159,
    TOO_SLOW = 160,
    TOO_DEEP_SUBQUERIES = 162,
    READONLY = 164,
    TOO_DEEP_AST = 167,
    BAD_TYPE_OF_FIELD = 169,
    MULTIPLE_EXPRESSIONS_FOR_ALIAS = 179,
    THERE_IS_NO_PROFILE = 180,
    ILLEGAL_FINAL = 181,
    ILLEGAL_AGGREGATION = 184,
    SIZES_OF_ARRAYS_DONT_MATCH = 190,
    UNKNOWN_USER = 192,
    REQUIRED_PASSWORD = 194,
    UNKNOWN_QUOTA = 199,
    QUOTA_EXCEEDED = 201,
    TOO_MANY_SIMULTANEOUS_QUERIES = 202,
    CANNOT_FSYNC = 204,
    NETWORK_ERROR = 210,
    UNKNOWN_LOAD_BALANCING = 212,
    UNKNOWN_TOTALS_MODE = 213,
    NOT_AN_AGGREGATE = 215,
    QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING = 216,
    TABLE_IS_DROPPED = 218,
    UNEXPECTED_AST_STRUCTURE = 223,
    NO_FILE_IN_DATA_PART = 226,
    QUERY_IS_TOO_LARGE = 229,
    TOO_MANY_UNEXPECTED_DATA_PARTS = 231,
    NO_SUCH_DATA_PART = 232,
    ABORTED = 236,
    BAD_DATA_PART_NAME = 233,
    MEMORY_LIMIT_EXCEEDED = 241,
    CORRUPTED_DATA = 246,
    INVALID_PARTITION_VALUE = 248,
    INCOMPATIBLE_TYPE_OF_JOIN = 264,
    CANNOT_COMPRESS = 270,
    CANNOT_DECOMPRESS = 271,
    UNKNOWN_DISTRIBUTED_PRODUCT_MODE = 283,
    TOO_DEEP_RECURSION = 306,
    DATABASE_ACCESS_DENIED = 291,
    DICTIONARY_ALREADY_EXISTS = 387,
    INCORRECT_DICTIONARY_DEFINITION = 489,
    INVALID_CONFIG_PARAMETER = 318,
    UNKNOWN_DATABASE_ENGINE = 336,
    UNFINISHED = 341,
    SUPPORT_IS_DISABLED = 344,
    CANNOT_LOAD_CONFIG = 347,
    CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN = 349,
    AMBIGUOUS_COLUMN_NAME = 352,
    INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE = 353,
    INTO_OUTFILE_NOT_ALLOWED = 358,
    DATA_TYPE_CANNOT_BE_USED_IN_TABLES = 370,
    SESSION_NOT_FOUND = 372,
    SESSION_IS_LOCKED = 373,
    INVALID_SESSION_TIMEOUT = 374,
    CANNOT_PARSE_UUID = 376,
    ILLEGAL_SYNTAX_FOR_DATA_TYPE = 377,
    HTTP_LENGTH_REQUIRED = 381,
    PART_IS_TEMPORARILY_LOCKED = 384,
    NO_COMMON_TYPE = 386,
    CANNOT_GET_CREATE_TABLE_QUERY = 390,
    QUERY_WAS_CANCELLED = 394,
    FUNCTION_THROW_IF_VALUE_IS_NON_ZERO = 395,
    TOO_MANY_ROWS_OR_BYTES = 396,
    UNKNOWN_MUTATION_COMMAND = 398,
    CANNOT_STAT = 400,
    INVALID_JOIN_ON_EXPRESSION = 403,
    DECIMAL_OVERFLOW = 407,
    UNKNOWN_JOIN = 418,
    CANNOT_UPDATE_COLUMN = 420,
    CANNOT_COMPILE_REGEXP = 427,
    ILLEGAL_SYNTAX_FOR_CODEC_TYPE = 431,
    UNKNOWN_CODEC = 432,
    ILLEGAL_CODEC_PARAMETER = 433,
    INVALID_LIMIT_EXPRESSION = 440,
    BAD_DATABASE_FOR_TEMPORARY_TABLE = 442,
    BAD_TTL_EXPRESSION = 450,
    SETTING_CONSTRAINT_VIOLATION = 452,
    UNKNOWN_QUERY_PARAMETER = 456,
    BAD_QUERY_PARAMETER = 457,
    CANNOT_PARSE_BOOL = 467,
    VIOLATED_CONSTRAINT = 469,
    INVALID_SETTING_VALUE = 471,
    READONLY_SETTING = 472,
    INVALID_WITH_FILL_EXPRESSION = 475,
    WITH_TIES_WITHOUT_ORDER_BY = 476,
    UNKNOWN_POLICY = 478,
    UNKNOWN_DISK = 479,
    CANNOT_FORMAT_DATETIME = 490,
    ACCESS_ENTITY_NOT_FOUND = 492,
    ACCESS_ENTITY_ALREADY_EXISTS = 493,
    ACCESS_STORAGE_READONLY = 495,
    ACCESS_DENIED = 497,
    S3_ERROR = 499,
    FILE_ALREADY_EXISTS = 504,
    INVALID_GRANT = 509,
    UNKNOWN_ROLE = 511,
    SET_NON_GRANTED_ROLE = 512,
    AUTHENTICATION_FAILED = 516,
    ALTER_OF_COLUMN_IS_FORBIDDEN = 524,
    UNKNOWN_VOLUME = 548,
    EXPECTED_ALL_OR_DISTINCT = 558,
    CANNOT_SKIP_UNKNOWN_FIELD = 626,
    UNEXPECTED_DATA_AFTER_PARSED_VALUE = 632,
    FUNCTION_ALREADY_EXISTS = 609,
    CANNOT_DROP_FUNCTION = 610,
    CANNOT_EXTRACT_TABLE_STRUCTURE = 636,
    CANNOT_APPEND_TO_FILE = 641,
    CANNOT_PARSE_IPV4 = 675,
    CANNOT_PARSE_IPV6 = 676,
    UNKNOWN_ELEMENT_OF_ENUM = 691,
    CANNOT_DETECT_FORMAT = 715,
    DEPRECATED_FUNCTION = 721,
    UNKNOWN_EXCEPTION = 1002,
}

impl ErrorCode {
    pub fn by_name(name: &str) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|c| c.name == name)
    }

    pub fn by_code(code: i32) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|c| c.code == code)
    }
}

/// An error as a ClickHouse user sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrataError {
    pub code: ErrorCode,
    pub message: String,
}

pub type Result<T, E = StrataError> = std::result::Result<T, E>;

impl StrataError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        StrataError {
            code,
            message: message.into(),
        }
    }

    /// Wraps this error for transport through DataFusion, which gives it back
    /// unchanged to [`StrataError::from_datafusion`].
    pub fn into_datafusion(self) -> DataFusionError {
        DataFusionError::External(Box::new(self))
    }

    /// Classifies a DataFusion error into ClickHouse's codes. Errors Strata raised
    /// itself come back as they were; DataFusion's own are recognised by kind and,
    /// where the kind is too broad, by the message DataFusion writes.
    pub fn from_datafusion(error: DataFusionError) -> Self {
        if let DataFusionError::IoError(io) = &error
            && let Some(strata) = find_io_error(io)
        {
            return strata;
        }
        match error {
            DataFusionError::External(inner) => match inner.downcast::<StrataError>() {
                Ok(strata) => *strata,
                Err(other) => match other.downcast::<DataFusionError>() {
                    Ok(df) => Self::from_datafusion(*df),
                    Err(other) => Self::new(ErrorCode::UNKNOWN_EXCEPTION, other.to_string()),
                },
            },
            DataFusionError::Context(_, inner) => Self::from_datafusion(*inner),
            DataFusionError::Shared(shared) => match std::sync::Arc::try_unwrap(shared) {
                Ok(inner) => Self::from_datafusion(inner),
                // Several partitions hold this error (a hash join's build side):
                // find a Strata error inside by reference before reading text.
                Err(shared) => find_strata_error(&shared).unwrap_or_else(|| {
                    Self::classify_message(ErrorKind::Execution, &shared.to_string())
                }),
            },
            DataFusionError::Diagnostic(_, inner) => Self::from_datafusion(*inner),
            DataFusionError::Collection(mut errors) if !errors.is_empty() => {
                Self::from_datafusion(errors.remove(0))
            }
            DataFusionError::SQL(err, _) => {
                Self::new(ErrorCode::SYNTAX_ERROR, format!("Syntax error: {err}"))
            }
            DataFusionError::ResourcesExhausted(msg) => Self::new(
                ErrorCode::MEMORY_LIMIT_EXCEEDED,
                format!("Memory limit exceeded: {msg}"),
            ),
            DataFusionError::SchemaError(err, _) => match *err {
                datafusion::common::SchemaError::FieldNotFound {
                    field,
                    valid_fields,
                } => unknown_identifier(&field, &valid_fields),
                err => Self::classify_message(ErrorKind::Plan, &strip_backtrace(&err.to_string())),
            },
            DataFusionError::ArrowError(err, _) => {
                if let Some(strata) = find_in_arrow(&err) {
                    return strata;
                }
                let msg = err.to_string();
                if msg.contains("Divide by zero") {
                    Self::new(ErrorCode::ILLEGAL_DIVISION, "Division by zero")
                } else {
                    Self::classify_message(ErrorKind::Execution, &msg)
                }
            }
            DataFusionError::NotImplemented(msg) => Self::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("Not implemented: {}", strip_backtrace(&msg)),
            ),
            DataFusionError::Plan(msg) => {
                Self::classify_message(ErrorKind::Plan, &strip_backtrace(&msg))
            }
            DataFusionError::Execution(msg) => {
                Self::classify_message(ErrorKind::Execution, &strip_backtrace(&msg))
            }
            other => {
                Self::classify_message(ErrorKind::Execution, &strip_backtrace(&other.to_string()))
            }
        }
    }

    fn classify_message(kind: ErrorKind, msg: &str) -> Self {
        if let Some(arity) = arity_mismatch(msg) {
            return arity;
        }
        let code = if msg.contains("table '") && msg.contains("not found") {
            ErrorCode::UNKNOWN_TABLE
        } else if msg.starts_with("Invalid function") || msg.contains("Unknown function") {
            ErrorCode::UNKNOWN_FUNCTION
        } else if msg.contains("No field named")
            || msg.contains("not found in") && msg.contains("column")
        {
            ErrorCode::UNKNOWN_IDENTIFIER
        } else if msg.contains("Ambiguous reference") || msg.contains("ambiguous") {
            ErrorCode::AMBIGUOUS_COLUMN_NAME
        } else if msg.contains("Divide by zero") || msg.contains("Division by zero") {
            ErrorCode::ILLEGAL_DIVISION
        } else if msg.contains("Failed to coerce")
            || msg.contains("Cannot infer common")
            || msg.contains("There isn't a common type")
            || msg.contains("does not support")
            || msg.contains("No function matches")
            || msg.contains("Coercion from")
            || msg.contains("Cannot coerce arithmetic expression")
            || msg.contains("only supports signed numeric")
        {
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT
        } else if msg.contains("Cannot cast string") {
            // Arrow's cast from text failing to parse the text.
            ErrorCode::CANNOT_PARSE_TEXT
        } else if msg.contains("Cannot cast")
            || msg.contains("Unsupported CAST")
            || msg.contains("Cast error")
            || msg.contains("has null but schema specifies non-nullable")
        {
            ErrorCode::CANNOT_CONVERT_TYPE
        } else if msg.contains("must appear in the GROUP BY clause")
            || msg.contains("is not in GROUP BY")
        {
            ErrorCode::NOT_AN_AGGREGATE
        } else if msg.contains("Aggregate functions are not allowed in the WHERE clause")
            || msg.contains("Aggregate function calls cannot be nested")
        {
            ErrorCode::ILLEGAL_AGGREGATION
        } else if msg.contains("expected a list as first argument") {
            // A lambda's array function (`arrayMap`) given no array.
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT
        } else if msg.contains("lambda defined") && msg.contains("params but UDF support") {
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT
        } else if msg.contains("The window") && msg.contains("is not defined") {
            ErrorCode::BAD_ARGUMENTS
        } else if msg.contains("Projections require unique expression names") {
            ErrorCode::MULTIPLE_EXPRESSIONS_FOR_ALIAS
        } else {
            match kind {
                ErrorKind::Plan => ErrorCode::INCORRECT_QUERY,
                ErrorKind::Execution => ErrorCode::UNKNOWN_EXCEPTION,
            }
        };
        Self::new(code, msg.trim().to_string())
    }
}

/// A column no input has, in ClickHouse's words, with the closest name
/// as its hint: at most a third of the name's characters wrong, compared
/// without case.
fn unknown_identifier(
    field: &datafusion::common::Column,
    valid: &[datafusion::common::Column],
) -> StrataError {
    let sought = field.flat_name();
    let lower = sought.to_lowercase();
    let most_wrong = (sought.chars().count() + 2) / 3;
    let hint = valid
        .iter()
        .map(|c| c.name.as_str())
        .filter(|name| !name.starts_with("__"))
        .map(|name| (strsim::levenshtein(&lower, &name.to_lowercase()), name))
        .filter(|(distance, _)| *distance <= most_wrong)
        .min();
    let mut message = format!("Unknown expression identifier `{sought}`");
    if let Some((_, name)) = hint {
        message.push_str(&format!(". Maybe you meant: ['{name}']"));
    }
    StrataError::new(ErrorCode::UNKNOWN_IDENTIFIER, message)
}

#[derive(Clone, Copy)]
enum ErrorKind {
    Plan,
    Execution,
}

/// DataFusion appends backtraces to some messages when built with the feature;
/// a user-facing message never carries one.
fn strip_backtrace(msg: &str) -> String {
    match msg.find("\n\nbacktrace") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// A Strata error carried somewhere inside `error`, found without taking
/// ownership (shared errors cannot be unwrapped).
fn find_strata_error(error: &DataFusionError) -> Option<StrataError> {
    match error {
        DataFusionError::External(inner) => find_in_boxed(inner.as_ref()),
        DataFusionError::Context(_, inner) => find_strata_error(inner),
        DataFusionError::Shared(inner) => find_strata_error(inner),
        DataFusionError::Diagnostic(_, inner) => find_strata_error(inner),
        DataFusionError::ArrowError(inner, _) => find_in_arrow(inner),
        DataFusionError::IoError(inner) => find_io_error(inner),
        _ => None,
    }
}

fn find_in_boxed(error: &(dyn std::error::Error + Send + Sync + 'static)) -> Option<StrataError> {
    if let Some(strata) = error.downcast_ref::<StrataError>() {
        return Some(strata.clone());
    }
    if let Some(inner) = error.downcast_ref::<DataFusionError>() {
        return find_strata_error(inner);
    }
    error
        .downcast_ref::<datafusion::arrow::error::ArrowError>()
        .and_then(find_in_arrow)
}

fn find_in_arrow(error: &datafusion::arrow::error::ArrowError) -> Option<StrataError> {
    match error {
        datafusion::arrow::error::ArrowError::ExternalError(inner) => find_in_boxed(inner.as_ref()),
        datafusion::arrow::error::ArrowError::IoError(_, inner) => find_io_error(inner),
        _ => None,
    }
}

/// A Strata error that a writer or reader returned through `std::io`.
/// DataFusion's signature check of a call's argument count, in ClickHouse's
/// words and code: "The function 'f' expected 2 arguments but received 1",
/// "Function 'f' expects 2 arguments but received 1", "'f' does not
/// support zero arguments".
fn arity_mismatch(msg: &str) -> Option<StrataError> {
    let quoted = |text: &str| -> Option<String> {
        let start = text.find('\'')? + 1;
        let len = text[start..].find('\'')?;
        Some(text[start..start + len].to_string())
    };
    let number_before = |text: &str, word: &str| -> Option<String> {
        let end = text.find(word)?;
        let digits = text[..end].trim_end().rsplit(' ').next()?;
        digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| digits.to_string())
    };
    let (name, passed, expected) = if msg.contains("does not support zero arguments") {
        (quoted(msg)?, "0".to_string(), "at least 1".to_string())
    } else if msg.contains(" arguments but received ") {
        let received = msg.split(" arguments but received ").nth(1)?;
        let passed: String = received.chars().take_while(char::is_ascii_digit).collect();
        (
            quoted(msg)?,
            passed,
            number_before(msg, " arguments but received")?,
        )
    } else {
        return None;
    };
    Some(StrataError::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function {name} doesn't match: passed {passed}, should be {expected}"
        ),
    ))
}

pub fn find_io_error(error: &std::io::Error) -> Option<StrataError> {
    error.get_ref().and_then(find_in_boxed)
}

impl fmt::Display for StrataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.message.trim_end_matches('.');
        write!(
            f,
            "Code: {}. DB::Exception: {}. ({})",
            self.code.code, message, self.code.name
        )
    }
}

impl std::error::Error for StrataError {}

impl From<DataFusionError> for StrataError {
    fn from(error: DataFusionError) -> Self {
        StrataError::from_datafusion(error)
    }
}

impl From<datafusion::arrow::error::ArrowError> for StrataError {
    fn from(error: datafusion::arrow::error::ArrowError) -> Self {
        StrataError::from_datafusion(DataFusionError::ArrowError(Box::new(error), None))
    }
}

impl From<std::io::Error> for StrataError {
    fn from(error: std::io::Error) -> Self {
        // A reader's own error (an S3 request's) crosses `std::io::Read`
        // as an I/O error and comes back whole.
        if error
            .get_ref()
            .is_some_and(|inner| inner.is::<StrataError>())
        {
            let inner = error.into_inner().expect("an inner error was seen");
            return *inner
                .downcast::<StrataError>()
                .expect("a StrataError was seen");
        }
        StrataError::new(ErrorCode::CANNOT_OPEN_FILE, error.to_string())
    }
}

/// Shorthand for returning a [`StrataError`] with a formatted message.
#[macro_export]
macro_rules! strata_err {
    ($code:ident, $($arg:tt)*) => {
        $crate::error::StrataError::new($crate::error::ErrorCode::$code, format!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_matches_clickhouse_shape() {
        let e = StrataError::new(ErrorCode::UNKNOWN_TABLE, "Table default.t does not exist.");
        assert_eq!(
            e.to_string(),
            "Code: 60. DB::Exception: Table default.t does not exist. (UNKNOWN_TABLE)"
        );
    }

    #[test]
    fn strata_errors_survive_a_trip_through_datafusion() {
        let original = StrataError::new(ErrorCode::UNKNOWN_SETTING, "Unknown setting 'x'");
        let df =
            DataFusionError::Context("ctx".into(), Box::new(original.clone().into_datafusion()));
        assert_eq!(StrataError::from_datafusion(df), original);
    }

    #[test]
    fn strata_errors_survive_shared_and_arrow_wrapping() {
        let original = StrataError::new(ErrorCode::MEMORY_LIMIT_EXCEEDED, "over");
        // A hash join's build error is shared by every probing partition.
        let shared = std::sync::Arc::new(original.clone().into_datafusion());
        let held_elsewhere = std::sync::Arc::clone(&shared);
        let df = DataFusionError::Shared(shared);
        assert_eq!(StrataError::from_datafusion(df), original);
        drop(held_elsewhere);
        let arrow = datafusion::arrow::error::ArrowError::ExternalError(Box::new(
            original.clone().into_datafusion(),
        ));
        let df = DataFusionError::ArrowError(Box::new(arrow), None);
        assert_eq!(StrataError::from_datafusion(df), original);
    }

    #[test]
    fn argument_counts_read_as_clickhouse_writes_them() {
        let planned = |msg: &str| StrataError::from_datafusion(DataFusionError::Plan(msg.into()));
        let two = planned(
            "The function 'multiply' expected 2 arguments but received 1 No function matches",
        );
        assert_eq!(two.code, ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH);
        assert_eq!(
            two.message,
            "Number of arguments for function multiply doesn't match: passed 1, should be 2"
        );
        let none = planned("'toUnixTimestamp64Milli' does not support zero arguments.");
        assert_eq!(
            none.message,
            "Number of arguments for function toUnixTimestamp64Milli doesn't match: passed 0, \
             should be at least 1"
        );
        let other = planned("Function 'f' expects 1 arguments but received 3");
        assert_eq!(other.code, ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH);
        let typed = planned("No function matches the given name and argument types 'f(Utf8)'");
        assert_eq!(typed.code, ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT);
    }

    #[test]
    fn codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.code), "duplicate code {}", c.code);
        }
    }
}
