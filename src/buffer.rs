//! Typed host storage: one `Vec` per dtype, and the macros that instantiate a kernel body for
//! each dtype of a group.

use crate::dtype::DType;
use crate::element::{Element, Movable};
use crate::tstring::TfString;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

#[derive(Clone, Debug, PartialEq)]
pub enum Buffer {
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    Bool(Vec<bool>),
    C64(Vec<Complex32>),
    C128(Vec<Complex64>),
    Str(Vec<TfString>),
}

/// `match_buffer!(buffer, data, [F32, F64], body, otherwise)`: runs `body` with `data: &Vec<T>`
/// for the listed variants. Group shorthands below keep dtype lists in one place.
#[macro_export]
macro_rules! match_buffer {
    ($buf:expr, $data:ident, [$($variant:ident),*], $body:expr, $otherwise:expr) => {
        match $buf {
            $( $crate::buffer::Buffer::$variant($data) => $body, )*
            #[allow(unreachable_patterns)]
            _ => $otherwise,
        }
    };
}

#[macro_export]
macro_rules! with_float {
    ($buf:expr, $d:ident => $body:expr, else $e:expr) => {
        $crate::match_buffer!($buf, $d, [F16, BF16, F32, F64], $body, $e)
    };
}

#[macro_export]
macro_rules! with_int {
    ($buf:expr, $d:ident => $body:expr, else $e:expr) => {
        $crate::match_buffer!($buf, $d, [I8, I16, I32, I64, U8, U16, U32, U64], $body, $e)
    };
}

#[macro_export]
macro_rules! with_real {
    ($buf:expr, $d:ident => $body:expr, else $e:expr) => {
        $crate::match_buffer!(
            $buf,
            $d,
            [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64],
            $body,
            $e
        )
    };
}

#[macro_export]
macro_rules! with_complex {
    ($buf:expr, $d:ident => $body:expr, else $e:expr) => {
        $crate::match_buffer!($buf, $d, [C64, C128], $body, $e)
    };
}

#[macro_export]
macro_rules! with_numeric {
    ($buf:expr, $d:ident => $body:expr, else $e:expr) => {
        $crate::match_buffer!(
            $buf,
            $d,
            [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, C64, C128],
            $body,
            $e
        )
    };
}

/// Every `Element` dtype (all but strings); `$e` handles a string buffer, which the op's
/// declaration normally rules out before a kernel runs.
#[macro_export]
macro_rules! with_all {
    ($buf:expr, $d:ident => $body:expr, else $e:expr) => {
        $crate::match_buffer!(
            $buf,
            $d,
            [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool, C64, C128],
            $body,
            $e
        )
    };
}

/// Every dtype, strings included: for kernels that only move, compare or show elements
/// (`$body` sees `$d: &Vec<T>` with `T: Movable`). The list is exhaustive, so the fallback
/// arm `match_buffer!` adds can never be taken.
#[macro_export]
macro_rules! with_movable {
    ($buf:expr, $d:ident => $body:expr) => {
        $crate::match_buffer!(
            $buf,
            $d,
            [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool, C64, C128, Str],
            $body,
            unreachable!("every buffer variant is listed")
        )
    };
}

/// Runs `$body` with `$t` bound to the Rust element type of a runtime `DType`; `$e` for
/// `String` and the quantized types, which have no `Element` type (a quantized tensor's buffer
/// holds its `storage()` type's elements).
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $t:ident => $body:expr, else $e:expr) => {{
        use $crate::dtype::DType as __D;
        match $dtype {
            __D::F16 => {
                type $t = half::f16;
                $body
            }
            __D::BF16 => {
                type $t = half::bf16;
                $body
            }
            __D::F32 => {
                type $t = f32;
                $body
            }
            __D::F64 => {
                type $t = f64;
                $body
            }
            __D::I8 => {
                type $t = i8;
                $body
            }
            __D::I16 => {
                type $t = i16;
                $body
            }
            __D::I32 => {
                type $t = i32;
                $body
            }
            __D::I64 => {
                type $t = i64;
                $body
            }
            __D::U8 => {
                type $t = u8;
                $body
            }
            __D::U16 => {
                type $t = u16;
                $body
            }
            __D::U32 => {
                type $t = u32;
                $body
            }
            __D::U64 => {
                type $t = u64;
                $body
            }
            __D::Bool => {
                type $t = bool;
                $body
            }
            __D::C64 => {
                type $t = num_complex::Complex32;
                $body
            }
            __D::C128 => {
                type $t = num_complex::Complex64;
                $body
            }
            __D::String | __D::QI8 | __D::QU8 | __D::QI16 | __D::QU16 | __D::QI32 => $e,
        }
    }};
}

impl Buffer {
    pub fn dtype(&self) -> DType {
        with_movable!(self, v => element_dtype(v))
    }

    pub fn len(&self) -> usize {
        with_movable!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A buffer of `len` zeros (false, 0, 0.0, empty strings) of `dtype`.
    pub fn zeros(dtype: DType, len: usize) -> Buffer {
        with_dtype!(dtype.storage(), T => T::wrap(vec![T::default(); len]), else Buffer::Str(vec![TfString::default(); len]))
    }

    /// Copies `src`'s elements into this buffer's allocation; false when dtype or length differ.
    pub fn copy_from(&mut self, src: &Buffer) -> bool {
        with_movable!(self, d => copy_elements(d, src))
    }

    /// Raw little-endian bytes of a fixed-width buffer (strings have none), used by
    /// serialisation and hashing.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        with_all!(self, v => {
            let bytes = std::mem::size_of_val(v.as_slice());
            // SAFETY: every element type is plain old data without padding (bool is one byte
            // holding 0 or 1), so viewing the initialised slice as bytes is sound.
            #[allow(clippy::unnecessary_cast)] // a no-op only in the u8 arm of the macro
            Some(unsafe {
                std::slice::from_raw_parts(v.as_ptr() as *const u8, bytes)
            })
        }, else None)
    }
}

fn copy_elements<T: Movable>(dst: &mut [T], src: &Buffer) -> bool {
    match T::unwrap_vec(src) {
        Some(s) if s.len() == dst.len() => {
            dst.clone_from_slice(s);
            true
        }
        _ => false,
    }
}

fn element_dtype<T: Movable>(_: &[T]) -> DType {
    T::MOVABLE_DTYPE
}
