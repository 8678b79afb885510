//! CombinedNonMaxSuppression as TensorFlow's CPU kernel computes it: greedy NMS per (image,
//! class) with a queue ordered by score alone, every class's picks laid out in one vector per
//! image (unused slots score -inf), that vector sorted by score with `std::sort`, and the best
//! `max_total_size` written out, clipped to [0, 1] when asked. Ties keep libstdc++'s order
//! (`stl.rs`).

use super::greedy::{iou, maxi, mini};
use super::stl::{sort, PriorityQueue};
use rayon::prelude::*;

#[derive(Clone, Copy)]
struct Pick {
    index: i32,
    score: f32,
    class: i32,
    corners: [f32; 4],
}

/// The sizes and options of one call.
pub(crate) struct Layout {
    pub batch: usize,
    pub boxes: usize,
    /// 1 (boxes shared by every class) or the number of classes.
    pub q: usize,
    pub classes: usize,
    pub per_class: usize,
    pub total: usize,
    pub score_threshold: f32,
    pub iou_threshold: f32,
    pub pad_per_class: bool,
    pub clip_boxes: bool,
}

/// The four outputs' data: boxes `[batch, k, 4]`, scores and classes `[batch, k]`, valid
/// detections `[batch]`, with `k` the per-image output size.
pub(crate) struct Combined {
    pub per_image: usize,
    pub boxes: Vec<f32>,
    pub scores: Vec<f32>,
    pub classes: Vec<f32>,
    pub valid: Vec<i32>,
}

fn corners(data: &[f32], at: usize) -> [f32; 4] {
    [data[at], data[at + 1], data[at + 2], data[at + 3]]
}

/// One class of one image: its picks, best first, into `out` (`size_per_class` slots).
fn class_nms(l: &Layout, boxes: &[f32], scores: &[f32], class: usize, out: &mut [Pick]) {
    let mut queue = PriorityQueue::new(|a: &(usize, f32), b: &(usize, f32)| a.1 < b.1);
    for i in 0..l.boxes {
        let s = scores[i * l.classes + class];
        if s > l.score_threshold {
            queue.push((i, s));
        }
    }
    let column = if l.q > 1 { class } else { 0 };
    let at = |i: usize| (i * l.q + column) * 4;
    let mut selected: Vec<usize> = Vec::new();
    while selected.len() < out.len() {
        let Some((i, score)) = queue.pop() else { break };
        let candidate = corners(boxes, at(i));
        let keep = !selected
            .iter()
            .rev()
            .any(|&j| iou(candidate, corners(boxes, at(j))) > l.iou_threshold);
        if keep {
            out[selected.len()] =
                Pick { index: i as i32, score, class: class as i32, corners: candidate };
            selected.push(i);
        }
    }
}

/// One image's boxes, scores, classes and valid detections.
type ImageOutput = (Vec<f32>, Vec<f32>, Vec<f32>, i32);

/// Runs the kernel on float32 boxes `[batch, boxes, q, 4]` and scores `[batch, boxes, classes]`.
pub(crate) fn combined_nms(l: &Layout, boxes: &[f32], scores: &[f32]) -> Combined {
    let size_per_class = l.per_class.min(l.boxes);
    let max_total = l.per_class.saturating_mul(l.classes).min(i32::MAX as usize);
    let per_image = if l.pad_per_class { l.total.min(max_total) } else { l.total };
    let empty = Pick { index: -1, score: f32::NEG_INFINITY, class: -1, corners: [0.0; 4] };
    let images: Vec<ImageOutput> = (0..l.batch)
        .into_par_iter()
        .map(|b| {
            let image_boxes = &boxes[b * l.boxes * l.q * 4..(b + 1) * l.boxes * l.q * 4];
            let image_scores = &scores[b * l.boxes * l.classes..(b + 1) * l.boxes * l.classes];
            let mut picks = vec![empty; size_per_class * l.classes];
            if size_per_class > 0 {
                for (class, out) in picks.chunks_mut(size_per_class).enumerate() {
                    class_nms(l, image_boxes, image_scores, class, out);
                }
            }
            sort(&mut picks, &|a: &Pick, b: &Pick| b.score < a.score);
            let found = picks.iter().filter(|p| p.index > -1).count();
            let detections =
                if l.pad_per_class { per_image.min(found) } else { found.min(l.total) };
            let (mut bx, mut sc, mut cl) =
                (vec![0.0; per_image * 4], vec![0.0; per_image], vec![0.0; per_image]);
            for (k, p) in picks.iter().take(detections).enumerate() {
                for (c, &v) in p.corners.iter().enumerate() {
                    bx[k * 4 + c] = if l.clip_boxes { maxi(mini(v, 1.0), 0.0) } else { v };
                }
                sc[k] = p.score;
                cl[k] = p.class as f32;
            }
            (bx, sc, cl, detections as i32)
        })
        .collect();
    let mut out = Combined {
        per_image,
        boxes: Vec::new(),
        scores: Vec::new(),
        classes: Vec::new(),
        valid: Vec::new(),
    };
    for (bx, sc, cl, v) in images {
        out.boxes.extend(bx);
        out.scores.extend(sc);
        out.classes.extend(cl);
        out.valid.push(v);
    }
    out
}
