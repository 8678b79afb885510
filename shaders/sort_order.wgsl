
// Shared by sort_rows.wgsl and sort_long.wgsl, which declare `keys` and `pos` (workgroup or
// storage arrays) and `p` with the row length in p[1]: the sort's total order.

fn greater(a: T, b: T) -> bool {
    let an = IS_NAN(a);
    let bn = IS_NAN(b);
    return (an && !bn) || (!an && !bn && a > b);
}

// Whether slot a belongs before slot b. Padding (position >= row length) always goes last.
fn before(a: u32, b: u32) -> bool {
    let n = p[1];
    if (pos[a] >= n) {
        return false;
    }
    if (pos[b] >= n) {
        return true;
    }
    let ka = keys[a];
    let kb = keys[b];
    var first = greater(kb, ka);
    var second = greater(ka, kb);
    if (DESCENDING) {
        let t = first;
        first = second;
        second = t;
    }
    return first || (!second && pos[a] < pos[b]);
}

// One comparator of the bitonic network: orders slots a < b ascending when `up`, else descending.
fn compare_exchange(a: u32, b: u32, up: bool) {
    if (select(before(a, b), before(b, a), up)) {
        let key = keys[a];
        keys[a] = keys[b];
        keys[b] = key;
        let slot = pos[a];
        pos[a] = pos[b];
        pos[b] = slot;
    }
}
