//! Writing what a subcommand prints: standard output with its buffering and closed-pipe rule
//! ([`stdout`]), aligned tables, CSV and number formats ([`table`]), pretty JSON arrays made on
//! several threads ([`json_array`]) and one table of typed rows as JSON lines, CSV or Parquet
//! ([`typed_rows`]).

pub mod json_array;
pub mod stdout;
pub mod table;
pub mod typed_rows;
