//! The patch primitives' declarations: `Patches` (a `PatchSpec`), its adjoint `PatchesGrad`,
//! and `MaxPoolGrad`.

use super::{image_dims, MaxPoolGrad, PatchFill, PatchSpec, PatchesGrad};
use crate::dispatch::{apply1, Op};
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, from_attrs, input, same_type, Arity, Attrs, Decisions, Decode,
    GpuKernel, Primitive, TensorType,
};
use crate::tensor::Tensor;

const PATCHES: &str = "ExtractImagePatches";
const PATCHES_GRAD: &str = "ExtractImagePatchesGrad";
const MAX_POOL_GRAD: &str = "MaxPoolGrad";

impl Primitive for PatchSpec {
    fn tf_name(&self) -> &'static str {
        PATCHES
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.check(PATCHES)?;
        let x = input(inputs, 0)?;
        let [n, _, _, c] = image_type(x, PATCHES)?;
        let dims = vec![n, Some(self.out[0]), Some(self.out[1]), c.map(|c| self.window() * c)];
        Ok(vec![TensorType { dtype: x.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![super::patches(first(inputs)?, self)?])
    }

    /// Patches and PatchesGrad are linear and each other's adjoint.
    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let [_, rows, cols, _] = image_dims(first_owned(inputs)?, PATCHES)?;
        let adjoint = PatchesGrad { spec: zero_filled(self), image: [rows, cols] };
        Ok(vec![Some(apply1(&Op::PatchesGrad(adjoint), &[g])?)])
    }

    /// The output sizes are attributes.
    fn bakes_shape(&self) -> bool {
        true
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for PatchSpec {
    fn names() -> Vec<&'static str> {
        vec![PATCHES]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_attrs(name, attrs)
    }
}

impl Primitive for PatchesGrad {
    fn tf_name(&self) -> &'static str {
        PATCHES_GRAD
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let spec = &self.spec;
        spec.check(PATCHES_GRAD)?;
        let cols = input(inputs, 0)?;
        let [n, oh, ow, k] = image_type(cols, PATCHES_GRAD)?;
        let window = spec.window();
        let fits = oh.is_none_or(|d| d == spec.out[0])
            && ow.is_none_or(|d| d == spec.out[1])
            && k.is_none_or(|k| k % window == 0);
        if !fits {
            return Err(Error::InvalidArgument(format!(
                "patch gradients of shape {} do not match windows {:?} over outputs {:?} \
                 [Op:{PATCHES_GRAD}]",
                describe_dims(&cols.dims),
                spec.kernel,
                spec.out
            )));
        }
        let dims = vec![n, Some(self.image[0]), Some(self.image[1]), k.map(|k| k / window)];
        Ok(vec![TensorType { dtype: cols.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![super::patches_grad(first(inputs)?, &self.spec, self.image)?])
    }

    fn gradient(&self, _: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(apply1(&Op::Patches(zero_filled(&self.spec)), &[g])?)])
    }

    /// The image size is an attribute.
    fn bakes_shape(&self) -> bool {
        true
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for PatchesGrad {
    fn names() -> Vec<&'static str> {
        vec![PATCHES_GRAD]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_attrs(name, attrs)
    }
}

impl Primitive for MaxPoolGrad {
    fn tf_name(&self) -> &'static str {
        MAX_POOL_GRAD
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(2)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let spec = &self.0;
        spec.check(MAX_POOL_GRAD)?;
        let (x, g) = (input(inputs, 0)?, input(inputs, 1)?);
        let [n, _, _, c] = image_type(x, MAX_POOL_GRAD)?;
        let expected = [n, Some(spec.out[0]), Some(spec.out[1]), c];
        let fits = g.dtype == x.dtype
            && g.rank() == 4
            && g.dims.iter().zip(&expected).all(|(a, b)| a.zip(*b).is_none_or(|(a, b)| a == b));
        if !fits {
            return Err(Error::InvalidArgument(format!(
                "pooled gradient must be {} of shape {}, got {} of shape {} [Op:{MAX_POOL_GRAD}]",
                x.dtype,
                describe_dims(&expected),
                g.dtype,
                describe_dims(&g.dims)
            )));
        }
        Ok(same_type(x))
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        match inputs {
            [x, g] => Ok(vec![super::max_pool_grad(x, g, &self.0)?]),
            _ => Err(Error::Internal(format!("{MAX_POOL_GRAD} takes 2 inputs"))),
        }
    }

