//! `gcscope watch --pid P`: one line per GC as it ends, from a live `gc` session. The stream goes
//! through the decoder chunk by chunk; at each pause between the runtime's flushes the reader
//! delivers what it holds (`TraceReader::release`) and every GC that closed since is printed
//! (`ModelBuilder::closed_gcs`), without waiting for the next GC or an end tag. On exit (Ctrl-C,
//! `--count`, `--duration`, the process ending, a closed stdout) and on SIGQUIT (`Ctrl-\`, at the
//! next pause of the stream) a summary of the pauses goes to stderr, so that `--json`'s stdout
//! stays JSON lines.

use std::collections::BTreeSet;
use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use gcscope_core::gc::{Gc, ModelBuilder};
use gcscope_core::ticks::Consumer;
use gcscope_core::TraceReader;
use serde::Serialize;

use crate::live::{self, Ended, Failure, Feed, Flow, Profile};
use crate::output::stdout::Out;

#[derive(clap::Args, Debug)]
pub struct Opts {
    /// The process to attach to
    #[arg(long, value_name = "PID")]
    pub pid: u32,
    /// Exit (status 0) after N GCs
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Stop after this long (30s, 2m, 500ms)
    #[arg(long, value_name = "TIME", value_parser = live::parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// One JSON object per line per GC
    #[arg(long)]
    pub json: bool,
}

/// A GC's JSON line: the model's names (docs/reference/model.md) and when this process saw it.
#[derive(Serialize)]
struct Line<'a> {
    number: u32,
    gen: u8,
    #[serde(rename = "type")]
    gc_type: &'static str,
    reason: &'a str,
    start_ms: f64,
    end_ms: Option<f64>,
    pause_ms: Option<f64>,
    suspend_ms: Option<f64>,
    peak_bytes: Option<u64>,
    after_bytes: Option<u64>,
    promoted_bytes: Option<u64>,
    heap_count: Option<u32>,
    /// Wall-clock time (ms since 1970) when gcscope printed the line.
    seen_unix_ms: f64,
}

fn mb(b: Option<u64>) -> String {
    b.map_or_else(|| "-".into(), |b| format!("{:.1} MB", b as f64 / 1e6))
}

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3} ms"))
}

/// The text line: `GC #12  gen2 Background  AllocSmall  pause 1.234 ms  suspend ...`.
fn text_line(g: &Gc) -> String {
    let mut s = format!(
        "GC #{}  gen{} {}  {}  pause {}  suspend {}  peak {}  after {}  promoted {}",
        g.number,
        g.gen,
        g.gc_type.name(),
        g.reason,
        ms(g.pause_ms),
        ms(g.suspend_ms),
        mb(g.peak_bytes),
        mb(g.after_bytes),
        mb(g.promoted_bytes)
    );
    if let Some(h) = g.heap_count.filter(|&h| h > 1) {
        s.push_str(&format!("  heaps {h}"));
    }
    s
}

fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The p-th percentile (0-100) of sorted values, nearest rank.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The summary of the GCs shown: count, pause percentiles, time paused.
fn summary(pauses: &[f64], elapsed_s: f64, open: usize) -> String {
    let mut p = pauses.to_vec();
    p.sort_by(f64::total_cmp);
    let total: f64 = p.iter().sum();
    let mut s = format!("gcscope watch: {} GCs in {elapsed_s:.1} s", p.len());
    if !p.is_empty() {
        s.push_str(&format!(
            "; pause p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms; paused {:.3}% of the time",
            percentile(&p, 50.0),
            percentile(&p, 90.0),
            percentile(&p, 99.0),
            p[p.len() - 1],
            if elapsed_s > 0.0 {
                total / (elapsed_s * 1000.0) * 100.0
            } else {
                0.0
            }
        ));
    }
    if open > 0 {
        s.push_str(&format!("; {open} GC(s) still in progress"));
    }
    s
}

pub fn run(o: &Opts) -> Result<u8, Failure> {
    let ep = live::endpoint(o.pid)?;
    let mut reader = TraceReader::new().with_consumer(Consumer::Model);
    let mut model = ModelBuilder::new(&Default::default());
    let mut have_info = false;
    let mut shown: BTreeSet<u32> = BTreeSet::new();
    let mut pauses: Vec<f64> = Vec::new();
    let mut out = Out::stdout();
    let mut reached = false;
    let mut summaries = live::signals::summary_requests();
    let started = std::time::Instant::now();
    let config = Profile::Gc.config();
    let outcome = live::run(
        &ep,
        &config,
        o.duration,
        &mut |s| {
            eprintln!(
                "gcscope watch: pid {} attached; one line per GC as it ends; Ctrl-C stops",
                o.pid
            );
            if let Some(n) = &s.fell_back {
                eprintln!("gcscope watch: {n}");
            }
        },
        &mut |feed| {
            match feed {
                Feed::Data(d) => {
                    let _ = reader.push(d, &mut |e| model.on_event(e));
                    if let (false, Some(info)) = (have_info, reader.info()) {
                        model.set_info(info);
                        have_info = true;
                    }
                    return Flow::More;
                }
                Feed::Pause => reader.release(&mut |e| model.on_event(e)),
            }
            if reached {
                return Flow::Stop;
            }
            let seen = unix_ms();
            for g in model.closed_gcs() {
                if !shown.insert(g.number) {
                    continue;
                }
                pauses.push(g.pause_ms.unwrap_or(0.0));
                if o.json {
                    let line = Line {
                        number: g.number,
                        gen: g.gen,
                        gc_type: g.gc_type.name(),
                        reason: &g.reason,
                        start_ms: g.gc_start_ms,
                        end_ms: g.end_ms,
                        pause_ms: g.pause_ms,
                        suspend_ms: g.suspend_ms,
                        peak_bytes: g.peak_bytes,
                        after_bytes: g.after_bytes,
                        promoted_bytes: g.promoted_bytes,
                        heap_count: g.heap_count,
                        seen_unix_ms: seen,
                    };
                    let _ = serde_json::to_writer(&mut out, &line);
                    let _ = out.write_all(b"\n");
                } else {
                    let _ = writeln!(out, "{}", text_line(g));
                }
                if o.count.is_some_and(|n| pauses.len() as u64 >= n) {
                    reached = true;
                    break;
                }
            }
            let _ = out.flush();
            let asked = live::signals::summary_requests();
            if asked != summaries {
                summaries = asked;
                let open = model.open_gcs().count();
                eprintln!(
                    "{}",
                    summary(&pauses, started.elapsed().as_secs_f64(), open)
                );
            }
            // Rows that settled were shown: the builder forgets them (memory stays flat).
            let base = model.drain_completed().last().map(|g| g.number);
            if let Some(b) = base {
                shown = shown.split_off(&b.saturating_sub(64));
            }
            if reached || out.closed() {
                Flow::Stop
            } else {
                Flow::More
            }
        },
    )?;
    let _ = reader.finish(&mut |e| model.on_event(e));
    let open = model.open_gcs().count();
    for n in &outcome.notes {
        eprintln!("gcscope watch: {n}");
    }
    eprintln!("{}", summary(&pauses, outcome.elapsed.as_secs_f64(), open));
    let closed = out.closed();
    out.finish().map_err(|m| (1, m))?;
    Ok(match outcome.ended {
        _ if reached || closed => 0,
        Ended::ProcessExited => {
            eprintln!(
                "gcscope watch: process {} ended the session (it exited)",
                o.pid
            );
            live::EXIT_PROCESS_EXITED
        }
        _ => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&[3.0], 90.0), 3.0);
    }
}
