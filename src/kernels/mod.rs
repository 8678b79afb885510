//! Building blocks shared by the CPU kernels: parallel maps and broadcasting iteration.

pub mod alloc;
pub mod broadcast;
pub mod parallel;
