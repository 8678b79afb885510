//! What every primitive declares (the `Primitive` trait), and the types those declarations
//! speak: `TensorType` for abstract evaluation, `Attrs` for saved graphs, `Arity`, and the GPU
//! decision. Each family file implements the trait for its primitives; `registry.rs` lists
//! them. `Decisions` has no defaults, so a primitive that forgets one does not compile;
//! `registry_tests.rs` checks that each decision agrees with the kernels.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

/// What abstract evaluation knows about a value: its dtype and its dims, `None` where a
/// dimension is unknown until the graph runs (TensorFlow prints those as `None`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TensorType {
    pub dtype: DType,
    pub dims: Vec<Option<usize>>,
}

impl TensorType {
    pub fn of(t: &Tensor) -> TensorType {
        TensorType::known(t.dtype(), t.dims())
    }

    pub fn known(dtype: DType, dims: &[usize]) -> TensorType {
        TensorType { dtype, dims: dims.iter().map(|&d| Some(d)).collect() }
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    pub fn fully_known(&self) -> bool {
        self.dims.iter().all(Option::is_some)
    }

    /// The same dims with another dtype.
    pub fn with_dtype(&self, dtype: DType) -> TensorType {
        TensorType { dtype, dims: self.dims.clone() }
    }

    /// Whether a tensor of this dtype and these dims fits the type.
    pub fn admits(&self, dtype: DType, dims: &[usize]) -> bool {
        self.dtype == dtype
            && self.dims.len() == dims.len()
            && self.dims.iter().zip(dims).all(|(s, &d)| s.is_none_or(|s| s == d))
    }
}

/// A primitive's attributes by name, as saved graphs hold them (`{"axis": 1, ...}`).
pub type Attrs = Map<String, Value>;

/// How many inputs a primitive takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Exactly(usize),
    /// Concat: any number from this many on.
    AtLeast(usize),
}

impl Arity {
    pub fn admits(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }
}

/// Whether a primitive has a WGSL kernel, or why it stays on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuKernel {
    Wgsl,
    /// A composite runs its parts, each placed on its own (the parts have the kernels); also
    /// a check that reads only what it needs of inputs wherever they live (EnsureShape, Assert).
    Decomposed,
    CpuOnly(&'static str),
}

/// The decisions every primitive states outright (no defaults: a primitive without them does
/// not compile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decisions {
    /// The GPU decision (the backend's `supported` then checks dtypes).
    pub gpu: GpuKernel,
    /// False where TensorFlow registers no gradient: tapes then never record the op.
    pub differentiable: bool,
    /// Elementwise, so the fusion pass may chain it with its neighbours.
    pub fusable: bool,
}

/// One primitive's declaration: everything dispatch, tracing, the executor, fusion, the tapes
/// and saved graphs need to know about it.
pub trait Primitive {
    /// TensorFlow's op name (graphs, placement logs and saved graphs use it).
    fn tf_name(&self) -> &'static str;
    fn arity(&self) -> Arity;
    /// The attributes, by name, that `Decode::decode` reads back.
    fn attrs(&self) -> Attrs;
    /// Abstract evaluation: output types from input types, sizes unknown where they depend on
    /// an unknown input dimension or on input values. Errors as TensorFlow's shape functions.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>>;
    /// `infer` where the elements of some small integer inputs are known in part (`values[i]`,
    /// `None` where unknown), as TensorFlow's shape functions read constant inputs: a shape
    /// input built from `tf.shape(x)` keeps the sizes it knows.
    fn infer_with_values(
        &self,
        inputs: &[TensorType],
        values: &[Option<Vec<Option<i64>>>],
    ) -> Result<Vec<TensorType>> {
        let _ = values;
        self.infer(inputs)
    }
    /// The CPU kernel (inputs already on the host).
    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>>;
    fn decisions(&self) -> Decisions;
    /// The inputs' gradients from the recorded inputs and outputs and the first output's
    /// gradient `g` (None where none flows: indices, conditions). Only differentiable
    /// primitives are recorded; the registry test runs each one's rule.
    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let _ = (inputs, outputs, g);
        Err(Error::Internal(format!("{} has no gradient rule", self.tf_name())))
    }
    /// The inputs' gradients from every output's gradient (`upstream`, None where nothing
    /// flows back). By default only the first output's is read and nothing flows without it
    /// (multi-output ops such as sort differentiate through their values); an op whose
    /// TensorFlow gradient treats a missing first gradient as zeros overrides this.
    fn gradient_of_outputs(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        match upstream.first() {
            Some(Some(g)) => self.gradient(inputs, outputs, g),
            _ => Ok(vec![None; inputs.len()]),
        }
    }
    fn gpu(&self) -> GpuKernel {
        self.decisions().gpu
    }
    fn differentiable(&self) -> bool {
        self.decisions().differentiable
    }
    fn fusable(&self) -> bool {
        self.decisions().fusable
    }
    /// Its attributes hold a full output shape: traced where a size is unknown, that shape may
    /// come from an example, so the graph holds only for the traced shapes.
    fn bakes_shape(&self) -> bool {
        false
    }
    /// Draws new values on every run (random ops): never a constant, never deduplicated.
    fn stateful(&self) -> bool {
        false
    }
    /// Stateful as TensorFlow's op registry declares it (`SetIsStateful`), which decides
    /// whether tf.data may fuse a function's runs and run them in any order. The same as
    /// `stateful` except for ops never folded here that TensorFlow declares stateless
    /// (ReadFile: a file may change between runs of a graph, but not within one pipeline).
    fn tensorflow_stateful(&self) -> bool {
        self.stateful()
    }
    /// Reads only its inputs' shapes (Shape, ZerosLike): a constant in a trace wherever those
    /// shapes are fully known, whatever the inputs' values.
    fn reads_only_shapes(&self) -> bool {
        false
    }
}

