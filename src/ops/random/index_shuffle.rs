//! `RandomIndexShuffle` (`tf.random_index_shuffle`, `tf.random.experimental.index_shuffle`):
//! each index's position in a pseudorandom permutation of `[0, max_index]` fixed by a seed of
//! three 32-bit words, bit for bit TensorFlow's (`random_index_shuffle.cc`): a Simon-style
//! Feistel network over the smallest even block of at least 16 bits that holds `max_index`,
//! repeated (cycle walking) until the value falls in range. A pure op, CPU only as in
//! TensorFlow.

use crate::dtype::{DType, DTypeSet};
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, expect_name, from_attrs, input, Arity, Attrs, Decisions, Decode,
    GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::{match_buffer, with_int};

/// Inputs: index, seed (`[3]` or `[n, 3]`), max_index (index's dtype). Attribute: the even
/// number of Feistel rounds (at least 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RandomIndexShuffle {
    pub rounds: i64,
}

const INDEX_TYPES: DTypeSet = DTypeSet::of(&[DType::I32, DType::U32, DType::I64, DType::U64]);
const NAME: &str = "RandomIndexShuffle";

/// A `TypeError` while a graph is built; kernels raise it as InvalidArgumentError.
fn attr_error(attr: &str, dtype: DType) -> Error {
    Error::Type(format!(
        "Value for attr '{attr}' of {} is not in the list of allowed values: int32, uint32, \
         int64, uint64; NodeDef: {{{{node {NAME}}}}} [Op:{NAME}]",
        dtype.name()
    ))
}

fn invalid(message: String) -> Error {
    Error::InvalidArgument(format!("{message} [Op:{NAME}]"))
}

/// A word of `w` bits rotated left by `r`.
#[inline(always)]
fn rotl(x: u64, r: u32, w: u32, mask: u64) -> u64 {
    ((x << r) | (x >> (w - r))) & mask
}

#[inline(always)]
fn rotr(x: u64, r: u32, w: u32, mask: u64) -> u64 {
    ((x >> r) | (x << (w - r))) & mask
}

/// Simon's round function.
#[inline(always)]
fn simon_f(x: u64, w: u32, mask: u64) -> u64 {
    (rotl(x, 1, w, mask) & rotl(x, 8, w, mask)) ^ rotl(x, 2, w, mask)
}

/// `index`'s position in the permutation of `[0, max_index]` that `key` fixes.
pub fn index_shuffle(index: u64, key: [u32; 3], max_index: u64, rounds: usize) -> u64 {
    if max_index == 0 {
        return 0;
    }
    // TensorFlow computes the block width in double precision.
    let bits = (max_index as f64).log2().ceil() as u32;
    let block = (bits + bits % 2).max(16);
    let w = block.min(64) / 2;
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let c = 0xffff_fffc_u64 & mask;
    let mut z = 0x7369_f885_192c_0ef5_u64 & mask;
    let mut keys: Vec<u64> = key.iter().map(|&k| u64::from(k) & mask).collect();
    for i in 3..rounds {
        let previous = keys[i - 1];
        let mixed = rotr(previous, 3, w, mask) ^ rotr(previous, 4, w, mask);
        keys.push(c ^ (z & 1) ^ keys[i - 3] ^ mixed);
        z >>= 1;
    }
    let mut value = index;
    loop {
        let (mut left, mut right) = ((value >> w) & mask, value & mask);
        for pair in keys.chunks_exact(2) {
            left ^= simon_f(right, w, mask) ^ pair[0];
            right ^= simon_f(left, w, mask) ^ pair[1];
        }
        value = (left << w) | right;
        if value <= max_index {
            return value;
        }
    }
}

/// The values of an index-typed tensor as u64 (C's conversion) and whether they were negative.
#[allow(clippy::unnecessary_cast)] // one body for every integer type, u64 included
fn words(t: &Tensor) -> Vec<(u64, bool)> {
    with_int!(t.buffer(), v => v.iter().map(|&x| (x as u64, (x as i128) < 0)).collect(), else Vec::new())
}

/// The seed words: each element converted to 32 bits as C does.
#[allow(clippy::unnecessary_cast)] // one body for every integer type, u32 included
fn seed_words(t: &Tensor) -> Vec<u32> {
    match_buffer!(
        t.buffer(),
        v,
        [I32, U32, I64, U64],
        v.iter().map(|&x| x as u32).collect(),
        Vec::new()
    )
}

impl RandomIndexShuffle {
    /// How many outputs: TensorFlow's `max(index, max_index, seed rows)`.
    fn count(index: &TensorType, seed: &TensorType, max: &TensorType) -> Option<usize> {
        let size = |t: &TensorType| t.dims.iter().try_fold(1usize, |n, d| d.map(|d| n * d));
        let seeds = size(seed).map(|n| n / 3);
        Some(size(index)?.max(size(max)?).max(seeds?))
    }
}

