//! Integer values written in fewer bytes when all of a granule's values fit:
//! a `Decimal(15, 2)` of prices needs 4 of the 16 bytes Arrow gives it, a
//! `Date` 2 of its 4. The block codec then compresses, and every read
//! decompresses, a fraction of the bytes; the reader sign- or zero-extends
//! the values back as it copies them out of the decompressed block.

use std::mem::size_of;

use datafusion::arrow::buffer::MutableBuffer;
use datafusion::arrow::datatypes::DataType;

/// The widths values may be stored in, in bytes.
const STORED_WIDTHS: [usize; 4] = [1, 2, 4, 8];

/// A type whose values are integers of `width` bytes as Arrow holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lanes {
    Signed(usize),
    Unsigned(usize),
}

impl Lanes {
    /// The lanes of `data_type`; None where its values are not integers
    /// wider than a byte.
    pub fn of(data_type: &DataType) -> Option<Lanes> {
        use DataType::*;
        let width = data_type.primitive_width()?;
        match data_type {
            Int16 | Int32 | Int64 | Date32 | Date64 | Time32(_) | Time64(_) | Timestamp(..)
            | Duration(_) | Decimal32(..) | Decimal64(..) | Decimal128(..) => {
                Some(Lanes::Signed(width))
            }
            UInt16 | UInt32 | UInt64 => Some(Lanes::Unsigned(width)),
            _ => None,
        }
    }

    fn width(self) -> usize {
        match self {
            Lanes::Signed(width) | Lanes::Unsigned(width) => width,
        }
    }

    /// Whether values may be stored in `stored` bytes.
    pub fn stores_in(self, stored: usize) -> bool {
        STORED_WIDTHS.contains(&stored) && stored < self.width()
    }

    /// The fewest bytes every value of `values` (lanes end to end) fits
    /// in; None when that is the full width or there are no values.
    pub fn narrowest(self, values: &[u8]) -> Option<usize> {
        if values.is_empty() {
            return None;
        }
        // One pass over the values, then each width is a comparison.
        let range = match self {
            Lanes::Signed(width) => signed_range(values, width),
            Lanes::Unsigned(width) => (0, unsigned_max(values, width) as i128),
        };
        let fits = |stored: usize| {
            let bits = 8 * stored as u32;
            match self {
                Lanes::Signed(_) => {
                    range.0 >= -(1i128 << (bits - 1)) && range.1 < (1i128 << (bits - 1))
                }
                Lanes::Unsigned(_) => range.1 < (1i128 << bits),
            }
        };
        STORED_WIDTHS
            .into_iter()
            .filter(|&stored| self.stores_in(stored))
            .find(|&stored| fits(stored))
    }

    /// Appends the low `stored` bytes of each value of `values` to `out`.
    pub fn narrow(self, values: &[u8], stored: usize, out: &mut Vec<u8>) {
        debug_assert!(self.stores_in(stored));
        out.reserve(values.len() / self.width() * stored);
        for lane in values.chunks_exact(self.width()) {
            out.extend_from_slice(&lane[..stored]);
        }
    }

    /// Appends the values of `raw`, `stored` bytes each, extended back to
    /// the full width, to `out`.
    pub fn widen(self, raw: &[u8], stored: usize, out: &mut MutableBuffer) {
        macro_rules! widen {
            ($from:ty, $to:ty) => {
                out.extend(raw.chunks_exact(size_of::<$from>()).map(|lane| {
                    <$to>::from(<$from>::from_le_bytes(lane.try_into().expect("a lane")))
                }))
            };
        }
        match (self, stored) {
            (Lanes::Signed(2), 1) => widen!(i8, i16),
            (Lanes::Signed(4), 1) => widen!(i8, i32),
            (Lanes::Signed(4), 2) => widen!(i16, i32),
            (Lanes::Signed(8), 1) => widen!(i8, i64),
            (Lanes::Signed(8), 2) => widen!(i16, i64),
            (Lanes::Signed(8), 4) => widen!(i32, i64),
            (Lanes::Signed(16), 1) => widen!(i8, i128),
            (Lanes::Signed(16), 2) => widen!(i16, i128),
            (Lanes::Signed(16), 4) => widen!(i32, i128),
            (Lanes::Signed(16), 8) => widen!(i64, i128),
            (Lanes::Unsigned(2), 1) => widen!(u8, u16),
            (Lanes::Unsigned(4), 1) => widen!(u8, u32),
            (Lanes::Unsigned(4), 2) => widen!(u16, u32),
            (Lanes::Unsigned(8), 1) => widen!(u8, u64),
            (Lanes::Unsigned(8), 2) => widen!(u16, u64),
            (Lanes::Unsigned(8), 4) => widen!(u32, u64),
            (lanes, stored) => unreachable!("{lanes:?} stored in {stored} bytes"),
        }
    }
}

