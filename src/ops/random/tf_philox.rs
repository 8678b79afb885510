//! TensorFlow's Philox stream (`philox_random.h`): the Philox4x32-10 block function of
//! `philox.rs` driven by a 128-bit counter that each call advances by one and `skip` by any
//! amount, plus TensorFlow's seed scrambling (`GenerateKey`). The stateless ops and
//! `tf.random.Generator` draw from it, so their numbers are TensorFlow's.
//!
//! A key is a `u64` (low word first) and a counter a `[u64; 2]` (low half first), as the V2
//! kernels take them; a `tf.random.Generator` state is the int64 vector `[C0, C1, K]`.

use super::philox::philox;

/// `GenerateKey`'s fixed key: the seed pair is encrypted with it.
const SEED_KEY: [u32; 2] = [0x3EC8_F720, 0x0246_1E29];

/// A Philox generator positioned at a 128-bit counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhiloxRandom {
    key: [u32; 2],
    counter: u128,
}

impl PhiloxRandom {
    pub fn new(key: u64, counter: [u64; 2]) -> PhiloxRandom {
        let counter = counter[0] as u128 | (counter[1] as u128) << 64;
        PhiloxRandom { key: [key as u32, (key >> 32) as u32], counter }
    }

    /// From a `tf.random.Generator` state `[C0, C1, K]`.
    pub fn from_state(state: [i64; 3]) -> PhiloxRandom {
        PhiloxRandom::new(state[2] as u64, [state[0] as u64, state[1] as u64])
    }

    /// The state `[C0, C1, K]` this generator stands at.
    pub fn state(&self) -> [i64; 3] {
        let key = self.key[0] as u64 | (self.key[1] as u64) << 32;
        [self.counter as u64 as i64, (self.counter >> 64) as u64 as i64, key as i64]
    }

    /// Advances the counter by `n` calls (modulo 2^128).
    pub fn skip(&mut self, n: u64) {
        self.counter = self.counter.wrapping_add(n as u128);
    }

    /// A copy advanced by `n` calls.
    pub fn skipped(mut self, n: u64) -> PhiloxRandom {
        self.skip(n);
        self
    }

    /// The four words of the current counter; then the counter moves on by one.
    #[inline]
    pub fn call(&mut self) -> [u32; 4] {
        let c = self.counter;
        self.counter = c.wrapping_add(1);
        philox([c as u32, (c >> 32) as u32, (c >> 64) as u32, (c >> 96) as u32], self.key)
    }
}

/// `GenerateKey`: a stateless op's seed pair (sign-extended to 64 bits) encrypted once under
/// a fixed key; the first two words become the key, the last two the counter's high half.
/// Returns the generator state `[C0, C1, K]`.
pub fn seed_state(seed: [i64; 2]) -> [i64; 3] {
    let (s0, s1) = (seed[0] as u64, seed[1] as u64);
    let m = philox([s0 as u32, (s0 >> 32) as u32, s1 as u32, (s1 >> 32) as u32], SEED_KEY);
    let key = m[0] as u64 | (m[1] as u64) << 32;
    let high = m[2] as u64 | (m[3] as u64) << 32;
    [0, high as i64, key as i64]
}

/// Successive words of successive calls, one at a time (`SingleSampleAdapter`).
pub struct SingleSample {
    gen: PhiloxRandom,
    words: [u32; 4],
    used: usize,
}

impl SingleSample {
    pub fn new(gen: PhiloxRandom) -> SingleSample {
        SingleSample { gen, words: [0; 4], used: 4 }
    }

    #[inline]
    pub fn word(&mut self) -> u32 {
        if self.used == 4 {
            self.words = self.gen.call();
            self.used = 0;
        }
        self.used += 1;
        self.words[self.used - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_scrambling_matches_tensorflow() {
        // tf.raw_ops.StatelessRandomGetKeyCounter(seed=[1, 2]) in TensorFlow 2.21.
        let state = seed_state([1, 2]);
        let mut gen = PhiloxRandom::from_state(state);
        // The first words of tf.random.stateless_uniform([4], [1, 2], None, None, tf.uint32).
        assert_eq!(state, [0, 0xF773_4320_619C_B60Bu64 as i64, 0x9085_02C9_6D2F_7FBAu64 as i64]);
        let reference = [0x41EC_0A2Cu32, 0x6798_94F1, 0xEBFF_843E, 0x1614_8793];
        assert_eq!(gen.call(), reference);
    }

    #[test]
    fn skip_carries_into_the_high_half() {
        let mut gen = PhiloxRandom::from_state([-1, 7, 3]);
        gen.skip(2);
        assert_eq!(gen.state(), [1, 8, 3]);
        let mut wrap = PhiloxRandom::from_state([-1, -1, 0]);
        wrap.skip(1);
        assert_eq!(wrap.state(), [0, 0, 0]);
    }

    #[test]
    fn single_sample_reads_calls_in_order() {
        let gen = PhiloxRandom::new(5, [9, 0]);
        let (mut a, mut b) = (gen, SingleSample::new(gen));
        let first: Vec<u32> = a.call().into_iter().chain(a.call()).collect();
        let one_by_one: Vec<u32> = (0..8).map(|_| b.word()).collect();
        assert_eq!(first, one_by_one);
    }
}
