//! `Cast`: converts every element to another dtype with TensorFlow's rules (see `element::cast`).

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::element::{cast, Element};
use crate::error::Result;
use crate::kernels::parallel;
use crate::tensor::Tensor;
use crate::{with_all, with_dtype};

fn cast_slice<T: Element, U: Element>(v: &[T]) -> Buffer {
    U::wrap(parallel::map(v, cast::<T, U>))
}

pub fn cpu(x: &Tensor, to: DType) -> Result<Tensor> {
    if x.dtype() == to {
        return Ok(x.clone());
    }
    let out = with_all!(x.buffer(), v => with_dtype!(to, U => cast_slice::<_, U>(v)));
    Ok(Tensor::from_buffer_unchecked(out, x.shape().clone()))
}
