//! One module per subcommand: its options (`Opts`, or the shared ones in [`crate::args`]) and its
//! `run`, which loads the trace ([`crate::input`]) and prints ([`crate::output`]).

pub mod allocs;
pub mod budgets;
pub mod collect;
pub mod compare;
pub mod counters;
pub mod datas;
pub mod events;
pub mod findings;
pub mod gcs;
pub mod handles;
pub mod heap;
pub mod latency;
pub mod memory;
pub mod pins;
pub mod ps;
pub mod reasons;
pub mod roots;
pub mod serve;
pub mod stacks;
pub mod summary;
pub mod suspensions;
pub mod watch;
