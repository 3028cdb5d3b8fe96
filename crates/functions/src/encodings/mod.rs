//! Hash, JSON, IP address, UUID and encryption functions with ClickHouse's semantics.

mod any_hash;
mod hashes;
mod ip;
pub(crate) use ip::{cast_to_ipv4, cast_to_ipv6};
mod json;
mod udf;
mod uuid;

use datafusion::logical_expr::ScalarUDF;

/// The scalar functions of this family.
pub fn scalar_functions() -> Vec<ScalarUDF> {
    let mut functions = Vec::new();
    for specs in [hashes::SPECS, ip::SPECS, uuid::SPECS] {
        functions.extend(udf::register(specs));
    }
    for specs in json::specs() {
        functions.extend(udf::register(specs));
    }
    functions
}
