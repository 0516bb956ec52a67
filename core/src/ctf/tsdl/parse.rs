//! Tokens → [`Metadata`]: the blocks LTTng writes, type aliases and named types, under the caps on
//! the number of types and the nesting depth.

use super::lex::{lex, Tok};
use super::{
    align_of, Clock, EventDecl, Int, Metadata, StreamDecl, Type, TypeId, MAX_DEPTH, MAX_TYPES,
};
use crate::error::{Error, ErrorKind, Result};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

struct Parser<'a> {
    toks: Vec<(Tok<'a>, usize)>,
    at: usize,
    end: usize,
    md: Metadata,
    aliases: Vec<(String, TypeId)>,
    named_structs: Vec<(String, TypeId)>,
    named_enums: Vec<(String, TypeId)>,
    named_variants: Vec<(String, TypeId)>,
    depth: usize,
}

/// Parses the TSDL text.
pub fn parse(text: &[u8]) -> Result<Metadata> {
    let text = core::str::from_utf8(text).map_err(|e| {
        Error::malformed(
            e.valid_up_to() as u64,
            "CTF metadata: the text is not UTF-8",
        )
    })?;
    let lx = lex(text)?;
    let mut p = Parser {
        toks: lx.toks,
        at: 0,
        end: text.len(),
        md: Metadata::default(),
        aliases: Vec::new(),
        named_structs: Vec::new(),
        named_enums: Vec::new(),
        named_variants: Vec::new(),
        depth: 0,
    };
    while p.at < p.toks.len() {
        p.top()?;
    }
    Ok(p.md)
}

impl<'a> Parser<'a> {
    fn offset(&self) -> u64 {
        self.toks.get(self.at).map_or(self.end, |t| t.1) as u64
    }

    fn err(&self, msg: impl Into<String>) -> Error {
        Error::malformed(self.offset(), format!("CTF metadata: {}", msg.into()))
    }

    fn unsupported(&self, what: &str) -> Error {
        Error::new(
            self.offset(),
            ErrorKind::Unsupported(format!("CTF metadata: {what}")),
        )
    }