    /// TensorFlow's MaxPoolGradGrad: linear in the pooled gradient, which reads `g` at each
    /// window's first maximum; piecewise constant in the image (zero gradient).
    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let x = first_owned(inputs)?;
        Ok(vec![None, Some(crate::ops::conv::at_first_maxima(x, g, &self.0)?)])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for MaxPoolGrad {
    fn names() -> Vec<&'static str> {
        vec![MAX_POOL_GRAD]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_attrs(name, attrs)
    }
}

/// The geometry with zeros outside the image: a gradient never flows into the fill value,
/// which is a constant.
fn zero_filled(spec: &PatchSpec) -> PatchSpec {
    PatchSpec { fill: PatchFill::Zero, ..spec.clone() }
}

/// NHWC dims, as `image_dims` checks a tensor's.
fn image_type(x: &TensorType, op: &str) -> Result<[Option<usize>; 4]> {
    match *x.dims.as_slice() {
        [n, h, w, c] => Ok([n, h, w, c]),
        _ => Err(Error::InvalidArgument(format!(
            "input must be 4-dimensional [batch, height, width, channels], got shape {} \
             [Op:{op}]",
            describe_dims(&x.dims)
        ))),
    }
}

fn first<'a>(inputs: &[&'a Tensor]) -> Result<&'a Tensor> {
    inputs.first().copied().ok_or_else(|| Error::Internal("input 0 is missing".into()))
}

fn first_owned(inputs: &[Tensor]) -> Result<&Tensor> {
    inputs.first().ok_or_else(|| Error::Internal("input 0 is missing".into()))
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(Op, Vec<Tensor>)> {
    let spec = |kernel, strides, dilations, pad, out, fill| PatchSpec {
        kernel,
        strides,
        dilations,
        pad,
        out,
        fill,
    };
    /// Distinct values (7 is prime to every size here): a max pool's windows have no ties.
    fn image(dims: &[usize]) -> Tensor {
        let n: usize = dims.iter().product();
        let values: Vec<f32> = (0..n).map(|i| ((i * 7) % n) as f32 * 0.5 - 1.0).collect();
        Tensor::from_slice(&values, dims).unwrap()
    }
    let plain = spec([2, 2], [1, 1], [1, 1], [0, 0], [2, 2], PatchFill::Zero);
    // 5x4 image, padded by one before each axis, dilated along the columns.
    let strided = spec([3, 2], [2, 1], [1, 2], [1, 1], [3, 4], PatchFill::Zero);
    let pooled = spec([2, 2], [1, 1], [1, 1], [0, 0], [1, 2], PatchFill::Lowest);
    vec![
        (Op::Patches(plain.clone()), vec![image(&[1, 3, 3, 1])]),
        (Op::Patches(strided.clone()), vec![image(&[2, 5, 4, 3])]),
        (Op::PatchesGrad(PatchesGrad { spec: plain, image: [3, 3] }), vec![image(&[1, 2, 2, 4])]),
        (
            Op::PatchesGrad(PatchesGrad { spec: strided, image: [5, 4] }),
            vec![image(&[2, 3, 4, 18])],
        ),
        (Op::MaxPoolGrad(MaxPoolGrad(pooled)), vec![image(&[1, 2, 3, 2]), image(&[1, 1, 2, 2])]),
    ]
}
