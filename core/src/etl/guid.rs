//! A GUID as ETW writes it (Data1 u32, Data2 u16, Data3 u16 little-endian, then 8 bytes).

use core::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Guid {
    pub data1: u32,
    pub data2: u16,
    pub data3: u16,
    pub data4: [u8; 8],
}

impl Guid {
    pub const fn new(data1: u32, data2: u16, data3: u16, data4: [u8; 8]) -> Guid {
        Guid {
            data1,
            data2,
            data3,
            data4,
        }
    }

    /// Reads the 16 bytes at the start of `b` (which must hold them).
    pub fn read(b: &[u8]) -> Guid {
        let mut data4 = [0u8; 8];
        data4.copy_from_slice(&b[8..16]);
        Guid {
            data1: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            data2: u16::from_le_bytes([b[4], b[5]]),
            data3: u16::from_le_bytes([b[6], b[7]]),
            data4,
        }
    }
}

/// The registry form without braces: `e13c0d23-ccbc-4e12-931b-d9cc2eee27e4`.
impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.data4;
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
            self.data1, self.data2, self.data3, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn reads_and_prints() {
        let bytes = [
            0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee,
            0x27, 0xe4,
        ];
        let g = Guid::read(&bytes);
        assert_eq!(g.to_string(), "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    }
}
