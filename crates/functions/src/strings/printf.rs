//! `printf(format, args...)`: C's conversions (`%d %i %u %x %X %o %f %F
//! %e %E %g %G %s %c %%`) with flags (`-`, `+`, space, `0`, `#`), a
//! width and a precision; length modifiers (`l`, `ll`, `h`, `z`, ...) are
//! read and ignored. As in ClickHouse, each conversion takes its own kind
//! of argument: integers for `%d %i %u %x %X %o %c`, floats for
//! `%f %e %g`, strings for `%s`.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, Int64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use strata_common::ErrorCode;

use strata_common::types::clickhouse_type_name;

use super::udf::{Call, Output, Param, Spec, Texts, failure, is_text, text_rows};
use crate::int_cast::to_i64_wrapping;

/// One argument, read as each conversion may need it.
struct Value {
    text: Option<Texts>,
    int: Option<Int64Array>,
    float: Option<Float64Array>,
    unsigned: bool,
    type_name: String,
}

impl Value {
    fn read(call: &Call, i: usize) -> Result<Value> {
        let array = call.expanded(i)?;
        let data_type = array.data_type();
        let int = data_type
            .is_integer()
            .then(|| to_i64_wrapping(&array))
            .transpose()?;
        let float = data_type
            .is_floating()
            .then(|| cast(&array, &DataType::Float64))
            .transpose()?
            .map(|f| f.as_primitive().clone());
        Ok(Value {
            text: is_text(data_type).then(|| call.text(i)).transpose()?,
            int,
            float,
            unsigned: data_type.is_unsigned_integer(),
            type_name: clickhouse_type_name(data_type, false),
        })
    }
}

/// A conversion specification: `%[flags][width][.precision]conversion`.
#[derive(Default)]
struct Conversion {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alternate: bool,
    width: usize,
    precision: Option<usize>,
    kind: u8,
}

fn bad_format(message: &str) -> datafusion::error::DataFusionError {
    failure(ErrorCode::BAD_ARGUMENTS, format!("printf: {message}"))
}

/// Reads the specification after a `%` at `*at`, leaving `*at` past it.
fn parse_conversion(format: &[u8], at: &mut usize) -> Result<Conversion> {
    let mut c = Conversion::default();
    while let Some(&flag) = format.get(*at) {
        match flag {
            b'-' => c.left = true,
            b'+' => c.plus = true,
            b' ' => c.space = true,
            b'0' => c.zero = true,
            b'#' => c.alternate = true,
            _ => break,
        }
        *at += 1;
    }
    c.width = digits(format, at);
    if format.get(*at) == Some(&b'.') {
        *at += 1;
        c.precision = Some(digits(format, at));
    }
    while matches!(
        format.get(*at),
        Some(b'l' | b'h' | b'z' | b'j' | b't' | b'L' | b'q')
    ) {
        *at += 1;
    }
    c.kind = *format
        .get(*at)
        .ok_or_else(|| bad_format("the format ends inside a conversion"))?;
    *at += 1;
    Ok(c)
}

fn digits(format: &[u8], at: &mut usize) -> usize {
    let mut n = 0usize;
    while let Some(d) = format.get(*at).filter(|b| b.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
        *at += 1;
    }
    n
}

