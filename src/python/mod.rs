//! PyO3 bindings: argument conversion and error mapping only. The TensorFlow-shaped API
//! (names, defaults, aliases) is plain Python in `python/ferroflow/`.

mod args;
mod autodiff;
mod checkpoint;
mod convert;
mod debugging;
mod devices;
mod dlpack;
mod errors;
mod graph;
mod host_call;
mod io;
mod numpy_view;
mod ops;
mod random;
mod roofline;
mod saved_model;
mod tensor;
mod tf_saved_model;
mod variable;
mod windows;

use pyo3::prelude::*;

/// Rust's allocations in the extension (tensor storage above all) come from mimalloc, which
/// reuses freed buffers instead of returning them to the OS (see Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`: its index in `mi_option_e` (mimalloc.h, version 3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// How long freed memory stays committed for reuse before mimalloc returns it to the OS:
/// longer than a training step, so that a step reuses the last one's buffers. At a 10 ms delay
/// (mimalloc 2's default; version 3, which the crate builds, defaults to 1000 ms and this keeps
/// it) a small CNN's `fit` step took 39-41 ms instead of 26 (page faults and zeroing of fresh
/// pages).
const PURGE_DELAY_MS: std::os::raw::c_long = 1000;

fn keep_freed_memory_for_reuse() {
    // SAFETY: mi_option_set only stores the value; mimalloc reads it when it next purges.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    keep_freed_memory_for_reuse();
    let threading = m.py().import("threading")?;
    if threading.call_method0("current_thread")?.is(&threading.call_method0("main_thread")?) {
        crate::kernels::pool::set_home_thread();
    }
    m.add_class::<tensor::PyTensor>()?;
    ops::register(m)?;
    autodiff::register(m)?;
    devices::register(m)?;
    graph::register(m)?;
    host_call::register(m)?;
    checkpoint::register(m)?;
    saved_model::register(m)?;
    tf_saved_model::register(m)?;
    random::register(m)?;
    windows::register(m)?;
    debugging::register(m)?;
    m.add_function(wrap_pyfunction!(convert::_set_autocast, m)?)?;
    dlpack::register(m)?;
    io::register(m)?;
    numpy_view::register(m)?;
    roofline::register(m)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_purge_delay_option_is_mimallocs_and_takes_the_value() {
        // SAFETY: reading and setting an option has no other effect.
        unsafe {
            // mimalloc's documented defaults for mi_option_purge_delay (10 ms in version 2,
            // 1000 ms in version 3): another option would hold neither.
            let before = libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY);
            assert!(before == 10 || before == 1000, "{before}");
            super::keep_freed_memory_for_reuse();
            assert_eq!(
                libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY),
                super::PURGE_DELAY_MS
            );
        }
    }
}
