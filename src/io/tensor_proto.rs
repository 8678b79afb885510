//! `tf.io.serialize_tensor` / `parse_tensor`: tensors as TensorFlow's `TensorProto`. Writing
//! follows TensorFlow's `AsProtoTensorContent`: numeric values packed little-endian in
//! `tensor_content`, strings in `string_val`. Reading also accepts the typed `*_val` lists
//! (a list shorter than the shape repeats its last value, as TensorFlow's reader does).

use crate::buffer::Buffer;
use crate::checkpoint::tensor_bytes;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::proto::tensorflow::{tensor_shape_proto::Dim, TensorProto, TensorShapeProto};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use prost::Message;

/// The most elements a proto may ask for beyond the values it carries: a shape is only a
/// claim, and filling it must not allocate without bound.
const MAX_FILLED_BYTES: usize = 1 << 31;

/// The TensorProto of `t` (TensorFlow's layout).
pub fn to_proto(t: &Tensor) -> Result<TensorProto> {
    let dtype = t.dtype();
    let shape = TensorShapeProto {
        dim: t.dims().iter().map(|&d| Dim { size: d as i64, name: String::new() }).collect(),
        unknown_rank: false,
    };
    let mut proto =
        TensorProto { dtype: dtype as i32, tensor_shape: Some(shape), ..Default::default() };
    match t.host()? {
        Buffer::Str(v) => proto.string_val = v.iter().map(|s| s.as_bytes().to_vec()).collect(),
        _ => proto.tensor_content = tensor_bytes::to_bytes(t)?,
    }
    Ok(proto)
}

/// `tf.io.serialize_tensor`: the TensorProto's bytes.
pub fn serialize(t: &Tensor) -> Result<Vec<u8>> {
    Ok(to_proto(t)?.encode_to_vec())
}

fn cannot_parse(why: &str) -> Error {
    Error::InvalidArgument(format!("Cannot parse tensor from proto: {why}"))
}

/// `values` (the typed list of a proto) stretched to `n`: empty means zeros, a shorter list
/// repeats its last value, a longer one is cut.
fn fill<T: Clone + Default>(values: &[T], n: usize) -> Vec<T> {
    let mut out: Vec<T> = values.iter().take(n).cloned().collect();
    let last = values.last().cloned().unwrap_or_default();
    out.resize(n, last);
    out
}

fn pairs<T: Copy + Default>(values: &[T]) -> Vec<(T, T)> {
    values.chunks_exact(2).map(|c| (c[0], c[1])).collect()
}

