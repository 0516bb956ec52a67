//! One stream's read position in the merge: its window on the entry, its decoding state, and the
//! next event, read one ahead so the merge can pick the earliest.

use super::entries::Entry;
use super::stream::{Ctx, Decoded, StreamState};
use super::trace::Trace;
use super::window::Window;
use crate::error::Result;
use alloc::vec::Vec;

pub(super) struct Cursor {
    pub(super) trace: usize,
    pub(super) entry: usize,
    pub(super) window: Window,
    pub(super) state: StreamState,
    pub(super) current: Option<Decoded>,
    pub(super) payload: Vec<u8>,
    pub(super) peek: Decoded,
    pub(super) peek_payload: Vec<u8>,
}

/// Reads the cursor's next event (joining an `X_1` second half to its `X`).
pub(super) fn advance(c: &mut Cursor, traces: &[Trace], entries: &[Entry]) -> Result<()> {
    let t = &traces[c.trace];
    let cx = Ctx {
        md: &t.md,
        names: t.names,
        index: &t.index,
        packed: &t.packed,
    };
    let src = entries[c.entry].source();
    let want = |decl: usize| t.classes.get(decl).is_some_and(|k| k.deliver || k.is_half);
    loop {
        let mut d = c.current.take().unwrap_or_default();
        let read = c.window.next(
            &src,
            &mut c.state,
            &cx,
            &mut d,
            &mut c.payload,
            &want,
            false,
        );
        match read {
            Ok(Some(())) => {}
            Ok(None) => return Ok(()),
            Err(e) => {
                c.state.at.in_packet = false;
                c.state.at.pos = u64::MAX;
                return Err(e);
            }
        }
        let class = &t.classes[d.decl];
        if class.is_half {
            // A second half without its first: part of no event.
            c.current = None;
            continue;
        }
        if let Some(half) = class.second_half {
            let saved = (c.state.at, c.state.packets, c.state.packets_exact);
            let peek = c.window.next(
                &src,
                &mut c.state,
                &cx,
                &mut c.peek,
                &mut c.peek_payload,
                &want,
                true,
            );
            match peek {
                Ok(Some(())) if c.peek.decl == half => c.payload.extend_from_slice(&c.peek_payload),
                _ => (c.state.at, c.state.packets, c.state.packets_exact) = saved,
            }
        }
        c.current = Some(d);
        return Ok(());
    }
}
