//! What the worker keeps of a machine-wide (ETW) trace after reading it, so the page can switch
//! processes without reading the file again: each process's messages (its GC rows and its `Done`),
//! encoded as they are posted, within a budget of bytes. Over the budget, whole processes are let
//! go, the least GC pause first, never the one shown (or, while reading, the one with the most
//! pause so far); one let go is shown by reading the file again for it.
//!
//! Why encoded messages: they are what the page needs to show the process (posting them again is
//! a copy), and they are the smallest form of the rows (~0.5 KiB per GC with its packed heaps,
//! against a few KiB as `Gc` structs). Plain Rust (no browser types), so it is unit-tested natively.

use std::collections::BTreeMap;

use crate::protocol::ToUi;

/// Bytes of messages kept for switching processes: a trace's processes with up to ~130,000
/// workstation GCs in all (fewer with server GC's per-heap histories). The worker's wasm memory
/// never shrinks, so this is also about what switching costs the tab for as long as it shows
/// the trace.
pub const KEEP_BYTES: usize = 64 << 20;

/// One message as the worker posts it: its envelope's fields and its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded {
    pub kind: &'static str,
    pub bytes: Vec<u8>,
    pub facts: Facts,
}

/// What the page reads of a message without decoding it (the envelope, see `protocol::ENV_*`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    /// A `Gcs` batch's row count.
    pub rows: usize,
    /// A `Done`'s error and decode time, the workers that decoded the file, the bytes part
    /// workers decoded and how long the decoding worker waited for them.
    pub error: Option<String>,
    pub decode_ms: f64,
    pub workers: u32,
    pub part_bytes: f64,
    pub waited_ms: f64,
}

impl Facts {
    pub fn of(msg: &ToUi) -> Facts {
        match msg {
            ToUi::Gcs { rows, .. } => Facts {
                rows: rows.len(),
                ..Facts::default()
            },
            ToUi::Done(a) => Facts {
                error: a.error.clone(),
                decode_ms: a.decode_ms,
                workers: a.workers,
                part_bytes: a.part_bytes,
                waited_ms: a.waited_ms,
                ..Facts::default()
            },
            _ => Facts::default(),
        }
    }
}

impl Encoded {
    pub fn new(msg: &ToUi) -> Result<Encoded, String> {
        Ok(Encoded {
            kind: msg.kind(),
            bytes: msg.encode()?,
            facts: Facts::of(msg),
        })
    }
}

#[derive(Debug, Default)]
struct Entry {
    msgs: Vec<Encoded>,
    /// Its `Done` is in: the process can be shown from here.
    complete: bool,
    /// Let go over the budget: its later messages are not kept either.
    dropped: bool,
}

/// Each process's messages, within [`KEEP_BYTES`] (or the budget given).
#[derive(Debug)]
pub struct Kept {
    budget: usize,
    used: usize,
    entries: BTreeMap<u32, Entry>,
}

impl Kept {
    pub fn new(budget: usize) -> Kept {
        Kept {
            budget,
            used: 0,
            entries: BTreeMap::new(),
        }
    }

    /// Keeps one more message of process `pid` (in the order they are to be posted). Over the
    /// budget, other processes are let go, the least GC pause first (`pause`), never `protect`:
    /// the process shown, or while reading the one most likely to be (the most pause so far).
    /// Its rows are what the page will hold anyway, and one read of the file must be enough to
    /// show it however many GCs it has; the budget bounds what is kept beside it.
    pub fn push(
        &mut self,
        pid: u32,
        msg: Encoded,
        protect: Option<u32>,
        pause: impl Fn(u32) -> f64,
    ) {
        let e = self.entries.entry(pid).or_default();
        if e.dropped {
            return;
        }
        self.used += msg.bytes.len();
        e.msgs.push(msg);
        while self.used > self.budget {
            let victim = self
                .entries
                .iter()
                .filter(|(&p, e)| !e.dropped && Some(p) != protect)
                .map(|(&p, _)| p)
                .min_by(|&a, &b| pause(a).total_cmp(&pause(b)).then(a.cmp(&b)));
            let Some(v) = victim else { break };
            if let Some(e) = self.entries.get_mut(&v) {
                self.used -= e.msgs.iter().map(|m| m.bytes.len()).sum::<usize>();
                *e = Entry {
                    dropped: true,
                    ..Entry::default()
                };
            }
        }
    }

    /// Process `pid`'s messages are all in (its `Done` was the last).
    pub fn complete(&mut self, pid: u32) {
        if let Some(e) = self.entries.get_mut(&pid) {
            e.complete = !e.dropped;
        }
    }

    /// The messages that show process `pid`, if all of them are kept.
    pub fn messages(&self, pid: u32) -> Option<&[Encoded]> {
        self.entries
            .get(&pid)
            .filter(|e| e.complete && !e.dropped)
            .map(|e| e.msgs.as_slice())
    }

    /// Process `pid`'s messages kept so far (complete or not), unless it was let go.
    pub fn so_far(&self, pid: u32) -> Option<&[Encoded]> {
        self.entries
            .get(&pid)
            .filter(|e| !e.dropped)
            .map(|e| e.msgs.as_slice())
    }

