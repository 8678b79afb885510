//! TensorFlow's masked CRC-32C, shared by TFRecord framing and checkpoint (tensor bundle and
//! SSTable) checksums: the CRC rotated and offset, so that a checksum of data that itself holds
//! checksums stays well distributed.

const MASK_DELTA: u32 = 0xa282_ead8;

pub fn mask(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

pub fn unmask(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

/// The masked CRC-32C of `data`.
pub fn masked_crc(data: &[u8]) -> u32 {
    mask(crc32c::crc32c(data))
}

#[cfg(test)]
mod tests {
    #[test]
    fn unmask_undoes_mask() {
        for crc in [0, 1, 0xa282_ead8, u32::MAX, 0x1234_5678] {
            assert_eq!(super::unmask(super::mask(crc)), crc);
        }
    }
}
