//! Generation budgets per GC (summed over heaps, and per heap) and which generation's budget was
//! exceeded.

use gcscope_core::gc::insights::{GcBudget, GenBudget, GenBudgets};

use super::{dcol, gen_name, n, name_col, on, onu, t, yes, Cell, Col, Table};

fn budget_cells(g: &GenBudget, with_alloc: bool) -> Vec<Cell> {
    let mut v = vec![n(g.budget_bytes as f64)];
    if with_alloc {
        v.push(onu(g.allocated_since_previous_bytes));
        v.push(on(g.budget_used_pct));
    }
    v
}

fn budget_cols(prefix: &str) -> Vec<Col> {
    let mut c = Vec::new();
    for (gen, label, alloc) in [
        ("gen0", "gen0", true),
        ("gen1", "gen1", false),
        ("gen2", "gen2", false),
        ("loh", "LOH", true),
        ("poh", "POH", true),
    ] {
        let p = format!("{prefix}.{gen}");
        c.push(dcol(
            &format!("{gen}_budget_bytes"),
            &format!("{p}.budget_bytes"),
            Some(&format!("{label} budget")),
        ));
        if alloc {
            c.push(dcol(
                &format!("{gen}_allocated_bytes"),
                &format!("{p}.allocated_since_previous_bytes"),
                Some(&format!("{label} allocated")),
            ));
            c.push(dcol(
                &format!("{gen}_used_pct"),
                &format!("{p}.budget_used_pct"),
                Some(&format!("{label} used")),
            ));
        }
    }
    c
}

fn gens_cells(g: &GenBudgets) -> Vec<Cell> {
    let mut v = budget_cells(&g.gen0, true);
    v.extend(budget_cells(&g.gen1, false));
    v.extend(budget_cells(&g.gen2, false));
    v.extend(budget_cells(&g.loh, true));
    v.extend(budget_cells(&g.poh, true));
    v
}

pub fn budgets(rows: &[&GcBudget]) -> Table {
    let mut cols = vec![
        dcol("gc_number", "budgets.gc_number", None),
        dcol("gen", "budgets.gen", None),
        dcol("start_ms", "budgets.start_ms", None),
        dcol("reason", "budgets.reason", None),
        name_col(dcol("initial_gen", "budgets.initial_gen", None)),
        name_col(dcol(
            "budget_exceeded_gen",
            "budgets.budget_exceeded_gen",
            None,
        )),
        dcol("escalated", "budgets.escalated", None),
        dcol("why", "budgets.why", None),
    ];
    cols.extend(budget_cols("budgets.total"));
    Table {
        id: "budgets",
        title: "Budgets per GC (summed over heaps)".into(),
        cols,
        rows: rows
            .iter()
            .map(|b| {
                let mut r = vec![
                    n(b.gc_number),
                    n(b.gen),
                    n(b.start_ms),
                    t(b.reason.as_ref()),
                    gen_name(b.initial_gen),
                    gen_name(b.budget_exceeded_gen),
                    yes(b.escalated),
                    t(b.why.clone()),
                ];
                r.extend(gens_cells(&b.total));
                r
            })
            .collect(),
    }
}

pub fn budgets_per_heap(rows: &[&GcBudget]) -> Table {
    let mut cols = vec![
        dcol("gc_number", "budgets.gc_number", None),
        dcol("gen", "budgets.gen", None),
        dcol("heap", "budgets.heaps.heap", Some("Heap")),
        name_col(dcol(
            "budget_exceeded_gen",
            "budgets.heaps.budget_exceeded_gen",
            Some("Budget exceeded"),
        )),
    ];
    cols.extend(budget_cols("budgets.heaps.generations"));
    Table {
        id: "budgets-per-heap",
        title: "Budgets per GC and heap".into(),
        cols,
        rows: rows
            .iter()
            .flat_map(|b| {
                b.heaps.iter().map(move |h| {
                    let mut r = vec![
                        n(b.gc_number),
                        n(b.gen),
                        n(h.heap),
                        gen_name(h.budget_exceeded_gen),
                    ];
                    r.extend(gens_cells(&h.generations));
                    r
                })
            })
            .collect(),
    }
}

/// GCs per (budget-exceeded generation × generation collected).
pub fn exceeded(rows: &[&GcBudget]) -> Table {
    let mut counts = [[0u32; 4]; 4]; // [exceeded: gen0, gen1, gen2, none][collected gen0..2, all]
    for b in rows {
        let e = match b.budget_exceeded_gen {
            Some(g) if g <= 2 => g as usize,
            _ => 3,
        };
        counts[e][(b.gen as usize).min(2)] += 1;
        counts[e][3] += 1;
    }
    let c = |key: &str, label: &str, help: &'static str| Col {
        key: key.into(),
        label: label.into(),
        unit: if key == "exceeded" { "name" } else { "count" },
        help,
    };
    let help =
        super::defs::insight_field("budgets.budget_exceeded_gen").map_or("", |d| d.definition);
    Table {
        id: "budget-exceeded",
        title: "Which generation's budget was exceeded".into(),
        cols: vec![
            c("exceeded", "Budget exceeded", help),
            c("gen0", "gen0 GCs", "GCs that collected gen0"),
            c("gen1", "gen1 GCs", "GCs that collected gen1"),
            c("gen2", "gen2 GCs", "GCs that collected gen2"),
            c("all", "All", "GCs with GCPerHeapHistory in the range"),
        ],
        rows: ["gen0", "gen1", "gen2", "none reported"]
            .iter()
            .enumerate()
            .filter(|(i, _)| counts[*i][3] > 0)
            .map(|(i, name)| {
                let mut r = vec![t(*name)];
                r.extend(counts[i].iter().map(|&v| n(v)));
                r
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceeded_counts_gcs_by_budget_and_generation() {
        let b = |gen: u8, ex: Option<u8>| GcBudget {
            gc_number: 1,
            gen,
            start_ms: 0.0,
            reason: "AllocSmall".into(),
            induced: false,
            initial_gen: None,
            budget_exceeded_gen: ex,
            time_tuning_gen: None,
            conditions: vec![],
            escalated: false,
            why: String::new(),
            total: Default::default(),
            heaps: vec![],
        };
        let v = [b(0, Some(0)), b(1, Some(1)), b(2, Some(1)), b(2, None)];
        let refs: Vec<&GcBudget> = v.iter().collect();
        let tb = exceeded(&refs);
        // gen1's budget: one gen1 GC and one gen2 GC; none reported: one gen2 GC.
        assert_eq!(tb.rows.len(), 3);
        assert_eq!(tb.rows[1][0], t("gen1"));
        assert_eq!(tb.rows[1][1..], [n(0), n(1), n(1), n(2)]);
        assert_eq!(tb.rows[2][0], t("none reported"));
    }
}