/// A tensor from a TensorProto; every field is checked before it sizes an allocation.
pub fn from_proto(proto: &TensorProto) -> Result<Tensor> {
    let dtype = u32::try_from(proto.dtype)
        .ok()
        .and_then(|d| DType::from_enum(d).ok())
        .ok_or_else(|| cannot_parse(&format!("unsupported dtype {}", proto.dtype)))?;
    let shape = proto.tensor_shape.clone().unwrap_or_default();
    if shape.unknown_rank {
        return Err(cannot_parse("the shape has unknown rank"));
    }
    let dims: Vec<usize> = shape
        .dim
        .iter()
        .map(|d| usize::try_from(d.size).map_err(|_| cannot_parse("a dimension is negative")))
        .collect::<Result<_>>()?;
    let n = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|n| n.checked_mul(dtype.size().max(1)).is_some())
        .ok_or_else(|| cannot_parse("the shape is too large"))?;
    if !proto.tensor_content.is_empty() {
        if dtype == DType::String {
            let strings = string_list(&proto.tensor_content, n)?;
            return Tensor::from_buffer(Buffer::Str(strings), Shape(dims));
        }
        // The checkpoint codec reads complex128 with a trailing axis of (real, imaginary).
        let stored = match dtype {
            DType::C128 => [dims.as_slice(), &[2]].concat(),
            _ => dims,
        };
        return tensor_bytes::from_bytes(dtype, &stored, &proto.tensor_content)
            .map_err(|e| cannot_parse(&e.to_string()));
    }
    let carried = [
        proto.half_val.len(),
        proto.float_val.len(),
        proto.double_val.len(),
        proto.int_val.len(),
        proto.string_val.len(),
        proto.scomplex_val.len(),
        proto.int64_val.len(),
        proto.bool_val.len(),
        proto.dcomplex_val.len(),
        proto.uint32_val.len(),
        proto.uint64_val.len(),
    ]
    .into_iter()
    .sum::<usize>();
    if n.saturating_mul(dtype.size().max(8)) > MAX_FILLED_BYTES && n > carried {
        return Err(cannot_parse("the shape asks for more elements than can be filled"));
    }
    let buffer = match dtype {
        DType::F32 => Buffer::F32(fill(&proto.float_val, n)),
        DType::F64 => Buffer::F64(fill(&proto.double_val, n)),
        DType::I64 => Buffer::I64(fill(&proto.int64_val, n)),
        DType::U32 => Buffer::U32(fill(&proto.uint32_val, n)),
        DType::U64 => Buffer::U64(fill(&proto.uint64_val, n)),
        DType::Bool => Buffer::Bool(fill(&proto.bool_val, n)),
        // Narrow integers travel in int_val and are truncated, as TensorFlow's reader does.
        DType::I32 => Buffer::I32(fill(&proto.int_val, n)),
        DType::I16 => Buffer::I16(fill(&proto.int_val, n).into_iter().map(|v| v as i16).collect()),
        DType::I8 => Buffer::I8(fill(&proto.int_val, n).into_iter().map(|v| v as i8).collect()),
        DType::U8 => Buffer::U8(fill(&proto.int_val, n).into_iter().map(|v| v as u8).collect()),
        DType::U16 => Buffer::U16(fill(&proto.int_val, n).into_iter().map(|v| v as u16).collect()),
        DType::F16 => Buffer::F16(
            fill(&proto.half_val, n).into_iter().map(|v| f16::from_bits(v as u16)).collect(),
        ),
        DType::BF16 => Buffer::BF16(
            fill(&proto.half_val, n).into_iter().map(|v| bf16::from_bits(v as u16)).collect(),
        ),
        DType::C64 => Buffer::C64(
            fill(&pairs(&proto.scomplex_val), n)
                .into_iter()
                .map(|(re, im)| Complex32::new(re, im))
                .collect(),
        ),
        DType::C128 => Buffer::C128(
            fill(&pairs(&proto.dcomplex_val), n)
                .into_iter()
                .map(|(re, im)| Complex64::new(re, im))
                .collect(),
        ),
        DType::String => {
            Buffer::Str(fill(&proto.string_val, n).iter().map(|s| TfString::new(s)).collect())
        }
        DType::QI8 | DType::QU8 | DType::QI16 | DType::QU16 | DType::QI32 => {
            return Err(cannot_parse("quantized values in int_val are not supported"))
        }
    };
    Tensor::from_buffer(buffer, Shape(dims))
}

/// `n` strings packed in a string tensor's `tensor_content`, as TensorFlow packs them (its
/// `EncodeStringList`: the n lengths as varints, then the bytes one after another). Each
/// length takes at least a byte, so `n` is checked against the content before any allocation.
fn string_list(content: &[u8], n: usize) -> Result<Vec<TfString>> {
    if n > content.len() {
        return Err(cannot_parse("the string lengths run past tensor_content"));
    }
    let mut rest = content;
    let mut lengths = Vec::with_capacity(n);
    for _ in 0..n {
        let length = prost::encoding::decode_varint(&mut rest)
            .ok()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| cannot_parse("a string length in tensor_content is malformed"))?;
        lengths.push(length as usize);
    }
    if lengths.iter().sum::<usize>() != rest.len() {
        return Err(cannot_parse("the string lengths do not match tensor_content"));
    }
    Ok(lengths
        .into_iter()
        .map(|length| {
            let (head, tail) = rest.split_at(length);
            rest = tail;
            TfString::new(head)
        })
        .collect())
}

