//! Automatic differentiation: tapes record primitives as `dispatch::apply` runs them, and the
//! backward pass applies each primitive's gradient rule. Rules are written with ops, so they run
//! on the device the forward op ran on and are themselves recorded by outer tapes (higher-order
//! gradients).

mod backprop;
mod custom;
pub mod gradient;
pub(crate) mod rules;
pub mod tape;

pub use custom::custom;
pub use gradient::{Gradient, Rows};
pub(crate) use rules::conj;
pub use tape::{pause_all, record_custom, GradFn, PauseGuard, Tape};

#[cfg(test)]
mod tests;
