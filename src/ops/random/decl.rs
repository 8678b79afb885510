//! The random primitives' declarations: stateful draws (`RandomSpec`), the Philox state ops
//! (`RngState`, `RngSkip`) and TensorFlow's stateless kernels (`StatelessSpec`).

use super::stateless::{self, tf_type_name, Sampler, StatelessSpec};
use super::{cpu, Distribution, RandomSpec};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, dims_of, expect_name, from_attrs, input, Arity, Attrs, Decisions,
    Decode, GpuKernel, Primitive, TensorType,
};
use crate::tensor::Tensor;

/// `StatelessRandomGetKeyCounter`: input a seed pair (int32/int64 `[2]`), output the Philox
/// state int64 `[C0, C1, K]` TensorFlow's stateless ops derive from it (`GenerateKey`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RngState;

/// Input a Philox state; output the state this many Philox calls further on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct RngSkip(pub u64);

const RANDOM_NAMES: [&str; 5] = [
    "RandomUniform",
    "RandomUniformInt",
    "RandomStandardNormal",
    "TruncatedNormal",
    "RandomPermutation",
];

const STATELESS_NAMES: [&str; 9] = [
    "StatelessRandomUniformV2",
    "StatelessRandomNormalV2",
    "StatelessTruncatedNormalV2",
    "StatelessRandomUniformIntV2",
    "StatelessRandomUniformFullIntV2",
    "StatelessMultinomial",
    "StatelessRandomBinomial",
    "StatelessRandomPoisson",
    "StatelessRandomGammaV3",
];

const KEY_COUNTER: &str = "StatelessRandomGetKeyCounter";

impl Primitive for RandomSpec {
    fn tf_name(&self) -> &'static str {
        RandomSpec::tf_name(self)
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(0)
    }

    /// The call counter is run-time state (serde skips it): a loaded graph starts at zero.
    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, _: &[TensorType]) -> Result<Vec<TensorType>> {
        Ok(vec![TensorType { dtype: self.dtype, dims: dims_of(&self.shape) }])
    }

    fn cpu(&self, _: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![cpu::generate(self)?])
    }

    fn bakes_shape(&self) -> bool {
        true
    }

    fn stateful(&self) -> bool {
        true
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: {
                match self.distribution {
                    Distribution::Permutation => {
                        GpuKernel::CpuOnly("a permutation is a sequential Fisher-Yates shuffle")
                    }
                    // The backend takes float32 draws and int32 ranges that fit 32 bits.
                    _ => GpuKernel::Wgsl,
                }
            },
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for RandomSpec {
    fn names() -> Vec<&'static str> {
        RANDOM_NAMES.to_vec()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let spec: RandomSpec = from_attrs(name, attrs)?;
        named(name, RandomSpec::tf_name(&spec))?;
        Ok(spec)
    }
}

impl Primitive for RngState {
    fn tf_name(&self) -> &'static str {
        KEY_COUNTER
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let seed = input(inputs, 0)?;
        if !matches!(seed.dtype, DType::I32 | DType::I64) {
            return Err(Error::InvalidArgument(format!(
                "Value for attr 'Tseed' of {} is not in the list of allowed values: int32, int64 \
                 [Op:{KEY_COUNTER}]",
                tf_type_name(seed.dtype)
            )));
        }
        if seed.rank() != 1 || seed.dims[0].is_some_and(|d| d != 2) {
            return Err(Error::InvalidArgument(format!(
                "seed must have shape [2], not {} [Op:{KEY_COUNTER}]",
                describe_dims(&seed.dims)
            )));
        }
        Ok(vec![state_type()])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![stateless::seed_state(first(inputs)?)?])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("one Philox block per seed: the backend has no kernel for it"),
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for RngState {
    fn names() -> Vec<&'static str> {
        vec![KEY_COUNTER]
    }

    fn decode(name: &str, _: &Attrs) -> Result<Self> {
        expect_name(name, KEY_COUNTER)?;
        Ok(RngState)
    }
}

impl Primitive for RngSkip {
    fn tf_name(&self) -> &'static str {
        "RngSkip"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        check_state(input(inputs, 0)?, "RngSkip")?;
        Ok(vec![state_type()])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![stateless::skip(first(inputs)?, self.0)?])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly(
                "counter arithmetic on three integers: the backend has no kernel",
            ),
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for RngSkip {
    fn names() -> Vec<&'static str> {
        vec!["RngSkip"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_attrs(name, attrs)
    }
}

