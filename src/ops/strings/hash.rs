//! String hashes TensorFlow buckets features with: FarmHash's Fingerprint64 (the `farmhashna`
//! variant, `to_hash_bucket_fast` and `tf.fingerprint`), the legacy MurmurHash-style `Hash64`
//! of `tensorflow/core/lib/hash/hash.cc` (`to_hash_bucket`) and keyed SipHash-2-4
//! (`to_hash_bucket_strong`). Ported from the published algorithms; the parity tests check
//! thousands of random byte strings against TensorFlow.

use super::case::each;
use super::strs;
use crate::buffer::Buffer;
use crate::error::Result;
use crate::tensor::Tensor;
use std::hash::Hasher;

const K0: u64 = 0xc3a5c85c97cb3127;
const K1: u64 = 0xb492b66fbe98f273;
const K2: u64 = 0x9ae16a3b2f90404f;

fn fetch64(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(b)
}

fn fetch32(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&s[at..at + 4]);
    u32::from_le_bytes(b) as u64
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

fn hash_len16(u: u64, v: u64, mul: u64) -> u64 {
    let mut a = (u ^ v).wrapping_mul(mul);
    a ^= a >> 47;
    let mut b = (v ^ a).wrapping_mul(mul);
    b ^= b >> 47;
    b.wrapping_mul(mul)
}

fn len0to16(s: &[u8]) -> u64 {
    let len = s.len();
    if len >= 8 {
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch64(s, 0).wrapping_add(K2);
        let b = fetch64(s, len - 8);
        let c = b.rotate_right(37).wrapping_mul(mul).wrapping_add(a);
        let d = a.rotate_right(25).wrapping_add(b).wrapping_mul(mul);
        return hash_len16(c, d, mul);
    }
    if len >= 4 {
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch32(s, 0);
        return hash_len16((len as u64).wrapping_add(a << 3), fetch32(s, len - 4), mul);
    }
    if len > 0 {
        let (a, b, c) = (s[0] as u32, s[len >> 1] as u32, s[len - 1] as u32);
        let y = a.wrapping_add(b << 8);
        let z = (len as u32).wrapping_add(c << 2);
        return shift_mix((y as u64).wrapping_mul(K2) ^ (z as u64).wrapping_mul(K0))
            .wrapping_mul(K2);
    }
    K2
}

fn len17to32(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K1);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    hash_len16(
        a.wrapping_add(b).rotate_right(43).wrapping_add(c.rotate_right(30)).wrapping_add(d),
        a.wrapping_add(b.wrapping_add(K2).rotate_right(18)).wrapping_add(c),
        mul,
    )
}

fn len33to64(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K2);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    let y = a.wrapping_add(b).rotate_right(43).wrapping_add(c.rotate_right(30)).wrapping_add(d);
    let z = hash_len16(y, a.wrapping_add(b.wrapping_add(K2).rotate_right(18)).wrapping_add(c), mul);
    let e = fetch64(s, 16).wrapping_mul(mul);
    let f = fetch64(s, 24);
    let g = y.wrapping_add(fetch64(s, len - 32)).wrapping_mul(mul);
    let h = z.wrapping_add(fetch64(s, len - 24)).wrapping_mul(mul);
    hash_len16(
        e.wrapping_add(f).rotate_right(43).wrapping_add(g.rotate_right(30)).wrapping_add(h),
        e.wrapping_add(f.wrapping_add(a).rotate_right(18)).wrapping_add(g),
        mul,
    )
}

