//! The stacks worker: a worker of its own, started when the Stacks tab is first shown, that reads
//! the file once for its call stacks (core's `Consumer::Stacks`: the allocation ticks, the method
//! and module events, and the stacks) and keeps them, then answers each selection the page asks
//! for with its call tree (`protocol::stacks`).
//!
//! What it keeps: the table of distinct stacks and the method map (bounded by the distinct stacks
//! and methods), and one 40-byte sample per sampled event (an allocation tick), so a new choice
//! of heap, type or time range needs no second read.

use gcscope_core::clr::enums::GcAllocationKind;
use gcscope_core::findings::stacks::FindingStacks;
use gcscope_core::stacks::caller::{caller, match_triggers};
use gcscope_core::stacks::speedscope;
use gcscope_core::stacks::view::{
    folded, CallTree, Frames, SampleKind, Selection, StackSamples, Which,
};
use gcscope_core::stacks::{StackTable, MISSING_STACK, NO_STACK};

use crate::protocol::stacks::{
    prune, CallerOf, Callers, CallersAsk, Export, ExportKind, Heap, Node, StackEvent, StackTree,
    StacksRequest, TriggerAsk, TriggerStack, MAX_NODES,
};
use crate::protocol::ToUi;

/// Types listed for the picker.
const MAX_TYPES: usize = 200;

/// The samples and stacks of one trace.
pub struct Kept {
    pub samples: StackSamples,
    pub table: StackTable,
    pub error: Option<String>,
    /// Allocated types, largest sampled bytes first.
    types: Vec<String>,
    /// GCTriggered of induced GCs.
    induced: u64,
    /// The findings' stacks (whole trace, every process).
    findings: FindingStacks,
}

impl Kept {
    pub fn new(samples: StackSamples, table: StackTable, error: Option<String>) -> Kept {
        let mut by_type: std::collections::BTreeMap<u32, u64> = Default::default();
        for s in &samples.samples {
            if let SampleKind::Alloc { type_index, .. } = s.kind {
                if type_index != u32::MAX {
                    *by_type.entry(type_index).or_default() += s.value;
                }
            }
        }
        let mut v: Vec<(u64, String)> = by_type
            .into_iter()
            .filter_map(|(i, b)| samples.type_name(i).map(|n| (b, n.to_string())))
            .collect();
        v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let types = v.into_iter().take(MAX_TYPES).map(|(_, n)| n).collect();
        let induced = samples
            .samples
            .iter()
            .filter(|s| matches!(s.kind, SampleKind::Triggered { reason } if reason.is_induced()))
            .count() as u64;
        let frames = Frames {
            table: &table,
            methods: &samples.methods,
        };
        let findings = FindingStacks::read(&samples, &frames, None);
        Kept {
            samples,
            table,
            error,
            types,
            induced,
            findings,
        }
    }

    /// The stack of the GCTriggered that started GC `ask.gc`: the last one at or before its
    /// start, after the previous GC's (the runtime fires GCTriggered on the thread that starts
    /// the GC, just before its GCStart).
    pub fn trigger(&self, ask: &TriggerAsk) -> TriggerStack {
        let frames = Frames {
            table: &self.table,
            methods: &self.samples.methods,
        };
        let found = self
            .samples
            .samples
            .iter()
            .filter(|s| matches!(s.kind, SampleKind::Triggered { .. }))
            .filter(|s| s.time_ms <= ask.start_ms && ask.after_ms.is_none_or(|a| s.time_ms > a))
            // The latest by time, whatever order the events came in.
            .max_by(|a, b| a.time_ms.total_cmp(&b.time_ms));
        let mut out = TriggerStack {
            gc: ask.gc,
            trace_stacks: self.table.len() as u64,
            error: self.error.clone(),
            ..Default::default()
        };
        if let Some(s) = found {
            out.time_ms = Some(s.time_ms);
            out.no_stack = s.stack == NO_STACK || s.stack == MISSING_STACK;
            let fs = frames.frames(s.stack);
            for f in &fs {
                if let Some(u) = f.unresolved {
                    if !out.unresolved.iter().any(|r| r == u.reason()) {
                        out.unresolved.push(u.reason().to_string());
                    }
                }
            }
            out.frames = fs.iter().map(|f| f.label()).collect();
        }
        out
    }