    fn peek(&self) -> Option<&Tok<'a>> {
        self.toks.get(self.at).map(|t| &t.0)
    }

    fn next(&mut self) -> Result<Tok<'a>> {
        let t = self
            .toks
            .get(self.at)
            .map(|t| t.0.clone())
            .ok_or_else(|| Error::truncated(self.end as u64, "CTF metadata"))?;
        self.at += 1;
        Ok(t)
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.err(format!("expected '{p}'")))
        }
    }

    /// The identifier at the cursor, taken, if there is one (a struct's, enum's or variant's
    /// optional name).
    fn optional_ident(&mut self) -> Option<String> {
        match self.peek() {
            Some(Tok::Ident(n)) => {
                let n = n.to_string();
                self.at += 1;
                Some(n)
            }
            _ => None,
        }
    }

    fn ident(&mut self) -> Result<&'a str> {
        match self.next()? {
            Tok::Ident(s) => Ok(s),
            _ => {
                self.at -= 1;
                Err(self.err("expected a name"))
            }
        }
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(i) = self.md.names.iter().position(|n| n == name) {
            return i as u32;
        }
        self.md.names.push(name.to_string());
        (self.md.names.len() - 1) as u32
    }

    fn add(&mut self, t: Type) -> Result<TypeId> {
        if self.md.types.len() >= MAX_TYPES {
            return Err(self.err("too many types"));
        }
        self.md.types.push(t);
        Ok((self.md.types.len() - 1) as TypeId)
    }

    /// Skips a balanced `{ ... }` and what follows up to `;`.
    fn skip_block(&mut self) -> Result<()> {
        let mut depth = 0usize;
        loop {
            match self.next()? {
                Tok::Punct("{") => depth += 1,
                Tok::Punct("}") => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                Tok::Punct(";") if depth == 0 => return Ok(()),
                _ => {}
            }
        }
        while !self.eat(";") {
            self.next()?;
        }
        Ok(())
    }

    fn top(&mut self) -> Result<()> {
        let kw = self.ident()?;
        match kw {
            "typealias" => {
                let t = self.type_spec()?;
                self.expect(":=")?;
                let mut name = String::new();
                while !self.is(";") {
                    if !name.is_empty() {
                        name.push(' ');
                    }
                    name.push_str(self.ident()?);
                }
                self.expect(";")?;
                self.aliases.push((name, t));
                Ok(())
            }
            "typedef" => {
                let t = self.type_spec()?;
                let name = self.ident()?;
                self.expect(";")?;
                self.aliases.push((name.to_string(), t));
                Ok(())
            }
            "trace" | "env" | "clock" | "stream" | "event" => self.block(kw),
            "struct" | "enum" | "variant" => {
                self.at -= 1;
                self.type_spec()?;
                self.expect(";")
            }
            _ => self.skip_block(),
        }
    }

    /// `kw { key = value; key := type; ... };`
    fn block(&mut self, kw: &str) -> Result<()> {
        self.expect("{")?;
        let mut clock = Clock::default();
        let mut stream = StreamDecl::default();
        let mut event = EventDecl {
            name: String::new(),
            id: 0,
            stream_id: 0,
            context: None,
            fields: None,
        };
        while !self.eat("}") {
            let mut key = String::from(self.ident()?);
            while self.eat(".") {
                key.push('.');
                key.push_str(self.ident()?);
            }
            if self.eat(":=") {
                let t = self.type_spec()?;
                self.expect(";")?;
                match (kw, key.as_str()) {
                    ("trace", "packet.header") => self.md.packet_header = Some(t),
                    ("stream", "packet.context") => stream.packet_context = Some(t),
                    ("stream", "event.header") => stream.event_header = Some(t),
                    ("stream", "event.context") => stream.event_context = Some(t),
                    ("event", "context") => event.context = Some(t),
                    ("event", "fields") => event.fields = Some(t),
                    _ => {}
                }
                continue;
            }
            self.expect("=")?;
            let value = self.value()?;
            self.expect(";")?;
            let num = || value.parse::<i128>().ok();
            match (kw, key.as_str()) {
                ("trace", "byte_order") => self.md.big_endian = value == "be" || value == "network",
                ("trace", "major") if num() != Some(1) => {
                    return Err(self.unsupported(&format!("CTF major version {value}")))
                }
                ("env", _) => self.md.env.push((key, value)),
                ("clock", "name") => clock.name = value,
                ("clock", "freq") => {
                    clock.freq = num().unwrap_or(0).clamp(0, u64::MAX as i128) as u64
                }
                ("clock", "offset") => clock.offset = num().unwrap_or(0) as i64,
                ("clock", "offset_s") => clock.offset_s = num().unwrap_or(0) as i64,
                ("stream", "id") => stream.id = num().unwrap_or(0) as u64,
                ("event", "name") => event.name = value,
                ("event", "id") => event.id = num().unwrap_or(0) as u64,
                ("event", "stream_id") => event.stream_id = num().unwrap_or(0) as u64,
                _ => {}
            }
        }
        self.expect(";")?;
        match kw {
            "clock" => self.md.clocks.push(clock),
            "stream" => self.md.streams.push(stream),
            "event" => self.md.events.push(event),
            _ => {}
        }
        Ok(())
    }

    /// A value: a number (maybe negative), a string, or a dotted name; as text.
    fn value(&mut self) -> Result<String> {
        let neg = self.eat("-");
        match self.next()? {
            Tok::Num(n) => Ok(if neg { -n } else { n }.to_string()),
            Tok::Str(s) => Ok(s.to_string()),
            Tok::Ident(s) => {
                let mut v = String::from(s);
                while self.eat(".") {
                    v.push('.');
                    v.push_str(self.ident()?);
                }
                Ok(v)
            }
            _ => {
                self.at -= 1;
                Err(self.err("expected a value"))
            }
        }
    }

    fn num(&mut self) -> Result<i128> {
        let neg = self.eat("-");
        match self.next()? {
            Tok::Num(n) => Ok(if neg { -n } else { n }),
            _ => {
                self.at -= 1;
                Err(self.err("expected a number"))
            }
        }
    }

    fn type_spec(&mut self) -> Result<TypeId> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("types nested too deep"));
        }
        let r = self.type_spec_inner();
        self.depth -= 1;
        r
    }

    fn type_spec_inner(&mut self) -> Result<TypeId> {
        let kw = self.ident()?;
        match kw {
            "integer" => {
                let i = self.int_attrs()?;
                self.add(Type::Int(i))
            }
            "floating_point" => {
                self.expect("{")?;
                let (mut exp, mut mant, mut align, mut be) =
                    (0i128, 0i128, 0u32, self.md.big_endian);
                while !self.eat("}") {
                    let k = self.ident()?;
                    self.expect("=")?;
                    let v = self.value()?;
                    self.expect(";")?;
                    match k {
                        "exp_dig" => exp = v.parse().unwrap_or(0),
                        "mant_dig" => mant = v.parse().unwrap_or(0),
                        "align" => align = v.parse().unwrap_or(8),
                        "byte_order" => be = self.byte_order(&v),
                        _ => {}
                    }
                }
                let bits = (exp + mant) as u32;
                if bits != 32 && bits != 64 {
                    return Err(self.unsupported(&format!("floating point of {bits} bits")));
                }
                self.add(Type::Float {
                    bits,
                    align: if align == 0 { 8 } else { align },
                    big_endian: be,
                })
            }
            "string" => {
                if self.is("{") {
                    self.expect("{")?;
                    while !self.eat("}") {
                        self.next()?;
                    }
                }
                self.add(Type::Str)
            }
            "struct" => {
                let name = self.optional_ident();
                if !self.is("{") {
                    let name = name.ok_or_else(|| self.err("struct without a body or name"))?;
                    return self.lookup_named(&name, 0);
                }
                self.expect("{")?;
                let mut fields = Vec::new();
                while !self.eat("}") {
                    self.fields_decl(&mut fields)?;
                }
                let mut align = fields
                    .iter()
                    .map(|&(_, t)| self.align_of(t))
                    .max()
                    .unwrap_or(1);
                if self.is_ident("align") {
                    self.at += 1;
                    self.expect("(")?;
                    let a = self.num()?;
                    self.expect(")")?;
                    align = align.max(a.clamp(1, 1 << 15) as u32);
                }
                let t = self.add(Type::Struct { fields, align })?;
                if let Some(n) = name {
                    self.named_structs.push((n, t));
                }
                Ok(t)
            }
            "enum" => {
                let name = self.optional_ident();
                if !self.is(":") && !self.is("{") {
                    let name = name.ok_or_else(|| self.err("enum without a body or name"))?;
                    return self.lookup_named(&name, 1);
                }
                let base = if self.eat(":") {
                    let t = self.type_spec()?;
                    match self.md.types.get(t as usize) {
                        Some(Type::Int(i)) => *i,
                        _ => return Err(self.err("enum of a type that is not an integer")),
                    }
                } else {
                    Int {
                        size: 32,
                        align: 8,
                        signed: true,
                        big_endian: self.md.big_endian,
                        clock: false,
                        text: false,
                    }
                };
                self.expect("{")?;
                let mut labels = Vec::new();
                let mut next = 0i128;
                while !self.eat("}") {
                    let label = match self.next()? {
                        Tok::Ident(s) | Tok::Str(s) => s,
                        _ => return Err(self.err("expected an enum label")),
                    };
                    let (lo, hi) = if self.eat("=") {
                        let lo = self.num()?;
                        let hi = if self.eat("...") { self.num()? } else { lo };
                        (lo, hi)
                    } else {
                        (next, next)
                    };
                    next = hi + 1;
                    let id = self.intern(label);
                    labels.push((id, lo as i64, hi as i64));
                    if !self.eat(",") && !self.is("}") {
                        return Err(self.err("expected ',' or '}' in an enum"));
                    }
                }
                let t = self.add(Type::Enum { base, labels })?;
                if let Some(n) = name {
                    self.named_enums.push((n, t));
                }
                Ok(t)
            }
            "variant" => {
                let name = self.optional_ident();
                let tag = if self.eat("<") {
                    let mut last = self.ident()?;
                    while self.eat(".") {
                        last = self.ident()?;
                    }
                    self.expect(">")?;
                    Some(self.intern(last))
                } else {
                    None
                };
                if !self.is("{") {
                    let name = name.ok_or_else(|| self.err("variant without a body or name"))?;
                    let t = self.lookup_named(&name, 2)?;
                    return match (tag, self.md.types.get(t as usize).cloned()) {
                        (Some(tag), Some(Type::Variant { options, .. })) => {
                            self.add(Type::Variant { tag, options })
                        }
                        _ => Ok(t),
                    };
                }
                self.expect("{")?;
                let mut options = Vec::new();
                while !self.eat("}") {
                    self.fields_decl(&mut options)?;
                }
                let t = self.add(Type::Variant {
                    tag: tag.unwrap_or(u32::MAX),
                    options,
                })?;
                if let Some(n) = name {
                    self.named_variants.push((n, t));
                }
                Ok(t)
            }
            _ => {
                // A type alias, maybe of several words (`unsigned long`).
                let mut name = String::from(kw);
                let mut best = self.alias(&name).map(|t| (t, self.at));
                let mut j = self.at;
                while let Some(Tok::Ident(w)) = self.toks.get(j).map(|t| &t.0) {
                    name.push(' ');
                    name.push_str(w);
                    j += 1;
                    if let Some(t) = self.alias(&name) {
                        best = Some((t, j));
                    }
                }
                let (t, at) = best.ok_or_else(|| {
                    self.at -= 1;
                    self.unsupported(&format!("unknown type '{kw}'"))
                })?;
                self.at = at;
                Ok(t)
            }
        }
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(i)) if *i == s)
    }

    fn alias(&self, name: &str) -> Option<TypeId> {
        self.aliases
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|&(_, t)| t)
    }

    fn lookup_named(&self, name: &str, kind: u8) -> Result<TypeId> {
        let list = match kind {
            0 => &self.named_structs,
            1 => &self.named_enums,
            _ => &self.named_variants,
        };
        list.iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|&(_, t)| t)
            .ok_or_else(|| self.err(format!("unknown named type '{name}'")))
    }

    fn byte_order(&self, v: &str) -> bool {
        match v {
            "be" | "network" => true,
            "le" => false,
            _ => self.md.big_endian,
        }
    }

    fn int_attrs(&mut self) -> Result<Int> {
        self.expect("{")?;
        let mut i = Int {
            size: 0,
            align: 0,
            signed: false,
            big_endian: self.md.big_endian,
            clock: false,
            text: false,
        };
        while !self.eat("}") {
            let k = self.ident()?;
            self.expect("=")?;
            let v = self.value()?;
            self.expect(";")?;
            match k {
                "size" => i.size = v.parse().unwrap_or(0),
                "align" => i.align = v.parse().unwrap_or(0),
                "signed" => i.signed = matches!(v.as_str(), "true" | "1" | "TRUE"),
                "byte_order" => i.big_endian = self.byte_order(&v),
                "encoding" => i.text = matches!(v.as_str(), "UTF8" | "ASCII" | "utf8"),
                "map" => i.clock = v.starts_with("clock."),
                _ => {}
            }
        }
        if i.size == 0 || i.size > 64 {
            return Err(self.unsupported(&format!("integer of {} bits", i.size)));
        }
        if i.align == 0 {
            i.align = if i.size.is_multiple_of(8) { 8 } else { 1 };
        }
        if !i.align.is_power_of_two() || i.align > 4096 * 8 {
            return Err(self.err(format!("integer alignment {}", i.align)));
        }
        Ok(i)
    }

    /// `type name[...], name2;`: adds each declarator to `out`.
    fn fields_decl(&mut self, out: &mut Vec<(u32, TypeId)>) -> Result<()> {
        let t = self.type_spec()?;
        loop {
            let name = self.ident()?;
            let mut dims = Vec::new();
            while self.eat("[") {
                match self.peek().cloned() {
                    Some(Tok::Num(n)) => {
                        self.at += 1;
                        if !(0..=u32::MAX as i128).contains(&n) {
                            return Err(self.err(format!("array length {n}")));
                        }
                        dims.push(Err(n as u64));
                    }
                    _ => {
                        let mut last = self.ident()?;
                        while self.eat(".") {
                            last = self.ident()?;
                        }
                        dims.push(Ok(self.intern(last)));
                    }
                }
                self.expect("]")?;
            }
            let mut ty = t;
            for d in dims.into_iter().rev() {
                ty = match d {
                    Err(len) => self.add(Type::Array { elem: ty, len })?,
                    Ok(len) => self.add(Type::Sequence { elem: ty, len })?,
                };
            }
            let id = self.intern(name);
            out.push((id, ty));
            if !self.eat(",") {
                break;
            }
        }
        self.expect(";")
    }

    fn align_of(&self, t: TypeId) -> u32 {
        align_of(&self.md.types, t, 0)
    }
}
