//! Element types with TensorFlow's names and enum numbers (`DT_FLOAT = 1`, ...).

use crate::error::{Error, Result};

/// A tensor's element type. The discriminants are TensorFlow's `DataType` enum values, so they
/// travel unchanged through Python (`as_datatype_enum`); saved files name them as TensorFlow does.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[repr(u8)]
pub enum DType {
    #[serde(rename = "float32")]
    F32 = 1,
    #[serde(rename = "float64")]
    F64 = 2,
    #[serde(rename = "int32")]
    I32 = 3,
    #[serde(rename = "uint8")]
    U8 = 4,
    #[serde(rename = "int16")]
    I16 = 5,
    #[serde(rename = "int8")]
    I8 = 6,
    #[serde(rename = "string")]
    String = 7,
    #[serde(rename = "complex64")]
    C64 = 8,
    #[serde(rename = "int64")]
    I64 = 9,
    #[serde(rename = "bool")]
    Bool = 10,
    #[serde(rename = "qint8")]
    QI8 = 11,
    #[serde(rename = "quint8")]
    QU8 = 12,
    #[serde(rename = "qint32")]
    QI32 = 13,
    #[serde(rename = "bfloat16")]
    BF16 = 14,
    #[serde(rename = "qint16")]
    QI16 = 15,
    #[serde(rename = "quint16")]
    QU16 = 16,
    #[serde(rename = "uint16")]
    U16 = 17,
    #[serde(rename = "complex128")]
    C128 = 18,
    #[serde(rename = "float16")]
    F16 = 19,
    #[serde(rename = "uint32")]
    U32 = 22,
    #[serde(rename = "uint64")]
    U64 = 23,
}

impl DType {
    /// The dtypes with arithmetic elements (`Element`); `String` is the one dtype outside.
    pub const ALL: [DType; 15] = [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::Bool,
        DType::C64,
        DType::C128,
    ];

    /// TensorFlow's quantized types: storage types over an integer buffer (`storage`) that
    /// only ops moving or comparing elements accept (see `ops::quantized`).
    pub const QUANTIZED: [DType; 5] =
        [DType::QI8, DType::QU8, DType::QI16, DType::QU16, DType::QI32];

