//! Functions about evaluation rather than values: `ignore(...)` (0 whatever
//! it is given), `isConstant(x)` (whether `x` is a constant of the query),
//! `sleep(seconds)` (once per block) and `sleepEachRow(seconds)` (once per
//! row), which, as in ClickHouse, refuse to sleep more than 3 seconds in one
//! block (TOO_SLOW).

use std::time::Duration;

use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::field_type_name;

use super::frame::{Call, Spec, Typing, failure};

/// The most a block may sleep, in microseconds.
const MAX_SLEEP_MICROSECONDS: u64 = 3_000_000;

fn zero() -> Result<ColumnarValue> {
    Ok(ColumnarValue::Scalar(ScalarValue::UInt8(Some(0))))
}

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "ignore",
        aliases: &[],
        args: (0, usize::MAX),
        volatility: Volatility::Immutable,
        typing: |t| Ok(t.plain(DataType::UInt8)),
        eval: |_| zero(),
    },
    Spec {
        name: "isConstant",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| Ok(t.plain(DataType::UInt8)),
        eval: |call| {
            let constant = call.constant(0).is_some();
            Ok(ColumnarValue::Scalar(ScalarValue::UInt8(Some(
                constant as u8,
            ))))
        },
    },
    Spec {
        name: "sleep",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Volatile,
        typing: sleep_typing,
        eval: |call| sleep(call, false),
    },
    Spec {
        name: "sleepEachRow",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Volatile,
        typing: sleep_typing,
        eval: |call| sleep(call, true),
    },
];

/// UInt8, or NULL for a NULL argument; the seconds are an unsigned integer
/// or a float.
fn sleep_typing(t: &Typing) -> Result<Field> {
    let field = t.field(0);
    match field.data_type() {
        DataType::Null => Ok(t.propagating(DataType::Null)),
        DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float32
        | DataType::Float64
        | DataType::Boolean => Ok(t.propagating(DataType::UInt8)),
        _ => Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "A value of illegal type was provided as 1st argument 'seconds' to function \
                 '{}'. Expected: UInt* or Float*, got: {}",
                t.name,
                field_type_name(&field)
            ),
        )),
    }
}

fn sleep(call: &Call, each_row: bool) -> Result<ColumnarValue> {
    let Some(seconds) = call.constant(0) else {
        return Err(failure(
            ErrorCode::ILLEGAL_COLUMN,
            format!("The argument of function {} must be constant", call.name),
        ));
    };
    if seconds.is_null() {
        return Ok(ColumnarValue::Scalar(ScalarValue::try_from(
            call.result.data_type(),
        )?));
    }
    let seconds = match seconds.cast_to(&DataType::Float64)? {
        ScalarValue::Float64(Some(v)) => v,
        _ => 0.0,
    };
    if !seconds.is_finite() || seconds < 0.0 || seconds > u64::MAX as f64 / 1e6 {
        return Err(failure(
            ErrorCode::BAD_ARGUMENTS,
            "Cannot sleep infinite, very large or negative amount of time (not implemented)"
                .to_string(),
        ));
    }
    let per_call = (seconds * 1e6) as u64;
    let times = if each_row { call.rows as u64 } else { 1 };
    let total = per_call.saturating_mul(times);
    if total > MAX_SLEEP_MICROSECONDS {
        let block = match each_row {
            true => format!(" per block (of size {})", call.rows),
            false => String::new(),
        };
        return Err(failure(
            ErrorCode::TOO_SLOW,
            format!(
                "The maximum sleep time is {MAX_SLEEP_MICROSECONDS} microseconds. \
                 Requested: {total} microseconds{block}"
            ),
        ));
    }
    // An empty block does not sleep.
    if call.rows > 0 && total > 0 {
        sleep_aside(Duration::from_micros(total));
    }
    zero()
}

/// Sleeps without holding a runtime worker: a query's worker threads are
/// shared with other queries, so its other tasks move to another worker
/// meanwhile (ten `sleep(0.1)` queries at once take 0.1 s, not 0.5 s).
fn sleep_aside(duration: Duration) {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| std::thread::sleep(duration))
        }
        _ => std::thread::sleep(duration),
    }
}
