//! The declarations of the reduction primitives (`Reduce`, `ArgReduce`, `Cumulative`); their
//! kernels live in `reduce.rs`.

use crate::autodiff::rules;
use crate::dtype::DTypeSet;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, from_attrs, input, same_type, Arity, Attrs, Decisions, Decode,
    GpuKernel, Primitive, TensorType,
};
use crate::ops::reduce::{self, ArgOp, ArgReduce, CumOp, Cumulative, Reduce, ReduceOp};
use crate::tensor::Tensor;

const REDUCE_OPS: [ReduceOp; 6] =
    [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::All, ReduceOp::Any];

impl Primitive for Reduce {
    fn tf_name(&self) -> &'static str {
        self.op.info().0
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        let (name, dtypes) = self.op.info();
        if !dtypes.contains(x.dtype) {
            return Err(Error::unsupported_dtype(name, x.dtype));
        }
        for &axis in &self.axes {
            axis_within(axis, x.rank(), name)?;
        }
        let dims = x
            .dims
            .iter()
            .enumerate()
            .filter_map(|(a, &d)| match self.axes.contains(&a) {
                true => self.keepdims.then_some(Some(1)),
                false => Some(d),
            })
            .collect();
        Ok(vec![TensorType { dtype: x.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![reduce::cpu(self.op, inputs[0], &self.axes, self.keepdims)?])
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![rules::reduce::reduce(self.op, &self.axes, &inputs[0], &outputs[0], g)?])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::Wgsl,
            differentiable: {
                // TensorFlow registers All and Any as not differentiable.
                !matches!(self.op, ReduceOp::All | ReduceOp::Any)
            },
            fusable: false,
        }
    }
}

impl Decode for Reduce {
    fn names() -> Vec<&'static str> {
        REDUCE_OPS.iter().map(|op| op.info().0).collect()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let op: Reduce = from_attrs(name, attrs)?;
        agrees(op.tf_name(), name)?;
        Ok(op)
    }
}

impl Primitive for ArgReduce {
    fn tf_name(&self) -> &'static str {
        match self.op {
            ArgOp::ArgMax => "ArgMax",
            ArgOp::ArgMin => "ArgMin",
        }
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        let name = self.tf_name();
        if !DTypeSet::REAL.contains(x.dtype) {
            return Err(Error::unsupported_dtype(name, x.dtype));
        }
        axis_within(self.axis, x.rank(), name)?;
        if x.dims[self.axis] == Some(0) {
            return Err(Error::InvalidArgument(format!(
                "Reduction axis {} is empty in shape {} [Op:{name}]",
                self.axis,
                describe_dims(&x.dims)
            )));
        }
        let mut dims = x.dims.clone();
        dims.remove(self.axis);
        Ok(vec![TensorType { dtype: self.output, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![reduce::arg_cpu(self.op, inputs[0], self.axis, self.output)?])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: false, fusable: false }
    }
}

impl Decode for ArgReduce {
    fn names() -> Vec<&'static str> {
        vec!["ArgMax", "ArgMin"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let op: ArgReduce = from_attrs(name, attrs)?;
        agrees(op.tf_name(), name)?;
        Ok(op)
    }
}

impl Primitive for Cumulative {
    fn tf_name(&self) -> &'static str {
        match self.op {
            CumOp::Sum => "Cumsum",
            CumOp::Prod => "Cumprod",
        }
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        let name = self.tf_name();
        if !DTypeSet::NUMERIC.contains(x.dtype) {
            return Err(Error::unsupported_dtype(name, x.dtype));
        }
        axis_within(self.axis, x.rank(), name)?;
        Ok(same_type(x))
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let (op, axis, exclusive, reverse) = (self.op, self.axis, self.exclusive, self.reverse);
        Ok(vec![reduce::cumulative_cpu(op, inputs[0], axis, exclusive, reverse)?])
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let (x, y) = (&inputs[0], &outputs[0]);
        let (op, axis, exclusive, reverse) = (self.op, self.axis, self.exclusive, self.reverse);
        Ok(vec![Some(rules::reduce::cumulative(op, axis, exclusive, reverse, x, y, g)?)])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for Cumulative {
    fn names() -> Vec<&'static str> {
        vec!["Cumsum", "Cumprod"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let op: Cumulative = from_attrs(name, attrs)?;
        agrees(op.tf_name(), name)?;
        Ok(op)
    }
}

/// The attributes pick the op too: a node whose name they contradict is damaged.
fn agrees(own: &str, name: &str) -> Result<()> {
    if own == name {
        Ok(())
    } else {
        Err(Error::DataLoss(format!("a saved {name} node holds the attributes of a {own} node")))
    }
}

/// Ops hold normalised axes; one past the rank means the graph was edited or damaged.
fn axis_within(axis: usize, rank: usize, name: &str) -> Result<()> {
    if axis < rank {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "axis {axis} is out of bounds for a tensor of rank {rank}: expected a value in \
         [-{rank}, {rank}) [Op:{name}]"
    )))
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::dtype::DType;
    use crate::ops::registry::Op;
    let x = || Tensor::from_slice(&[1.5f32, -2.0, 3.0, 0.5, 4.0, -1.0], &[2, 3]).unwrap();
    let flags = || Tensor::from_slice(&[true, false, true, true], &[2, 2]).unwrap();
    let over =
        |op, axes: &[usize], keepdims| Op::Reduce(Reduce { op, axes: axes.to_vec(), keepdims });
    let arg = |op, axis, output| Op::ArgReduce(ArgReduce { op, axis, output });
    let cum =
        |op, axis, exclusive, reverse| Op::Cumulative(Cumulative { op, axis, exclusive, reverse });
    vec![
        (over(ReduceOp::Sum, &[1], false), vec![x()]),
        (over(ReduceOp::Prod, &[0, 1], true), vec![x()]),
        (over(ReduceOp::Max, &[0], false), vec![x()]),
        (over(ReduceOp::Min, &[1], true), vec![x()]),
        (over(ReduceOp::All, &[1], false), vec![flags()]),
        (over(ReduceOp::Any, &[0, 1], false), vec![flags()]),
        (arg(ArgOp::ArgMax, 1, DType::I64), vec![x()]),
        (arg(ArgOp::ArgMin, 0, DType::I32), vec![x()]),
        (cum(CumOp::Sum, 1, false, false), vec![x()]),
        (cum(CumOp::Prod, 0, true, true), vec![x()]),
    ]
}
