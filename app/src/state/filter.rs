//! The GC table's filters (generation, type, trigger, condition, induced, pause, time range, text)
//! and the rows they let through, sorted: one function for the table, its exports and the tests.

use gcscope_core::gc::{Gc, ALLOC_BUDGET, TIME_TUNING};

use crate::tables::callers::CallerIndex;
use crate::tables::columns;
use crate::tables::{cmp_cells, Cell, Sort};
use crate::time_range::TimeRange;

/// Row filters of the GC table (and, for the time range, of every view).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Generations to keep; empty = all.
    pub gens: Vec<u8>,
    pub gc_type: Option<String>,
    /// Trigger reason (GCStart's Reason), exact.
    pub reason: Option<String>,
    /// A condemn condition as the condemn breakdown counts it (complete GCs only).
    pub cond: Option<String>,
    pub induced: Option<bool>,
    pub min_pause_ms: Option<f64>,
    /// Pause-start time range, ms from the trace start, inclusive.
    pub t0: Option<f64>,
    pub t1: Option<f64>,
    /// Free text matched (case-insensitively) against trigger reason, condemn conditions,
    /// mechanisms and the trigger's caller.
    pub text: String,
    /// Only these GCs, by number, sorted (a finding's evidence); empty = all.
    pub only: Vec<u32>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// The time range part.
    pub fn range(&self) -> TimeRange {
        TimeRange {
            t0: self.t0,
            t1: self.t1,
        }
    }

    pub fn in_range(&self, ms: f64) -> bool {
        self.range().contains(ms)
    }

    /// `heap_words`: the GC's per-heap condemn conditions and mechanisms (`HeapStore::words`);
    /// `caller`: its trigger's caller (the Caller column).
    pub fn matches(&self, g: &Gc, heap_words: &[String], caller: Option<&str>) -> bool {
        if !self.gens.is_empty() && !self.gens.contains(&g.gen) {
            return false;
        }
        if !self.only.is_empty() && self.only.binary_search(&g.number).is_err() {
            return false;
        }
        if self
            .gc_type
            .as_deref()
            .is_some_and(|t| t != g.gc_type.name())
        {
            return false;
        }
        if self.reason.as_deref().is_some_and(|r| r != g.reason) {
            return false;
        }
        if let Some(c) = &self.cond {
            if !has_condition(g, c) {
                return false;
            }
        }
        if self.induced.is_some_and(|i| i != g.induced) {
            return false;
        }
        if let Some(min) = self.min_pause_ms {
            if g.pause_ms.is_none_or(|p| p < min) {
                return false;
            }
        }
        if !self.in_range(g.start_ms) {
            return false;
        }
        if !self.text.is_empty() {
            let q = self.text.to_lowercase();
            let mut words = reason_words(g)
                .chain(heap_words.iter().map(String::as_str))
                .chain(caller);
            if !words.any(|w| w.to_lowercase().contains(&q)) {
                return false;
            }
        }
        true
    }
}

/// Words of the row the free-text filter looks in (beside the per-heap ones): trigger reason,
/// condemn conditions, global mechanisms.
fn reason_words(g: &Gc) -> impl Iterator<Item = &str> {
    let conds = g
        .condemn
        .iter()
        .flat_map(|c| c.conditions.iter().map(|s| s.as_ref()));
    let mech = g
        .global_mechanisms
        .iter()
        .flat_map(|m| m.iter().map(|s| s.as_ref()));
    std::iter::once(g.reason.as_ref()).chain(conds).chain(mech)
}

/// The condemn breakdown's rule (core `summary`): complete GCs; the generation-valued reasons count
/// when they name the GC's own generation.
pub fn has_condition(g: &Gc, cond: &str) -> bool {
    if !g.complete {
        return false;
    }
    let Some(c) = &g.condemn else { return false };
    if cond == ALLOC_BUDGET {
        return c.alloc_budget_gen == g.gen;
    }
    if cond == TIME_TUNING {
        return c.time_tuning_gen == g.gen && c.time_tuning_gen > 0;
    }
    c.conditions.iter().any(|x| x == cond)
}

