//! String, string search, replacement, splitting, encoding and URL functions with ClickHouse's semantics.

use datafusion::logical_expr::ScalarUDF;

mod decimal_string;
mod distance;
mod encoding;
mod key_value;
mod ngram_similarity;
mod printf;
mod regexp;
mod search;
mod split;
mod substring;
mod text;
mod udf;
mod url;

/// The scalar functions of this family.
pub fn scalar_functions() -> Vec<ScalarUDF> {
    [
        substring::SPECS,
        search::SPECS,
        regexp::SPECS,
        split::SPECS,
        encoding::SPECS,
        text::SPECS,
        url::SPECS,
        distance::SPECS,
        key_value::SPECS,
        decimal_string::SPECS,
        ngram_similarity::SPECS,
        printf::SPECS,
    ]
    .into_iter()
    .flat_map(udf::register)
    .collect()
}
