//! Standard output for output written while the trace is still being read (`gcscope gcs`): buffered,
//! and a closed pipe (`gcscope gcs big.nettrace | head`) ends the output quietly instead of
//! failing every later write.

use std::io::{self, BufWriter, Stdout, Write};

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
