//! Where an op runs: the `tf.device` scope stack (per thread, as in TensorFlow), soft placement
//! and placement logging.

use super::{Device, DeviceSpec};
use crate::error::{Error, Result};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

static SOFT_PLACEMENT: AtomicBool = AtomicBool::new(true);
static LOG_PLACEMENT: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Merged specs of the active `tf.device` scopes, innermost last.
    static SCOPES: RefCell<Vec<DeviceSpec>> = const { RefCell::new(Vec::new()) };
}

pub fn set_soft_device_placement(on: bool) {
    SOFT_PLACEMENT.store(on, Ordering::Relaxed);
}

pub fn soft_device_placement() -> bool {
    SOFT_PLACEMENT.load(Ordering::Relaxed)
}

pub fn set_log_device_placement(on: bool) {
    LOG_PLACEMENT.store(on, Ordering::Relaxed);
}

pub fn log_device_placement() -> bool {
    LOG_PLACEMENT.load(Ordering::Relaxed)
}

/// Enters `with tf.device(text)`; returns the merged spec now in force.
pub fn push_scope(text: &str) -> Result<DeviceSpec> {
    let spec = DeviceSpec::parse(text)?;
    Ok(SCOPES.with(|s| {
        let mut scopes = s.borrow_mut();
        let merged = scopes.last().map_or(spec.clone(), |outer| outer.merged_with(&spec));
        scopes.push(merged.clone());
        merged
    }))
}

/// Enters a scope pinned to `device`, as the backward pass does so that an op's gradient runs
/// where the op ran.
pub fn push_device(device: Device) {
    let (device_type, index) = device.kind_and_index();
    let spec = DeviceSpec {
        device_type: Some(device_type.into()),
        index: Some(index),
        ..Default::default()
    };
    SCOPES.with(|s| s.borrow_mut().push(spec));
}

pub fn pop_scope() {
    SCOPES.with(|s| s.borrow_mut().pop());
}

/// Enters a scope captured earlier with `current_scope` (a traced op keeps the scope it was
/// traced under).
pub fn push_spec(spec: DeviceSpec) {
    SCOPES.with(|s| s.borrow_mut().push(spec));
}

pub fn current_scope() -> Option<DeviceSpec> {
    SCOPES.with(|s| s.borrow().last().cloned())
}

/// How an op was placed: the device, and whether the user asked for it explicitly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub device: Device,
    pub explicit: bool,
}

/// Chooses the device for op `name`. `gpu_can_run(i)` says whether logical GPU `i` exists and
/// has a kernel for this op and these dtypes. Without a scope the op goes to GPU:0 when it can;
/// `/CPU:k` places on logical CPU `k` when the host was split into more than `k`. A scope naming
/// a device that cannot run it falls back to CPU:0 under soft placement (as TensorFlow's does,
/// a missing logical CPU included) and is an error otherwise.
pub fn place(name: &str, gpu_can_run: impl Fn(usize) -> bool) -> Result<Placement> {
    let Some(spec) = current_scope().filter(|s| s.device_type.is_some()) else {
        let device = if gpu_can_run(0) { Device::Gpu(0) } else { Device::Cpu };
        return Ok(Placement { device, explicit: false });
    };
    let index = spec.index.unwrap_or(0);
    let wanted = match spec.device_type.as_deref() {
        Some("GPU") if gpu_can_run(index) => {
            return Ok(Placement { device: Device::Gpu(index), explicit: true })
        }
        Some("CPU") if index < super::logical_cpu_count() => {
            return Ok(Placement { device: Device::cpu(index), explicit: true })
        }
        _ => spec.to_canonical(),
    };
    if soft_device_placement() {
        return Ok(Placement { device: Device::Cpu, explicit: false });
    }
    Err(Error::InvalidArgument(format!(
        "Cannot assign a device for operation {name}: Could not satisfy explicit device \
         specification '{wanted}' because no device of that name has a kernel for this \
         operation and its dtypes (soft device placement is off)"
    )))
}

/// The logical CPU a `tf.function` call's host outputs live on, as TensorFlow's call op places
/// them: the CPU the `tf.device` scope in force names when it exists, else CPU:0.
pub fn call_site_host() -> Device {
    if super::logical_cpu_count() == 1 {
        return Device::Cpu;
    }
    match current_scope() {
        Some(spec) if spec.device_type.as_deref() == Some("CPU") => {
            let index = spec.index.unwrap_or(0);
            if index < super::logical_cpu_count() {
                Device::cpu(index)
            } else {
                Device::Cpu
            }
        }
        _ => Device::Cpu,
    }
}

/// Prints TensorFlow's placement log line when logging is on.
pub fn log(name: &str, device: Device) {
    if log_device_placement() {
        eprintln!("Executing op {name} in device {}", device.name());
    }
}

/// Where a new constant lives: on the device an explicit `tf.device` scope names when that
/// device can hold its dtype, else where it was made (the host). Ops move it on first use, and
/// an op, not a constant, reports a device that cannot run it.
pub fn place_constant(t: crate::tensor::Tensor) -> Result<crate::tensor::Tensor> {
    // A traced value (a `__tf_tensor__` result computed in the trace) is no constant: copying
    // its example to the device would freeze it into the graph. The ops using it place it.
    if crate::graph::trace::is_symbolic(&t) {
        return Ok(t);
    }
    let dtype = t.dtype();
    let Ok(placement) = place("Const", |i| gpu_holds(i, dtype)) else { return Ok(t) };
    if !placement.explicit || placement.device == t.device() {
        return Ok(t);
    }
    Ok(t.to_device(placement.device)?.unwrap_or(t))
}

/// Where a new variable lives: the device the scope in force names (the CPU when it cannot hold
/// the dtype, under soft placement), else GPU:0 when it can hold the dtype (TensorFlow places
/// variables on the fastest device), else the CPU.
pub fn place_variable(dtype: crate::dtype::DType) -> Result<Device> {
    Ok(place("VarHandleOp", |i| gpu_holds(i, dtype))?.device)
}

fn gpu_holds(index: usize, dtype: crate::dtype::DType) -> bool {
    index < crate::gpu::visible_count() && crate::gpu::supports_dtype(index, dtype)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `body` under `tf.device(spec)` with the host split into `cpus` logical CPUs.
    fn under(spec: &str, cpus: usize, body: impl FnOnce()) {
        super::super::set_logical_cpu_count(cpus);
        push_scope(spec).unwrap();
        body();
        pop_scope();
        super::super::set_logical_cpu_count(1);
    }

    #[test]
    fn logical_cpus_are_placed_on_and_missing_ones_fall_back() {
        under("/CPU:1", 2, || {
            let p = place("AddV2", |_| false).unwrap();
            assert_eq!(p, Placement { device: Device::cpu(1), explicit: true });
            assert_eq!(call_site_host(), Device::cpu(1));
        });
        under("/job:localhost/replica:0/task:0/device:CPU:2", 2, || {
            // Soft placement (the default): CPU:0, as TensorFlow.
            let p = place("AddV2", |_| false).unwrap();
            assert_eq!(p, Placement { device: Device::Cpu, explicit: false });
            assert_eq!(call_site_host(), Device::Cpu);
        });
        under("/CPU:1", 1, || {
            assert_eq!(place("AddV2", |_| false).unwrap().device, Device::Cpu);
        });
    }
}
