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

    /// The address of the first element: identifies the memory a view of this buffer reads.
    pub fn address(&self) -> usize {
        with_movable!(self, v => v.as_ptr() as usize)
    }

    /// A buffer of `len` zeros (false, 0, 0.0, empty strings) of `dtype`.
    pub fn zeros(dtype: DType, len: usize) -> Buffer {
        with_dtype!(dtype.storage(), T => T::wrap(vec![T::default(); len]), else Buffer::Str(vec![TfString::default(); len]))
    }

    /// Appends `src`'s elements to this buffer's (its Vec grows by doubling, so appending
    /// piece after piece is amortised linear); false when the element types differ.
    pub fn extend_from(&mut self, src: &Buffer) -> bool {
        with_movable!(self, d => extend_elements(d, src))
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

fn extend_elements<T: Movable>(dst: &mut Vec<T>, src: &Buffer) -> bool {
    match T::unwrap_vec(src) {
        Some(s) => {
            dst.extend_from_slice(s);
            true
        }
        None => false,
    }
}

fn element_dtype<T: Movable>(_: &[T]) -> DType {
    T::MOVABLE_DTYPE
}

/// Host elements in memory another library owns (a DLPack producer's), read in place.
///
/// The buffer is a `Vec` over the foreign memory that is never dropped, grown or written: it
/// sits in a `ManuallyDrop` and only `&Buffer` is ever handed out (`Tensor::host`), so every
/// kernel reads it as any host buffer while no allocator call can reach it. `owner` releases
/// the memory when dropped (the producer's deleter), after the last tensor sharing this storage
/// is gone; writers (a variable's in-place assign) see a borrowed storage and allocate instead.
pub struct Borrowed {
    buffer: std::mem::ManuallyDrop<Buffer>,
    _owner: Box<dyn Send + Sync>,
}

impl Borrowed {
    /// Wraps `len` elements at `data`, released by dropping `owner`.
    ///
    /// # Safety
    /// `data` is non-null and aligned for `T`, and holds `len` initialised, valid values of `T`
    /// (for `bool`, bytes 0 or 1) that stay at that address, readable and unchanged by Rust,
    /// until `owner` is dropped.
    pub unsafe fn new<T: Element>(data: *const T, len: usize, owner: Box<dyn Send + Sync>) -> Self {
        let vec = if len == 0 {
            Vec::new()
        } else {
            // SAFETY: the caller's contract; the Vec is never dropped or reallocated
            // (ManuallyDrop, shared borrows only), which is all the allocator is needed for.
            unsafe { Vec::from_raw_parts(data.cast_mut(), len, len) }
        };
        Borrowed { buffer: std::mem::ManuallyDrop::new(T::wrap(vec)), _owner: owner }
    }

    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }
}

impl std::fmt::Debug for Borrowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (dtype, len) = (self.buffer.dtype(), self.buffer.len());
        write!(f, "Borrowed({dtype:?}, {len} elements)")
    }
}

#[cfg(test)]
mod tests {
    use super::Borrowed;
    use crate::ops::{self, BinaryOp};
    use crate::{Device, Shape, Tensor, Variable};
    use std::sync::{Arc, Mutex};

    /// Stands in for a DLPack producer: owns the memory; its deleter records the first
    /// element as it was when it ran (one entry per call).
    struct Producer {
        data: *mut f32,
        len: usize,
        deleted: Arc<Mutex<Vec<f32>>>,
    }

    // SAFETY: the test's memory is only read through the tensor and freed once, in drop.
    unsafe impl Send for Producer {}
    unsafe impl Sync for Producer {}

    impl Drop for Producer {
        fn drop(&mut self) {
            // SAFETY: made by Box::into_raw of a boxed slice of `len` elements below.
            self.deleted.lock().unwrap().push(unsafe { *self.data });
            // SAFETY: as above; freed once, here.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.data, self.len)) });
        }
    }