/// Reading a primitive back from a saved graph's `{op, attrs}`.
pub trait Decode: Sized {
    /// Every TensorFlow name this type's primitives go by.
    fn names() -> Vec<&'static str>;
    fn decode(name: &str, attrs: &Attrs) -> Result<Self>;
}

/// Attributes from a serde type's fields (a non-struct value is saved as `value`).
pub fn attrs_of<T: Serialize>(value: &T) -> Attrs {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        Ok(Value::Null) => Map::new(),
        Ok(other) => Map::from_iter([("value".to_string(), other)]),
        Err(e) => Map::from_iter([("unserialisable".to_string(), Value::String(e.to_string()))]),
    }
}

/// The inverse of `attrs_of`: a wrong or missing attribute is a damaged file.
pub fn from_attrs<T: DeserializeOwned>(name: &str, attrs: &Attrs) -> Result<T> {
    let value = match attrs.get("value") {
        Some(v) if attrs.len() == 1 => v.clone(),
        _ => Value::Object(attrs.clone()),
    };
    serde_json::from_value(value).map_err(|e| {
        Error::DataLoss(format!("the attributes of a saved {name} node are invalid: {e}"))
    })
}

/// Attributes of an externally tagged enum whose variant names are the op names: the
/// variant's fields (the name says which variant).
pub fn variant_attrs<T: Serialize>(value: &T) -> Attrs {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => match map.into_iter().next() {
            Some((_, Value::Object(fields))) => fields,
            _ => Attrs::new(),
        },
        _ => Attrs::new(),
    }
}

/// The inverse of `variant_attrs`: the variant `name` with these fields.
pub fn from_variant<T: DeserializeOwned>(name: &str, attrs: &Attrs) -> Result<T> {
    let tagged = Value::Object(Map::from_iter([(name.to_string(), Value::Object(attrs.clone()))]));
    serde_json::from_value(tagged).map_err(|e| {
        Error::DataLoss(format!("the attributes of a saved {name} node are invalid: {e}"))
    })
}

/// The attribute-less decoding of a type whose one name is `name`.
pub fn expect_name(name: &str, expected: &str) -> Result<()> {
    if name == expected {
        Ok(())
    } else {
        Err(Error::Internal(format!("{expected} cannot decode a {name} node")))
    }
}

/// Dims a shape attribute fixes.
pub fn dims_of(shape: &Shape) -> Vec<Option<usize>> {
    shape.dims().iter().map(|&d| Some(d)).collect()
}

/// One output of `x`'s type.
pub fn same_type(x: &TensorType) -> Vec<TensorType> {
    vec![x.clone()]
}

/// The input at `k`, or an internal error (dispatch checks arity first).
pub fn input(inputs: &[TensorType], k: usize) -> Result<&TensorType> {
    inputs.get(k).ok_or_else(|| Error::Internal(format!("input {k} is missing")))
}

/// NumPy broadcasting of static dims: a dimension is known when some operand has it above 1,
/// or all have it as 1. Known sizes that cannot broadcast are TensorFlow's error.
pub fn broadcast(inputs: &[&TensorType], op: &str) -> Result<Vec<Option<usize>>> {
    let rank = inputs.iter().map(|i| i.rank()).max().unwrap_or(0);
    (0..rank)
        .map(|k| {
            let dims: Vec<Option<usize>> = inputs
                .iter()
                .filter_map(|i| (k + i.rank()).checked_sub(rank).map(|a| i.dims[a]))
                .collect();
            let big: Vec<usize> = dims.iter().flatten().copied().filter(|&d| d != 1).collect();
            if big.windows(2).any(|w| w[0] != w[1]) {
                return Err(Error::InvalidArgument(format!(
                    "Incompatible shapes: {} [Op:{op}]",
                    inputs.iter().map(|i| describe_dims(&i.dims)).collect::<Vec<_>>().join(" vs. ")
                )));
            }
            Ok(match big.first() {
                Some(&d) => Some(d),
                None if dims.iter().all(Option::is_some) => Some(1),
                None => None,
            })
        })
        .collect()
}

/// `[2,None,3]`, as TensorFlow prints partial shapes.
pub fn describe_dims(dims: &[Option<usize>]) -> String {
    let parts: Vec<String> =
        dims.iter().map(|d| d.map_or("?".to_string(), |d| d.to_string())).collect();
    format!("[{}]", parts.join(","))
}
