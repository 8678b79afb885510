//! Building blocks shared by the CPU kernels: parallel maps, broadcasting iteration and the
//! packed matrix product.

pub mod alloc;
pub mod broadcast;
pub mod exp_f32;
pub mod gemm;
pub mod parallel;
pub mod pool;
pub mod transpose;
pub mod wide;
