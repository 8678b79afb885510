//! Building blocks shared by the CPU kernels: parallel maps, broadcasting iteration and the
//! packed matrix product.

pub mod alloc;
pub mod broadcast;
pub mod gemm;
pub mod parallel;
