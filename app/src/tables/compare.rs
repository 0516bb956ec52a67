//! A comparison's tables (core's `compare`): the two traces' facts, and every figure of both with
//! B - A, % and whether B is better. The figures' rows are of different units, so their numbers
//! are cells in their own unit ([`Cell::In`]); columns are keyed by `gcscope compare --json`'s
//! field names and headed by core's definitions.

use gcscope_core::compare::{Better, Comparison, Verdict};

use super::{defined_col, defs, on, t, yes, Cell, Col, Table, VERDICT};

/// The column `key` headed by the definition of `{prefix}.{key}`, in `unit`.
fn ccol(prefix: &str, key: &str, unit: &'static str) -> Col {
    defined_col(key, defs::compare_field(&format!("{prefix}.{key}")), unit)
}

/// The two traces' facts as text, and whether they are the same.
pub fn facts(c: &Comparison) -> Table {
    Table {
        id: "compare-facts",
        title: "Facts".into(),
        cols: vec![
            ccol("facts", "label", "name"),
            ccol("facts", "a", "name"),
            ccol("facts", "b", "name"),
            ccol("facts", "same", "name"),
        ],
        rows: c
            .facts
            .iter()
            .map(|f| vec![t(f.label.as_ref()), t(&f.a), t(&f.b), yes(f.same)])
            .collect(),
    }
}

/// A figure's unit as a cell unit (core's units are these five).
fn unit_of(unit: &str) -> &'static str {
    match unit {
        "ms" => "ms",
        "%" => "%",
        "bytes" => "bytes",
        "bytes/s" => "bytes/s",
        _ => "count",
    }
}

/// The word for which way a figure is better.
pub fn better_word(b: Better) -> &'static str {
    match b {
        Better::Lower => "lower",
        Better::Higher => "higher",
        Better::Neither => "neither",
    }
}

/// The word for how B compares (`gcscope compare --json`'s `verdict`).
pub fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Better => "better",
        Verdict::Worse => "worse",
        Verdict::Same => "same",
        Verdict::Changed => "changed",
        Verdict::NotComparable => "not_comparable",
    }
}

/// Every figure of A and B, B - A (a difference of two % in points), % of A, the better
/// direction and the verdict.
pub fn figures(c: &Comparison) -> Table {
    Table {
        id: "compare-figures",
        title: "A and B, figure by figure".into(),
        cols: vec![
            ccol("figures", "label", "name"),
            ccol("figures", "a", "count"),
            ccol("figures", "b", "count"),
            ccol("figures", "delta", "count"),
            ccol("figures", "delta_pct", "%"),
            ccol("figures", "better", "name"),
            ccol("figures", "verdict", VERDICT),
            ccol("figures", "key", "name"),
        ],
        rows: c
            .figures
            .iter()
            .map(|f| {
                let unit = unit_of(&f.unit);
                let delta_unit = if unit == "%" { "pts" } else { unit };
                vec![
                    t(&f.label),
                    Cell::In(f.a, unit),
                    Cell::In(f.b, unit),
                    Cell::In(f.delta, delta_unit),
                    on(f.delta_pct),
                    t(better_word(f.better)),
                    t(verdict_word(f.verdict)),
                    t(&f.key),
                ]
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_core::compare::{compare, RowLog};
    use gcscope_core::latency::Options;

    fn digest(path: &str) -> gcscope_core::compare::TraceDigest {
        let bytes = std::fs::read(format!(
            "{}/../fixtures/traces/{path}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let m = gcscope_core::gc::analyze(&bytes).unwrap();
        let mut rows = RowLog::default();
        m.gcs.iter().for_each(|g| rows.add(g));
        rows.digest(path.into(), &m, &Options::default())
    }

    /// The tables hold the comparison's values under the CLI's JSON keys, and the words are the
    /// JSON's (serde's names of the enums).
    #[test]
    fn comparison_tables_hold_the_clis_values() {
        let c = compare(
            &digest("net8.0/wks-concurrent.nettrace"),
            &digest("net8.0/server.nettrace"),
        );
        let json = serde_json::to_value(&c).unwrap();
        let f = figures(&c);
        assert_eq!(f.rows.len(), c.figures.len());
        for (row, want) in f.rows.iter().zip(json["figures"].as_array().unwrap()) {
            for (i, col) in f.cols.iter().enumerate() {
                assert!(!col.help.is_empty(), "{}", col.key);
                let w = &want[col.key.as_str()];
                match row[i].number() {
                    Some(v) => assert_eq!(v, w.as_f64(), "{}", col.key),
                    None => assert_eq!(row[i].raw(), w.as_str().unwrap(), "{}", col.key),
                }
            }
        }
        let facts = facts(&c);
        for (row, want) in facts.rows.iter().zip(json["facts"].as_array().unwrap()) {
            assert_eq!(row[1].raw(), want["a"].as_str().unwrap());
            assert_eq!(row[2].raw(), want["b"].as_str().unwrap());
            assert_eq!(row[3].raw() == "yes", want["same"].as_bool().unwrap());
        }
        // The differences of two % read in points.
        let paused = f.rows.iter().find(|r| r[7].raw() == "latency.paused_pct");
        assert!(matches!(paused.unwrap()[3], Cell::In(Some(_), "pts")));
    }
}
