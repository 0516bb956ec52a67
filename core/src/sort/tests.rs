//! The sort buffer's tests: its order, partial flushes, and the tick lane against the buffer
//! without it.

use super::*;
use crate::clr::gc::TypeRef;
use crate::ticks::BatchTick;

fn p(ts: i64, tid: u64) -> Pending {
    Pending {
        timestamp: ts,
        thread_id: tid,
        capture_thread_id: tid,
        metadata: 0,
        version: 0,
        sequence: 0,
        processor: 0,
        stack_id: 0,
        payload_start: 0,
        payload_len: 0,
        chunk: ARENA,
        tick: crate::sort::NO_TICK,
    }
}

#[test]
fn sorts_by_timestamp_keeping_file_order_on_ties() {
    let mut s = Sorter::new();
    s.push(p(5, 1), b"a");
    s.push(p(3, 2), b"bb");
    s.push(p(5, 3), b"");
    s.push(p(1, 4), b"dddd");
    let mut out = Vec::new();
    s.flush(&mut |r| {
        let Release::Event(r) = r else { unreachable!() };
        out.push((r.event.timestamp, r.event.thread_id, r.payload.to_vec()))
    });
    assert_eq!(
        out,
        alloc::vec![
            (1, 4, b"dddd".to_vec()),
            (3, 2, b"bb".to_vec()),
            (5, 1, b"a".to_vec()),
            (5, 3, alloc::vec![])
        ]
    );
    assert!(s.is_empty());
    let mut n = 0;
    s.flush(&mut |_| n += 1);
    assert_eq!(n, 0);
}

#[test]
fn sorts_timestamps_spanning_the_whole_range() {
    // Too wide a span for packed keys: the (timestamp, index) fallback must give the same order.
    let mut s = Sorter::new();
    for (ts, tid) in [(i64::MAX, 1), (0, 2), (i64::MIN, 3), (0, 4), (-5, 5)] {
        s.push(p(ts, tid), &[]);
    }
    let mut out = Vec::new();
    s.flush(&mut |r| {
        let Release::Event(r) = r else { unreachable!() };
        out.push(r.event.thread_id)
    });
    assert_eq!(out, [3, 5, 2, 4, 1]);
}

#[test]
fn partial_flush_emits_a_prefix_of_the_full_order() {
    let input = [(5, 1u64), (9, 2), (3, 3), (7, 4), (6, 5)];
    let mut full = Sorter::new();
    let mut part = Sorter::new();
    for (ts, tid) in input {
        full.push(p(ts, tid), &[tid as u8; 3]);
        part.push(p(ts, tid), &[tid as u8; 3]);
    }
    let mut a = Vec::new();
    full.flush(&mut |r| {
        let Release::Event(r) = r else { unreachable!() };
        a.push((r.event.timestamp, r.payload.to_vec()))
    });
    let mut b = Vec::new();
    part.flush_upto(6, &mut |r| {
        let Release::Event(r) = r else { unreachable!() };
        b.push((r.event.timestamp, r.payload.to_vec()))
    });
    assert_eq!(b.len(), 3);
    part.push(p(8, 6), &[6; 3]);
    a.insert(4, (8, alloc::vec![6; 3]));
    part.flush(&mut |r| {
        let Release::Event(r) = r else { unreachable!() };
        b.push((r.event.timestamp, r.payload.to_vec()))
    });
    assert_eq!(a, b);
    let mut n = 0;
    part.flush(&mut |_| n += 1);
    assert_eq!(n, 0);
}

/// A released tick as the insights read it: its timestamp, amount, raw kind, heap and type name.
type Each = (i64, u64, u32, Option<u32>, Option<Vec<u8>>);

/// What a sorter released, a batch of ticks as the lane makes them: its count, its bytes per
/// kind, its first timestamp, its latest `timestamp - sync`, its ticks per metadata entry, and
/// (with each tick) the ticks.
#[derive(Debug, PartialEq)]
enum Out {
    Event(i64, u64, Vec<u8>),
    Ticks(u64, [u64; 3], i64, i64, Vec<(u32, u64)>, Vec<Each>),
}

