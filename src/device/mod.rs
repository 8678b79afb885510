//! Devices, their TensorFlow names, device-string parsing and op placement.

mod logical;
mod placement;
mod spec;

pub use logical::{logical_cpu_count, set_logical_cpu_count};
pub use placement::{
    call_site_host, current_scope, log, log_device_placement, place, place_constant,
    place_variable, pop_scope, push_device, push_scope, push_spec, set_log_device_placement,
    set_soft_device_placement, soft_device_placement, Placement,
};
pub use spec::DeviceSpec;

/// A logical device, as TensorFlow numbers them: the host split into logical CPUs and each
/// visible GPU adapter split into logical GPUs by `tf.config.set_logical_device_configuration`
/// (one logical device per physical one by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// CPU:0, the host (its only CPU unless it was split).
    Cpu,
    /// Logical CPU `k` ≥ 1 of a split host. Its memory is the host's, so moving a tensor there
    /// only relabels it. Made by `Device::cpu(k)`, which keeps CPU:0 as `Cpu`, so that equal
    /// devices compare equal.
    SplitCpu(usize),
    /// The n-th logical GPU (the n-th visible adapter unless one was split; see
    /// `gpu::adapters`).
    Gpu(usize),
}

impl Device {
    /// Logical CPU `k`.
    pub fn cpu(k: usize) -> Device {
        if k == 0 {
            Device::Cpu
        } else {
            Device::SplitCpu(k)
        }
    }

    /// The fully qualified name TensorFlow prints for `tensor.device`.
    pub fn name(self) -> String {
        let (kind, index) = self.kind_and_index();
        format!("/job:localhost/replica:0/task:0/device:{kind}:{index}")
    }

    /// ("CPU" or "GPU", the logical index).
    pub fn kind_and_index(self) -> (&'static str, usize) {
        match self {
            Device::Cpu => ("CPU", 0),
            Device::SplitCpu(k) => ("CPU", k),
            Device::Gpu(i) => ("GPU", i),
        }
    }

    pub fn is_gpu(self) -> bool {
        matches!(self, Device::Gpu(_))
    }

    /// Whether the device's memory is the host's (every logical CPU).
    pub fn is_cpu(self) -> bool {
        !self.is_gpu()
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

#[cfg(test)]
mod tests {
    use super::Device;

    #[test]
    fn logical_cpus_are_named_and_compare_by_index() {
        assert_eq!(Device::cpu(0), Device::Cpu);
        assert_eq!(Device::cpu(2), Device::SplitCpu(2));
        assert_eq!(Device::cpu(1).name(), "/job:localhost/replica:0/task:0/device:CPU:1");
        assert_eq!(Device::Gpu(3).name(), "/job:localhost/replica:0/task:0/device:GPU:3");
        assert!(Device::cpu(1).is_cpu() && !Device::cpu(1).is_gpu());
        assert!(std::mem::size_of::<Device>() <= 16);
    }
}