    /// Whether `pid` was let go (its messages would have to be made again).
    pub fn dropped(&self, pid: u32) -> bool {
        self.entries.get(&pid).is_some_and(|e| e.dropped)
    }

    /// Bytes kept.
    pub fn used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(n: usize) -> Encoded {
        Encoded {
            kind: "gcs",
            bytes: vec![0; n],
            facts: Facts {
                rows: 1,
                ..Facts::default()
            },
        }
    }

    /// Sum of the kept messages' bytes, recomputed from what `messages` and the entries hold.
    fn recount(k: &Kept) -> usize {
        k.entries
            .values()
            .flat_map(|e| &e.msgs)
            .map(|m| m.bytes.len())
            .sum()
    }

    #[test]
    fn under_the_budget_everything_is_kept_in_order() {
        let mut k = Kept::new(1000);
        for (pid, n) in [(1, 100), (2, 200), (1, 50)] {
            k.push(pid, msg(n), None, |_| 0.0);
        }
        assert_eq!(k.messages(1), None, "not complete yet");
        assert_eq!(k.so_far(1).map(<[_]>::len), Some(2));
        assert_eq!(k.so_far(3), None);
        k.complete(1);
        let lens: Vec<usize> = k
            .messages(1)
            .unwrap()
            .iter()
            .map(|m| m.bytes.len())
            .collect();
        assert_eq!(lens, [100, 50]);
        assert_eq!(k.used(), 350);
        assert_eq!(recount(&k), 350);
        assert!(!k.dropped(2) && k.messages(2).is_none());
    }

    /// Over the budget the least paused process goes first, the protected one last, and a process
    /// let go keeps nothing after (its rows would be a hole in the middle).
    #[test]
    fn over_the_budget_the_least_paused_go_first_and_stay_gone() {
        let pause = |pid: u32| [0.0, 5.0, 1.0, 9.0][pid as usize];
        let mut k = Kept::new(1000);
        k.push(1, msg(300), Some(3), pause);
        k.push(2, msg(300), Some(3), pause);
        k.push(3, msg(300), Some(3), pause);
        assert_eq!(k.used(), 900);
        // 1,200 bytes: process 2 (1 ms) goes, not 1 (5 ms) nor 3 (protected, and the most pause).
        k.push(1, msg(300), Some(3), pause);
        assert!(k.dropped(2) && !k.dropped(1) && !k.dropped(3));
        assert_eq!(k.so_far(2), None);
        assert_eq!((k.used(), recount(&k)), (900, 900));
        k.push(2, msg(10), Some(3), pause);
        assert_eq!(k.used(), 900, "nothing kept for a process let go");
        k.complete(2);
        assert_eq!(k.messages(2), None);
        // The protected process is never let go: even with less pause than the others, and
        // beyond the budget (the budget bounds what is kept beside it).
        let mut k = Kept::new(500);
        k.push(1, msg(300), Some(2), pause);
        k.push(2, msg(300), Some(2), |p| if p == 2 { 0.0 } else { 1.0 });
        assert!(k.dropped(1) && !k.dropped(2));
        k.push(2, msg(600), Some(2), pause);
        assert!(!k.dropped(2));
        assert_eq!((k.used(), recount(&k)), (900, 900));
        k.complete(2);
        assert_eq!(k.messages(2).map(<[_]>::len), Some(2));
        // Once another process is the protected one, the first goes at the next message.
        k.push(3, msg(1), Some(3), pause);
        assert!(k.dropped(2) && !k.dropped(3));
    }

    /// A budget of 0 keeps only the protected process (tests use it to make the page read the
    /// file again for any other).
    #[test]
    fn a_zero_budget_keeps_only_the_protected_process() {
        let mut k = Kept::new(0);
        k.push(7, msg(1), Some(7), |_| 0.0);
        k.push(8, msg(1), Some(7), |_| 9.0);
        k.complete(7);
        k.complete(8);
        assert!(k.messages(7).is_some() && k.dropped(8) && k.messages(8).is_none());
        assert_eq!(k.used(), 1);
    }

    /// A message survives as the page receives it (the envelope's fields come from the message).
    #[test]
    fn encoded_messages_decode_to_what_was_encoded() {
        let done = ToUi::Done(Box::new(crate::protocol::Analysis {
            error: Some("cut".into()),
            decode_ms: 12.5,
            workers: 3,
            part_bytes: 1e6,
            processes: Some(crate::protocol::processes::Processes {
                default_pid: Some(3),
                asked_missing: Some(9),
                ..Default::default()
            }),
            ..Default::default()
        }));
        let e = Encoded::new(&done).unwrap();
        assert_eq!(
            (e.kind, e.facts.error.as_deref(), e.facts.decode_ms),
            ("done", Some("cut"), 12.5)
        );
        assert_eq!((e.facts.workers, e.facts.part_bytes), (3, 1e6));
        assert_eq!(ToUi::decode(&e.bytes).unwrap(), done);
        let gcs = ToUi::gcs((1..=3).map(crate::testdata::gc).collect());
        let e = Encoded::new(&gcs).unwrap();
        assert_eq!((e.kind, e.facts.rows), ("gcs", 3));
        assert_eq!(ToUi::decode(&e.bytes).unwrap(), gcs);
    }
}
