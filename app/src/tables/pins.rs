//! Pinning and GC handles: pinned objects by type (whole trace, or a time range's rows), handles
//! by kind, handles alive at the end.

use gcscope_core::gc::{Gc, GcModel};

use super::{col, n, nu, t, Table};

pub fn pins_table(m: &GcModel) -> Table {
    Table {
        id: "pinned-types",
        title: "Pinned objects by type".into(),
        cols: vec![
            col(
                "type_name",
                "Type",
                "name",
                "Type of the objects pinned at GC time (PinObjectAtGCTime).",
            ),
            col(
                "count",
                "Count",
                "count",
                "Pinned-object reports of this type, over all GCs.",
            ),
            col(
                "total_bytes",
                "Size",
                "bytes",
                "Bytes of those objects, summed over reports.",
            ),
            col(
                "gcs",
                "GCs",
                "count",
                "GCs in which an object of this type was pinned.",
            ),
        ],
        rows: m
            .pinning
            .by_type
            .iter()
            .map(|p| {
                vec![
                    t(p.type_name.clone()),
                    nu(p.count),
                    nu(p.total_bytes),
                    n(p.gcs),
                ]
            })
            .collect(),
    }
}

pub fn kinds_table(m: &GcModel) -> Table {
    Table {
        id: "handle-kinds",
        title: "GC handles by kind".into(),
        cols: vec![
            col(
                "kind",
                "Kind",
                "name",
                "GC handle kind (SetGCHandle's Kind).",
            ),
            col(
                "created",
                "Created",
                "count",
                "Handles of this kind created during the trace.",
            ),
            col(
                "destroyed",
                "Destroyed",
                "count",
                "Handles of this kind destroyed during the trace.",
            ),
            col(
                "alive_at_end",
                "Alive at end",
                "count",
                "Created in the trace and not destroyed before it ended.",
            ),
        ],
        rows: m
            .handles
            .by_kind
            .iter()
            .map(|k| {
                vec![
                    t(k.kind.as_ref()),
                    nu(k.created),
                    nu(k.destroyed),
                    nu(k.alive_at_end),
                ]
            })
            .collect(),
    }
}

pub fn live_table(m: &GcModel) -> Table {
    Table {
        id: "handles-alive-at-end",
        title: "Handles alive at the end".into(),
        cols: vec![
            col("handle", "Handle", "address", "The handle."),
            col("kind", "Kind", "name", "Handle kind."),
            col(
                "object",
                "Object",
                "address",
                "Object the handle pointed to when created.",
            ),
            col(
                "generation",
                "Gen",
                "gen",
                "Generation of the object when the handle was created.",
            ),
            col(
                "created_ms",
                "Created",
                "ms",
                "When the handle was created, ms from the trace start.",
            ),
            col(
                "type_name",
                "Type",
                "name",
                "Object type, when a PinObjectAtGCTime event named this handle.",
            ),
        ],
        rows: m
            .handles
            .alive_at_end
            .iter()
            .map(|h| {
                vec![
                    nu(h.handle),
                    t(h.kind.as_ref()),
                    nu(h.object),
                    n(h.generation),
                    n(h.created_ms),
                    t(h.type_name.clone().unwrap_or_default()),
                ]
            })
            .collect(),
    }
}

/// Pinned objects by type over a subset of rows (a time range): reports, bytes, GCs.
pub fn pins_from_rows<'a>(gcs: impl Iterator<Item = &'a Gc>) -> Table {
    use gcscope_core::gc::{PinSummary, PinnedType};
    let mut by_type: Vec<PinnedType> = Vec::new();
    for g in gcs {
        let mut seen: Vec<&str> = Vec::new();
        for p in &g.pinned_objects {
            let i = match by_type.iter().position(|t| t.type_name == p.type_name) {
                Some(i) => i,
                None => {
                    by_type.push(PinnedType {
                        type_name: p.type_name.clone(),
                        count: 0,
                        total_bytes: 0,
                        gcs: 0,
                    });
                    by_type.len() - 1
                }
            };
            by_type[i].count += 1;
            by_type[i].total_bytes += p.size_bytes;
            if !seen.contains(&p.type_name.as_str()) {
                seen.push(&p.type_name);
                by_type[i].gcs += 1;
            }
        }
    }
    by_type.sort_by(|a, b| {
        b.total_bytes
            .cmp(&a.total_bytes)
            .then_with(|| a.type_name.cmp(&b.type_name))
    });
    let m = GcModel {
        process: Default::default(),
        gcs: Vec::new(),
        rollup: Vec::new(),
        condemn_reasons: Default::default(),
        handles: Default::default(),
        pinning: PinSummary {
            by_type,
            ..Default::default()
        },
        notes: Vec::new(),
        datas: Default::default(),
    };
    pins_table(&m)
}