/// Collects what `s` releases: events as they are; ticks (lane batches, or events with a
/// digest from a sorter without the lane) summed between two events of one release, as a
/// lane batch sums them. With `each`, the ticks one by one too; with `merge`, lane batches
/// next to each other summed as one (where the lane leaves some ticks to the buffer, they part
/// its batches).
struct Collect {
    out: Vec<Out>,
    open: Option<crate::ticks::TickBatch>,
    each: bool,
    merge: bool,
    ticks: Vec<Each>,
}

const SYNC: i64 = -7;

impl Collect {
    fn new(each: bool, merge: bool) -> Collect {
        Collect {
            out: Vec::new(),
            open: None,
            each,
            merge,
            ticks: Vec::new(),
        }
    }

    fn add(&mut self, metadata: u32, timestamp: i64, kind: u32, amount: u64) {
        let b = self.open.get_or_insert_with(Default::default);
        let since = timestamp.wrapping_sub(SYNC);
        b.add(metadata, timestamp, since, kind.min(2) as u8, amount);
    }

    fn take(&mut self, r: Release<'_>) {
        match r {
            Release::Event(r) => match r.tick {
                Some(d) => {
                    self.add(r.event.metadata, r.event.timestamp, d.kind, d.amount);
                    if self.each {
                        let name = d.type_name(r.payload, 8).map(|n| n.0.to_vec());
                        let t = (r.event.timestamp, d.amount, d.kind, d.heap_index, name);
                        self.ticks.push(t);
                    }
                }
                None => {
                    self.close();
                    self.out.push(Out::Event(
                        r.event.timestamp,
                        r.event.thread_id,
                        r.payload.to_vec(),
                    ));
                }
            },
            Release::Ticks(b) => {
                assert!(b.count > 0);
                assert_eq!(b.ticks.len() as u64, if self.each { b.count } else { 0 });
                if !self.merge {
                    assert!(self.open.is_none());
                }
                let names = |slot: u32| b.type_name(slot).map(<[u8]>::to_vec);
                for t in &b.ticks {
                    let name = names(t.type_slot);
                    assert_eq!(name.is_none(), t.type_slot == BatchTick::NO_NAME);
                    self.ticks
                        .push((t.timestamp, t.amount, t.kind, t.heap_index, name));
                }
                // The batch's sums, as `add` would make them of its ticks one by one.
                match self.open.as_mut() {
                    None => {
                        let mut own = b.clone();
                        own.ticks.clear();
                        own.names = Default::default();
                        self.open = Some(own);
                    }
                    Some(o) => {
                        o.count += b.count;
                        for k in 0..3 {
                            o.bytes_by_kind[k] =
                                o.bytes_by_kind[k].saturating_add(b.bytes_by_kind[k]);
                        }
                        if b.latest_since_sync > o.latest_since_sync {
                            o.latest_since_sync = b.latest_since_sync;
                            o.latest_timestamp = b.latest_timestamp;
                        }
                        for &(m, n) in &b.per_entry {
                            match o.per_entry.iter_mut().find(|(x, _)| *x == m) {
                                Some((_, c)) => *c += n,
                                None => o.per_entry.push((m, n)),
                            }
                        }
                    }
                }
                if !self.merge {
                    self.close();
                }
            }
        }
    }

    fn close(&mut self) {
        if let Some(b) = self.open.take() {
            self.out.push(Out::Ticks(
                b.count,
                b.bytes_by_kind,
                b.first_timestamp,
                b.latest_since_sync,
                b.per_entry,
                core::mem::take(&mut self.ticks),
            ));
        }
    }
}

