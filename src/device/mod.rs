//! Devices and their TensorFlow names. The CPU is always present; the GPU backend (wgpu)
//! arrives with the `gpu` feature.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu,
}

impl Device {
    /// The fully qualified name TensorFlow prints for `tensor.device`.
    pub fn name(self) -> &'static str {
        match self {
            Device::Cpu => "/job:localhost/replica:0/task:0/device:CPU:0",
        }
    }
}
