//! TensorFlow's quantized dtypes (`qint8`, `quint8`, `qint16`, `quint16`, `qint32`) as storage
//! types. A quantized tensor holds its integer storage type's buffer under the quantized tag.
//! Only the ops TensorFlow's CPU kernels register for quantized types take one: the dispatcher
//! hands any op with a quantized input (or a cast to one) to `intercept`, which bitcasts the
//! quantized inputs to their storage type, runs the op on those and bitcasts its outputs back.
//! The bitcasts are ops, so tapes, traces and saved graphs see them like any other. Every other
//! op raises TensorFlow's error for the type.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::bitcast::Bitcast;
use crate::ops::cast::Cast;
use crate::ops::registry::Op;
use crate::tensor::Tensor;

/// Ops whose kernels TensorFlow registers for every quantized type on the CPU, by TensorFlow
/// name, with whether their outputs are the input's type (retagged) or not (shapes, bools).
const STORAGE_OPS: &[(&str, bool)] = &[
    ("Reshape", true),
    ("Identity", true),
    ("StopGradient", true),
    ("EnsureShape", true),
    ("GatherV2", true),
    ("GatherNd", true),
    ("ConcatV2", true),
    ("StridedSlice", true),
    ("PadV2", true),
    ("Fill", true),
    ("Shape", false),
    ("Equal", false),
    ("NotEqual", false),
];

/// Ops that accept any type but have no kernel for quantized ones: TensorFlow's placer finds
/// no device for them (NotFoundError); the rest refuse the type by their attribute's list.
#[rustfmt::skip]
const NO_KERNEL: &[&str] = &[
    "SelectV2", "Transpose", "BroadcastTo", "Sum", "Prod", "Max", "Min", "Mean", "All", "Any",
    "ArgMax", "ArgMin", "Cumsum", "Cumprod", "ScatterNd", "TensorScatterUpdate", "Unique",
    "Split", "SplitV", "MaxPool", "AvgPool", "Unpack", "ZerosLike", "OneHot", "Roll",
    "ReverseSequence", "MatrixBandPart", "MatrixDiagV3",
];

/// Whether the op runs on `dtype` (a quantized type), and if so whether its outputs retag.
fn storage_op(name: &str, dtype: DType) -> Option<bool> {
    // TensorFlow registers Split and SplitV for quint8 alone.
    if matches!(name, "Split" | "SplitV") && dtype == DType::QU8 {
        return Some(true);
    }
    STORAGE_OPS.iter().find(|(n, _)| *n == name).map(|(_, retag)| *retag)
}

/// TensorFlow's error for an op without a kernel for `dtype`. While a `tf.function` traces,
/// TensorFlow checks attribute lists as it builds the graph (TypeError) and finds the missing
/// kernel when it runs (InvalidArgumentError).
fn refusal(name: &str, dtype: DType, tracing: bool) -> Error {
    let tag = format!("DT_{}", dtype.name().to_uppercase());
    if tracing && name != "Tile" {
        return match NO_KERNEL.contains(&name) {
            true => Error::InvalidArgument(format!(
                "No OpKernel was registered to support Op '{name}' with these attrs: [T={tag}]"
            )),
            false => Error::Type(format!(
                "Value passed to parameter 'x' of {name} has DataType {} not in list of allowed \
                 values: quantized types are storage types",
                dtype.name()
            )),
        };
    }
    if name == "Tile" {
        return Error::Unimplemented(format!(
            "TileOp : The input data type is not supported, DataType : {} [Op:Tile]",
            dtype.name()
        ));
    }
    if NO_KERNEL.contains(&name) {
        return Error::NotFound(format!(
            "Could not find device for node: {{{{node {name}}}}} = {name}[T={tag}]\n\
             No kernel is registered for op {name} with a quantized type [Op:{name}]"
        ));
    }
    Error::InvalidArgument(format!(
        "Value for attr 'T' of {} is not in the list of allowed values of {name}: quantized \
         types are storage types\n\t; NodeDef: {{{{node {name}}}}} [Op:{name}]",
        dtype.name()
    ))
}

/// `t` under dtype `to` (a quantized type and its storage share a buffer), as a Bitcast op.
fn view(t: &Tensor, to: DType) -> Result<Tensor> {
    crate::dispatch::apply1(&Op::Bitcast(Bitcast { to }), &[t])
}

/// A tensor of quantized type `q` from one of its storage type (a `Prefer` conversion that
/// inferred another type is left to the op to refuse).
pub fn retag(t: &Tensor, q: DType) -> Result<Tensor> {
    if t.dtype() == q.storage() {
        view(t, q)
    } else {
        Ok(t.clone())
    }
}

