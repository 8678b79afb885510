//! Devices, their TensorFlow names, device-string parsing and op placement.

mod placement;
mod spec;

pub use placement::{
    current_scope, log, log_device_placement, place, place_constant, place_variable, pop_scope,
    push_device, push_scope, push_spec, set_log_device_placement, set_soft_device_placement,
    soft_device_placement, Placement,
};
pub use spec::DeviceSpec;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu,
    /// The n-th visible GPU adapter.
    Gpu(usize),
}

impl Device {
    /// The fully qualified name TensorFlow prints for `tensor.device`.
    pub fn name(self) -> String {
        match self {
            Device::Cpu => "/job:localhost/replica:0/task:0/device:CPU:0".to_string(),
            Device::Gpu(i) => format!("/job:localhost/replica:0/task:0/device:GPU:{i}"),
        }
    }

    pub fn is_gpu(self) -> bool {
        matches!(self, Device::Gpu(_))
    }
}

/// What `tf.config.experimental.get_device_details` reports of a GPU adapter (the backend
/// enumerates them; a build without GPUs has none).
#[derive(Clone, Debug)]
pub struct AdapterDetails {
    pub name: String,
    pub vendor: u32,
    pub backend: String,
    pub driver: String,
    pub software: bool,
    /// Optional shader capabilities the dtypes need: `shader_f16`, `shader_int64`.
    pub shader_f16: bool,
    pub shader_int64: bool,
}
