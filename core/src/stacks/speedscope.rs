//! speedscope's file format (`https://www.speedscope.app/file-format-schema.json`), for a
//! selection's sums: one "sampled" profile whose samples are the distinct stacks, each a list of
//! indices into the shared frames ordered root first, weighted by the stack's value (bytes or a
//! count: the profile's unit is "bytes" or "none"). The caller serializes [`File`] as JSON.

use super::view::{Frames, StackSums, MISSING_STACK_LABEL, NO_STACK_LABEL};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

pub const SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct File {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub shared: Shared,
    pub profiles: Vec<Profile>,
    pub name: String,
    #[serde(rename = "activeProfileIndex")]
    pub active_profile_index: u32,
    pub exporter: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Shared {
    pub frames: Vec<FrameName>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FrameName {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Profile {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub name: String,
    /// "bytes" or "none".
    pub unit: &'static str,
    #[serde(rename = "startValue")]
    pub start_value: u64,
    #[serde(rename = "endValue")]
    pub end_value: u64,
    pub samples: Vec<Vec<u32>>,
    pub weights: Vec<u64>,
}

/// The file for `sums`, named `name`; `bytes`: the values are bytes (else counts).
pub fn file(sums: &StackSums, frames: &Frames<'_>, name: &str, bytes: bool) -> File {
    let mut names: Vec<FrameName> = Vec::new();
    let mut index: BTreeMap<String, u32> = BTreeMap::new();
    let mut id = |label: String| -> u32 {
        if let Some(&i) = index.get(&label) {
            return i;
        }
        let i = names.len() as u32;
        names.push(FrameName {
            name: label.clone(),
        });
        index.insert(label, i);
        i
    };
    let mut samples = Vec::new();
    let mut weights = Vec::new();
    for s in &sums.stacks {
        let mut labels = frames.labels(s.stack);
        if labels.is_empty() {
            labels.push(String::from(NO_STACK_LABEL));
        }
        samples.push(labels.into_iter().rev().map(&mut id).collect());
        weights.push(s.value);
    }
    for (s, label) in [
        (&sums.no_stack, NO_STACK_LABEL),
        (&sums.missing_stack, MISSING_STACK_LABEL),
    ] {
        if s.count > 0 {
            samples.push(alloc::vec![id(String::from(label))]);
            weights.push(s.value);
        }
    }
    File {
        schema: SCHEMA,
        shared: Shared { frames: names },
        profiles: alloc::vec![Profile {
            kind: "sampled",
            name: String::from(name),
            unit: if bytes { "bytes" } else { "none" },
            start_value: 0,
            end_value: sums.total_value,
            samples,
            weights,
        }],
        name: String::from(name),
        active_profile_index: 0,
        exporter: String::from("gcscope"),
    }
}
