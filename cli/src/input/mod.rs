//! Reading traces: one file streamed through the core decoder on `--jobs` threads ([`load`],
//! [`parallel`]), the model each subcommand builds from it ([`model`]), and the files of a command
//! line that reads several ([`traces`], [`many`]).

pub mod load;
pub mod many;
pub mod model;
pub mod parallel;
#[cfg(test)]
pub mod test_traces;
pub mod traces;
