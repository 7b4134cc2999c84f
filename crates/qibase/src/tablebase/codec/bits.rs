//! Bit-level I/O for the Rice-coded remoteness streams: a writer that
//! packs fields least significant bit first, and a cursor that reads them
//! back, finds unary codes and skips past a number of one-bits by
//! counting them (popcount) rather than reading them one by one.

use super::CodecProblem;
use crate::numbering::bits::nth_one;

/// Packs fields into bytes, least significant bit of each byte first.
pub struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Default for BitWriter {
    fn default() -> Self {
        BitWriter::new()
    }
}

impl BitWriter {
    /// An empty stream.
    pub fn new() -> BitWriter {
        BitWriter {
            out: Vec::new(),
            acc: 0,
            n: 0,
        }
    }

    /// Append the low `count` bits of `bits` (`count` ≤ 32).
    // Fewer than 32 bits wait in `acc` between calls, so one call adds at
    // most 63 and flushes 4 bytes at once: no loop per byte (the encoder
    // of a large tier calls this billions of times).
    #[inline]
    pub fn put(&mut self, bits: u64, count: u32) {
        debug_assert!(count <= 32 && (count == 32 || bits >> count == 0));
        self.acc |= bits << self.n;
        self.n += count;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.n -= 32;
        }
    }

    /// The bytes, the last one padded with zero bits.
    pub fn finish(mut self) -> Vec<u8> {
        let bytes = self.n.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
        self.out
    }
}

/// A bit cursor over a stream; reading past its end is an error, never a
/// panic.
pub struct BitReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> BitReader<'a> {
    /// A cursor at the first bit of `bytes`.
    pub fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader {
            bytes,
            pos: 0,
            end: bytes.len() * 8,
        }
    }

    /// The bit position of the cursor.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// 57 or more bits from the cursor on (zeros past the end).
    #[inline]
    pub fn window(&self) -> u64 {
        let at = self.pos >> 3;
        let w = match self.bytes.get(at..at + 8) {
            Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
            None => {
                let mut b = [0u8; 8];
                let tail = self.bytes.get(at..).unwrap_or(&[]);
                b[..tail.len()].copy_from_slice(tail);
                u64::from_le_bytes(b)
            }
        };
        w >> (self.pos & 7)
    }

    /// The next `count` bits (`count` ≤ 32) as a number.
    ///
    /// # Errors
    /// [`CodecProblem::StreamShort`] if the stream has fewer bits left.
    #[inline]
    pub fn get(&mut self, count: u32) -> Result<u32, CodecProblem> {
        if self.pos + count as usize > self.end {
            return Err(CodecProblem::StreamShort);
        }
        let v = (self.window() & ((1u64 << count) - 1)) as u32;
        self.pos += count as usize;
        Ok(v)
    }

    /// Move past `count` bits.
    ///
    /// # Errors
    /// [`CodecProblem::StreamShort`] if the stream has fewer bits left.
    #[inline]
    pub fn skip(&mut self, count: usize) -> Result<(), CodecProblem> {
        self.pos += count;
        if self.pos > self.end {
            return Err(CodecProblem::StreamShort);
        }
        Ok(())
    }

    /// One unary code: zeros up to a one (consumed); at most `q_max` zeros.
    ///
    /// # Errors
    /// [`CodecProblem::CodeTooLong`] for more zeros, or
    /// [`CodecProblem::StreamShort`] if the stream ends first.
    #[inline]
    pub fn unary(&mut self, q_max: u32) -> Result<u32, CodecProblem> {
        let q = self.window().trailing_zeros();
        if q > q_max {
            return Err(CodecProblem::CodeTooLong);
        }
        self.skip(q as usize + 1)?;
        Ok(q)
    }

    /// Move past the next `n` one-bits (and the zeros between them).
    ///
    /// # Errors
    /// [`CodecProblem::StreamShort`] if the stream has fewer.
    #[inline]
    pub fn skip_ones(&mut self, mut n: u32) -> Result<(), CodecProblem> {
        while n > 0 {
            if self.pos >= self.end {
                return Err(CodecProblem::StreamShort);
            }
            let w = self.window() & ((1u64 << 56) - 1);
            let ones = w.count_ones();
            if ones < n {
                n -= ones;
                self.pos += 56;
            } else {
                self.pos += nth_one(w, n - 1) as usize + 1;
                n = 0;
            }
        }
        if self.pos > self.end {
            return Err(CodecProblem::StreamShort);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_reading_past_the_end_is_an_error() {
        let mut w = BitWriter::new();
        w.put(0b101, 3);
        w.put(1 << 7, 8); // a unary code of 7 zeros
        w.put(0xffff_ffff, 32);
        let bytes = w.finish();
        assert_eq!(bytes.len(), 6);
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.get(3), Ok(0b101));
        assert_eq!(r.unary(16), Ok(7));
        r.skip_ones(31).unwrap();
        assert_eq!(r.get(1), Ok(1));
        assert_eq!(r.position(), 43);
        assert_eq!(r.get(8), Err(CodecProblem::StreamShort));
        assert_eq!(r.skip_ones(1), Err(CodecProblem::StreamShort));
        let mut r = BitReader::new(&bytes);
        r.skip(3).unwrap();
        assert_eq!(r.unary(6), Err(CodecProblem::CodeTooLong));
    }
}