/// Random pushes of events and ticks (timestamps out of order and tied), early flushes, budget
/// cuts and full flushes into a sorter with the tick lane and one without: the same events in
/// the same places, each run of ticks between them as one batch (with each tick in order, its
/// fields and type name, where the batches hold them), and the same accounting (bytes held,
/// events late) after every step, so both decide the same.
#[test]
fn the_tick_lane_releases_ticks_where_the_buffer_would() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let (mut laned, mut batches, mut each_ticks) = (0u64, 0u64, 0u64);
    for round in 0..300 {
        let budget = [1 << 12, 1 << 14, 1 << 20][round % 3];
        // Every other round, batches hold each tick (as for the insights).
        let each = round % 2 == 1;
        let mut plain = Sorter::with_budget(budget);
        let mut lane = Sorter::with_budget(budget);
        lane.set_tick_lane(SYNC, each, false, 8);
        let (mut a, mut b) = (Collect::new(each, each), Collect::new(each, each));
        let mut clock = 0i64;
        for step in 0..400 {
            let op = rnd(100);
            if op < 80 {
                // Mostly forward, now and then back, often tied.
                clock += rnd(4) as i64;
                let ts = clock - if rnd(5) == 0 { rnd(20) as i64 } else { 0 };
                let mut e = p(ts, step);
                e.metadata = rnd(3) as u32;
                let mut payload: Vec<u8> = (0..rnd(40)).map(|i| i as u8 ^ step as u8).collect();
                if op < 55 {
                    let mut d = TickDigest {
                        amount: rnd(1 << 20) + if rnd(50) == 0 { u64::MAX / 2 } else { 0 },
                        kind: rnd(4) as u32,
                        heap_index: (rnd(3) != 0).then(|| rnd(64) as u32),
                        ..TickDigest::default()
                    };
                    // A type name (in the payload, after 26 bytes of fields): one the merge
                    // interned, mostly; else none (versions 0-1), or one it did not (the lane
                    // leaves that to the buffer).
                    let m = rnd(6) as u32;
                    let name: Vec<u8> = (0..=m).flat_map(|i| [b'A' + (m + i) as u8, 0]).collect();
                    let named = rnd(8);
                    if named > 0 {
                        payload.resize(26, 1);
                        payload.extend_from_slice(&name);
                        d.type_name_len = Some(name.len() as u32);
                        d.type_ref = match named {
                            1 => TypeRef::NONE,
                            _ => TypeRef::merged(m),
                        };
                    }
                    for s in [&mut plain, &mut lane] {
                        let at = s.append(&payload).unwrap();
                        let mut e = e;
                        e.payload_start = at;
                        e.payload_len = payload.len() as u32;
                        s.push_tick(e, Some(d));
                    }
                } else {
                    assert!(plain.push(e, &payload) && lane.push(e, &payload));
                }
            } else if op < 88 {
                let t = clock - rnd(10) as i64;
                plain.flush_upto(t, &mut |r| a.take(r));
                a.close();
                lane.flush_upto(t, &mut |r| b.take(r));
                b.close();
            } else if op < 98 {
                let (ca, cb) = (plain.budget_cut(), lane.budget_cut());
                assert_eq!(ca, cb, "round {round} step {step}: budget cut");
                if let Some(t) = ca {
                    plain.flush_upto(t, &mut |r| a.take(r));
                    a.close();
                    plain.released(t);
                    lane.flush_upto(t, &mut |r| b.take(r));
                    b.close();
                    lane.released(t);
                }
            } else {
                plain.flush(&mut |r| a.take(r));
                a.close();
                lane.flush(&mut |r| b.take(r));
                b.close();
            }
            assert_eq!(
                plain.buffered_bytes(),
                lane.buffered_bytes(),
                "round {round} step {step}: bytes held"
            );
            assert_eq!(
                plain.len(),
                lane.len(),
                "round {round} step {step}: events held"
            );
            assert_eq!(plain.late, lane.late, "round {round} step {step}: late");
            assert_eq!(
                plain.min_timestamp_upto(clock),
                lane.min_timestamp_upto(clock)
            );
            assert_eq!(a.out, b.out, "round {round} step {step}: released");
        }
        plain.flush(&mut |r| a.take(r));
        a.close();
        lane.flush(&mut |r| b.take(r));
        b.close();
        assert_eq!(a.out, b.out, "round {round}: released at the end");
        for o in &b.out {
            if let Out::Ticks(n, _, _, _, _, t) = o {
                laned += n;
                batches += 1;
                each_ticks += t.len() as u64;
            }
        }
    }
    eprintln!("{laned} ticks in {batches} batches, {each_ticks} one by one");
    // Not a test that passes because nothing went through the lane.
    assert!(
        laned > 10_000 && batches > 1_000 && each_ticks > 10_000,
        "{laned} ticks in {batches} batches, {each_ticks} one by one"
    );
}