    /// Every asked GC's trigger caller ([`caller`] of the stack [`Self::trigger`] finds for it),
    /// in one pass over the triggers and the GCs sorted; each stack's frames are named once.
    pub fn callers(&self, ask: &CallersAsk) -> Callers {
        let frames = Frames {
            table: &self.table,
            methods: &self.samples.methods,
        };
        let triggers: Vec<(f64, u32)> = self
            .samples
            .samples
            .iter()
            .filter(|s| matches!(s.kind, SampleKind::Triggered { .. }))
            .map(|s| (s.time_ms, s.stack))
            .collect();
        let times: Vec<f64> = triggers.iter().map(|t| t.0).collect();
        let starts: Vec<f64> = ask.gcs.iter().map(|g| g.1).collect();
        let found = match_triggers(&times, &starts);
        let mut out = Callers {
            trace_stacks: self.table.len() as u64,
            error: self.error.clone(),
            ..Default::default()
        };
        let mut label_at: std::collections::HashMap<String, u32> = Default::default();
        let mut intern = |labels: &mut Vec<String>, l: String| -> u32 {
            *label_at.entry(l).or_insert_with_key(|l| {
                labels.push(l.clone());
                labels.len() as u32 - 1
            })
        };
        // Per stack id: its caller, leaf and reason (None: no frames).
        let mut by_stack: std::collections::HashMap<u32, Option<(u32, u32, Option<u32>)>> =
            Default::default();
        for (&(gc, _), f) in ask.gcs.iter().zip(&found) {
            let of = match f {
                None => CallerOf::NoTrigger,
                Some(k) => {
                    let (at_ms, stack) = triggers[*k];
                    if stack == NO_STACK || stack == MISSING_STACK {
                        CallerOf::NoStack
                    } else {
                        let named = *by_stack.entry(stack).or_insert_with(|| {
                            let fs = frames.frames(stack);
                            let c = caller(&fs)?;
                            let reason = c.unresolved.map(|u| {
                                let r = u.reason();
                                match out.reasons.iter().position(|x| x == r) {
                                    Some(i) => i as u32,
                                    None => {
                                        out.reasons.push(r.to_string());
                                        out.reasons.len() as u32 - 1
                                    }
                                }
                            });
                            let c = intern(&mut out.labels, c.label());
                            let leaf = intern(&mut out.labels, fs[0].label());
                            Some((c, leaf, reason))
                        });
                        match named {
                            Some((caller, leaf, reason)) => CallerOf::Frame {
                                caller,
                                leaf,
                                reason,
                                at_ms,
                            },
                            None => CallerOf::NoStack,
                        }
                    }
                }
            };
            out.gcs.push((gc, of));
        }
        out
    }

    /// The answer to `req`: its call tree, or its export.
    pub fn answer(&self, req: &StacksRequest) -> ToUi {
        if let Some(ask) = &req.trigger {
            return ToUi::TriggerStack(Box::new(self.trigger(ask)));
        }
        if let Some(ask) = &req.callers {
            return ToUi::Callers(Box::new(self.callers(ask)));
        }
        let sel = selection(req);
        let sums = self.samples.sum(&sel);
        let frames = Frames {
            table: &self.table,
            methods: &self.samples.methods,
        };
        let stem = match req.event {
            StackEvent::Alloc => "allocations",
            StackEvent::Induced => "induced-gcs",
            StackEvent::Triggered => "gc-triggers",
            StackEvent::Pinned => "pinned-handles",
        };
        match req.export {
            Some(ExportKind::Folded) => {
                return ToUi::StacksExport(Box::new(Export {
                    file_name: format!("{stem}.folded.txt"),
                    mime: "text/plain".into(),
                    text: folded(&sums, &frames),
                }))
            }
            Some(ExportKind::Speedscope) => {
                let name = format!("{} by call stack", req.event.label());
                let f = speedscope::file(&sums, &frames, &name, req.event.bytes());
                return ToUi::StacksExport(Box::new(Export {
                    file_name: format!("{stem}.speedscope.json"),
                    mime: "application/json".into(),
                    text: serde_json::to_string(&f).unwrap_or_default(),
                }));
            }
            None => {}
        }
        let tree = if req.bottom_up {
            CallTree::bottom_up(&sums, &frames)
        } else {
            CallTree::top_down(&sums, &frames)
        };
        let all_nodes = tree.nodes.len() as u64;
        let nodes: Vec<Node> = tree
            .nodes
            .into_iter()
            .map(|n| Node {
                label: n.label,
                parent: n.parent,
                children: n.children,
                inclusive: n.inclusive,
                exclusive: n.exclusive,
                count: n.count,
            })
            .collect();
        // Each reason an address of the selection stayed unnamed, once, with an example.
        let mut unresolved: Vec<(String, String)> = Vec::new();
        'stacks: for s in &sums.stacks {
            for f in frames.frames(s.stack) {
                if let Some(u) = f.unresolved {
                    if !unresolved.iter().any(|(r, _)| r == u.reason()) {
                        unresolved.push((u.reason().to_string(), format!("0x{:x}", f.address)));
                        if unresolved.len() == 3 {
                            break 'stacks;
                        }
                    }
                }
            }
        }
        let cut_short_above = (req.event == StackEvent::Pinned)
            .then(|| sums.stacks.first())
            .flatten()
            .and_then(|s| frames.frames(s.stack).first().map(|f| f.label()));
        let m = self.samples.methods.stats();
        ToUi::StackTree(Box::new(StackTree {
            trace_stacks: self.table.len() as u64,
            alloc_ticks: self.samples.stats.alloc_ticks,
            triggered: self.samples.stats.triggered,
            induced: self.induced,
            pinned_handles: self.samples.stats.pinned_handles,
            cut_short_above,
            findings: Some(self.findings.clone()),
            jit_loads: m.jit_loads,
            rundown_methods: m.rundown_methods,
            nodes: prune(nodes, MAX_NODES),
            all_nodes,
            total_value: sums.total_value,
            total_count: sums.total_count,
            no_stack: sums.no_stack.count,
            missing_stack: sums.missing_stack.count,
            unresolved,
            types: self.types.clone(),
            request: req.clone(),
            error: self.error.clone(),
            later: None,
        }))
    }
}

