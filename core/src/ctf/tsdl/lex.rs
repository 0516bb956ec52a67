//! The TSDL text → tokens, each with its byte offset in the text (for the parser's errors).

use crate::error::{Error, Result};
use alloc::format;
use alloc::vec::Vec;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok<'a> {
    Ident(&'a str),
    Num(i128),
    Str(&'a str),
    Punct(&'static str),
}

pub(super) struct Lexer<'a> {
    pub(super) toks: Vec<(Tok<'a>, usize)>,
}

const PUNCTS: [&str; 16] = [
    ":=", "...", "{", "}", ";", "=", "[", "]", "<", ">", "(", ")", ",", ".", ":", "-",
];

pub(super) fn lex(text: &str) -> Result<Lexer<'_>> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..]
                .find("*/")
                .ok_or_else(|| Error::truncated(i as u64, "CTF metadata comment"))?;
            i += end + 4;
        } else if b[i..].starts_with(b"//") {
            i = text[i..].find('\n').map_or(b.len(), |e| i + e + 1);
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            if j >= b.len() {
                return Err(Error::truncated(i as u64, "CTF metadata string"));
            }
            toks.push((Tok::Str(&text[i + 1..j]), i));
            i = j + 1;
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric()) {
                j += 1;
            }
            let s = &text[i..j];
            let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                i128::from_str_radix(h, 16)
            } else if s.len() > 1 && s.starts_with('0') {
                i128::from_str_radix(&s[1..], 8)
            } else {
                s.parse::<i128>()
            };
            let v = v.map_err(|_| {
                Error::malformed(i as u64, format!("CTF metadata: bad number '{s}'"))
            })?;
            toks.push((Tok::Num(v), i));
            i = j;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            toks.push((Tok::Ident(&text[i..j]), i));
            i = j;
        } else if let Some(p) = PUNCTS.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            toks.push((Tok::Punct(p), i));
            i += p.len();
        } else {
            return Err(Error::malformed(
                i as u64,
                format!("CTF metadata: unexpected character {:?}", c as char),
            ));
        }
    }
    Ok(Lexer { toks })
}
