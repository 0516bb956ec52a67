//! Standard output for output written while the trace is still being read (`gcscope gcs`): buffered,
//! and a closed pipe (`gcscope gcs big.nettrace | head`) ends the output quietly instead of
//! failing every later write.

use std::io::{self, BufWriter, Stdout, Write};

use serde::Serialize;

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

/// Writes to stdout; a closed pipe (`| head`) is not an error.
pub fn print(s: &str) -> Result<(), String> {
    let mut out = io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// Pretty JSON with a final newline, printed. Written as it is made, not built whole first: a
/// big trace's views are tens of MB of JSON (`budgets --json` on 1 GiB: 80 MB), which as one
/// string cost the thread that prints it the allocation and its pages. A closed pipe (`| head`)
/// ends the output quietly, as [`print`] does.
pub fn print_json<T: Serialize + ?Sized>(v: &T) -> Result<(), String> {
    print_with(|out| {
        serde_json::to_writer_pretty(out, v).map_err(|e| match e.io_error_kind() {
            Some(kind) => std::io::Error::new(kind, e),
            None => std::io::Error::other(e),
        })
    })
}

/// What `write` writes to stdout (buffered), and a final newline; a closed pipe is not an error.
pub fn print_with(
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = write(&mut out)
        .and_then(|_| out.write_all(b"\n"))
        .and_then(|_| out.flush());
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}