impl Primitive for StatelessSpec {
    fn tf_name(&self) -> &'static str {
        StatelessSpec::tf_name(self)
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(StatelessSpec::arity(self))
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.check_dtype()?;
        check_state(input(inputs, 0)?, StatelessSpec::tf_name(self))?;
        let dims = match self.sampler {
            Sampler::Categorical { num_samples } => {
                categorical_dims(input(inputs, 1)?, num_samples)?
            }
            _ => dims_of(&self.shape),
        };
        Ok(vec![TensorType { dtype: self.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![stateless::cpu(self, inputs)?])
    }

    /// Categorical's shape comes from its logits; the other samplers' is an attribute.
    fn bakes_shape(&self) -> bool {
        self.has_shape()
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: {
                GpuKernel::CpuOnly(
            "TensorFlow's numbers need glibc's float functions (logf, sinf, cosf) bit for bit",
        )
            },
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for StatelessSpec {
    fn names() -> Vec<&'static str> {
        STATELESS_NAMES.to_vec()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let spec: StatelessSpec = from_attrs(name, attrs)?;
        named(name, StatelessSpec::tf_name(&spec))?;
        Ok(spec)
    }
}

/// One payload type stands for several TensorFlow ops: the attributes must pick the one the
/// file names.
fn named(name: &str, decoded: &str) -> Result<()> {
    if name == decoded {
        return Ok(());
    }
    Err(Error::DataLoss(format!("a saved {name} node holds the attributes of a {decoded} node")))
}

fn first<'a>(inputs: &[&'a Tensor]) -> Result<&'a Tensor> {
    inputs.first().copied().ok_or_else(|| Error::Internal("input 0 is missing".into()))
}

/// A Philox state: counter, counter, key.
fn state_type() -> TensorType {
    TensorType::known(DType::I64, &[3])
}

fn check_state(state: &TensorType, op: &str) -> Result<()> {
    let fits =
        state.dtype == DType::I64 && state.rank() == 1 && state.dims[0].is_none_or(|d| d == 3);
    if fits {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "{op} needs a Philox state: an int64 tensor of shape [3] (counter, counter, key), got a \
         {} tensor of shape {}",
        state.dtype,
        describe_dims(&state.dims)
    )))
}

/// `[logits rows, num_samples]`: one row of samples per row of logits.
fn categorical_dims(logits: &TensorType, num_samples: usize) -> Result<Vec<Option<usize>>> {
    if logits.rank() != 2 {
        return Err(Error::InvalidArgument(format!(
            "logits should be a matrix, got shape {} [Op:StatelessMultinomial]",
            describe_dims(&logits.dims)
        )));
    }
    Ok(vec![logits.dims[0], Some(num_samples)])
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use super::{NodeCalls, Stream};
    use crate::ops::registry::Op;
    use crate::shape::Shape;

    fn random(distribution: Distribution, dims: &[usize], dtype: DType) -> (Op, Vec<Tensor>) {
        let spec = RandomSpec {
            distribution,
            shape: Shape::new(dims.to_vec()),
            dtype,
            stream: Stream { key: [1, 2], call: 3, unseeded: false },
            replays: false,
            calls: NodeCalls::default(),
        };
        (Op::Random(spec), Vec::new())
    }
    fn state() -> Tensor {
        Tensor::from_slice(&[7i64, 0, 0], &[3]).unwrap()
    }
    fn stateless(
        sampler: Sampler,
        dims: &[usize],
        dtype: DType,
        params: Vec<Tensor>,
    ) -> (Op, Vec<Tensor>) {
        let spec = StatelessSpec { sampler, shape: Shape::new(dims.to_vec()), dtype };
        let mut inputs = vec![state()];
        inputs.extend(params);
        (Op::StatelessRandom(spec), inputs)
    }
    fn f32s(v: &[f32]) -> Tensor {
        Tensor::from_slice(v, &[v.len()]).unwrap()
    }
    let logits = Tensor::from_slice(&[0.0f32, 1.0, 2.0, 3.0, -1.0, 0.5], &[2, 3]).unwrap();
    let alphas = Tensor::from_slice(&[0.5f64, 1.0, 3.0], &[3]).unwrap();
    let bounds = vec![Tensor::scalar(-3i32), Tensor::scalar(1000i32)];
    let binomial = vec![f32s(&[5.0, 100.0]), f32s(&[0.3, 0.8])];
    vec![
        random(Distribution::Uniform { minval: -1.0, maxval: 2.0 }, &[2, 3], DType::F32),
        random(Distribution::Uniform { minval: -5.0, maxval: 10.0 }, &[4], DType::I32),
        random(Distribution::Normal { mean: 1.0, stddev: 2.0 }, &[3, 2], DType::F32),
        random(Distribution::TruncatedNormal { mean: 0.0, stddev: 1.0 }, &[5], DType::F64),
        random(Distribution::Permutation, &[6], DType::I64),
        (Op::RngState(RngState), vec![Tensor::from_slice(&[1i32, 2], &[2]).unwrap()]),
        (Op::RngSkip(RngSkip(768)), vec![state()]),
        stateless(Sampler::Uniform, &[2, 3], DType::F32, vec![]),
        stateless(Sampler::Normal, &[4], DType::F32, vec![]),
        stateless(Sampler::TruncatedNormal, &[5], DType::F64, vec![]),
        stateless(Sampler::UniformInt, &[5], DType::I32, bounds),
        stateless(Sampler::UniformFullInt, &[3], DType::I64, vec![]),
        stateless(Sampler::Categorical { num_samples: 5 }, &[], DType::I64, vec![logits]),
        stateless(Sampler::Binomial, &[3, 2], DType::I32, binomial),
        stateless(Sampler::Poisson, &[3, 2], DType::I32, vec![f32s(&[2.0, 30.0])]),
        stateless(Sampler::Gamma, &[2, 3], DType::F64, vec![alphas]),
    ]
}
