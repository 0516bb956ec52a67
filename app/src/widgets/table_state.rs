//! Where a table's sort and text filter live: in the address bar (a shared link restores them) or
//! on this page only, kept across tab switches. A view picks one and passes it to the table.

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::prelude::*;

use crate::state::use_app;
use crate::tables::{toggle_sort, SortFilter};

use super::table::Sorting;

thread_local! {
    /// Sorts and filters of the tables kept on this page, by table id, across tab switches.
    static KEPT: RefCell<HashMap<&'static str, SortFilter>> = RefCell::new(HashMap::new());
}

#[derive(Clone, Copy)]
pub struct TableState {
    pub get: Signal<SortFilter>,
    set: Callback<SortFilter>,
}

impl TableState {
    /// In the address bar under `name` (lowercase letters): `?{name}sort=-count&{name}q=text`.
    pub fn in_url(name: &'static str) -> Self {
        let app = use_app();
        TableState {
            get: Signal::derive(move || app.vs.with(|v| v.table(name))),
            set: Callback::new(move |t| app.set_vs(|v| v.set_table(name, t))),
        }
    }

    /// On this page only (not in the address bar), kept across tab switches under `id`.
    pub fn kept(id: &'static str) -> Self {
        let init = KEPT.with(|k| k.borrow().get(id).cloned().unwrap_or_default());
        let st = RwSignal::new(init);
        TableState {
            get: st.into(),
            set: Callback::new(move |t: SortFilter| {
                KEPT.with(|k| k.borrow_mut().insert(id, t.clone()));
                st.set(t);
            }),
        }
    }

    pub fn update(self, f: impl FnOnce(&mut SortFilter)) {
        let mut t = self.get.get_untracked();
        f(&mut t);
        self.set.run(t);
    }

    /// Header clicks: descending first, then ascending, then unsorted.
    pub fn sorting(self) -> Sorting {
        Sorting {
            current: Signal::derive(move || self.get.with(|t| t.sort.clone())),
            click: Callback::new(move |key: String| {
                self.update(|s| s.sort = toggle_sort(&s.sort, &key))
            }),
        }
    }
}
