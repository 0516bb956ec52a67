//! Tiny argument parser: positional FILE plus `--flag` and `--key VALUE` options.

pub struct Args {
    pub positional: Vec<String>,
    flags: Vec<(String, Option<String>)>,
}

impl Args {
    /// `with_value` lists the options that take a value (`--gen 2`).
    pub fn parse(raw: &[String], with_value: &[&str]) -> Result<Args, String> {
        let mut positional = Vec::new();
        let mut flags = Vec::new();
        let mut it = raw.iter();
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                if with_value.contains(&name) {
                    let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
                    flags.push((name.to_string(), Some(v.clone())));
                } else {
                    flags.push((name.to_string(), None));
                }
            } else {
                positional.push(a.clone());
            }
        }
        Ok(Args { positional, flags })
    }

    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| n == name)
    }

    pub fn value(&self, name: &str) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Rejects options not in `known`, so a typo is an error rather than silently ignored.
    pub fn only(&self, known: &[&str]) -> Result<(), String> {
        for (n, _) in &self.flags {
            if !known.contains(&n.as_str()) {
                return Err(format!("unknown option --{n}"));
            }
        }
        Ok(())
    }

    pub fn file(&self) -> Result<&str, String> {
        match self.positional.as_slice() {
            [f] => Ok(f),
            [] => Err("missing FILE".into()),
            _ => Err("expected one FILE".into()),
        }
    }
}