/// Runs `op` when an input is quantized or it casts to a quantized type; `None` otherwise
/// (the dispatcher then runs it as usual).
pub fn intercept(op: &Op, inputs: &[&Tensor]) -> Result<Option<Vec<Tensor>>> {
    let quantized = inputs.iter().map(|t| t.dtype()).find(|d| d.is_quantized());
    let (inner, retag_to) = match (op, quantized) {
        (Op::Bitcast(_), _) => return Ok(None),
        (Op::Cast(Cast(to)), q) if to.is_quantized() || q.is_some() => {
            (Op::Cast(Cast(to.storage())), to.is_quantized().then_some(*to))
        }
        (_, None) => return Ok(None),
        (_, Some(q)) => match storage_op(op.tf_name(), q) {
            Some(retag) => (op.clone(), retag.then_some(q)),
            None => return Err(refusal(op.tf_name(), q, crate::graph::trace::recording())),
        },
    };
    let viewed: Vec<Tensor> =
        inputs
            .iter()
            .map(|t| {
                if t.dtype().is_quantized() {
                    view(t, t.dtype().storage())
                } else {
                    Ok((*t).clone())
                }
            })
            .collect::<Result<_>>()?;
    let refs: Vec<&Tensor> = viewed.iter().collect();
    let outputs = crate::dispatch::apply(&inner, &refs)?;
    match retag_to {
        None => Ok(Some(outputs)),
        Some(q) => outputs
            .into_iter()
            .map(|t| if t.dtype() == q.storage() { view(&t, q) } else { Ok(t) })
            .collect::<Result<Vec<_>>>()
            .map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::apply1;
    use crate::ops::binary::BinaryOp;

    fn qint8(values: &[i8]) -> Tensor {
        let t = Tensor::from_slice(values, &[values.len()]).unwrap();
        apply1(&Op::Cast(Cast(DType::QI8)), &[&t]).unwrap()
    }

    #[test]
    fn casts_tag_the_storage_and_back() {
        let q = qint8(&[1, -2, 3]);
        assert_eq!(q.dtype(), DType::QI8);
        assert_eq!(q.host().unwrap().dtype(), DType::I8);
        let back = apply1(&Op::Cast(Cast(DType::F32)), &[&q]).unwrap();
        assert_eq!(back.to_vec::<f32>().unwrap(), vec![1.0, -2.0, 3.0]);
    }

    #[test]
    fn storage_ops_keep_the_tag_and_arithmetic_refuses() {
        let q = qint8(&[1, 2, 3, 4]);
        let c = apply1(&Op::Concat(crate::ops::shape_ops::Concat(0)), &[&q, &q]);
        let c = c.unwrap();
        assert_eq!((c.dtype(), c.dims()), (DType::QI8, &[8usize][..]));
        let eq = apply1(&Op::Binary(BinaryOp::Equal), &[&q, &q]).unwrap();
        assert_eq!(eq.dtype(), DType::Bool);
        let add = apply1(&Op::Binary(BinaryOp::Add), &[&q, &q]);
        assert!(matches!(add, Err(Error::InvalidArgument(m)) if m.contains("qint8")));
        assert!(matches!(refusal("Transpose", DType::QI32, false), Error::NotFound(_)));
        assert!(matches!(refusal("Tile", DType::QU8, false), Error::Unimplemented(_)));
        assert!(matches!(refusal("AddV2", DType::QU8, true), Error::Type(_)));
        assert!(matches!(refusal("Tile", DType::QU8, true), Error::Unimplemented(_)));
        assert!(matches!(refusal("Transpose", DType::QU8, true), Error::InvalidArgument(_)));
    }

    #[test]
    fn bitcast_between_quantized_widths() {
        let t = Tensor::from_slice(&[1i32, 256], &[2]).unwrap();
        let q = apply1(&Op::Bitcast(Bitcast { to: DType::QI32 }), &[&t]).unwrap();
        assert_eq!(q.dtype(), DType::QI32);
        let narrow = apply1(&Op::Bitcast(Bitcast { to: DType::QU8 }), &[&q]).unwrap();
        assert_eq!((narrow.dtype(), narrow.dims()), (DType::QU8, &[2usize, 4][..]));
        assert_eq!(narrow.to_vec::<u8>().unwrap(), vec![1, 0, 0, 0, 0, 1, 0, 0]);
    }
}