fn signed_range(values: &[u8], width: usize) -> (i128, i128) {
    macro_rules! range {
        ($t:ty) => {{
            let (mut low, mut high) = (<$t>::MAX, <$t>::MIN);
            for lane in values.chunks_exact(size_of::<$t>()) {
                let value = <$t>::from_le_bytes(lane.try_into().expect("a lane"));
                low = low.min(value);
                high = high.max(value);
            }
            (low as i128, high as i128)
        }};
    }
    match width {
        2 => range!(i16),
        4 => range!(i32),
        8 => range!(i64),
        _ => range!(i128),
    }
}

fn unsigned_max(values: &[u8], width: usize) -> u128 {
    macro_rules! max {
        ($t:ty) => {
            values
                .chunks_exact(size_of::<$t>())
                .map(|lane| <$t>::from_le_bytes(lane.try_into().expect("a lane")))
                .max()
                .unwrap_or(0) as u128
        };
    }
    match width {
        2 => max!(u16),
        4 => max!(u32),
        _ => max!(u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(values: &[i128]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn values_take_the_fewest_bytes_that_hold_them_and_come_back_whole() {
        let cases: [(&[i128], Option<usize>); 6] = [
            (&[0, 127, -128], Some(1)),
            (&[128], Some(2)),
            (&[-32_769], Some(4)),
            (&[999_999_999_999], Some(8)),
            (&[i64::MIN as i128 - 1], None),
            (&[], None),
        ];
        let lanes = Lanes::Signed(16);
        for (values, stored) in cases {
            let bytes = bytes_of(values);
            assert_eq!(lanes.narrowest(&bytes), stored, "{values:?}");
            if let Some(stored) = stored {
                let mut narrowed = Vec::new();
                lanes.narrow(&bytes, stored, &mut narrowed);
                assert_eq!(narrowed.len(), values.len() * stored);
                let mut wide = MutableBuffer::new(0);
                lanes.widen(&narrowed, stored, &mut wide);
                assert_eq!(wide.as_slice(), &bytes[..]);
            }
        }
    }

    #[test]
    fn unsigned_values_extend_with_zeros() {
        let lanes = Lanes::Unsigned(4);
        let bytes: Vec<u8> = [255u32, 65_535, 1]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(lanes.narrowest(&bytes), Some(2));
        let mut narrowed = Vec::new();
        lanes.narrow(&bytes, 2, &mut narrowed);
        let mut wide = MutableBuffer::new(0);
        lanes.widen(&narrowed, 2, &mut wide);
        assert_eq!(wide.as_slice(), &bytes[..]);
        let all = u32::MAX.to_le_bytes();
        assert_eq!(lanes.narrowest(&all), None);
    }

    #[test]
    fn floats_bytes_and_strings_keep_their_width() {
        for t in [
            DataType::Float64,
            DataType::Int8,
            DataType::UInt8,
            DataType::Utf8,
        ] {
            assert_eq!(Lanes::of(&t), None, "{t}");
        }
        assert_eq!(
            Lanes::of(&DataType::Decimal128(15, 2)),
            Some(Lanes::Signed(16))
        );
        assert_eq!(Lanes::of(&DataType::Date32), Some(Lanes::Signed(4)));
    }
}