impl Primitive for RandomIndexShuffle {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(3)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (index, seed, max) = (input(inputs, 0)?, input(inputs, 1)?, input(inputs, 2)?);
        if !INDEX_TYPES.contains(index.dtype) {
            return Err(attr_error("dtype", index.dtype));
        }
        if !INDEX_TYPES.contains(seed.dtype) {
            return Err(attr_error("Tseed", seed.dtype));
        }
        if max.dtype != index.dtype {
            return Err(Error::Type(format!(
                "cannot compute {NAME} as input #2(zero-based) was expected to be a {} tensor \
                 but is a {} tensor [Op:{NAME}]",
                index.dtype.name(),
                max.dtype.name()
            )));
        }
        // TensorFlow's kernel reads out of bounds with an odd number of rounds or fewer than
        // four: ferroflow refuses them.
        if self.rounds < 4 || self.rounds % 2 != 0 {
            return Err(invalid(format!(
                "rounds must be an even number of at least 4, got {}",
                self.rounds
            )));
        }
        let n = Self::count(index, seed, max);
        let vector = |t: &TensorType| match (t.rank(), t.dims.first()) {
            (0, _) => true,
            (1, Some(d)) => d.zip(n).is_none_or(|(d, n)| d == n),
            _ => false,
        };
        if !vector(index) {
            return Err(invalid("Index bust be a scalar or vector.".into()));
        }
        let seed_ok = match seed.rank() {
            1 => seed.dims[0].is_none_or(|d| d == 3),
            2 => {
                seed.dims[0].zip(n).is_none_or(|(d, n)| d == n)
                    && seed.dims[1].is_none_or(|d| d == 3)
            }
            _ => false,
        };
        if !seed_ok {
            return Err(invalid(format!(
                "Seed must be a vector of size [3] or a matrix of size [{}, 3] but got {}.",
                n.map_or("?".to_string(), |n| n.to_string()),
                describe_dims(&seed.dims)
            )));
        }
        if !vector(max) {
            return Err(invalid(format!(
                "Maxval must be a scalar or a vector of the same size as index but got {}",
                describe_dims(&max.dims)
            )));
        }
        let scalar = index.rank() == 0 && seed.rank() == 1 && max.rank() == 0;
        let dims = if scalar { vec![] } else { vec![n] };
        Ok(vec![TensorType { dtype: index.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        let out = self.infer(&types).map_err(crate::ops::segment::eager_error)?;
        let (index, seed, max) = (words(inputs[0]), seed_words(inputs[1]), words(inputs[2]));
        let dims: Vec<usize> = out[0].dims.iter().map(|d| d.unwrap_or(0)).collect();
        let n = Shape(dims.clone()).num_elements();
        let at = |v: &[(u64, bool)], i: usize| v[if v.len() == 1 { 0 } else { i }];
        let mut results = Vec::with_capacity(n);
        for i in 0..n {
            let ((value, negative), (top, _)) = (at(&index, i), at(&max, i));
            if negative {
                return Err(invalid(format!("index must be >= 0 but was {}", value as i64)));
            }
            let signed = inputs[0].dtype().is_signed_integer();
            let below = if signed { (top as i64) < (value as i64) } else { top < value };
            if below {
                let show = |x: u64| if signed { (x as i64).to_string() } else { x.to_string() };
                return Err(invalid(format!(
                    "max_index must be >= index, but {} < {}",
                    show(top),
                    show(value)
                )));
            }
            let row = if seed.len() == 3 { 0 } else { i };
            let key = [seed[3 * row], seed[3 * row + 1], seed[3 * row + 2]];
            results.push(index_shuffle(value, key, top, self.rounds as usize));
        }
        let shape = Shape(dims);
        let tensor = crate::with_dtype!(inputs[0].dtype(), T => {
            let v: Vec<T> = results.iter().map(|&r| <T as crate::element::Element>::from_u64(r)).collect();
            Tensor::from_vec(v, shape)
        }, else return Err(Error::unsupported_dtype(NAME, inputs[0].dtype())));
        Ok(vec![tensor])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("TensorFlow has a CPU kernel only (64-bit Feistel rounds)"),
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for RandomIndexShuffle {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        expect_name(name, NAME)?;
        from_attrs(name, attrs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let op = Op::RandomIndexShuffle(RandomIndexShuffle { rounds: 4 });
    let range = Tensor::from_slice(&[0i32, 1, 2, 3, 4, 5], &[6]).unwrap();
    let seed = Tensor::from_slice(&[1i32, 2, 3], &[3]).unwrap();
    let seeds = Tensor::from_slice(&[1u64, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    vec![
        (op.clone(), vec![range, seed.clone(), Tensor::scalar(5i32)]),
        (op, vec![Tensor::scalar(7u64), seeds, Tensor::scalar(1u64 << 40)]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TensorFlow 2.21's values (`tf.random_index_shuffle(tf.range(6), [1, 2, 3], 5)` and the
    /// docstring's `index_shuffle(tf.range(4), [5, 9], 3)`, whose seed TensorFlow pads to
    /// `[498247692, 5, 9]`).
    #[test]
    fn permutations_match_tensorflow() {
        let got: Vec<u64> = (0..6).map(|i| index_shuffle(i, [1, 2, 3], 5, 4)).collect();
        assert_eq!(got, [2, 0, 3, 4, 5, 1]);
        let got: Vec<u64> = (0..4).map(|i| index_shuffle(i, [498247692, 5, 9], 3, 4)).collect();
        assert_eq!(got, [2, 0, 1, 3]);
        assert_eq!(index_shuffle(7, [1, 2, 3], 1 << 40, 4), 497744613);
    }
}