    /// Runs the test with ops and variables placed on the CPU: with a GPU present (lavapipe
    /// in CI) placement would move them there, as copies, and the sharing tested is the host's.
    fn on_cpu(test: impl FnOnce()) {
        crate::device::push_device(Device::Cpu);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(test));
        crate::device::pop_scope();
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
    }

    fn borrowed(values: &[f32], deleted: &Arc<Mutex<Vec<f32>>>) -> (Tensor, *mut f32) {
        let data = Box::into_raw(values.to_vec().into_boxed_slice()).cast::<f32>();
        let owner = Producer { data, len: values.len(), deleted: deleted.clone() };
        // SAFETY: a live, aligned allocation of initialised f32s that `owner` frees.
        let b = unsafe { Borrowed::new(data.cast_const(), values.len(), Box::new(owner)) };
        (Tensor::from_borrowed(b, Shape::from(&[values.len()][..])).unwrap(), data)
    }

    #[test]
    fn borrowed_storage_reads_in_place_and_releases_once() {
        on_cpu(|| {
            let deleted = Arc::new(Mutex::new(Vec::new()));
            let (t, data) = borrowed(&[1.0, 2.0, 3.0, 4.0], &deleted);
            assert!(t.is_borrowed());
            // The producer's later writes are seen: no copy was made.
            // SAFETY: the memory is alive (the tensor holds its owner) and no borrow is live.
            unsafe { *data = 10.0 };
            assert_eq!(t.to_vec::<f32>().unwrap(), vec![10.0, 2.0, 3.0, 4.0]);
            // Ops read it and allocate their outputs; reshapes and clones share it.
            let y = ops::binary(BinaryOp::Add, &t, &t).unwrap();
            assert!(!y.is_borrowed());
            assert_eq!(y.to_vec::<f32>().unwrap(), vec![20.0, 4.0, 6.0, 8.0]);
            let r = ops::reshape(&t, &[2, 2]).unwrap();
            let c = t.clone();
            drop(t);
            assert_eq!(deleted.lock().unwrap().len(), 0);
            assert_eq!(r.to_vec::<f32>().unwrap()[0], 10.0);
            let copy = c.deep_copy_to(Device::cpu(0)).unwrap();
            assert!(!copy.is_borrowed() && !copy.shares_storage(&c));
            drop(c);
            assert_eq!(deleted.lock().unwrap().len(), 0);
            drop(r);
            // The last handle gone: the deleter ran exactly once; the copy and the op's output live on.
            assert_eq!(deleted.lock().unwrap().len(), 1);
            assert_eq!(copy.to_vec::<f32>().unwrap(), vec![10.0, 2.0, 3.0, 4.0]);
            drop((copy, y));
            assert_eq!(deleted.lock().unwrap().len(), 1);
        });
    }

    #[test]
    fn borrowed_storage_is_never_written() {
        on_cpu(|| {
            let deleted = Arc::new(Mutex::new(Vec::new()));
            let (mut t, data) = borrowed(&[1.0, 2.0], &deleted);
            // The one in-place writer refuses borrowed storage, even when it holds the only handle.
            let other = Tensor::from_slice(&[7.0f32, 8.0], &[2]).unwrap();
            assert!(!t.overwrite_in_place(&other).unwrap());
            // SAFETY: alive, as above.
            assert_eq!(unsafe { *data }, 1.0);
            // A variable shares the memory until its first write (as TensorFlow's), which copies.
            let v = Variable::new(&t, "v", true, None, None).unwrap();
            assert!(v.peek().shares_storage(&t));
            v.assign(&other).unwrap();
            assert!(!v.peek().is_borrowed());
            assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
            assert_eq!(v.peek().to_vec::<f32>().unwrap(), vec![7.0, 8.0]);
            drop(t);
            assert_eq!(deleted.lock().unwrap().len(), 1);
            assert_eq!(v.peek().to_vec::<f32>().unwrap(), vec![7.0, 8.0]);
            // Even as the storage's only holder, the variable's write goes elsewhere.
            let (t, _) = borrowed(&[1.0, 2.0], &deleted);
            let v = Variable::new(&t, "v", true, None, None).unwrap();
            drop(t);
            v.assign(&other).unwrap();
            // Released unwritten: its first element was still 1.0 when the deleter ran.
            assert_eq!(*deleted.lock().unwrap(), vec![1.0, 1.0]);
            assert_eq!(v.peek().to_vec::<f32>().unwrap(), vec![7.0, 8.0]);
        });
    }
}
