//! Which wgpu adapters ferroflow counts as GPUs, in which order, and which are visible.
//!
//! Software rasterisers (lavapipe, llvmpipe, WARP) are slower than the CPU kernels, so they count
//! only with `FERROFLOW_ALLOW_SOFTWARE_GPU=1`. `FERROFLOW_VISIBLE_DEVICES` (comma-separated
//! indices into that list; empty or `-1` hides all) plays CUDA_VISIBLE_DEVICES' role, and
//! `tf.config.set_visible_devices` narrows it further until the first GPU is used.
//!
//! Placement sees logical GPUs: one per visible adapter, or several where
//! `tf.config.set_logical_device_configuration` split one (each with its own `memory_limit` and
//! byte counters, all sharing the adapter's context and buffer pool). `Device::Gpu(n)` is the
//! n-th logical GPU.

use crate::error::{Error, Result};
use crate::gpu::context::GpuContext;
use crate::gpu::memory::MemoryStats;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

pub const ALLOW_SOFTWARE_ENV: &str = "FERROFLOW_ALLOW_SOFTWARE_GPU";
pub const VISIBLE_DEVICES_ENV: &str = "FERROFLOW_VISIBLE_DEVICES";

pub use crate::device::AdapterDetails;

struct Registry {
    /// Adapters that count as GPUs, after the environment's filters.
    adapters: Vec<(wgpu::Adapter, AdapterDetails)>,
    /// Indices into `adapters` that `set_visible_devices` kept.
    visible: Vec<usize>,
    /// One lazily created context per visible device; once any exists the set is frozen.
    contexts: Vec<OnceLock<Arc<GpuContext>>>,
    initialized: bool,
    /// Adapters split into logical GPUs: index into `adapters` -> each logical GPU's limit in
    /// bytes (`None`: the adapter's memory).
    splits: BTreeMap<usize, Vec<Option<u64>>>,
    /// The logical GPUs in TensorFlow's order (visible adapters in turn, each split or whole).
    logical: Vec<LogicalGpu>,
}

/// One logical GPU: the adapter behind it and its byte counters.
struct LogicalGpu {
    physical: usize,
    memory: Arc<MemoryStats>,
}

impl Registry {
    /// Lays the logical GPUs out again after the visible set or a split changed.
    fn rebuild(&mut self) {
        self.logical = layout(&self.visible, &self.splits)
            .into_iter()
            .enumerate()
            .map(|(index, (physical, limit))| LogicalGpu {
                physical,
                memory: Arc::new(MemoryStats::new(index, limit)),
            })
            .collect();
        VISIBLE_COUNT.store(self.logical.len(), Ordering::Release);
    }
}

/// (adapter, memory limit) of each logical GPU, in TensorFlow's order: the visible adapters in
/// turn, each as its split's logical GPUs or whole.
fn layout(
    visible: &[usize],
    splits: &BTreeMap<usize, Vec<Option<u64>>>,
) -> Vec<(usize, Option<u64>)> {
    let mut out = Vec::new();
    for &physical in visible {
        match splits.get(&physical) {
            Some(limits) => out.extend(limits.iter().map(|&limit| (physical, limit))),
            None => out.push((physical, None)),
        }
    }
    out
}

/// `logical.len()`, readable without the lock: placement asks it for every op.
static VISIBLE_COUNT: AtomicUsize = AtomicUsize::new(0);

fn registry() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(discover()))
}

fn lock() -> std::sync::MutexGuard<'static, Registry> {
    registry().lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether the adapter has an optional feature, unless `FERROFLOW_GPU_FEATURES_OFF` (a comma
/// list such as `shader_int64,shader_f16`) turns it off: this shows how a GPU without the
/// feature behaves (its dtypes fall back to the CPU).
fn has_feature(adapter: &wgpu::Adapter, feature: wgpu::Features, name: &str) -> bool {
    let off = std::env::var("FERROFLOW_GPU_FEATURES_OFF").unwrap_or_default();
    adapter.features().contains(feature) && !off.split(',').any(|f| f.trim() == name)
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).map(|v| v == "1" || v.eq_ignore_ascii_case("true")).unwrap_or(false)
}

fn env_visible(count: usize) -> Vec<usize> {
    match std::env::var(VISIBLE_DEVICES_ENV) {
        Err(_) => (0..count).collect(),
        Ok(text) => {
            let mut out = Vec::new();
            for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                // As with CUDA_VISIBLE_DEVICES, the list stops at the first invalid entry.
                match part.parse::<usize>() {
                    Ok(i) if i < count && !out.contains(&i) => out.push(i),
                    _ => break,
                }
            }
            out
        }
    }
}

fn discover() -> Registry {
    let backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let allow_software = env_flag(ALLOW_SOFTWARE_ENV);
    let mut found: Vec<(wgpu::Adapter, AdapterDetails)> = Vec::new();
    for adapter in pollster::block_on(instance.enumerate_adapters(backends)) {
        let info = adapter.get_info();
        let software = info.device_type == wgpu::DeviceType::Cpu;
        if software && !allow_software {
            continue;
        }
        let details = AdapterDetails {
            name: info.name.clone(),
            vendor: info.vendor,
            backend: format!("{:?}", info.backend),
            driver: format!("{} {}", info.driver, info.driver_info).trim().to_string(),
            software,
            shader_f16: has_feature(&adapter, wgpu::Features::SHADER_F16, "shader_f16"),
            shader_int64: has_feature(&adapter, wgpu::Features::SHADER_INT64, "shader_int64"),
        };
        found.push((adapter, details));
    }
    // Hardware first (discrete before integrated), then software, as users expect GPU:0 to be
    // the fastest device.
    found.sort_by_key(|(a, d)| {
        let rank = match a.get_info().device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu | wgpu::DeviceType::Other => 2,
            wgpu::DeviceType::Cpu => 3,
        };
        (rank, d.software)
    });
    let keep = env_visible(found.len());
    let adapters: Vec<_> = keep.iter().map(|&i| found[i].clone()).collect();
    let visible: Vec<usize> = (0..adapters.len()).collect();
    let contexts = (0..adapters.len()).map(|_| OnceLock::new()).collect();
    let mut registry = Registry {
        adapters,
        visible,
        contexts,
        initialized: false,
        splits: BTreeMap::new(),
        logical: Vec::new(),
    };
    registry.rebuild();
    registry
}