/// Indices of the rows that pass the filter, in the chosen order (stable; GC order otherwise).
/// `heap_words(i)`: row `i`'s per-heap words for the text filter; `callers`: the Caller column's.
pub fn visible_rows<'a>(
    gcs: &[Gc],
    heap_words: &dyn Fn(usize) -> &'a [String],
    filter: &Filter,
    sort: Option<&Sort>,
    callers: &CallerIndex,
) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..gcs.len() as u32)
        .filter(|&i| {
            let g = &gcs[i as usize];
            filter.matches(g, heap_words(i as usize), callers.label(g.number))
        })
        .collect();
    if let Some(col) = sort.and_then(|s| columns::by_id(&s.column)) {
        let desc = sort.is_some_and(|s| s.desc);
        let keys: Vec<Cell> = idx
            .iter()
            .map(|&i| columns::cell(col, &gcs[i as usize], callers))
            .collect();
        let mut order: Vec<usize> = (0..idx.len()).collect();
        order.sort_by(|&a, &b| cmp_cells(&keys[a], &keys[b], desc));
        idx = order.into_iter().map(|o| idx[o]).collect();
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::gc;
    use std::borrow::Cow;

    fn rows() -> Vec<Gc> {
        let mut v: Vec<Gc> = (1..=6).map(gc).collect();
        v[1].gen = 1;
        v[1].pause_ms = Some(5.0);
        v[2].gen = 2;
        v[2].pause_ms = Some(3.0);
        v[2].induced = true;
        v[2].reason = Cow::Borrowed("Induced");
        v[3].pause_ms = None;
        v[4].condemn.as_mut().unwrap().conditions = vec![Cow::Borrowed("low_ephemeral")];
        v[4].condemn.as_mut().unwrap().alloc_budget_gen = 1;
        v[5].complete = false;
        v
    }

    #[test]
    fn filters_select_the_right_rows() {
        let g = rows();
        // Row 6 (GC 6): one heap compacted for a reason the row's own words do not name.
        let words = ["low_ephemeral".to_string(), "compact_high_frag".to_string()];
        let nums = |f: Filter| -> Vec<u32> {
            visible_rows(
                &g,
                &|i| if i == 5 { &words[..] } else { &[] },
                &f,
                None,
                &CallerIndex::default(),
            )
            .iter()
            .map(|&i| g[i as usize].number)
            .collect()
        };
        assert_eq!(
            nums(Filter {
                gens: vec![1, 2],
                ..Default::default()
            }),
            vec![2, 3]
        );
        assert_eq!(
            nums(Filter {
                induced: Some(true),
                ..Default::default()
            }),
            vec![3]
        );
        assert_eq!(
            nums(Filter {
                min_pause_ms: Some(3.0),
                ..Default::default()
            }),
            vec![2, 3]
        );
        assert_eq!(
            nums(Filter {
                t0: Some(20.0),
                t1: Some(40.0),
                ..Default::default()
            }),
            vec![2, 3, 4]
        );
        assert_eq!(
            nums(Filter {
                text: "EPHEM".into(),
                ..Default::default()
            }),
            vec![5, 6]
        );
        assert_eq!(
            nums(Filter {
                text: "high_FRAG".into(),
                ..Default::default()
            }),
            vec![6]
        );
        assert_eq!(
            nums(Filter {
                reason: Some("Induced".into()),
                ..Default::default()
            }),
            vec![3]
        );
        // alloc_budget_exceeded counts when the budget generation is the GC's own; incomplete GCs never.
        assert_eq!(
            nums(Filter {
                cond: Some(ALLOC_BUDGET.into()),
                ..Default::default()
            }),
            vec![1, 4]
        );
        assert_eq!(
            nums(Filter {
                cond: Some("low_ephemeral".into()),
                ..Default::default()
            }),
            vec![5]
        );
        // A finding's GCs, by number.
        assert_eq!(
            nums(Filter {
                only: vec![2, 5, 9],
                ..Default::default()
            }),
            vec![2, 5]
        );
    }

    #[test]
    fn sort_puts_missing_values_last_both_ways() {
        let g = rows();
        let order = |desc| -> Vec<u32> {
            let s = Sort {
                column: "pause_ms".into(),
                desc,
            };
            visible_rows(
                &g,
                &|_| &[],
                &Filter::default(),
                Some(&s),
                &CallerIndex::default(),
            )
            .iter()
            .map(|&i| g[i as usize].number)
            .collect()
        };
        assert_eq!(order(false), vec![1, 5, 6, 3, 2, 4]);
        assert_eq!(order(true), vec![2, 3, 1, 5, 6, 4]);
    }

    /// The Caller column sorts and filters by the worker's answer: by label, GCs without a
    /// caller last both ways; the free text finds a GC by its caller.
    #[test]
    fn callers_sort_and_filter() {
        use crate::protocol::stacks::{CallerOf, Callers};
        use std::sync::Arc;
        let g = rows();
        let frame = |caller| CallerOf::Frame {
            caller,
            leaf: caller,
            reason: None,
            at_ms: 1.0,
        };
        let ix = CallerIndex::new(Some(Arc::new(Callers {
            trace_stacks: 2,
            labels: vec!["b!Two()".into(), "a!One()".into()],
            gcs: vec![
                (1, frame(0)),
                (2, CallerOf::NoTrigger),
                (3, frame(1)),
                (5, frame(0)),
            ],
            ..Default::default()
        })));
        let order = |desc| -> Vec<u32> {
            let s = Sort {
                column: "caller".into(),
                desc,
            };
            visible_rows(&g, &|_| &[], &Filter::default(), Some(&s), &ix)
                .iter()
                .map(|&i| g[i as usize].number)
                .collect()
        };
        assert_eq!(order(false), vec![3, 1, 5, 2, 4, 6]);
        assert_eq!(order(true), vec![1, 5, 3, 2, 4, 6]);
        let f = Filter {
            text: "TWO(".into(),
            ..Default::default()
        };
        let found: Vec<u32> = visible_rows(&g, &|_| &[], &f, None, &ix)
            .iter()
            .map(|&i| g[i as usize].number)
            .collect();
        assert_eq!(found, vec![1, 5]);
    }
}
