//! Helpers shared by the crate's unit tests.

/// Pins ops to the CPU while alive, so tests do not depend on a GPU being present.
pub struct CpuScope;

impl CpuScope {
    pub fn new() -> CpuScope {
        crate::device::push_device(crate::device::Device::Cpu);
        CpuScope
    }
}

impl Drop for CpuScope {
    fn drop(&mut self) {
        crate::device::pop_scope();
    }
}
