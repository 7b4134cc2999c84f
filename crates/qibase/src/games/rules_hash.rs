//! A stable hash of a game's rule parameters, for tablebase headers: FNV-1a
//! (64 bit) over a fixed byte layout that each game feeds in. Hand-written
//! rather than std's hasher, whose output may change between Rust versions.

/// FNV-1a state; feed bytes, then read [`RulesHasher::finish`].
pub struct RulesHasher(u64);

impl RulesHasher {
    /// A hasher in FNV-1a's initial state.
    pub fn new() -> RulesHasher {
        RulesHasher(0xcbf2_9ce4_8422_2325)
    }

    /// Hash `bytes` in.
    pub fn feed(&mut self, bytes: &[u8]) -> &mut RulesHasher {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }

    /// The hash of everything fed so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for RulesHasher {
    fn default() -> Self {
        RulesHasher::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_fnv1a_values() {
        assert_eq!(RulesHasher::new().finish(), 0xcbf2_9ce4_8422_2325);
        assert_eq!(
            RulesHasher::new().feed(b"a").finish(),
            0xaf63_dc4c_8601_ec8c
        );
        assert_eq!(
            RulesHasher::new().feed(b"foo").finish(),
            0xdcb2_7518_fed9_d577
        );
    }
}