/// Details of every adapter that counts as a GPU (ignoring `set_visible_devices`).
pub fn physical_devices() -> Vec<AdapterDetails> {
    lock().adapters.iter().map(|(_, d)| d.clone()).collect()
}

/// Asks `question` of the details of logical GPU `index`'s adapter (false when there is no such
/// GPU), without copying them: placement asks this for every op on int64 or float16 tensors.
pub fn details_say(index: usize, question: impl Fn(&AdapterDetails) -> bool) -> bool {
    let reg = lock();
    reg.logical.get(index).is_some_and(|l| question(&reg.adapters[l.physical].1))
}

/// Indices (into `physical_devices`) of the visible GPUs; GPU:n is the n-th of these.
pub fn visible_devices() -> Vec<usize> {
    lock().visible.clone()
}

/// How many logical GPUs placement can use (the visible adapters, split as configured).
pub fn visible_count() -> usize {
    registry(); // discovery sets the count
    VISIBLE_COUNT.load(Ordering::Acquire)
}

/// Restricts the visible GPUs; allowed only before the first GPU is used.
pub fn set_visible_devices(physical: &[usize]) -> Result<()> {
    let mut reg = lock();
    if reg.initialized {
        return Err(Error::Runtime(
            "Visible devices cannot be modified after being initialized".into(),
        ));
    }
    if let Some(&bad) = physical.iter().find(|&&i| i >= reg.adapters.len()) {
        return Err(Error::Value(format!("Unrecognized device: GPU:{bad}")));
    }
    reg.visible = physical.to_vec();
    reg.rebuild();
    Ok(())
}

/// Splits adapter `physical` (an index into `physical_devices`) into logical GPUs with these
/// memory limits in bytes (`None`: unlimited); an empty list undoes the split. Allowed only
/// before the first GPU is used, as TensorFlow's virtual devices.
pub fn set_logical_split(physical: usize, limits: &[Option<u64>]) -> Result<()> {
    let mut reg = lock();
    if physical >= reg.adapters.len() {
        return Err(Error::Value(format!("Unrecognized device: GPU:{physical}")));
    }
    let current = reg.splits.get(&physical).map(Vec::as_slice);
    if current == Some(limits) || (current.is_none() && limits.is_empty()) {
        return Ok(());
    }
    if reg.initialized {
        return Err(Error::Runtime(
            "Virtual devices cannot be modified after being initialized".into(),
        ));
    }
    if limits.is_empty() {
        reg.splits.remove(&physical);
    } else {
        reg.splits.insert(physical, limits.to_vec());
    }
    reg.rebuild();
    Ok(())
}

/// The byte counters of logical GPU `index`.
pub fn memory(index: usize) -> Result<Arc<MemoryStats>> {
    let reg = lock();
    reg.logical.get(index).map(|l| l.memory.clone()).ok_or_else(|| missing(&reg, index))
}

fn missing(reg: &Registry, index: usize) -> Error {
    Error::InvalidArgument(format!(
        "GPU:{index} does not exist: {} logical GPU(s) are visible",
        reg.logical.len()
    ))
}

/// The context of logical GPU `index`'s adapter, created on first use.
pub fn context(index: usize) -> Result<Arc<GpuContext>> {
    let (adapter, details, slot) = {
        let mut reg = lock();
        let Some(physical) = reg.logical.get(index).map(|l| l.physical) else {
            return Err(missing(&reg, index));
        };
        if let Some(ctx) = reg.contexts[physical].get() {
            return Ok(ctx.clone());
        }
        reg.initialized = true;
        let (adapter, details) = reg.adapters[physical].clone();
        (adapter, details, physical)
    };
    // Opened outside the lock (it takes a while); a racing thread's context wins.
    let ctx = Arc::new(GpuContext::new(&adapter, details)?);
    let reg = lock();
    Ok(reg.contexts[slot].get_or_init(|| ctx).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logical_gpus_follow_the_visible_adapters_and_their_splits() {
        let mut splits = BTreeMap::new();
        assert_eq!(layout(&[0, 1], &splits), vec![(0, None), (1, None)]);
        splits.insert(1, vec![Some(64 << 20), Some(32 << 20)]);
        splits.insert(2, vec![Some(1 << 20)]);
        // Adapter 1 split in two; adapter 2's split does not count while it is hidden.
        assert_eq!(
            layout(&[0, 1], &splits),
            vec![(0, None), (1, Some(64 << 20)), (1, Some(32 << 20))]
        );
        // Visible order decides the numbering.
        assert_eq!(
            layout(&[2, 1], &splits),
            vec![(2, Some(1 << 20)), (1, Some(64 << 20)), (1, Some(32 << 20))]
        );
        assert_eq!(layout(&[], &splits), vec![]);
    }
}