/// `tf.io.parse_tensor`: a TensorProto's bytes back to a tensor of `out_type`.
pub fn parse(serialized: &[u8], out_type: DType) -> Result<Tensor> {
    let proto = TensorProto::decode(serialized).map_err(|_| {
        Error::InvalidArgument(format!(
            "Could not parse `serialized` as TensorProto, base64: {}",
            super::base64::encode(serialized)
        ))
    })?;
    let t = from_proto(&proto)?;
    if t.dtype() != out_type {
        return Err(Error::InvalidArgument(format!(
            "Type mismatch between parsed tensor ({}) and dtype ({})",
            t.dtype().name(),
            out_type.name()
        )));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn bytes_match_tensorflow() {
        // tf.io.serialize_tensor under TensorFlow 2.21.
        let x = Tensor::from_slice(&[1.5f32, 2.0], &[2]).unwrap();
        assert_eq!(hex(&serialize(&x).unwrap()), "080112041202080222080000c03f00000040");
        let s = Tensor::from_buffer(
            Buffer::Str(vec![TfString::new(b"ab"), TfString::new(b"")]),
            Shape(vec![2]),
        )
        .unwrap();
        assert_eq!(hex(&serialize(&s).unwrap()), "0807120412020802420261624200");
        let empty = Tensor::from_slice::<f32>(&[], &[0, 3]).unwrap();
        assert_eq!(hex(&serialize(&empty).unwrap()), "08011206120012020803");
        let back = parse(&serialize(&x).unwrap(), DType::F32).unwrap();
        assert_eq!(back.to_vec::<f32>().unwrap(), vec![1.5, 2.0]);
    }

    #[test]
    fn strings_packed_in_tensor_content_are_read() {
        // TensorFlow's Dataset.save packs strings this way: lengths 1 and 2, then "0" "ab".
        let bytes =
            [0x08, 0x07, 0x12, 0x04, 0x12, 0x02, 0x08, 0x02, 0x22, 0x05, 1, 2, b'0', b'a', b'b'];
        let t = parse(&bytes, DType::String).unwrap();
        assert_eq!(t.dims(), &[2]);
        // Written back as TensorFlow's serialize_tensor writes strings: in string_val.
        assert_eq!(hex(&serialize(&t).unwrap()), "080712041202080242013042026162");
        // Lengths that do not add up to the bytes, a length cut short, more strings than bytes.
        for content in [vec![1u8, 3, b'0', b'a', b'b'], vec![1, 0x80], vec![1]] {
            let mut bad = bytes[..8].to_vec();
            bad.extend([0x22, content.len() as u8]);
            bad.extend(content);
            assert!(matches!(parse(&bad, DType::String), Err(Error::InvalidArgument(_))));
        }
    }

    #[test]
    fn typed_lists_repeat_and_errors_are_typed() {
        let proto = TensorProto {
            dtype: DType::F32 as i32,
            tensor_shape: Some(TensorShapeProto {
                dim: vec![Dim { size: 3, name: String::new() }],
                unknown_rank: false,
            }),
            float_val: vec![3.0],
            ..Default::default()
        };
        let t = parse(&proto.encode_to_vec(), DType::F32).unwrap();
        assert_eq!(t.to_vec::<f32>().unwrap(), vec![3.0; 3]);
        assert!(matches!(
            parse(&proto.encode_to_vec(), DType::I32),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(parse(&[0xff, 0xff, 1], DType::I32), Err(Error::InvalidArgument(_))));
        assert_eq!(crate::io::base64::encode(&[0xff, 0xff, 1]), "//8B");
        let mut huge = proto.clone();
        huge.tensor_shape.as_mut().unwrap().dim[0].size = 1 << 40;
        assert!(matches!(from_proto(&huge), Err(Error::InvalidArgument(_))));
    }
}
