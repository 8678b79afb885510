//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"), the
//! counter-based generator TensorFlow and JAX use. `shaders/random.wgsl` implements the same
//! function, so both devices draw the same words for the same (key, counter).

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

pub fn philox(mut c: [u32; 4], mut k: [u32; 2]) -> [u32; 4] {
    for _ in 0..10 {
        let p0 = (M0 as u64) * (c[0] as u64);
        let p1 = (M1 as u64) * (c[2] as u64);
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// A stream: the key and the call counter that make one random op call unique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Stream {
    pub key: [u32; 2],
    pub call: u32,
    /// The key came from entropy (neither a global nor an op seed): a new instance of a graph
    /// (`Graph::fresh_instance`) takes a new key instead of repeating this one's numbers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unseeded: bool,
}

impl Stream {
    /// Four random words for element `i`, attempt `attempt` (used by rejection sampling).
    #[inline]
    pub fn words(&self, i: u64, attempt: u32) -> [u32; 4] {
        philox([i as u32, (i >> 32) as u32, self.call, attempt], self.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_known_answer() {
        // Random123's published known-answer test for philox4x32-10 with zero counter and key.
        assert_eq!(
            philox([0, 0, 0, 0], [0, 0]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
    }
}
