//! What `gcscope serve` says of the process it watches (its `process` address), for the live tab
//! (`loader::live`): the page's, not the workers'.

/// What the runtime said of its process before the session: `gcscope serve`'s `process` address,
/// the process's row of `gcscope ps --json`. The stream says the runtime's version and the command
/// line only in the rundown at its end; until then the facts take them from here.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
pub struct LiveProcess {
    pub pid: u32,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub command_line: String,
    pub runtime_version: Option<String>,
    pub os: Option<String>,
    pub arch: Option<String>,
}

impl LiveProcess {
    /// Fills the facts the stream has not said yet with the process's (never replaces one).
    pub fn fill(&self, p: &mut gcscope_core::gc::ProcessFacts) {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        if p.runtime_version.is_none() {
            p.runtime_version = self.runtime_version.clone();
        }
        if p.command_line.is_none() {
            p.command_line = some(&self.command_line);
        }
        if p.process_name.is_none() {
            p.process_name = some(&self.name);
        }
        if p.os.is_none() {
            p.os = self.os.clone();
        }
        if p.arch.is_none() {
            p.arch = self.arch.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LiveProcess;
    use gcscope_core::gc::ProcessFacts;

    #[test]
    fn the_process_fills_what_the_stream_has_not_said_and_replaces_nothing() {
        let p = LiveProcess {
            pid: 7,
            name: "app".into(),
            command_line: "dotnet app.dll".into(),
            runtime_version: Some("9.0.5".into()),
            os: Some("Linux".into()),
            arch: Some("x64".into()),
        };
        let mut f = ProcessFacts::default();
        p.fill(&mut f);
        assert_eq!(f.runtime_version.as_deref(), Some("9.0.5"));
        assert_eq!(f.command_line.as_deref(), Some("dotnet app.dll"));
        assert_eq!(f.process_name.as_deref(), Some("app"));
        assert_eq!(
            (f.os.as_deref(), f.arch.as_deref()),
            (Some("Linux"), Some("x64"))
        );

        // The stream's own facts (the rundown's) stay; an empty answer fills nothing.
        let mut said = ProcessFacts {
            runtime_version: Some("9.0.6".into()),
            command_line: Some("from the rundown".into()),
            ..Default::default()
        };
        p.fill(&mut said);
        assert_eq!(said.runtime_version.as_deref(), Some("9.0.6"));
        assert_eq!(said.command_line.as_deref(), Some("from the rundown"));
        let mut none = ProcessFacts::default();
        LiveProcess::default().fill(&mut none);
        assert_eq!((none.command_line, none.process_name), (None, None));
    }
}
