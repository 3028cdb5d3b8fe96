//! Numbers as people read them (`1.15 GiB`, `1.23 billion`), as ClickHouse
//! prints them in functions, summaries and error messages; one place so every
//! layer words sizes the same way.

fn readable(value: f64, base: f64, units: &[&str]) -> String {
    let mut value = value;
    let mut unit = 0;
    while value.abs() >= base && unit + 1 < units.len() {
        value /= base;
        unit += 1;
    }
    format!("{value:.2}{}", units[unit])
}

/// `1.15 GiB`: powers of 1024 with binary unit names.
pub fn readable_size(bytes: f64) -> String {
    readable(
        bytes,
        1024.0,
        &[
            " B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB", " ZiB", " YiB",
        ],
    )
}

/// `1.23 GB`: powers of 1000, as ClickHouse reports bytes processed.
pub fn readable_decimal_size(bytes: f64) -> String {
    readable(
        bytes,
        1000.0,
        &[" B", " KB", " MB", " GB", " TB", " PB", " EB", " ZB", " YB"],
    )
}

/// `1.23 billion`: powers of 1000 with English names.
pub fn readable_quantity(count: f64) -> String {
    readable(
        count,
        1000.0,
        &[
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
        ],
    )
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
    }
}
