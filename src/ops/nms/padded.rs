//! `tf.image.non_max_suppression_padded`: TensorFlow computes it with ops in Python
//! (`non_max_suppression_padded_v2`), a tiled algorithm that is not the greedy kernel: boxes
//! sorted by score are processed `tile_size` at a time; a tile is first suppressed by every
//! earlier tile, then by itself through a fixed-point iteration; a box counts as selected when
//! a coordinate stays above 0. The images of a batch run in lockstep, as TensorFlow's while
//! loops run them (a loop goes on while any image needs it), with the same float32 arithmetic
//! (IoU with an epsilon in the union, masks applied by multiplication).

use super::greedy::{maxi, mini};
use std::cmp::Ordering::{Equal, Less};

/// The options of one call.
pub(crate) struct Options {
    pub max_output: usize,
    pub iou_threshold: f32,
    pub score_threshold: f32,
    pub sorted_input: bool,
    pub canonicalized: bool,
    pub tile_size: usize,
}

/// `_bbox_overlap` of two tiles: `[a rows, b columns]`.
fn overlap(a: &[[f32; 4]], b: &[[f32; 4]]) -> Vec<f32> {
    let mut out = Vec::with_capacity(a.len() * b.len());
    for p in a {
        let area_a = (p[2] - p[0]) * (p[3] - p[1]);
        for q in b {
            let ix0 = maxi(p[1], q[1]);
            let ix1 = mini(p[3], q[3]);
            let iy0 = maxi(p[0], q[0]);
            let iy1 = mini(p[2], q[2]);
            let inter = maxi(ix1 - ix0, 0.0) * maxi(iy1 - iy0, 0.0);
            let area_b = (q[2] - q[0]) * (q[3] - q[1]);
            let union = area_a + area_b - inter + 1e-8;
            out.push(inter / union);
        }
    }
    out
}

fn scale(b: &mut [f32; 4], by: f32) {
    for v in b.iter_mut() {
        *v *= by;
    }
}

/// `reduce_max` over the rows of a square matrix, per column.
fn column_max(m: &[f32], n: usize) -> Vec<f32> {
    (0..n).map(|j| (0..n).map(|i| m[i * n + j]).fold(f32::NEG_INFINITY, maxi)).collect()
}

/// Suppresses one tile (one per image) by the earlier tiles, then by itself.
fn suppress_tile(boxes: &mut [Vec<[f32; 4]>], tile: usize, o: &Options) {
    let (t, thr) = (o.tile_size, o.iou_threshold);
    let start = tile * t;
    let mut slices: Vec<Vec<[f32; 4]>> =
        boxes.iter().map(|b| b[start..start + t].to_vec()).collect();
    for (image, slice) in slices.iter_mut().enumerate() {
        for inner in 0..tile {
            let iou = overlap(&boxes[image][inner * t..(inner + 1) * t], slice);
            for (j, b) in slice.iter_mut().enumerate() {
                let keep = (0..t).all(|i| iou[i * t + j] < thr);
                scale(b, if keep { 1.0 } else { 0.0 });
            }
        }
    }
    let mut ious: Vec<Vec<f32>> = slices
        .iter()
        .map(|s| {
            let mut iou = overlap(s, s);
            for i in 0..t {
                for j in 0..t {
                    let v = iou[i * t + j];
                    iou[i * t + j] = v * if j > i && v >= thr { 1.0 } else { 0.0 };
                }
            }
            iou
        })
        .collect();
    let mut sums: Vec<f32> = ious.iter().map(|m| m.iter().sum()).collect();
    loop {
        let mut changed = false;
        for (m, sum) in ious.iter_mut().zip(sums.iter_mut()) {
            let can_suppress: Vec<f32> =
                column_max(m, t).iter().map(|&v| if v < thr { 1.0 } else { 0.0 }).collect();
            let weighted: Vec<f32> = (0..t * t).map(|k| can_suppress[k / t] * m[k]).collect();
            let keep: Vec<f32> =
                column_max(&weighted, t).iter().map(|&v| if v < thr { 1.0 } else { 0.0 }).collect();
            for (k, v) in m.iter_mut().enumerate() {
                *v *= keep[k / t];
            }
            let new_sum: f32 = m.iter().sum();
            changed |= *sum - new_sum > thr;
            *sum = new_sum;
        }
        if !changed {
            break;
        }
    }
    for ((image, slice), m) in slices.iter_mut().enumerate().zip(&ious) {
        for (j, b) in slice.iter_mut().enumerate() {
            let suppressed = (0..t).map(|i| m[i * t + j]).sum::<f32>() > 0.0;
            scale(b, 1.0 - if suppressed { 1.0 } else { 0.0 });
        }
        boxes[image][start..start + t].copy_from_slice(slice);
    }
}

