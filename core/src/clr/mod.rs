//! The .NET runtime's providers: TraceEvent-style event names, GC enums and typed GC payloads.

pub mod names;

pub use names::event_name;