impl Conversion {
    /// Writes `value` at `row` as this conversion asks.
    fn write(&self, value: &Value, row: usize, out: &mut Vec<u8>) -> Result<()> {
        let wrong = || {
            bad_format(&format!(
                "%{} does not take an argument of type {}",
                self.kind as char, value.type_name
            ))
        };
        let int = || value.int.as_ref().map(|v| v.value(row)).ok_or_else(wrong);
        let (sign, body) = match self.kind {
            b'd' | b'i' => {
                let v = int()?;
                let magnitude = if value.unsigned {
                    v as u64
                } else {
                    v.unsigned_abs()
                };
                let negative = v < 0 && !value.unsigned;
                (
                    self.sign(negative),
                    self.integer_digits(magnitude.to_string()),
                )
            }
            b'u' => (
                String::new(),
                self.integer_digits((int()? as u64).to_string()),
            ),
            b'x' | b'X' | b'o' => (String::new(), self.radix(int()? as u64)),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                let v = value
                    .float
                    .as_ref()
                    .map(|v| v.value(row))
                    .ok_or_else(wrong)?;
                (
                    self.sign(v.is_sign_negative() && !v.is_nan()),
                    self.float(v.abs()),
                )
            }
            b's' => {
                let text = value.text.as_ref().ok_or_else(wrong)?;
                let text = text.get(row).unwrap_or_default();
                let kept = self.precision.map_or(text.len(), |p| p.min(text.len()));
                (
                    String::new(),
                    String::from_utf8_lossy(&text[..kept]).into_owned(),
                )
            }
            b'c' => {
                let code = int()?;
                (String::new(), char::from(code as u8).to_string())
            }
            other => {
                return Err(bad_format(&format!(
                    "unknown conversion %{}",
                    other as char
                )));
            }
        };
        self.pad(&sign, &body, out);
        Ok(())
    }

    fn sign(&self, negative: bool) -> String {
        match (negative, self.plus, self.space) {
            (true, ..) => "-",
            (false, true, _) => "+",
            (false, false, true) => " ",
            _ => "",
        }
        .to_string()
    }

    /// An integer's digits, at least `precision` of them.
    fn integer_digits(&self, digits: String) -> String {
        match self.precision {
            Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
            _ => digits,
        }
    }

    fn radix(&self, v: u64) -> String {
        let (digits, prefix) = match self.kind {
            b'x' => (format!("{v:x}"), "0x"),
            b'X' => (format!("{v:X}"), "0X"),
            _ => (format!("{v:o}"), "0"),
        };
        let digits = self.integer_digits(digits);
        if self.alternate && v != 0 {
            format!("{prefix}{digits}")
        } else {
            digits
        }
    }

    /// A non-negative float's text under %f, %e or %g.
    fn float(&self, v: f64) -> String {
        let upper = self.kind.is_ascii_uppercase();
        let text = if !v.is_finite() {
            if v.is_nan() { "nan" } else { "inf" }.to_string()
        } else {
            let precision = self.precision.unwrap_or(6);
            match self.kind.to_ascii_lowercase() {
                b'f' => format!("{v:.precision$}"),
                b'e' => exponent_form(v, precision),
                _ => self.shortest(v, precision),
            }
        };
        if upper {
            text.to_ascii_uppercase()
        } else {
            text
        }
    }

    /// %g: %e when the exponent is below -4 or at least the precision,
    /// else %f; trailing zeros dropped unless `#`.
    fn shortest(&self, v: f64, precision: usize) -> String {
        let precision = precision.max(1);
        let exponent = if v == 0.0 {
            0
        } else {
            v.log10().floor() as i64
        };
        // Rounding may carry into the next power of ten (9.99 -> 10.0).
        let rounded = exponent_form(v, precision - 1);
        let exponent = rounded
            .rsplit_once('e')
            .and_then(|(_, e)| e.parse::<i64>().ok())
            .unwrap_or(exponent);
        let text = if exponent < -4 || exponent >= precision as i64 {
            rounded
        } else {
            let decimals = (precision as i64 - 1 - exponent).max(0) as usize;
            format!("{v:.decimals$}")
        };
        if self.alternate {
            return text;
        }
        let (mantissa, exponent) = match text.split_once('e') {
            Some((m, e)) => (m.to_string(), format!("e{e}")),
            None => (text, String::new()),
        };
        let mantissa = if mantissa.contains('.') {
            mantissa
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        } else {
            mantissa
        };
        format!("{mantissa}{exponent}")
    }

    fn pad(&self, sign: &str, body: &str, out: &mut Vec<u8>) {
        let len = sign.len() + body.chars().count();
        let fill = self.width.saturating_sub(len);
        let numeric = !matches!(self.kind, b's' | b'c');
        if self.left {
            out.extend_from_slice(sign.as_bytes());
            out.extend_from_slice(body.as_bytes());
            out.extend(std::iter::repeat_n(b' ', fill));
        } else if self.zero && numeric {
            out.extend_from_slice(sign.as_bytes());
            out.extend(std::iter::repeat_n(b'0', fill));
            out.extend_from_slice(body.as_bytes());
        } else {
            out.extend(std::iter::repeat_n(b' ', fill));
            out.extend_from_slice(sign.as_bytes());
            out.extend_from_slice(body.as_bytes());
        }
    }
}

/// `v` as C's %e: one digit, `precision` decimals, a signed exponent of at
/// least two digits.
fn exponent_form(v: f64, precision: usize) -> String {
    let text = format!("{v:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').expect("Rust's {:e} has an exponent");
    let exponent: i64 = exponent.parse().expect("an integer exponent");
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

fn arguments(format: &[u8], values: usize) -> datafusion::error::DataFusionError {
    failure(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function printf doesn't match: passed {}, but format is {}",
            values + 1,
            String::from_utf8_lossy(format)
        ),
    )
}

fn printf(call: &Call) -> Result<ArrayRef> {
    let format = call.text(0)?;
    let values = (1..call.len())
        .map(|i| Value::read(call, i))
        .collect::<Result<Vec<_>>>()?;
    text_rows(call, |row, out| {
        let format = format.get(row).unwrap_or_default();
        let mut next = 0;
        let mut at = 0;
        while at < format.len() {
            let byte = format[at];
            at += 1;
            if byte != b'%' {
                out.push(byte);
                continue;
            }
            if format.get(at) == Some(&b'%') {
                out.push(b'%');
                at += 1;
                continue;
            }
            let conversion = parse_conversion(format, &mut at)?;
            let value = values
                .get(next)
                .ok_or_else(|| arguments(format, values.len()))?;
            conversion.write(value, row, out)?;
            next += 1;
        }
        if next != values.len() {
            return Err(arguments(format, values.len()));
        }
        Ok(Some(()))
    })
}

const PARAMS: [Param; 64] = {
    let mut params = [Param::Value; 64];
    params[0] = Param::Text;
    params
};

pub(super) const SPECS: &[Spec] = &[Spec {
    name: "printf",
    aliases: &[],
    params: &PARAMS,
    required: 1,
    output: Output::Text,
    eval: printf,
}];

#[cfg(test)]
mod tests {
    use super::*;

    fn float(spec: &str, v: f64) -> String {
        let mut at = 0;
        let c = parse_conversion(spec.as_bytes(), &mut at).unwrap();
        let mut out = Vec::new();
        c.pad(&c.sign(v < 0.0), &c.float(v.abs()), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_follow_c() {
        assert_eq!(float(".2f", 1.5), "1.50");
        assert_eq!(float("e", 1234.5), "1.234500e+03");
        assert_eq!(float("g", 0.0001), "0.0001");
        assert_eq!(float("g", 0.00001), "1e-05");
        assert_eq!(float("g", 123456789.0), "1.23457e+08");
        assert_eq!(float("g", 9.9999999), "10");
        assert_eq!(float("08.3f", -3.14159), "-003.142");
        assert_eq!(float("+G", 1e20), "+1E+20");
    }
}