/// Core's selection for a request.
pub fn selection(req: &StacksRequest) -> Selection {
    let kind = match req.heap {
        Heap::All => None,
        Heap::Soh => Some(GcAllocationKind::Small),
        Heap::Loh => Some(GcAllocationKind::Large),
        Heap::Poh => Some(GcAllocationKind::Pinned),
    };
    let (which, type_name) = match req.event {
        StackEvent::Alloc => (Which::Alloc(kind), req.type_name.clone()),
        StackEvent::Induced => (Which::Induced, None),
        StackEvent::Triggered => (Which::Triggered, None),
        StackEvent::Pinned => (Which::PinnedHandles, None),
    };
    Selection {
        which,
        type_name,
        from_ms: req.from_ms,
        to_ms: req.to_ms,
        process_id: None,
    }
}

#[cfg(target_arch = "wasm32")]
pub use read::serve;

#[cfg(target_arch = "wasm32")]
mod read {
    use std::cell::RefCell;

    use gcscope_core::event::{Event, TraceInfo};
    use gcscope_core::reader::TraceReader;
    use gcscope_core::stacks::view::StackSamplesBuilder;
    use gcscope_core::Consumer;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::JsValue;
    use web_sys::Blob;

    use super::super::chunks::{ChunkSource, Pumped};
    use super::Kept;
    use crate::protocol::stacks::StacksRequest;
    use crate::protocol::ToUi;
    use crate::protocol::{MSG_BLOB, MSG_REQUEST};

    thread_local! {
        static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
    }

    /// Answers `{ mode: "stacks", blob?, request }`: reads `blob` first where given. The caller
    /// posts the answer, so this module needs nothing of the decoding worker's.
    pub async fn serve(data: &JsValue) -> Result<ToUi, String> {
        let get = |k: &str| js_sys::Reflect::get(data, &JsValue::from_str(k)).ok();
        if let Some(blob) = get(MSG_BLOB).and_then(|b| b.dyn_into::<Blob>().ok()) {
            let kept = read(&blob).await?;
            KEPT.with(|k| *k.borrow_mut() = Some(kept));
        }
        let bytes = get(MSG_REQUEST)
            .map(|b| js_sys::Uint8Array::new(&b).to_vec())
            .ok_or("a stacks request without its request")?;
        let req: StacksRequest = crate::protocol::wire::decode(&bytes)
            .map_err(|e| format!("a bad stacks request: {e}"))?;
        let reply = KEPT.with(|k| k.borrow().as_ref().map(|k| k.answer(&req)));
        reply.ok_or_else(|| "the stacks worker has read no file".into())
    }

    async fn read(blob: &Blob) -> Result<Kept, String> {
        let mut reader = TraceReader::for_consumer(Consumer::Stacks);
        let mut b = StackSamplesBuilder::new();
        let mut source = ChunkSource::new(blob)?;
        let mut feed = |_: &TraceInfo, e: &Event<'_>| b.on_event(e);
        let error = loop {
            match source.pump(&mut reader, &mut feed).await? {
                Pumped::Chunk => {}
                Pumped::End => break None,
                Pumped::Failed(e) => break Some(e),
            }
        };
        let table = reader.take_stacks().unwrap_or_default();
        Ok(Kept::new(b.finish(), table, error))
    }
}
