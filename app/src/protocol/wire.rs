//! The wire format of the worker's messages: postcard (a compact, maintained, `no_std`-friendly
//! serde format: integers as varints, lengths as varints, `f64` as 8 bytes) in one buffer per
//! message.
//!
//! Decoding reads the message from any [`Read`] a window at a time ([`Streamed`]), so the page
//! never copies a whole message into wasm memory (which never shrinks) beside what it decodes to:
//! it reads the transferred JS buffer 64 KiB at a time. Postcard's own `std::io` reader needs a
//! scratch buffer as large as every string of the message together; this one needs only the window
//! and, for a string or byte string longer than what is left of the window, a scratch buffer of
//! that one string (the packed heaps go as a sequence of short byte strings for that reason:
//! [`byte_chunks`]).

use std::io::{Read, Write};
use std::marker::PhantomData;

use postcard::de_flavors::Flavor;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Bytes read from the source at a time.
const WINDOW: usize = 64 * 1024;

pub fn encode<T: Serialize>(value: &T) -> postcard::Result<Vec<u8>> {
    postcard::to_stdvec(value)
}

/// The encoded length, computed without encoding.
pub fn encoded_len<T: Serialize>(value: &T) -> postcard::Result<usize> {
    postcard::serialize_with_flavor(value, Out::<std::io::Sink>::Count(0))
}

/// Encodes into a writer, a [`WINDOW`] of bytes at a time (postcard writes a field at a time).
pub fn encode_into<T: Serialize>(value: &T, mut w: impl Write) -> postcard::Result<()> {
    postcard::serialize_with_flavor(value, Out::write_to(&mut w)).map(drop)
}

/// Encodes into the writer `make` gives for the exact length (the worker's messages: a JS buffer
/// of that size). One serializer counts and then writes, so the worker's wasm holds one copy of
/// each message's serializer rather than two
/// (docs/performance-log/journal.md, "Issue 18: postcard messages").
pub fn encode_sized<T: Serialize, W: Write>(
    value: &T,
    make: impl FnOnce(usize) -> W,
) -> postcard::Result<W> {
    let len = postcard::serialize_with_flavor(value, Out::<W>::Count(0))?;
    let mut w = make(len);
    postcard::serialize_with_flavor(value, Out::write_to(&mut w))?;
    Ok(w)
}

/// Where the bytes go: counted, or written through a buffer (the writer is called once per
/// [`WINDOW`], not per field).
enum Out<'a, W> {
    Count(usize),
    Write { buf: Vec<u8>, to: &'a mut W },
}

impl<'a, W: Write> Out<'a, W> {
    fn write_to(to: &'a mut W) -> Self {
        Out::Write {
            buf: Vec::with_capacity(WINDOW),
            to,
        }
    }
}

impl<W: Write> postcard::ser_flavors::Flavor for Out<'_, W> {
    /// The length counted (nothing for a writer).
    type Output = usize;

    #[inline]
    fn try_push(&mut self, b: u8) -> postcard::Result<()> {
        self.try_extend(&[b])
    }

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        match self {
            Out::Count(n) => *n += data.len(),
            // The common case inline, the rest out of line: the count pass stays as fast as
            // postcard's own `Size`, which the whole write inline in every field would slow
            // (docs/performance-log/journal.md, "Issue 18: postcard messages").
            Out::Write { buf, .. } if buf.len() + data.len() <= WINDOW => {
                buf.extend_from_slice(data)
            }
            Out::Write { buf, to } => flush_and_write(buf, *to, data)?,
        }
        Ok(())
    }

    fn finalize(self) -> postcard::Result<usize> {
        match self {
            Out::Count(n) => Ok(n),
            Out::Write { buf, to } => write_all(to, &buf).map(|()| 0),
        }
    }
}

/// The buffer is full: writes it, then `data` (directly when it is longer than a buffer).
#[inline(never)]
fn flush_and_write(buf: &mut Vec<u8>, to: &mut impl Write, data: &[u8]) -> postcard::Result<()> {
    write_all(to, buf)?;
    buf.clear();
    if data.len() > WINDOW {
        write_all(to, data)
    } else {
        buf.extend_from_slice(data);
        Ok(())
    }
}

fn write_all(to: &mut impl Write, data: &[u8]) -> postcard::Result<()> {
    to.write_all(data)
        .map_err(|_| postcard::Error::SerializeBufferFull)
}

pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> postcard::Result<T> {
    postcard::from_bytes(bytes)
}

/// Decodes from a reader, a window at a time (see the module's comment).
pub fn decode_from<T: DeserializeOwned>(r: impl Read) -> postcard::Result<T> {
    let mut de = postcard::Deserializer::from_flavor(Streamed::new(r));
    let value = T::deserialize(&mut de)?;
    de.finalize()?;
    Ok(value)
}

/// A postcard source over a [`Read`]: a window of the input, refilled as it is used up.
struct Streamed<'de, R> {
    src: R,
    window: Box<[u8]>,
    at: usize,
    end: usize,
    /// A string or byte string that runs past the window.
    scratch: Vec<u8>,
    _de: PhantomData<&'de ()>,
}

impl<R: Read> Streamed<'_, R> {
    fn new(src: R) -> Self {
        Streamed {
            src,
            window: vec![0; WINDOW].into_boxed_slice(),
            at: 0,
            end: 0,
            scratch: Vec::new(),
            _de: PhantomData,
        }
    }

    /// Refills the used-up window; an error at the end of the input.
    fn refill(&mut self) -> postcard::Result<()> {
        let n = read_some(&mut self.src, &mut self.window)?;
        if n == 0 {
            return Err(postcard::Error::DeserializeUnexpectedEnd);
        }
        (self.at, self.end) = (0, n);
        Ok(())
    }
}