fn selected(b: &[f32; 4]) -> bool {
    b.iter().any(|&v| v > 0.0)
}

/// Runs the algorithm on float32 boxes `[batch][n]` and scores; returns the selected indices
/// (`[batch, max_output]`, zeros past the valid ones) and the valid counts.
pub(crate) fn padded_nms(
    mut boxes: Vec<Vec<[f32; 4]>>,
    mut scores: Vec<Vec<f32>>,
    n: usize,
    o: &Options,
) -> (Vec<i32>, Vec<i32>) {
    if o.score_threshold != f32::NEG_INFINITY {
        for (bs, ss) in boxes.iter_mut().zip(scores.iter_mut()) {
            for (b, s) in bs.iter_mut().zip(ss.iter_mut()) {
                let mask = if *s > o.score_threshold { 1.0 } else { 0.0 };
                *s *= mask;
                scale(b, mask);
            }
        }
    }
    if !o.canonicalized {
        // TensorFlow decides the corner order from the first box of the first image alone.
        let first = boxes[0][0];
        // Swapped unless the first corner is <= the second (a NaN swaps, as TensorFlow's cond).
        let ordered = |a: f32, b: f32| matches!(a.partial_cmp(&b), Some(Less | Equal));
        let (swap_y, swap_x) = (!ordered(first[0], first[2]), !ordered(first[1], first[3]));
        for b in boxes.iter_mut().flatten() {
            if swap_y {
                b.swap(0, 2);
            }
            if swap_x {
                b.swap(1, 3);
            }
        }
    }
    let order: Vec<Vec<usize>> = scores
        .iter()
        .map(|s| {
            let mut order: Vec<usize> = (0..n).collect();
            if !o.sorted_input {
                // top_k's order: descending, lower index first among equals.
                order.sort_by(|&a, &b| s[b].partial_cmp(&s[a]).unwrap_or(Equal));
            }
            order
        })
        .collect();
    let t = o.tile_size;
    let padded_len = ((n.max(o.max_output) as f32 / t as f32).ceil() as usize) * t;
    let mut tiles: Vec<Vec<[f32; 4]>> = boxes
        .iter()
        .zip(&order)
        .map(|(bs, ord)| {
            let mut v: Vec<[f32; 4]> = ord.iter().map(|&k| bs[k]).collect();
            v.resize(padded_len, [0.0; 4]);
            v
        })
        .collect();
    let batch = tiles.len();
    let mut counts = vec![0usize; batch];
    let mut tile = 0;
    while counts.iter().min().is_some_and(|&c| c < o.max_output) && tile < padded_len / t {
        suppress_tile(&mut tiles, tile, o);
        for (count, bs) in counts.iter_mut().zip(&tiles) {
            *count += bs[tile * t..(tile + 1) * t].iter().filter(|b| selected(b)).count();
        }
        tile += 1;
    }
    let mut indices = vec![0i32; batch * o.max_output];
    let mut valid = vec![0i32; batch];
    for image in 0..batch {
        let num_valid = counts[image].min(o.max_output);
        valid[image] = num_valid as i32;
        let picks = tiles[image].iter().enumerate().filter(|(_, b)| selected(b)).map(|(p, _)| p);
        for (k, p) in picks.take(num_valid).enumerate() {
            let p = p.min(n - 1);
            let index = if o.sorted_input { p } else { order[image][p] };
            indices[image * o.max_output + k] = index as i32;
        }
    }
    (indices, valid)
}
