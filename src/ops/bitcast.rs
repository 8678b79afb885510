//! `Bitcast` (`tf.bitcast`): the bytes of a tensor read as another dtype. An equal width keeps
//! the shape; a narrower type adds a last axis of the width ratio, a wider one removes a last
//! axis that must be that ratio. Bools and strings have no byte view (TensorFlow's type list).

use crate::dtype::{DType, DTypeSet};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, expect_name, from_attrs, input, Arity, Attrs, Decisions, Decode,
    GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Inputs: x. Attribute: the dtype to read its bytes as (TensorFlow's `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Bitcast {
    pub to: DType,
}

/// Every dtype TensorFlow's Bitcast takes.
const TYPES: DTypeSet = DTypeSet::NUMERIC.union(DTypeSet::QUANTIZED);

/// A `TypeError` while a graph is built; kernels raise it as InvalidArgumentError.
fn attr_error(attr: &str, dtype: DType) -> Error {
    Error::Type(format!(
        "Value for attr '{attr}' of {} is not in the list of allowed values: bfloat16, half, \
         float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, complex64, \
         complex128; NodeDef: {{{{node Bitcast}}}} [Op:Bitcast]",
        dtype.name()
    ))
}

/// TensorFlow's message names the dtypes by their enum numbers.
fn shape_error(from: DType, to: DType, detail: &str) -> Error {
    Error::InvalidArgument(format!(
        "Cannot bitcast from {} to {}{detail} [Op:Bitcast]",
        from as u32, to as u32
    ))
}

impl Primitive for Bitcast {
    fn tf_name(&self) -> &'static str {
        "Bitcast"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        if !TYPES.contains(x.dtype) {
            return Err(attr_error("T", x.dtype));
        }
        if !TYPES.contains(self.to) {
            return Err(attr_error("type", self.to));
        }
        let (from, to) = (x.dtype.size(), self.to.size());
        let mut dims = x.dims.clone();
        if from > to {
            dims.push(Some(from / to));
        } else if from < to {
            let ratio = to / from;
            match dims.pop() {
                None => return Err(shape_error(x.dtype, self.to, "")),
                Some(Some(last)) if last != ratio => {
                    let detail = format!(
                        " due to shape. {last} does not match {ratio} for input shape {}",
                        describe_dims(&x.dims)
                    );
                    return Err(shape_error(x.dtype, self.to, &detail));
                }
                Some(_) => {}
            }
        }
        Ok(vec![TensorType { dtype: self.to, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let x = inputs[0];
        let out = self.infer(&[TensorType::of(x)]);
        // Eagerly TensorFlow's kernel reports a wrong last axis without the shape detail.
        let out = out.map_err(|e| match e {
            Error::InvalidArgument(m) if m.starts_with("Cannot bitcast") => {
                shape_error(x.dtype(), self.to, "")
            }
            other => crate::ops::segment::eager_error(other),
        })?;
        let dims: Vec<usize> = out[0].dims.iter().map(|d| d.unwrap_or(0)).collect();
        let shape = Shape(dims);
        // A quantized type shares its storage type's buffer: the same bytes, retagged.
        if x.dtype().storage() == self.to.storage() {
            return Ok(vec![x.retagged(self.to)]);
        }
        let to = self.to.storage();
        let buffer = crate::with_numeric!(
            x.buffer(),
            src => crate::with_dtype!(to, U => Some(U::wrap(reinterpret::<_, U>(src))), else None),
            else None
        );
        let buffer = buffer.ok_or_else(|| Error::unsupported_dtype("Bitcast", x.dtype()))?;
        let out = Tensor::from_buffer_unchecked(buffer, shape);
        Ok(vec![if self.to.is_quantized() { out.retagged(self.to) } else { out }])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly(
                "reads bytes on the host: the GPU backend stores bools and narrow dtypes widened",
            ),
            // TensorFlow registers no gradient for Bitcast (the Python wrapper raises its
            // LookupError when one is asked for).
            differentiable: false,
            fusable: false,
        }
    }
}

/// The bytes of `src` as elements of `U` (the caller checked that the byte counts agree).
fn reinterpret<T: Element, U: Element>(src: &[T]) -> Vec<U> {
    let bytes = std::mem::size_of_val(src);
    let n = bytes / std::mem::size_of::<U>();
    assert!(T::DTYPE != DType::Bool && U::DTYPE != DType::Bool, "bools have no byte view");
    let mut out: Vec<U> = Vec::with_capacity(n);
    // SAFETY: both types are plain numbers (integers, IEEE floats, pairs of floats) without
    // padding, for which every bit pattern is a value; `out` has room for `n * size_of::<U>()`
    // = `bytes` bytes, and the regions do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(
            src.as_ptr() as *const u8,
            out.as_mut_ptr() as *mut u8,
            bytes,
        );
        out.set_len(n);
    }
    out
}

impl Decode for Bitcast {
    fn names() -> Vec<&'static str> {
        vec!["Bitcast"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        expect_name(name, "Bitcast")?;
        from_attrs(name, attrs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let f = Tensor::from_slice(&[1.0f32, -2.5], &[2]).unwrap();
    let pairs = Tensor::from_slice(&[1u16, 2, 3, 4], &[2, 2]).unwrap();
    vec![
        (Op::Bitcast(Bitcast { to: DType::U8 }), vec![f.clone()]),
        (Op::Bitcast(Bitcast { to: DType::I32 }), vec![f]),
        (Op::Bitcast(Bitcast { to: DType::F32 }), vec![pairs]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_read_as_the_other_dtype() {
        let f = Tensor::from_slice(&[1.0f32], &[1]).unwrap();
        let bytes = Bitcast { to: DType::U8 }.cpu(&[&f]).unwrap().remove(0);
        assert_eq!(bytes.dims(), &[1, 4]);
        assert_eq!(bytes.to_vec::<u8>().unwrap(), [0, 0, 128, 63]);
        let back = Bitcast { to: DType::F32 }.cpu(&[&bytes]).unwrap().remove(0);
        assert_eq!(back.dims(), &[1]);
        assert_eq!(back.to_vec::<f32>().unwrap(), [1.0]);
        let odd = Tensor::from_slice(&[1i8, 2, 3], &[3]).unwrap();
        let err = Bitcast { to: DType::I16 }.cpu(&[&odd]).unwrap_err().to_string();
        assert!(err.contains("Cannot bitcast from 6 to 5"), "{err}");
        let flag = Tensor::from_slice(&[true], &[1]).unwrap();
        assert!(Bitcast { to: DType::U8 }.cpu(&[&flag]).is_err());
    }
}