fn read_some(src: &mut impl Read, buf: &mut [u8]) -> postcard::Result<usize> {
    loop {
        match src.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(postcard::Error::DeserializeUnexpectedEnd),
        }
    }
}

impl<'de, R: Read + 'de> Flavor<'de> for Streamed<'de, R> {
    type Remainder = ();
    type Source = ();

    #[inline]
    fn pop(&mut self) -> postcard::Result<u8> {
        if self.at == self.end {
            self.refill()?;
        }
        let b = self.window[self.at];
        self.at += 1;
        Ok(b)
    }

    /// Borrowing from the input is impossible when it is read a window at a time; the messages
    /// own their strings (`String`, `Cow::Owned`), which postcard reads with `try_take_n_temp`.
    fn try_take_n(&mut self, _: usize) -> postcard::Result<&'de [u8]> {
        Err(postcard::Error::WontImplement)
    }

    #[inline]
    fn try_take_n_temp<'a>(&'a mut self, ct: usize) -> postcard::Result<&'a [u8]>
    where
        'de: 'a,
    {
        if self.end - self.at >= ct {
            let s = &self.window[self.at..self.at + ct];
            self.at += ct;
            return Ok(s);
        }
        // Longer than what is left: the rest of the window, then straight from the source.
        self.scratch.clear();
        self.scratch.reserve(ct);
        self.scratch
            .extend_from_slice(&self.window[self.at..self.end]);
        self.at = self.end;
        let mut have = self.scratch.len();
        self.scratch.resize(ct, 0);
        while have < ct {
            let n = read_some(&mut self.src, &mut self.scratch[have..])?;
            if n == 0 {
                return Err(postcard::Error::DeserializeUnexpectedEnd);
            }
            have += n;
        }
        Ok(&self.scratch)
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// `Vec<u8>` as a sequence of byte strings of at most [`CHUNK`] bytes (with
/// `#[serde(with = "wire::byte_chunks")]`). As one byte string, a batch's packed heaps (megabytes
/// in a server trace) would be copied into a scratch buffer of its size while the page decodes it;
/// in pieces each is copied straight onto the end of the vector. (Serde's default for `Vec<u8>`,
/// a sequence of single bytes, is a call per byte.)
pub mod byte_chunks {
    use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};
    use serde::ser::{SerializeSeq, Serializer};

    /// Bytes per piece: well under the decoder's window, so most pieces are read in place.
    pub const CHUNK: usize = 8 * 1024;

    struct Piece<'a>(&'a [u8]);

    impl serde::Serialize for Piece<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(self.0)
        }
    }

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len().div_ceil(CHUNK)))?;
        for piece in v.chunks(CHUNK) {
            seq.serialize_element(&Piece(piece))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_seq(Pieces)
    }

    struct Pieces;

    impl<'de> Visitor<'de> for Pieces {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sequence of byte strings")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            // The count comes from the message: reserve for at most 16 MiB before the bytes are there.
            let pieces = seq.size_hint().unwrap_or(0).min((16 << 20) / CHUNK);
            let mut v = Vec::with_capacity(pieces * CHUNK);
            while seq.next_element_seed(AppendTo(&mut v))?.is_some() {}
            Ok(v)
        }
    }

    /// Deserializes one piece onto the end of the vector.
    struct AppendTo<'a>(&'a mut Vec<u8>);

    impl<'de> DeserializeSeed<'de> for AppendTo<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_byte_buf(self)
        }
    }

    impl<'de> Visitor<'de> for AppendTo<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a byte string")
        }
        fn visit_bytes<E>(self, v: &[u8]) -> Result<(), E> {
            self.0.extend_from_slice(v);
            Ok(())
        }
        fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<(), E> {
            self.0.extend_from_slice(&v);
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(b) = seq.next_element()? {
                self.0.push(b);
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most 7 bytes a call.
    struct Pieces<'a>(&'a [u8]);
    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(7).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Msg {
        #[serde(with = "byte_chunks")]
        bytes: Vec<u8>,
        names: Vec<String>,
        n: u64,
        x: f64,
    }

    /// Strings and byte strings longer than the window, shorter than it, and straddling its end;
    /// byte strings of every length around a piece's.
    #[test]
    fn streamed_decoding_equals_decoding_from_memory() {
        let long = "é".repeat(WINDOW);
        for len in [
            0,
            1,
            CHUNK_LEN - 1,
            CHUNK_LEN,
            CHUNK_LEN + 1,
            3 * WINDOW + 5,
        ] {
            let m = Msg {
                bytes: (0..len).map(|i| (i * 7 % 251) as u8).collect(),
                names: vec![
                    "a".into(),
                    long.clone(),
                    String::new(),
                    "x".repeat(WINDOW - 3),
                ],
                n: u64::MAX - len as u64,
                x: -0.5,
            };
            let wire = encode(&m).unwrap();
            assert_eq!(wire.len(), encoded_len(&m).unwrap());
            let mut into = Vec::new();
            encode_into(&m, &mut into).unwrap();
            assert_eq!(into, wire);
            assert_eq!(decode::<Msg>(&wire).unwrap(), m, "{len}: from memory");
            assert_eq!(decode_from::<Msg>(&wire[..]).unwrap(), m, "{len}: streamed");
            assert_eq!(
                decode_from::<Msg>(Pieces(&wire)).unwrap(),
                m,
                "{len}: 7 bytes a read"
            );
            // Cut short anywhere: an error, never a panic.
            for cut in [0, 1, wire.len() / 2, wire.len() - 1] {
                assert!(
                    decode_from::<Msg>(&wire[..cut]).is_err(),
                    "{len}: cut at {cut}"
                );
            }
        }
    }

    const CHUNK_LEN: usize = byte_chunks::CHUNK;
}
