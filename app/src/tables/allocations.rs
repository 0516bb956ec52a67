//! Allocations: sampled bytes by type.

use gcscope_core::gc::insights::TypeAlloc;

use super::{dcol, n, nu, t, Table};

pub fn alloc_types(types: &[TypeAlloc]) -> Table {
    let p = "allocations.top_types";
    let cols = vec![
        dcol("type_name", &format!("{p}.type_name"), None),
        dcol("sampled_bytes", &format!("{p}.sampled_bytes"), None),
        dcol("pct", &format!("{p}.pct"), None),
        dcol("ticks", &format!("{p}.ticks"), None),
        dcol("small_bytes", &format!("{p}.by_kind.small"), Some("Small")),
        dcol("large_bytes", &format!("{p}.by_kind.large"), Some("Large")),
        dcol(
            "pinned_bytes",
            &format!("{p}.by_kind.pinned"),
            Some("Pinned"),
        ),
    ];
    let rows = types
        .iter()
        .map(|a| {
            vec![
                t(if a.type_name.is_empty() {
                    "(no type: tick version 0-1)"
                } else {
                    &a.type_name
                }),
                nu(a.sampled_bytes),
                n(a.pct),
                nu(a.ticks),
                nu(a.by_kind.small),
                nu(a.by_kind.large),
                nu(a.by_kind.pinned),
            ]
        })
        .collect();
    Table {
        id: "alloc-types",
        title: "Types by sampled bytes".into(),
        cols,
        rows,
    }
}
