//! One table of typed rows written as JSON lines, CSV or Parquet: the output of `gcs` and
//! `summary` over several traces, each row starting with its `trace`. Rows are written as they
//! come (Parquet holds one row group of up to [`ROW_GROUP`] rows), so memory stays bounded
//! however many traces and GCs there are.

use std::fs::File;
use std::io::Write;
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use serde_json::Value;

use crate::output::stdout::Out;
use crate::output::table;

/// Rows per Parquet row group: ~30 MB of pending cells for the ~110 columns of `gcs`.
pub const ROW_GROUP: usize = 8 * 1024;

/// A column's type, from its figure's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Text,
    Bool,
}

impl Kind {
    /// The type of a column of figures in `unit` (see `gc::definitions::Definition::unit`).
    pub fn of_unit(unit: &str) -> Kind {
        match unit {
            "count" | "bytes" | "gen" | "address" | "us" => Kind::Int,
            "name" => Kind::Text,
            "bool" => Kind::Bool,
            _ => Kind::Float,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
}

/// A value of a row as the column's kind wants it; `None` when the JSON value is null or absent
/// (or is not of the column's kind, which the columns' tests rule out).
pub fn typed_cell(kind: Kind, v: Option<&Value>) -> Option<Value> {
    let v = v?;
    Some(match (kind, v) {
        (_, Value::Null) => return None,
        (Kind::Int, Value::Number(n)) => {
            Value::from(n.as_i64().or_else(|| n.as_f64().map(|f| f as i64))?)
        }
        // Lists of records (heaps, pins, plugs): their count.
        (Kind::Int, Value::Array(a)) => Value::from(a.len() as i64),
        (Kind::Float, Value::Number(n)) => Value::from(n.as_f64()?),
        (Kind::Bool, Value::Bool(b)) => Value::Bool(*b),
        (Kind::Text, Value::String(s)) => Value::String(s.clone()),
        (Kind::Text, Value::Array(a)) => Value::String(
            a.iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(";"),
        ),
        (Kind::Text, other) => Value::String(other.to_string()),
        _ => return None,
    })
}

/// Where the rows go.
pub enum Format {
    JsonLines,
    Csv,
    /// To this file (Parquet is binary: never to a terminal).
    Parquet(String),
}

pub enum Writer<'a, W: Write> {
    JsonLines(&'a mut Out<W>, Vec<Column>),
    Csv(&'a mut Out<W>),
    Parquet(Box<ParquetTable>),
}

impl<'a, W: Write> Writer<'a, W> {
    pub fn new(format: &Format, columns: Vec<Column>, out: &'a mut Out<W>) -> Result<Self, String> {
        Ok(match format {
            Format::JsonLines => Writer::JsonLines(out, columns),
            Format::Csv => {
                let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
                let _ = out.write_all(table::csv_line(&names).as_bytes());
                Writer::Csv(out)
            }
            Format::Parquet(path) => {
                Writer::Parquet(Box::new(ParquetTable::create(path, columns)?))
            }
        })
    }

    /// One row, values in column order (`None` = null).
    pub fn row(&mut self, values: Vec<Option<Value>>) -> Result<(), String> {
        match self {
            Writer::JsonLines(out, cols) => {
                // Keys in column order (`trace` first): serde_json's map would sort them.
                let mut line = String::from("{");
                for (i, (c, v)) in cols.iter().zip(values).enumerate() {
                    if i > 0 {
                        line.push(',');
                    }
                    let key = serde_json::to_string(&c.name).map_err(|e| e.to_string())?;
                    let value = serde_json::to_string(&v.unwrap_or(Value::Null))
                        .map_err(|e| e.to_string())?;
                    line.push_str(&key);
                    line.push(':');
                    line.push_str(&value);
                }
                line.push_str("}\n");
                let _ = out.write_all(line.as_bytes());
            }
            Writer::Csv(out) => {
                let cells: Vec<String> = values
                    .into_iter()
                    .map(|v| match v {
                        None => String::new(),
                        Some(Value::String(s)) => s,
                        Some(v) => v.to_string(),
                    })
                    .collect();
                let _ = out.write_all(table::csv_line(&cells).as_bytes());
            }
            Writer::Parquet(p) => p.row(values)?,
        }
        Ok(())
    }

    pub fn finish(self) -> Result<(), String> {
        match self {
            Writer::Parquet(p) => p.finish(),
            _ => Ok(()),
        }
    }
}

/// A Parquet file being written: every column OPTIONAL, INT64 / DOUBLE / UTF-8 BYTE_ARRAY /
/// BOOLEAN, Snappy-compressed, a row group every [`ROW_GROUP`] rows.
pub struct ParquetTable {
    path: String,
    writer: SerializedFileWriter<File>,
    columns: Vec<Column>,
    /// The current row group, column by column.
    pending: Vec<Vec<Option<Value>>>,
    rows: usize,
}

fn perr(path: &str, e: impl std::fmt::Display) -> String {
    format!("cannot write Parquet file '{path}': {e}")
}

impl ParquetTable {
    pub fn create(path: &str, columns: Vec<Column>) -> Result<ParquetTable, String> {
        let fields = columns
            .iter()
            .map(|c| {
                let (physical, logical) = match c.kind {
                    Kind::Int => (Physical::INT64, None),
                    Kind::Float => (Physical::DOUBLE, None),
                    Kind::Bool => (Physical::BOOLEAN, None),
                    Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
                };
                Type::primitive_type_builder(&c.name, physical)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_logical_type(logical)
                    .build()
                    .map(Arc::new)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| perr(path, e))?;
        let schema = Type::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .map_err(|e| perr(path, e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("gcscope {}", env!("CARGO_PKG_VERSION")))
            .build();
        let file = File::create(path).map_err(|e| perr(path, e))?;
        let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
            .map_err(|e| perr(path, e))?;
        let n = columns.len();
        Ok(ParquetTable {
            path: path.to_string(),
            writer,
            columns,
            pending: vec![Vec::new(); n],
            rows: 0,
        })
    }

    fn row(&mut self, values: Vec<Option<Value>>) -> Result<(), String> {
        for (col, v) in self.pending.iter_mut().zip(values) {
            col.push(v);
        }
        self.rows += 1;
        if self.rows >= ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the pending rows as one row group.
    fn flush(&mut self) -> Result<(), String> {
        if self.rows == 0 {
            return Ok(());
        }
        let path = self.path.clone();
        let mut rg = self.writer.next_row_group().map_err(|e| perr(&path, e))?;
        for (c, values) in self.columns.iter().zip(&mut self.pending) {
            let Some(mut w) = rg.next_column().map_err(|e| perr(&path, e))? else {
                return Err(perr(&path, "fewer columns than the schema"));
            };
            let defs: Vec<i16> = values.iter().map(|v| v.is_some() as i16).collect();
            let present = values.iter().flatten();
            let written = match c.kind {
                Kind::Int => {
                    let v: Vec<i64> = present.map(|x| x.as_i64().unwrap_or(0)).collect();
                    w.typed::<Int64Type>().write_batch(&v, Some(&defs), None)
                }
                Kind::Float => {
                    let v: Vec<f64> = present.map(|x| x.as_f64().unwrap_or(0.0)).collect();
                    w.typed::<DoubleType>().write_batch(&v, Some(&defs), None)
                }
                Kind::Bool => {
                    let v: Vec<bool> = present.map(|x| x.as_bool().unwrap_or(false)).collect();
                    w.typed::<BoolType>().write_batch(&v, Some(&defs), None)
                }
                Kind::Text => {
                    let v: Vec<ByteArray> = present
                        .map(|x| ByteArray::from(x.as_str().unwrap_or_default()))
                        .collect();
                    w.typed::<ByteArrayType>()
                        .write_batch(&v, Some(&defs), None)
                }
            };
            written.map_err(|e| perr(&path, e))?;
            w.close().map_err(|e| perr(&path, e))?;
            values.clear();
        }
        rg.close().map_err(|e| perr(&path, e))?;
        self.rows = 0;
        Ok(())
    }

    fn finish(mut self) -> Result<(), String> {
        self.flush()?;
        self.writer.close().map_err(|e| perr(&self.path, e))?;
        Ok(())
    }
}
