//! Resolves numpy/TensorFlow indexing (`x[1:, ..., ::-1, tf.newaxis]`, `tf.strided_slice` masks,
//! `tf.slice`) into a `SliceSpec` of per-axis ranges and an output shape.

use crate::error::{Error, Result};
use crate::ops::shape_ops::SliceSpec;
use crate::shape::Shape;

#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SliceItem {
    Index(i64),
    Range { start: Option<i64>, stop: Option<i64>, step: i64 },
    NewAxis,
    Ellipsis,
}

pub const FULL: SliceItem = SliceItem::Range { start: None, stop: None, step: 1 };

/// Python's `slice.indices` followed by the element count, in i128 so that extreme user values
/// (`x[::2**63-1]`) cannot overflow.
fn range_of(start: Option<i64>, stop: Option<i64>, step: i64, d: i64) -> (i64, i64) {
    let (d, step) = (d as i128, step as i128);
    let clamp = |v: i128, lo: i128, hi: i128| v.max(lo).min(hi);
    let (lo, hi) = if step > 0 { (0, d) } else { (-1, d - 1) };
    let norm = |v: i64| if v < 0 { v as i128 + d } else { v as i128 };
    let s = start.map_or(if step > 0 { lo } else { hi }, |v| clamp(norm(v), lo, hi));
    let e = stop.map_or(if step > 0 { hi } else { lo }, |v| clamp(norm(v), lo, hi));
    let len = if step > 0 { (e - s + step - 1) / step } else { (s - e - step - 1) / (-step) };
    (s as i64, len.max(0) as i64)
}

pub fn resolve(shape: &Shape, items: &[SliceItem]) -> Result<SliceSpec> {
    let rank = shape.rank();
    if items.iter().filter(|i| **i == SliceItem::Ellipsis).count() > 1 {
        return Err(Error::InvalidArgument("Multiple ellipses in slice spec not allowed".into()));
    }
    let consuming =
        items.iter().filter(|i| matches!(i, SliceItem::Index(_) | SliceItem::Range { .. })).count();
    if consuming > rank {
        return Err(Error::InvalidArgument(format!(
            "Index out of range using input dim {rank}; input has only {rank} dims [Op:StridedSlice]"
        )));
    }
    let mut expanded: Vec<SliceItem> = Vec::with_capacity(rank + items.len());
    for item in items {
        if *item == SliceItem::Ellipsis {
            expanded.extend(std::iter::repeat_n(FULL, rank - consuming));
        } else {
            expanded.push(item.clone());
        }
    }
    if !items.contains(&SliceItem::Ellipsis) {
        expanded.extend(std::iter::repeat_n(FULL, rank - consuming));
    }
    let mut ranges = Vec::with_capacity(rank);
    let mut out = Vec::with_capacity(expanded.len());
    let mut axis = 0;
    for item in &expanded {
        match *item {
            SliceItem::NewAxis => out.push(1),
            SliceItem::Index(i) => {
                let d = shape.dims()[axis] as i64;
                let j = if i < 0 { i + d } else { i };
                if j < 0 || j >= d {
                    return Err(Error::InvalidArgument(format!(
                        "slice index {i} of dimension {axis} out of bounds. [Op:StridedSlice]"
                    )));
                }
                ranges.push((j as usize, 1, 1));
                axis += 1;
            }
            SliceItem::Range { start, stop, step } => {
                if step == 0 {
                    return Err(Error::InvalidArgument(
                        "slice step cannot be zero [Op:StridedSlice]".into(),
                    ));
                }
                let d = shape.dims()[axis] as i64;
                let (s, len) = range_of(start, stop, step, d);
                let s = if len == 0 { 0 } else { s };
                ranges.push((s as usize, len as usize, step as isize));
                out.push(len as usize);
                axis += 1;
            }
            SliceItem::Ellipsis => {}
        }
    }
    Ok(SliceSpec { ranges, out_shape: Shape(out), items: items.to_vec(), input: shape.clone() })
}

/// Items for `tf.strided_slice(x, begin, end, strides, masks...)`.
#[allow(clippy::too_many_arguments)]
pub fn items_from_masks(
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    begin_mask: i64,
    end_mask: i64,
    ellipsis_mask: i64,
    new_axis_mask: i64,
    shrink_axis_mask: i64,
) -> Result<Vec<SliceItem>> {
    if begin.len() != end.len() || begin.len() != strides.len() {
        return Err(Error::InvalidArgument(format!(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [{}], [{}], and [{}] instead.",
            begin.len(),
            end.len(),
            strides.len()
        )));
    }
    let bit = |mask: i64, i: usize| i < 63 && (mask >> i) & 1 == 1;
    Ok((0..begin.len())
        .map(|i| {
            if bit(ellipsis_mask, i) {
                SliceItem::Ellipsis
            } else if bit(new_axis_mask, i) {
                SliceItem::NewAxis
            } else if bit(shrink_axis_mask, i) {
                SliceItem::Index(begin[i])
            } else {
                SliceItem::Range {
                    start: (!bit(begin_mask, i)).then_some(begin[i]),
                    stop: (!bit(end_mask, i)).then_some(end[i]),
                    step: strides[i],
                }
            }
        })
        .collect())
}

/// Items for `tf.slice(x, begin, size)` (size -1 = to the end); out-of-range is an error.
pub fn items_from_slice(shape: &Shape, begin: &[i64], size: &[i64]) -> Result<Vec<SliceItem>> {
    if begin.len() != shape.rank() || size.len() != shape.rank() {
        return Err(Error::InvalidArgument(format!(
            "Expected begin and size arguments to be 1-D tensors of size {}, but got shapes [{}] and [{}] instead. [Op:Slice]",
            shape.rank(),
            begin.len(),
            size.len()
        )));
    }
    let mut items = Vec::with_capacity(begin.len());
    for (axis, (&b, &s)) in begin.iter().zip(size).enumerate() {
        let d = shape.dims()[axis] as i64;
        let s = if s == -1 { d.saturating_sub(b) } else { s };
        if b < 0 || s < 0 || b.saturating_add(s) > d {
            return Err(Error::InvalidArgument(format!(
                "Expected size[{axis}] in [0, {}], but got {s} [Op:Slice]",
                d.saturating_sub(b).max(0)
            )));
        }
        items.push(SliceItem::Range { start: Some(b), stop: Some(b + s), step: 1 });
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use SliceItem::*;

    #[test]
    fn python_slices() {
        let s = Shape(vec![5, 4]);
        let spec = resolve(&s, &[Range { start: None, stop: None, step: -1 }, Index(-1)]).unwrap();
        assert_eq!(spec.out_shape, Shape(vec![5]));
        assert_eq!(spec.ranges, vec![(4, 5, -1), (3, 1, 1)]);
        let spec = resolve(&s, &[Ellipsis, NewAxis]).unwrap();
        assert_eq!(spec.out_shape, Shape(vec![5, 4, 1]));
        let spec = resolve(&s, &[Range { start: Some(7), stop: Some(9), step: 1 }]).unwrap();
        assert_eq!(spec.out_shape, Shape(vec![0, 4]));
        assert!(resolve(&s, &[Index(5)]).is_err());
        assert!(resolve(&s, &[Index(0), Index(0), Index(0)]).is_err());
    }
}
