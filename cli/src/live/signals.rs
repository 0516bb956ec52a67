//! Ctrl-C (SIGINT) and SIGTERM counted, not fatal, while a live session runs: the first stops the
//! session cleanly (the file complete), a second stops waiting for the stream's end. SIGQUIT
//! (`Ctrl-\`) is counted apart: `watch` prints its summary then and goes on. std has no
//! signal API, so on Unix this calls libc's `signal` with a handler that only bumps an atomic
//! counter (async-signal-safe). Elsewhere the default handling stays.

use std::sync::atomic::{AtomicUsize, Ordering};

static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);
static SUMMARY_REQUESTS: AtomicUsize = AtomicUsize::new(0);

/// How many SIGQUIT have come since [`install`] (requests for a summary).
pub fn summary_requests() -> usize {
    SUMMARY_REQUESTS.load(Ordering::SeqCst)
}

/// Counts as a Ctrl-C: `serve`'s Stop button stops the session as Ctrl-C does.
pub fn interrupt() {
    INTERRUPTS.fetch_add(1, Ordering::SeqCst);
}

/// How many SIGINT/SIGTERM have come since [`install`].
pub fn interrupts() -> usize {
    INTERRUPTS.load(Ordering::SeqCst)
}

#[cfg(unix)]
mod imp {
    use super::{Ordering, INTERRUPTS, SUMMARY_REQUESTS};
    use std::sync::Once;

    const SIGINT: i32 = 2;
    const SIGQUIT: i32 = 3;
    const SIGTERM: i32 = 15;

    extern "C" {
        fn signal(signum: i32, handler: extern "C" fn(i32)) -> usize;
    }

    extern "C" fn on_signal(sig: i32) {
        if sig == SIGQUIT {
            SUMMARY_REQUESTS.fetch_add(1, Ordering::SeqCst);
        } else {
            INTERRUPTS.fetch_add(1, Ordering::SeqCst);
        }
    }

    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: the handler touches only an atomic, which is async-signal-safe.
            unsafe {
                signal(SIGINT, on_signal);
                signal(SIGTERM, on_signal);
                signal(SIGQUIT, on_signal);
            }
        });
    }
}

#[cfg(not(unix))]
mod imp {
    pub fn install() {}
}

pub use imp::install;
