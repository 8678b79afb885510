//! Shapes, broadcasting and axis normalisation, all with overflow-checked arithmetic.

use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct Shape(pub Vec<usize>);

impl Shape {
    pub fn new(dims: Vec<usize>) -> Self {
        Shape(dims)
    }

    pub fn scalar() -> Self {
        Shape(Vec::new())
    }

    pub fn dims(&self) -> &[usize] {
        &self.0
    }

    /// The dimensions as the signed sizes op arguments take.
    pub fn dims_i64(&self) -> Vec<i64> {
        self.dims().iter().map(|&d| d as i64).collect()
    }

    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// Number of elements. Shapes built from user input go through `Shape::checked` and kernel
    /// outputs through `check_alloc`, which bound this product.
    pub fn num_elements(&self) -> usize {
        self.0.iter().product()
    }

    /// Builds a shape from user-given dimensions, rejecting negative sizes and element counts
    /// that overflow.
    pub fn checked(dims: &[i64]) -> Result<Shape> {
        let mut out = Vec::with_capacity(dims.len());
        let mut total: usize = 1;
        for &d in dims {
            if d < 0 {
                return Err(Error::InvalidArgument(format!(
                    "Dimension {d} must be >= 0 in shape {dims:?}"
                )));
            }
            let d = usize::try_from(d).map_err(|_| too_large(dims))?;
            total = total.checked_mul(d).ok_or_else(|| too_large(dims))?;
            out.push(d);
        }
        // Zero-size shapes still need sane strides (numpy computes them), so the product of the
        // non-zero dimensions must be allocatable too.
        let strided = out.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d.max(1)));
        check_elements(total).map_err(|_| too_large(dims))?;
        check_elements(strided.unwrap_or(usize::MAX)).map_err(|_| too_large(dims))?;
        Ok(Shape(out))
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        let mut strides = vec![1; self.rank()];
        for i in (0..self.rank().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * self.0[i + 1];
        }
        strides
    }

    /// TensorFlow's text for a shape: `(2, 3)`, `(3,)`, `()`.
    pub fn tf_string(&self) -> String {
        match self.0.len() {
            1 => format!("({},)", self.0[0]),
            _ => {
                format!("({})", self.0.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
            }
        }
    }

    /// Turns a possibly negative axis into an index in `0..rank`.
    pub fn normalize_axis(&self, axis: i64) -> Result<usize> {
        normalize_axis(axis, self.rank())
    }
}

fn too_large(dims: &[i64]) -> Error {
    Error::ResourceExhausted(format!(
        "OOM when allocating tensor with shape {dims:?}: more elements than this machine's memory can hold"
    ))
}

/// Refuses element counts that cannot fit in memory even at 4 bytes each (used where the dtype
/// is not known yet). Rust aborts the process when an allocation fails, so impossible sizes must
/// be caught before allocating; kernels that know their dtype call `check_alloc`.
pub fn check_elements(n: usize) -> Result<()> {
    check_bytes(n, 4)
}

/// Refuses an output of `n` elements of `dtype` that cannot fit in memory.
pub fn check_alloc(n: usize, dtype: crate::dtype::DType) -> Result<()> {
    check_bytes(n, dtype.size())
}

fn check_bytes(n: usize, element_size: usize) -> Result<()> {
    if n.checked_mul(element_size).is_none_or(|bytes| bytes > physical_memory()) {
        return Err(Error::ResourceExhausted(format!(
            "OOM when allocating a tensor of {n} elements: more than this machine's memory can hold"
        )));
    }
    Ok(())
}

/// The most memory one allocation could get: physical memory, or less when the process runs
/// under an address-space limit (`ulimit -v`).
fn physical_memory() -> usize {
    static MEMORY: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MEMORY.get_or_init(|| {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: sysconf and getrlimit only read process and system configuration values.
            let (pages, size) =
                unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
            let mut physical = usize::MAX;
            if pages > 0 && size > 0 {
                physical = (pages as usize).saturating_mul(size as usize);
            }
            let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0
                && limit.rlim_cur != libc::RLIM_INFINITY
            {
                physical = physical.min(limit.rlim_cur as usize);
            }
            if physical != usize::MAX {
                return physical;
            }
        }
        1 << 40
    })
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}]", self.0.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","))
    }
}

impl From<&[usize]> for Shape {
    fn from(dims: &[usize]) -> Self {
        Shape(dims.to_vec())
    }
}

impl From<Vec<usize>> for Shape {
    fn from(dims: Vec<usize>) -> Self {
        Shape(dims)
    }
}

pub fn normalize_axis(axis: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Error::InvalidArgument(format!(
            "axis {axis} is out of bounds for a tensor of rank {rank}: expected a value in [{}, {})",
            -r,
            r
        )));
    }
    Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
}

/// Normalises and sorts a list of axes, rejecting repeats.
pub fn normalize_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(a, rank)?;
        if out.contains(&n) {
            return Err(Error::InvalidArgument(format!("axis {a} is repeated in {axes:?}")));
        }
        out.push(n);
    }
    out.sort_unstable();
    Ok(out)
}

/// numpy broadcasting of two shapes; the error names both, as TensorFlow's does.
pub fn broadcast_shapes(a: &Shape, b: &Shape) -> Result<Shape> {
    if a == b {
        return Ok(a.clone());
    }
    let rank = a.rank().max(b.rank());
    let mut out = vec![0; rank];
    for (i, slot) in out.iter_mut().enumerate() {
        let da = dim_from_end(a, rank - 1 - i);
        let db = dim_from_end(b, rank - 1 - i);
        *slot = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return Err(Error::InvalidArgument(format!("Incompatible shapes: {a} vs. {b}"))),
        };
    }
    let total = out.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    check_elements(total.unwrap_or(usize::MAX))?;
    Ok(Shape(out))
}

fn dim_from_end(s: &Shape, back: usize) -> usize {
    if back < s.rank() {
        s.0[s.rank() - 1 - back]
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        let s = |d: &[usize]| Shape(d.to_vec());
        assert_eq!(broadcast_shapes(&s(&[2, 1, 3]), &s(&[4, 1])).unwrap(), s(&[2, 4, 3]));
        assert_eq!(broadcast_shapes(&s(&[]), &s(&[5])).unwrap(), s(&[5]));
        assert_eq!(broadcast_shapes(&s(&[0]), &s(&[1])).unwrap(), s(&[0]));
        let err = broadcast_shapes(&s(&[2, 3]), &s(&[4])).unwrap_err();
        assert_eq!(err.to_string(), "Incompatible shapes: [2,3] vs. [4]");
    }

    #[test]
    fn checked_shapes_reject_bad_dims() {
        assert!(Shape::checked(&[-1, 2]).is_err());
        assert!(Shape::checked(&[i64::MAX, 4]).is_err());
        assert_eq!(Shape::checked(&[2, 0]).unwrap().num_elements(), 0);
    }

    #[test]
    fn axes_normalise() {
        assert_eq!(normalize_axis(-1, 3).unwrap(), 2);
        assert!(normalize_axis(3, 3).is_err());
        assert!(normalize_axis(-4, 3).is_err());
        assert_eq!(normalize_axes(&[-1, 0], 3).unwrap(), vec![0, 2]);
        assert!(normalize_axes(&[1, -2], 3).is_err());
    }
}
