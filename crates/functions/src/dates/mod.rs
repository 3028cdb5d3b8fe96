//! Date and time functions with ClickHouse's semantics.

pub mod age;
pub(crate) mod args;
pub mod best_effort;
mod best_effort_text;
pub mod change;
pub mod clock;
pub mod day_numbers;
pub(crate) mod frame;
pub mod intervals;
pub mod joda;
pub mod make;
pub(crate) mod moments;
pub mod packed;
pub mod parse;
pub mod relative;
pub mod shift;
pub mod slots;
pub mod snowflake;
pub mod subsecond;
pub(crate) mod text;
pub mod to_moment;
pub mod trunc;
pub mod unix;
pub(crate) mod weeks;
pub mod zones;

use datafusion::logical_expr::ScalarUDF;

pub use moments::ticks_per_second;

/// The scalar functions of this family.
pub fn scalar_functions() -> Vec<ScalarUDF> {
    let mut functions = Vec::new();
    for period in relative::Period::ALL {
        functions.push(ScalarUDF::new_from_impl(relative::Relative::new(period)));
    }
    for kind in zones::ZoneKind::ALL {
        functions.push(ScalarUDF::new_from_impl(zones::ZoneFunction::new(kind)));
    }
    for fraction in subsecond::Fraction::ALL {
        functions.push(ScalarUDF::new_from_impl(subsecond::SubSecond::new(
            fraction,
        )));
    }
    for kind in clock::ClockKind::ALL {
        functions.push(ScalarUDF::new_from_impl(clock::ClockFunction::new(kind)));
    }
    for syntax in [parse::Syntax::MySql, parse::Syntax::Joda] {
        for unparsed in parse::Unparsed::ALL {
            for wide in [false, true] {
                functions.push(ScalarUDF::new_from_impl(parse::ParseDateTime::new(
                    unparsed, syntax, wide,
                )));
            }
        }
    }
    for made in make::Made::ALL {
        functions.push(ScalarUDF::new_from_impl(make::MakeFunction::new(made)));
    }
    functions.push(ScalarUDF::new_from_impl(trunc::DateTrunc::default()));
    for part in change::Part::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(part)));
    }
    for number in day_numbers::DayNumber::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(number)));
    }
    for packed in packed::Packed::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(packed)));
    }
    for unix in unix::Unix::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(unix)));
    }
    for snowflake in snowflake::Snowflake::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(snowflake)));
    }
    functions.push(ScalarUDF::new_from_impl(frame::Udf::new(joda::FormatJoda)));
    for target in to_moment::Target::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(target)));
    }
    for shift in shift::Shift::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(shift)));
    }
    functions.push(ScalarUDF::new_from_impl(frame::Udf::new(age::Age)));
    for form in best_effort::BestEffort::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(form)));
    }
    for kind in intervals::IntervalKind::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(kind)));
    }
    for slot in slots::Slot::ALL {
        functions.push(ScalarUDF::new_from_impl(frame::Udf::new(slot)));
    }
    functions
}
