//! Other functions: introspection (query and server facts), block and row functions, formatting and parsing of readable sizes and durations, and the rest of ClickHouse's "Other" category with ClickHouse's semantics.
//!
//! Facts of the query and the session (`queryID`, `currentDatabase`'s
//! aliases, `getSettingOrDefault`, ...) are literals the SQL front writes
//! in (`strata-sql`'s `equivalents::other`); the functions here compute.

mod blocks;
mod errors;
pub(crate) mod frame;
mod json_string;
mod mac;
mod nullability;
mod pseudo;
mod readable;
mod server;
mod values;

use datafusion::logical_expr::ScalarUDF;

/// The scalar functions of this family.
pub fn scalar_functions() -> Vec<ScalarUDF> {
    server::mark_start();
    let mut functions = Vec::new();
    for specs in [
        server::SPECS,
        blocks::SPECS,
        pseudo::SPECS,
        readable::SPECS,
        mac::SPECS,
        errors::SPECS,
        nullability::SPECS,
        json_string::SPECS,
        values::SPECS,
    ] {
        functions.extend(frame::register(specs));
    }
    for counting in [blocks::Counting::Rows, blocks::Counting::Blocks] {
        functions.push(ScalarUDF::new_from_impl(blocks::Counter::new(counting)));
    }
    functions
}
