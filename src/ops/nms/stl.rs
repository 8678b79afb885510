//! The orders of libstdc++'s `std::priority_queue` and `std::sort` (introsort), which
//! TensorFlow's CombinedNonMaxSuppression kernel uses with a comparator on the score alone:
//! boxes of equal score come out in the order these algorithms leave them, so reproducing
//! TensorFlow's ties means running the same steps (`<bits/stl_heap.h>`, `<bits/stl_algo.h>`).

/// A binary max-heap with libstdc++'s sift steps; `less(a, b)` is the queue's comparator.
pub(crate) struct PriorityQueue<T, F: Fn(&T, &T) -> bool> {
    items: Vec<T>,
    less: F,
}

impl<T: Copy, F: Fn(&T, &T) -> bool> PriorityQueue<T, F> {
    pub(crate) fn new(less: F) -> Self {
        PriorityQueue { items: Vec::new(), less }
    }

    pub(crate) fn push(&mut self, value: T) {
        self.items.push(value);
        let hole = self.items.len() - 1;
        push_heap(&mut self.items, hole, 0, value, &self.less);
    }

    pub(crate) fn pop(&mut self) -> Option<T> {
        let len = self.items.len();
        if len == 0 {
            return None;
        }
        let top = self.items[0];
        if len > 1 {
            let value = self.items[len - 1];
            self.items[len - 1] = top;
            adjust_heap(&mut self.items[..len - 1], 0, value, &self.less);
        }
        self.items.pop();
        Some(top)
    }
}

/// `std::__push_heap`: moves `value` up from `hole` towards `top`.
fn push_heap<T: Copy>(
    v: &mut [T],
    mut hole: usize,
    top: usize,
    value: T,
    less: &impl Fn(&T, &T) -> bool,
) {
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(&v[parent], &value) {
            break;
        }
        v[hole] = v[parent];
        hole = parent;
    }
    v[hole] = value;
}

/// `std::__adjust_heap` on the whole slice: sinks the hole at `hole` to a leaf, then pushes
/// `value` back up.
fn adjust_heap<T: Copy>(v: &mut [T], mut hole: usize, value: T, less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    let top = hole;
    let mut child = hole;
    while len > 0 && child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(&v[child], &v[child - 1]) {
            child -= 1;
        }
        v[hole] = v[child];
        hole = child;
    }
    if len >= 2 && len & 1 == 0 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v[hole] = v[child - 1];
        hole = child - 1;
    }
    push_heap(v, hole, top, value, less);
}

const THRESHOLD: usize = 16;

/// `std::sort(v.begin(), v.end(), less)` as libstdc++ runs it.
pub(crate) fn sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    if v.len() < 2 {
        return;
    }
    let depth = 2 * (usize::BITS - 1 - v.len().leading_zeros()) as usize;
    introsort_loop(v, depth, less);
    if v.len() > THRESHOLD {
        insertion_sort(&mut v[..THRESHOLD], less);
        for i in THRESHOLD..v.len() {
            unguarded_linear_insert(v, i, less);
        }
    } else {
        insertion_sort(v, less);
    }
}

fn introsort_loop<T: Copy>(v: &mut [T], mut depth: usize, less: &impl Fn(&T, &T) -> bool) {
    let mut last = v.len();
    while last > THRESHOLD {
        if depth == 0 {
            heap_sort(&mut v[..last], less);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(&mut v[..last], less);
        introsort_loop(&mut v[cut..last], depth, less);
        last = cut;
    }
}

/// `std::__unguarded_partition_pivot`: the median of (second, middle, last) moved first,
/// then Hoare's partition around it.
fn partition_pivot<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) -> usize {
    let (a, b, c) = (1, v.len() / 2, v.len() - 1);
    let pick = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(0, pick);
    let (mut first, mut last) = (1, v.len());
    loop {
        while first + 1 < v.len() && less(&v[first], &v[0]) {
            first += 1;
        }
        last -= 1;
        while last > 1 && less(&v[0], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

fn insertion_sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        if less(&v[i], &v[0]) {
            let value = v[i];
            v.copy_within(0..i, 1);
            v[0] = value;
        } else {
            unguarded_linear_insert(v, i, less);
        }
    }
}

fn unguarded_linear_insert<T: Copy>(v: &mut [T], mut last: usize, less: &impl Fn(&T, &T) -> bool) {
    let value = v[last];
    // The guards only matter for a comparator that is no strict weak order (NaN), where
    // libstdc++ would read out of bounds.
    while last > 0 && less(&value, &v[last - 1]) {
        v[last] = v[last - 1];
        last -= 1;
    }
    v[last] = value;
}

/// `std::__partial_sort(first, last, last)`: make_heap, then sort_heap.
fn heap_sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    if len >= 2 {
        let mut parent = (len - 2) / 2;
        loop {
            let value = v[parent];
            adjust_heap(v, parent, value, less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    let mut last = len;
    while last > 1 {
        last -= 1;
        let value = v[last];
        v[last] = v[0];
        adjust_heap(&mut v[..last], 0, value, less);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_and_pops_in_order() {
        let mut v: Vec<i32> = (0..200).map(|i| (i * 7919) % 101).collect();
        sort(&mut v, &|a: &i32, b: &i32| a < b);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
        let mut q = PriorityQueue::new(|a: &i32, b: &i32| a < b);
        for x in [3, 9, 1, 7, 9, 2] {
            q.push(x);
        }
        let popped: Vec<i32> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(popped, [9, 9, 7, 3, 2, 1]);
    }
}
