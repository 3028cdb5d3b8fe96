//! ClickHouse's 128- and 256-bit integers (`Int128`, `UInt128`, `Int256`,
//! `UInt256`).
//!
//! Arrow has no integers wider than 64 bits, so each is a decimal of scale 0
//! whose precision marks it: the precision is part of the Arrow type, so the
//! mark survives every expression, aggregate and sort that keeps the type,
//! where field metadata would be dropped. The precisions chosen are ones no
//! ClickHouse decimal operation produces (those give 9, 18, 38 or 76); a
//! column declared `Decimal(37, 0)`, `Decimal(39, 0)`, `Decimal(74, 0)` or
//! `Decimal(75, 0)` reads as the integer type sharing its mark.
//!
//! Values are stored as the integer, except `UInt256`, stored as its bit
//! pattern (values from 2^255 up are negative `i256`s): Arrow's comparisons
//! and sorts order those values below the others.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Decimal128Array, Decimal256Array};
use datafusion::arrow::datatypes::{DataType, i256};

/// One of ClickHouse's integer types wider than 64 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BigInt {
    Int128,
    UInt128,
    Int256,
    UInt256,
}

const INT128_PRECISION: u8 = 37;
const UINT128_PRECISION: u8 = 39;
const UINT256_PRECISION: u8 = 74;
const INT256_PRECISION: u8 = 75;

impl BigInt {
    pub const ALL: [BigInt; 4] = [
        BigInt::Int128,
        BigInt::UInt128,
        BigInt::Int256,
        BigInt::UInt256,
    ];

    /// The big integer type `data_type` stands for, if it is one.
    pub fn of(data_type: &DataType) -> Option<BigInt> {
        match data_type {
            DataType::Decimal128(INT128_PRECISION, 0) => Some(BigInt::Int128),
            DataType::Decimal256(UINT128_PRECISION, 0) => Some(BigInt::UInt128),
            DataType::Decimal256(INT256_PRECISION, 0) => Some(BigInt::Int256),
            DataType::Decimal256(UINT256_PRECISION, 0) => Some(BigInt::UInt256),
            _ => None,
        }
    }

    /// The type by its ClickHouse name, in any letter case.
    pub fn from_name(name: &str) -> Option<BigInt> {
        BigInt::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }

    pub fn data_type(self) -> DataType {
        match self {
            BigInt::Int128 => DataType::Decimal128(INT128_PRECISION, 0),
            BigInt::UInt128 => DataType::Decimal256(UINT128_PRECISION, 0),
            BigInt::Int256 => DataType::Decimal256(INT256_PRECISION, 0),
            BigInt::UInt256 => DataType::Decimal256(UINT256_PRECISION, 0),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BigInt::Int128 => "Int128",
            BigInt::UInt128 => "UInt128",
            BigInt::Int256 => "Int256",
            BigInt::UInt256 => "UInt256",
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, BigInt::Int128 | BigInt::Int256)
    }

    /// The width ClickHouse gives the type, in bytes (also its width in
    /// Native and RowBinary).
    pub fn bytes(self) -> u8 {
        match self {
            BigInt::Int128 | BigInt::UInt128 => 16,
            BigInt::Int256 | BigInt::UInt256 => 32,
        }
    }

    /// The type of `bytes` bytes and signedness `signed`.
    pub fn of_shape(signed: bool, bytes: u8) -> Option<BigInt> {
        Some(match (signed, bytes) {
            (true, 16) => BigInt::Int128,
            (false, 16) => BigInt::UInt128,
            (true, 32) => BigInt::Int256,
            (false, 32) => BigInt::UInt256,
            _ => return None,
        })
    }

    /// `value` reduced to the type's bits, as ClickHouse wraps integers: the
    /// value stored for it (`UInt256` stores the bit pattern itself).
    pub fn wrap(self, value: i256) -> i256 {
        let (low, _) = value.to_parts();
        match self {
            BigInt::Int128 => i256::from_i128(low as i128),
            BigInt::UInt128 => i256::from_parts(low, 0),
            BigInt::Int256 | BigInt::UInt256 => value,
        }
    }

