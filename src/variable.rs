//! `Variable`: mutable state backed by a tensor. Reads hand out the current tensor (sharing its
//! storage); assignments write into that storage when nothing else holds it, as TensorFlow
//! reuses a variable's buffer, and otherwise give the variable a fresh buffer so earlier reads
//! keep their values (copy on write).

use crate::autodiff::tape;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::{fresh_id, Tensor};
use std::sync::{Arc, RwLock};

/// A declared shape: `None` for an unknown rank, `Some(None)` for an unknown dimension.
pub type DeclaredShape = Option<Vec<Option<usize>>>;

struct Inner {
    id: u64,
    name: String,
    trainable: bool,
    declared: DeclaredShape,
    value: RwLock<Tensor>,
}

/// A handle to a variable; clones refer to the same variable, which is freed with the last one.
#[derive(Clone)]
pub struct Variable {
    inner: Arc<Inner>,
}

fn compatible(declared: &DeclaredShape, shape: &Shape) -> bool {
    match declared {
        None => true,
        Some(dims) => {
            dims.len() == shape.rank()
                && dims.iter().zip(shape.dims()).all(|(d, &s)| d.is_none_or(|d| d == s))
        }
    }
}

fn dim_texts(dims: &[Option<usize>]) -> Vec<String> {
    dims.iter().map(|d| d.map_or("None".into(), |d| d.to_string())).collect()
}

/// TensorFlow's printing of a possibly unknown shape: `(2, None)`, `(3,)`, `<unknown>`.
fn declared_text(declared: &DeclaredShape) -> String {
    match declared.as_deref().map(dim_texts) {
        None => "<unknown>".into(),
        Some(parts) if parts.len() == 1 => format!("({},)", parts[0]),
        Some(parts) => format!("({})", parts.join(", ")),
    }
}

/// The `shape` argument as the user wrote it: `[3]`, `[None, 2]`, `None`.
fn declared_list(declared: &DeclaredShape) -> String {
    declared.as_deref().map_or("None".into(), |d| format!("[{}]", dim_texts(d).join(", ")))
}

impl Variable {
    /// A variable holding a copy of `initial` (its own storage; a borrowed one's is shared until
    /// the first write) on `device`, or where `initial` lives when `device` is None or cannot
    /// hold its dtype.
    pub fn new(
        initial: &Tensor,
        name: &str,
        trainable: bool,
        declared: DeclaredShape,
        device: Option<Device>,
    ) -> Result<Variable> {
        if !compatible(&declared, initial.shape()) {
            return Err(Error::Value(format!(
                "In this `tf.Variable` creation, the initial value's shape ({}) is not \
                 compatible with the explicitly supplied `shape` argument ({}).",
                initial.shape().tf_string(),
                declared_list(&declared)
            )));
        }
        let target = device.unwrap_or(initial.device());
        // Memory another library owns (a DLPack import) is shared, as TensorFlow's variable
        // aliases its initial buffer until the first write: writes never go into it
        // (`overwrite_in_place` refuses borrowed storage), so the first one copies.
        let value = if initial.is_borrowed() && initial.device() == target {
            initial.with_fresh_id()
        } else {
            initial.deep_copy_to(target)?
        };
        Ok(Variable {
            inner: Arc::new(Inner {
                id: fresh_id(),
                name: name.to_string(),
                trainable,
                declared,
                value: RwLock::new(value),
            }),
        })
    }

    pub fn id(&self) -> u64 {
        self.inner.id
    }

    pub fn name(&self) -> &str {
        &self.inner.name
    }

    pub fn trainable(&self) -> bool {
        self.inner.trainable
    }

    pub fn declared_shape(&self) -> &DeclaredShape {
        &self.inner.declared
    }

    /// The current value without telling any tape (for printing, saving, shape queries).
    pub fn peek(&self) -> Tensor {
        self.inner.value.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The current value as an op input: tapes watching the variable record the read.
    pub fn read(&self) -> Tensor {
        let mut value =
            crate::graph::trace::read_variable(self).unwrap_or_else(|| self.peek().with_fresh_id());
        tape::record_read(self, &mut value);
        value
    }

    pub fn device(&self) -> Device {
        self.peek().device()
    }

    /// Replaces the value with `value` (already of the variable's dtype), keeping the device
    /// and, when no read of the old value is alive, the buffer itself.
    pub fn assign(&self, value: &Tensor) -> Result<()> {
        self.check_assignable(value)?;
        if crate::graph::trace::assign_variable(self, value) {
            return Ok(());
        }
        let mut current = self.inner.value.write().unwrap_or_else(|e| e.into_inner());
        let device = current.device();
        let value = match value.device() == device {
            true => value.clone(),
            false => value.to_device(device)?.unwrap_or_else(|| value.clone()),
        };
        if !current.overwrite_in_place(&value)? {
            *current = value.deep_copy_to(device)?;
        }
        Ok(())
    }

    /// `assign` of a value the caller gives up (a graph's last reader of it): when nothing
    /// else holds its host buffer the variable takes that buffer instead of copying it, as an
    /// optimizer's update assigns a freshly computed value each step.
    pub fn assign_owned(&self, value: Tensor) -> Result<()> {
        self.check_assignable(&value)?;
        if crate::graph::trace::assign_variable(self, &value) {
            return Ok(());
        }
        let mut current = self.inner.value.write().unwrap_or_else(|e| e.into_inner());
        if value.device() != current.device() {
            drop(current);
            return self.assign(&value);
        }
        if let Err(value) = current.overwrite_in_place_owned(value)? {
            *current = value.deep_copy_to(value.device())?;
        }
        Ok(())
    }

    /// The errors `assign` raises for a value of another dtype or an incompatible shape.
    pub fn check_assignable(&self, value: &Tensor) -> Result<()> {
        let dtype = self.peek().dtype();
        if value.dtype() != dtype {
            return Err(Error::InvalidArgument(format!(
                "Trying to assign a {} value to a {} variable '{}:0'",
                value.dtype().name(),
                dtype.name(),
                self.inner.name
            )));
        }
        if !compatible(&self.inner.declared, value.shape()) {
            return Err(Error::Value(format!(
                "Cannot assign value to variable ' {}:0': Shape mismatch.The variable shape {}, \
                 and the assigned value shape {} are incompatible.",
                self.inner.name,
                declared_text(&self.inner.declared),
                declared_text(&Some(value.dims().iter().map(|&d| Some(d)).collect()))
            )));
        }
        Ok(())
    }

    /// True when both handles are the same variable.
    pub fn same(&self, other: &Variable) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
