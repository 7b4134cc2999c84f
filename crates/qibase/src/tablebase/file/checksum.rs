//! Checksums: xxh3 (xxhash-rust), 64 bits for the header and the index,
//! the low 32 bits for each block.

use xxhash_rust::xxh3::xxh3_64;

/// Checksum of the header and of the block index.
#[inline]
pub fn checksum64(bytes: &[u8]) -> u64 {
    xxh3_64(bytes)
}

/// Checksum of one block's stored bytes.
#[inline]
pub fn checksum32(bytes: &[u8]) -> u32 {
    xxh3_64(bytes) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_bit_flips_change_the_checksums() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 37 % 251) as u8).collect();
        let (h, l) = (checksum64(&data), checksum32(&data));
        for i in 0..data.len() {
            for bit in 0..8 {
                let mut d = data.clone();
                d[i] ^= 1 << bit;
                assert_ne!(checksum64(&d), h);
                assert_ne!(checksum32(&d), l);
            }
        }
        assert_ne!(checksum64(&data[..299]), h);
    }
}
