//! Greedy non-max suppression as TensorFlow's `DoNonMaxSuppressionOp` runs it (V3/V4/V5 and
//! WithOverlaps): candidates above the score threshold pop from a queue ordered by score, then
//! by lower index; each is compared with the boxes selected since it was last looked at, newest
//! first; Soft-NMS (sigma > 0) rescales its score by exp(-sim^2 / (2 sigma)) and puts it back.
//! Arithmetic on scores happens in the scores' type (float16 rounds after every operation, as
//! Eigen's half does); similarities are float32.

use half::f16;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A score type: float32, or float16 computed through float32 and rounded per operation.
pub(crate) trait Score: Copy + PartialOrd + Default {
    fn f(self) -> f32;
    fn of(x: f32) -> Self;
}

impl Score for f32 {
    fn f(self) -> f32 {
        self
    }
    fn of(x: f32) -> Self {
        x
    }
}

impl Score for f16 {
    fn f(self) -> f32 {
        self.to_f32()
    }
    fn of(x: f32) -> Self {
        f16::from_f32(x)
    }
}

/// Eigen's `numext::mini`/`maxi` (and `std::min`/`std::max`): the first argument unless the
/// second compares smaller/larger, which fixes what a NaN gives.
pub(crate) fn mini(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

pub(crate) fn maxi(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}

/// TensorFlow's intersection over union of two `[y1, x1, y2, x2]` boxes with corners in any
/// order; 0 when either has no area.
pub(crate) fn iou(a: [f32; 4], b: [f32; 4]) -> f32 {
    let (ay0, ax0, ay1, ax1) =
        (mini(a[0], a[2]), mini(a[1], a[3]), maxi(a[0], a[2]), maxi(a[1], a[3]));
    let (by0, bx0, by1, bx1) =
        (mini(b[0], b[2]), mini(b[1], b[3]), maxi(b[0], b[2]), maxi(b[1], b[3]));
    let area_a = (ay1 - ay0) * (ax1 - ax0);
    let area_b = (by1 - by0) * (bx1 - bx0);
    if area_a <= 0.0 || area_b <= 0.0 {
        return 0.0;
    }
    let inter =
        maxi(mini(ay1, by1) - maxi(ay0, by0), 0.0) * maxi(mini(ax1, bx1) - maxi(ax0, bx0), 0.0);
    inter / (area_a + area_b - inter)
}

#[derive(Clone, Copy)]
struct Candidate<T> {
    index: usize,
    score: T,
    suppress_begin: usize,
}

// The queue's order: higher score first, then lower index. Scores in the queue are never NaN
// (they passed `> score_threshold`), so this is a total order on distinct candidates.
impl<T: Score> Ord for Candidate<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.score == other.score {
            other.index.cmp(&self.index)
        } else if self.score < other.score {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }
}

impl<T: Score> PartialOrd for Candidate<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Score> PartialEq for Candidate<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T: Score> Eq for Candidate<T> {}

/// What `greedy` selected: box indices and their (possibly rescaled) scores.
pub(crate) struct Selection<T> {
    pub indices: Vec<i32>,
    pub scores: Vec<T>,
}

/// The thresholds of one greedy run, in the scores' type.
pub(crate) struct Thresholds<T> {
    pub similarity: T,
    pub score: T,
    pub soft_nms_sigma: T,
}

/// Selects up to `max_output` boxes; `similarity(i, j)` is the IoU (or given overlap) of two.
pub(crate) fn greedy<T: Score>(
    scores: &[T],
    max_output: usize,
    t: &Thresholds<T>,
    similarity: impl Fn(usize, usize) -> f32,
) -> Selection<T> {
    let mut queue: BinaryHeap<Candidate<T>> = scores
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > t.score)
        .map(|(index, &score)| Candidate { index, score, suppress_begin: 0 })
        .collect();
    let soft = t.soft_nms_sigma > T::of(0.0);
    let scale = if soft { T::of(T::of(-0.5).f() / t.soft_nms_sigma.f()) } else { T::of(0.0) };
    let weight = |sim: T| {
        let w = T::of(T::of(T::of(scale.f() * sim.f()).f() * sim.f()).f().exp());
        if soft || sim <= t.similarity {
            w
        } else {
            T::of(0.0)
        }
    };
    let mut selected = Selection { indices: Vec::new(), scores: Vec::new() };
    let mut boxes: Vec<usize> = Vec::new();
    while boxes.len() < max_output {
        let Some(mut next) = queue.pop() else { break };
        let original = next.score;
        let mut hard = false;
        for j in (next.suppress_begin..boxes.len()).rev() {
            let sim = T::of(similarity(next.index, boxes[j]));
            next.score = T::of(next.score.f() * weight(sim).f());
            if !soft && sim > t.similarity {
                hard = true;
                break;
            }
            if next.score <= t.score {
                break;
            }
        }
        next.suppress_begin = boxes.len();
        if hard {
            continue;
        }
        if next.score == original {
            boxes.push(next.index);
            selected.indices.push(next.index as i32);
            selected.scores.push(next.score);
        } else if next.score > t.score {
            queue.push(next);
        }
    }
    selected
}