fn weak32(s: &[u8], at: usize, mut a: u64, mut b: u64) -> (u64, u64) {
    let (w, x, y, z) =
        (fetch64(s, at), fetch64(s, at + 8), fetch64(s, at + 16), fetch64(s, at + 24));
    a = a.wrapping_add(w);
    b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
    let c = a;
    a = a.wrapping_add(x).wrapping_add(y);
    b = b.wrapping_add(a.rotate_right(44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

/// FarmHash's `Fingerprint64` (farmhashna `Hash64`), TensorFlow's `Fingerprint64`.
pub fn fingerprint64(s: &[u8]) -> u64 {
    let len = s.len();
    if len <= 16 {
        return len0to16(s);
    }
    if len <= 32 {
        return len17to32(s);
    }
    if len <= 64 {
        return len33to64(s);
    }
    let seed: u64 = 81;
    let mut x = seed;
    let mut y = seed.wrapping_mul(K1).wrapping_add(113);
    let mut z = shift_mix(y.wrapping_mul(K2).wrapping_add(113)).wrapping_mul(K2);
    let (mut v, mut w) = ((0u64, 0u64), (0u64, 0u64));
    x = x.wrapping_mul(K2).wrapping_add(fetch64(s, 0));
    let end = ((len - 1) / 64) * 64;
    let last64 = end + ((len - 1) & 63) - 63;
    let mut at = 0;
    loop {
        x = x
            .wrapping_add(y)
            .wrapping_add(v.0)
            .wrapping_add(fetch64(s, at + 8))
            .rotate_right(37)
            .wrapping_mul(K1);
        y = y.wrapping_add(v.1).wrapping_add(fetch64(s, at + 48)).rotate_right(42).wrapping_mul(K1);
        x ^= w.1;
        y = y.wrapping_add(v.0).wrapping_add(fetch64(s, at + 40));
        z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
        v = weak32(s, at, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
        w = weak32(s, at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch64(s, at + 16)));
        std::mem::swap(&mut z, &mut x);
        at += 64;
        if at == end {
            break;
        }
    }
    let mul = K1.wrapping_add((z & 0xff) << 1);
    at = last64;
    w.0 = w.0.wrapping_add(((len - 1) & 63) as u64);
    v.0 = v.0.wrapping_add(w.0);
    w.0 = w.0.wrapping_add(v.0);
    x = x
        .wrapping_add(y)
        .wrapping_add(v.0)
        .wrapping_add(fetch64(s, at + 8))
        .rotate_right(37)
        .wrapping_mul(mul);
    y = y.wrapping_add(v.1).wrapping_add(fetch64(s, at + 48)).rotate_right(42).wrapping_mul(mul);
    x ^= w.1.wrapping_mul(9);
    y = y.wrapping_add(v.0.wrapping_mul(9)).wrapping_add(fetch64(s, at + 40));
    z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(mul);
    v = weak32(s, at, v.1.wrapping_mul(mul), x.wrapping_add(w.0));
    w = weak32(s, at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch64(s, at + 16)));
    std::mem::swap(&mut z, &mut x);
    hash_len16(
        hash_len16(v.0, w.0, mul).wrapping_add(shift_mix(y).wrapping_mul(K0)).wrapping_add(z),
        hash_len16(v.1, w.1, mul).wrapping_add(x),
        mul,
    )
}

/// TensorFlow's legacy `Hash64(data, n, seed = 0xDECAFCAFFE)`.
pub fn legacy_hash64(s: &[u8]) -> u64 {
    const M: u64 = 0xc6a4a7935bd1e995;
    const R: u32 = 47;
    let seed: u64 = 0xDECAFCAFFE;
    let mut h = seed ^ (s.len() as u64).wrapping_mul(M);
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        let mut k = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        for (i, &b) in rest.iter().enumerate().rev() {
            h ^= (b as u64) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// SipHash-2-4 keyed by the two words (TensorFlow's `StrongKeyedHash`).
pub fn siphash(key: [u64; 2], s: &[u8]) -> u64 {
    let mut h = siphasher::sip::SipHasher24::new_with_keys(key[0], key[1]);
    h.write(s);
    h.finish()
}

/// `hash(s) % num_buckets` for every string, as int64.
pub fn buckets(
    x: &Tensor,
    num_buckets: i64,
    hash: impl Fn(&[u8]) -> u64 + Sync + Send,
) -> Result<Tensor> {
    let n = num_buckets as u64;
    let out: Vec<i64> = each(strs(x)?, |b| (hash(b) % n) as i64);
    Tensor::from_slice(&out, x.dims())
}

/// `Fingerprint64` of each row along the first axis, as 8 little-endian bytes: a string row's
/// elements are fingerprinted one by one and their fingerprints fingerprinted again (one
/// element: its own); a number row's bytes are fingerprinted as they lie.
pub fn fingerprint_rows(x: &Tensor) -> Result<Tensor> {
    let rows = x.dims()[0];
    let per_row = x.dims()[1..].iter().product::<usize>();
    let mut out: Vec<u8> = Vec::with_capacity(rows * 8);
    match x.buffer() {
        Buffer::Str(v) => {
            for r in 0..rows {
                let row = &v[r * per_row..(r + 1) * per_row];
                let f = if per_row == 1 {
                    fingerprint64(row[0].as_bytes())
                } else {
                    let cat: Vec<u8> = row
                        .iter()
                        .flat_map(|s| fingerprint64(s.as_bytes()).to_le_bytes())
                        .collect();
                    fingerprint64(&cat)
                };
                out.extend(f.to_le_bytes());
            }
        }
        other => {
            let bytes = other.as_bytes().unwrap_or(&[]);
            let width = bytes.len().checked_div(rows).unwrap_or(0);
            for r in 0..rows {
                out.extend(fingerprint64(&bytes[r * width..(r + 1) * width]).to_le_bytes());
            }
        }
    }
    Tensor::from_slice(&out, &[rows, 8])
}
