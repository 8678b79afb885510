//! Compositions with a hand-written gradient, for Rust callers (`tf.custom_gradient` builds on
//! `tape::record_custom` directly).

use super::tape::{self, pause_all};
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::Arc;

/// Runs `forward` without recording its parts, then records its output as one op of `inputs`
/// whose gradient is `grad(inputs, outputs, upstream)`.
pub fn custom<F, G>(inputs: &[&Tensor], forward: F, grad: G) -> Result<Tensor>
where
    F: FnOnce() -> Result<Tensor>,
    G: Fn(&[Tensor], &[Tensor], &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>>
        + Send
        + Sync
        + 'static,
{
    let mut out = {
        let _paused = pause_all();
        forward()?
    };
    // Boxing the rule only when a tape may record keeps eager relu allocation-free.
    if tape::any_active() {
        tape::record_custom(inputs, std::slice::from_mut(&mut out), Arc::new(grad));
    }
    Ok(out)
}
