//! Numbers as people read them (`1.15 GiB`, `1.23 billion`), as ClickHouse
//! prints them in functions, summaries and error messages; one place so every
//! layer words sizes the same way.

/// Units of sizes in powers of 1024.
const BINARY_SIZE_UNITS: &[&str] = &[
    " B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB", " ZiB", " YiB",
];
/// Units of sizes in powers of 1000.
const DECIMAL_SIZE_UNITS: &[&str] = &[" B", " KB", " MB", " GB", " TB", " PB", " EB", " ZB", " YB"];
/// English names of powers of 1000.
const QUANTITY_UNITS: &[&str] = &[
    "",
    " thousand",
    " million",
    " billion",
    " trillion",
    " quadrillion",
    " quintillion",
    " sextillion",
    " septillion",
    " octillion",
    " nonillion",
    " decillion",
    " undecillion",
    " duodecillion",
    " tredecillion",
    " quattuordecillion",
    " quindecillion",
    " sexdecillion",
    " septendecillion",
    " octodecillion",
    " novemdecillion",
    " vigintillion",
];

/// `value` divided by `base` until below it (or out of units), with
/// `decimals` digits after the point and the unit.
fn readable(value: f64, base: f64, units: &[&str], decimals: usize) -> String {
    let mut value = value;
    let mut unit = 0;
    while value.abs() >= base && unit + 1 < units.len() {
        value /= base;
        unit += 1;
    }
    format!("{}{}", fixed(value, decimals), units[unit])
}

/// `value` with `decimals` digits, an exact half rounded away from zero as
/// ClickHouse prints it (Rust's formatting rounds it to even: 2.5 is "2").
fn fixed(value: f64, decimals: usize) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    let scale = 10f64.powi(decimals as i32);
    let scaled = value * scale;
    match scaled.is_finite() && scaled.fract().abs() == 0.5 {
        true => format!("{:.decimals$}", scaled.round() / scale),
        false => format!("{value:.decimals$}"),
    }
}

/// `1.15 GiB`: powers of 1024 with binary unit names.
pub fn readable_size(bytes: f64) -> String {
    readable_size_with(bytes, 2)
}

/// [`readable_size`] with `decimals` digits after the point.
pub fn readable_size_with(bytes: f64, decimals: usize) -> String {
    readable(bytes, 1024.0, BINARY_SIZE_UNITS, decimals)
}

/// `1.23 GB`: powers of 1000, as ClickHouse reports bytes processed.
pub fn readable_decimal_size(bytes: f64) -> String {
    readable_decimal_size_with(bytes, 2)
}

/// [`readable_decimal_size`] with `decimals` digits after the point.
pub fn readable_decimal_size_with(bytes: f64, decimals: usize) -> String {
    readable(bytes, 1000.0, DECIMAL_SIZE_UNITS, decimals)
}

/// `1.23 billion`: powers of 1000 with English names.
pub fn readable_quantity(count: f64) -> String {
    readable_quantity_with(count, 2)
}

/// [`readable_quantity`] with `decimals` digits after the point.
pub fn readable_quantity_with(count: f64, decimals: usize) -> String {
    readable(count, 1000.0, QUANTITY_UNITS, decimals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_formats_match_clickhouse() {
        assert_eq!(readable_size(1_234_567_890.0), "1.15 GiB");
        assert_eq!(readable_size(0.0), "0.00 B");
        assert_eq!(readable_size(100.0), "100.00 B");
        assert_eq!(readable_size(1536.0), "1.50 KiB");
        assert_eq!(readable_quantity(1_234_567_890.0), "1.23 billion");
        assert_eq!(readable_quantity(999.0), "999.00");
        assert_eq!(readable_quantity(1125.0), "1.13 thousand");
        assert_eq!(readable_quantity(1e63), "1.00 vigintillion");
        assert_eq!(readable_size_with(2560.0, 0), "3 KiB");
        assert_eq!(readable_size_with(1234567.0, 4), "1.1774 MiB");
        assert_eq!(readable_size(f64::NAN), "nan B");
        assert_eq!(readable_decimal_size(f64::INFINITY), "inf YB");
    }
}
