//! Standard output, the one way every subcommand prints: buffered, and a closed pipe (`gcscope gcs
//! big.nettrace | head`) ends the output quietly, the command exiting 0 as if it had written
//! everything, instead of failing every later write. [`Out`] is for output written while the trace
//! is still being read (`gcscope gcs`, the tables over several traces); [`print()`], [`print_json`]
//! and [`print_with`] are for what is printed once it is read. Any other write error (a full disk)
//! is the command's error.

use std::io::{self, BufWriter, Stdout, Write};

use serde::Serialize;

/// Standard output (or, in tests, any writer), buffered: a write error is kept and every later
/// write dropped, so writers need not check each write; [`Out::closed`] says when to stop making
/// output and [`Out::finish`] whether the error was more than a closed pipe.
pub struct Out<W: Write = Stdout> {
    w: BufWriter<W>,
    /// The first write error; later writes are dropped.
    err: Option<io::Error>,
}

impl Out {
    pub fn stdout() -> Out {
        Out::to(io::stdout())
    }
}

impl<W: Write> Out<W> {
    /// Output to `w` (tests write to a `Vec<u8>`).
    pub fn to(w: W) -> Out<W> {
        Out {
            w: BufWriter::with_capacity(1 << 16, w),
            err: None,
        }
    }

    /// The writer, flushed (tests).
    #[cfg(test)]
    pub fn into_inner(self) -> W {
        self.w
            .into_inner()
            .map_err(|e| e.to_string())
            .expect("flush")
    }

    /// Whether writing stopped (the reader went away): the caller may skip making more output.
    pub fn closed(&self) -> bool {
        self.err.is_some()
    }

    /// Flushes; a closed pipe is not an error, any other write error is.
    pub fn finish(mut self) -> Result<(), String> {
        let _ = self.flush();
        match self.err {
            Some(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.to_string()),
            _ => Ok(()),
        }
    }

    /// This output as a writer whose writes fail once the output has failed, for writers that
    /// stop at their first failed write (serde's), so a closed pipe stops them too.
    pub fn stopping(&mut self) -> Stopping<'_, W> {
        Stopping(self)
    }

    fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.err.get_or_insert(e);
        }
    }
}

impl<W: Write> Write for Out<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.err.is_none() {
            let r = self.w.write_all(buf);
            self.keep(r);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.err.is_none() {
            let r = self.w.flush();
            self.keep(r);
        }
        Ok(())
    }
}

/// [`Out::stopping`]: writes that fail once the output has.
pub struct Stopping<'a, W: Write>(&'a mut Out<W>);

impl<W: Write> Stopping<'_, W> {
    fn failed(&self) -> io::Result<()> {
        match &self.0.err {
            Some(e) => Err(io::Error::new(e.kind(), "the output failed")),
            None => Ok(()),
        }
    }
}

impl<W: Write> Write for Stopping<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.failed()?;
        self.0.write_all(buf)?;
        self.failed().map(|()| buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()?;
        self.failed()
    }
}

/// Prints `s`.
pub fn print(s: &str) -> Result<(), String> {
    let mut out = Out::stdout();
    let _ = out.write_all(s.as_bytes());
    out.finish()
}

/// Pretty JSON with a final newline, printed. Written as it is made, not built whole first: a
/// big trace's views are tens of MB of JSON, which as one string would cost the thread that prints
/// it the allocation and its pages (docs/performance-log/journal.md, "The insight views' JSON,
/// written as it is made").
pub fn print_json<T: Serialize + ?Sized>(v: &T) -> Result<(), String> {
    print_with(|out| {
        serde_json::to_writer_pretty(out, v).map_err(|e| match e.io_error_kind() {
            Some(kind) => io::Error::new(kind, e),
            None => io::Error::other(e),
        })
    })
}

/// Prints what `write` writes, and a final newline. `write`'s writes fail once the output has
/// (it may stop there); a failure of its own (not the output's) is the error.
pub fn print_with(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), String> {
    let mut out = Out::stdout();
    with_newline(&mut out, write)?;
    out.finish()
}

/// [`print_with`] into `out`, without finishing it.
fn with_newline<W: Write>(
    out: &mut Out<W>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), String> {
    match write(&mut out.stopping()) {
        Ok(()) => {
            let _ = out.write_all(b"\n");
            Ok(())
        }
        Err(_) if out.closed() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A reader that takes `room` bytes and then goes away with `kind`.
    struct Reader {
        room: usize,
        kind: io::ErrorKind,
        taken: Vec<u8>,
    }

    impl Write for Reader {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.taken.len() >= self.room {
                return Err(io::Error::new(self.kind, "the reader went away"));
            }
            let n = buf.len().min(self.room - self.taken.len());
            self.taken.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn reader(room: usize, kind: io::ErrorKind) -> Out<Reader> {
        Out::to(Reader {
            room,
            kind,
            taken: Vec::new(),
        })
    }

    #[test]
    fn a_closed_pipe_is_not_an_error_and_any_other_write_error_is() {
        for (kind, ok) in [
            (io::ErrorKind::BrokenPipe, true),
            (io::ErrorKind::StorageFull, false),
        ] {
            let mut out = reader(10, kind);
            // More than the buffer holds, so the writes reach the reader before `finish`.
            for _ in 0..(1 << 12) {
                assert!(out.write_all(b"0123456789abcdef\n").is_ok());
            }
            assert!(out.closed());
            let finished = out.finish();
            assert_eq!(finished.is_ok(), ok, "{kind:?}: {finished:?}");
        }
        // Nothing wrong: everything arrives, in order.
        let mut out = Out::to(Vec::new());
        let _ = out.write_all(b"a");
        let _ = write!(out, "b{}", 1);
        assert!(!out.closed());
        assert_eq!(out.into_inner(), b"ab1");
    }

    #[test]
    fn json_stops_being_made_once_the_pipe_closes() {
        // A million numbers (~8 MB of pretty JSON) to a reader that leaves after 100 bytes:
        // serialization stops within a buffer of the first failed write.
        let made = Cell::new(0u32);
        let items = (0..1_000_000u32).inspect(|_| made.set(made.get() + 1));
        let json = crate::output::json_array::SerializedAsMade::new(items);
        let mut out = reader(100, io::ErrorKind::BrokenPipe);
        let r = with_newline(&mut out, |w| {
            serde_json::to_writer_pretty(w, &json).map_err(io::Error::other)
        });
        assert_eq!(r, Ok(()));
        assert!(made.get() < 20_000, "{} items made", made.get());
        assert_eq!(out.finish(), Ok(()));
        // With room: the whole JSON and its newline.
        let mut out = Out::to(Vec::new());
        let json = crate::output::json_array::SerializedAsMade::new(0..3u32);
        with_newline(&mut out, |w| {
            serde_json::to_writer_pretty(w, &json).map_err(io::Error::other)
        })
        .unwrap();
        assert_eq!(out.into_inner(), b"[\n  0,\n  1,\n  2\n]\n");
    }

    #[test]
    fn a_failure_of_the_writer_itself_is_the_error() {
        let mut out = Out::to(Vec::new());
        let r = with_newline(&mut out, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("cannot serialize"))
        });
        assert_eq!(r, Err("cannot serialize".to_string()));
    }
}