    /// TensorFlow's name (`float32`, `half` is spelled `float16` as `tf.float16.name` does).
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::Bool => "bool",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
            DType::String => "string",
            DType::QI8 => "qint8",
            DType::QU8 => "quint8",
            DType::QI16 => "qint16",
            DType::QU16 => "quint16",
            DType::QI32 => "qint32",
        }
    }

    /// The integer type whose elements a quantized type's buffer holds; other types are their
    /// own storage.
    pub fn storage(self) -> DType {
        match self {
            DType::QI8 => DType::I8,
            DType::QU8 => DType::U8,
            DType::QI16 => DType::I16,
            DType::QU16 => DType::U16,
            DType::QI32 => DType::I32,
            d => d,
        }
    }

    pub fn is_quantized(self) -> bool {
        self.storage() != self
    }

    /// The name TensorFlow's C++ runtime uses in messages (`float`, `double`, `half`).
    pub fn cpp_name(self) -> &'static str {
        match self {
            DType::F32 => "float",
            DType::F64 => "double",
            DType::F16 => "half",
            other => other.name(),
        }
    }

    pub fn from_name(name: &str) -> Result<DType> {
        let aliases = [("half", DType::F16), ("float", DType::F32), ("double", DType::F64)];
        DType::ALL
            .iter()
            .copied()
            .chain([DType::String])
            .chain(DType::QUANTIZED)
            .find(|d| d.name() == name)
            .or_else(|| aliases.iter().find(|(n, _)| *n == name).map(|(_, d)| *d))
            .ok_or_else(|| {
                Error::Type(format!("Cannot convert value {name:?} to a TensorFlow DType."))
            })
    }

    pub fn from_enum(value: u32) -> Result<DType> {
        DType::ALL
            .iter()
            .copied()
            .chain([DType::String])
            .chain(DType::QUANTIZED)
            .find(|d| *d as u32 == value)
            .ok_or_else(|| Error::Type(format!("Unknown TensorFlow DataType enum {value}")))
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::C64 => 8,
            DType::C128 => 16,
            DType::String => std::mem::size_of::<crate::tstring::TfString>(),
            q => q.storage().size(),
        }
    }

    pub fn is_floating(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    pub fn is_bool(self) -> bool {
        self == DType::Bool
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64 | DType::Bool)
    }

    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// Real numbers: integers and floats (what ordering comparisons accept).
    pub fn is_real(self) -> bool {
        self.is_integer() || self.is_floating()
    }

    /// Anything arithmetic works on: all but bool, string and the quantized types.
    pub fn is_numeric(self) -> bool {
        !self.is_bool() && !self.is_string() && !self.is_quantized()
    }

    pub fn is_string(self) -> bool {
        self == DType::String
    }

    /// The real type of a complex type (`complex64 -> float32`); other types map to themselves.
    pub fn real_dtype(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of dtypes, used by op declarations to state what they accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DTypeSet(u32);

impl DTypeSet {
    pub const fn empty() -> Self {
        DTypeSet(0)
    }
    const fn bit(d: DType) -> u32 {
        1 << (d as u32)
    }
    pub const fn of(list: &[DType]) -> Self {
        let mut bits = 0;
        let mut i = 0;
        while i < list.len() {
            bits |= Self::bit(list[i]);
            i += 1;
        }
        DTypeSet(bits)
    }
    pub const fn union(self, other: DTypeSet) -> Self {
        DTypeSet(self.0 | other.0)
    }
    pub fn contains(self, d: DType) -> bool {
        self.0 & Self::bit(d) != 0
    }

    pub const FLOAT: DTypeSet = DTypeSet::of(&[DType::F16, DType::BF16, DType::F32, DType::F64]);
    pub const COMPLEX: DTypeSet = DTypeSet::of(&[DType::C64, DType::C128]);
    pub const SIGNED: DTypeSet = DTypeSet::of(&[DType::I8, DType::I16, DType::I32, DType::I64]);
    pub const UNSIGNED: DTypeSet = DTypeSet::of(&[DType::U8, DType::U16, DType::U32, DType::U64]);
    pub const INT: DTypeSet = DTypeSet::SIGNED.union(DTypeSet::UNSIGNED);
    pub const REAL: DTypeSet = DTypeSet::INT.union(DTypeSet::FLOAT);
    pub const NUMERIC: DTypeSet = DTypeSet::REAL.union(DTypeSet::COMPLEX);
    pub const BOOL: DTypeSet = DTypeSet::of(&[DType::Bool]);
    /// Every dtype with arithmetic elements (`Element`): what most ops accept.
    pub const ALL: DTypeSet = DTypeSet::NUMERIC.union(DTypeSet::BOOL);
    pub const STRING: DTypeSet = DTypeSet::of(&[DType::String]);
    /// Every dtype, strings included: what ops that only move or compare elements accept.
    pub const ANY: DTypeSet = DTypeSet::ALL.union(DTypeSet::STRING);
    pub const INEXACT: DTypeSet = DTypeSet::FLOAT.union(DTypeSet::COMPLEX);
    pub const SIGNED_NUMERIC: DTypeSet = DTypeSet::SIGNED.union(DTypeSet::INEXACT);
    pub const BITWISE: DTypeSet = DTypeSet::INT.union(DTypeSet::BOOL);
    pub const QUANTIZED: DTypeSet = DTypeSet::of(&DType::QUANTIZED);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()).unwrap(), d);
            assert_eq!(DType::from_enum(d as u32).unwrap(), d);
        }
        assert!(DType::from_name("float128").is_err());
        for q in DType::QUANTIZED {
            assert_eq!(DType::from_name(q.name()).unwrap(), q);
            assert_eq!(DType::from_enum(q as u32).unwrap(), q);
            assert!(q.is_quantized() && !q.storage().is_quantized());
            assert_eq!(q.size(), q.storage().size());
            assert!(!q.is_numeric() && !q.is_integer() && !DTypeSet::ANY.contains(q));
        }
    }

    #[test]
    fn groups_partition_all_types() {
        for d in DType::ALL {
            let groups = [d.is_floating(), d.is_integer(), d.is_complex(), d.is_bool()];
            assert_eq!(groups.iter().filter(|g| **g).count(), 1, "{d}");
            assert!(DTypeSet::ALL.contains(d));
        }
    }
}