    /// 256-bit values as a column of this type, each reduced to its bits.
    pub fn array(self, values: impl IntoIterator<Item = Option<i256>>) -> ArrayRef {
        let (DataType::Decimal128(precision, _) | DataType::Decimal256(precision, _)) =
            self.data_type()
        else {
            unreachable!("big integers are decimals");
        };
        let wrapped = values.into_iter().map(|v| v.map(|v| self.wrap(v)));
        match self {
            BigInt::Int128 => Arc::new(
                wrapped
                    .map(|v| v.map(i256::as_i128))
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(precision, 0)
                    .expect("a valid precision"),
            ),
            _ => Arc::new(
                wrapped
                    .collect::<Decimal256Array>()
                    .with_precision_and_scale(precision, 0)
                    .expect("a valid precision"),
            ),
        }
    }

    /// A stored value as a number of type Float64.
    pub fn to_f64(self, stored: i256) -> f64 {
        let magnitude = |v: i256| {
            let (low, high) = v.to_parts();
            high as u128 as f64 * 2f64.powi(128) + low as f64
        };
        // By magnitude: the sum of a negative high part and a large low one
        // would cancel to nothing in a float.
        match self != BigInt::UInt256 && stored.is_negative() {
            true => -magnitude(stored.wrapping_neg()),
            false => magnitude(stored),
        }
    }

    /// A stored value in decimal digits.
    pub fn to_text(self, stored: i256) -> String {
        if self != BigInt::UInt256 || !stored.is_negative() {
            return stored.to_string();
        }
        // Past 2^255: the value over ten fits `i256`; its last digit is the rest.
        let (low, high) = stored.to_parts();
        let halved = i256::from_parts(
            (low >> 1) | ((high as u128 & 1) << 127),
            ((high as u128) >> 1) as i128,
        );
        let tens = halved.wrapping_div(i256::from_i128(5));
        let last = stored.wrapping_sub(tens.wrapping_mul(i256::from_i128(10)));
        format!("{tens}{last}")
    }

    /// Decimal digits (an optional sign, surrounding blanks) as the stored
    /// value, wrapping past the type's range as ClickHouse does; None for
    /// text that is not an integer.
    pub fn parse(self, text: &str) -> Option<i256> {
        let text = text.trim();
        let (negative, digits) = match text.as_bytes().first()? {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let ten = i256::from_i128(10);
        let magnitude = digits.bytes().fold(i256::ZERO, |acc, digit| {
            acc.wrapping_mul(ten)
                .wrapping_add(i256::from_i128(i128::from(digit - b'0')))
        });
        let value = match negative {
            true => magnitude.wrapping_neg(),
            false => magnitude,
        };
        Some(self.wrap(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_round_trip() {
        for t in BigInt::ALL {
            assert_eq!(BigInt::of(&t.data_type()), Some(t));
            assert_eq!(BigInt::from_name(&t.name().to_lowercase()), Some(t));
            assert_eq!(BigInt::of_shape(t.signed(), t.bytes()), Some(t));
        }
        assert_eq!(BigInt::of(&DataType::Decimal128(38, 0)), None);
        assert_eq!(BigInt::of(&DataType::Decimal256(76, 0)), None);
    }

    #[test]
    fn values_wrap_and_print_as_clickhouse() {
        let max_u256 =
            "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert_eq!(
            BigInt::UInt256
                .parse("-1")
                .map(|v| BigInt::UInt256.to_text(v))
                .unwrap(),
            max_u256
        );
        assert_eq!(BigInt::UInt256.parse(max_u256), Some(i256::MINUS_ONE));
        assert_eq!(
            BigInt::UInt128
                .parse("-1")
                .map(|v| BigInt::UInt128.to_text(v))
                .unwrap(),
            u128::MAX.to_string()
        );
        let min_i128 = i128::MIN.to_string();
        assert_eq!(
            BigInt::Int128.parse(&min_i128),
            Some(i256::from_i128(i128::MIN))
        );
        assert_eq!(
            BigInt::Int128.parse("170141183460469231731687303715884105728"),
            Some(i256::from_i128(i128::MIN))
        );
        assert_eq!(BigInt::Int256.parse(" 42 "), Some(i256::from_i128(42)));
        assert_eq!(BigInt::Int256.parse("4x"), None);
        assert_eq!(BigInt::Int256.parse("-"), None);
        assert_eq!(BigInt::UInt256.to_f64(i256::MINUS_ONE), 2f64.powi(256));
        assert_eq!(BigInt::Int128.to_f64(i256::MINUS_ONE), -1.0);
        assert_eq!(BigInt::Int256.to_f64(i256::MIN), -(2f64.powi(255)));
    }
}
