//! The one place that sets a reader up for its consumer ([`Consumer`]): the filter (which events
//! are delivered), the tick lane's mode (how allocation ticks come, see [`crate::ticks`]),
//! whether the parts of the file intern the ticks' type names, and whether the reader keeps stacks. The three follow from the consumer,
//! so they cannot disagree: a caller names its consumer ([`TraceReader::for_consumer`],
//! [`crate::parts::Planner::for_consumer`]) and nothing else. Above the GC model in the layers
//! (it names the model's filter, [`crate::gc::interest`]), while the type it implements lives
//! below the reader ([`crate::ticks`]), which stores it.

use crate::parts::FilterFn;
use crate::reader::TraceReader;
use crate::ticks::{Consumer, TickLane};

impl Consumer {
    /// The filter its reader and the parts of the file decode with (None: every event).
    pub fn filter(self) -> Option<FilterFn> {
        match self {
            Consumer::EveryEvent => None,
            Consumer::Model | Consumer::ModelAndInsights => Some(crate::gc::interest),
            Consumer::Stacks => Some(crate::stacks::view::interest),
        }
    }

    /// How its reader delivers the allocation ticks that come with their digest.
    pub(crate) fn tick_lane(self) -> TickLane {
        match self {
            Consumer::EveryEvent => TickLane::Off,
            Consumer::Model => TickLane::Sums,
            Consumer::ModelAndInsights => TickLane::EachTick,
            Consumer::Stacks => TickLane::EachTickWithStacks,
        }
    }

    /// Whether the parts of the file intern their ticks' type names: for the insights and the
    /// stacks, whose batches refer to the names by slot (the lane takes a tick only where the merge
    /// interned its name); the model does not read them, and interning would only slow the parts
    /// down.
    pub(crate) fn interns_types(self) -> bool {
        matches!(self, Consumer::ModelAndInsights | Consumer::Stacks)
    }
}

impl TraceReader {
    /// A reader for `consumer` (see [`set_consumer`](Self::set_consumer)).
    pub fn for_consumer(consumer: Consumer) -> Self {
        Self::new().with_consumer(consumer)
    }

    /// Delivers the events as `consumer` reads them ([`Consumer`]: its filter, and how the
    /// allocation ticks come). A reader for the GC model or the stacks delivers a NetTrace's ticks
    /// that come with their digest (decoded here or by parts of the file, [`crate::parts`]) as
    /// batches, the ticks between two other events as one event ([`crate::ticks::Ticks::Batch`]):
    /// [`crate::gc::ModelBuilder::on_event`] takes them, [`crate::gc::feed`] (the model and its
    /// insights) those of [`Consumer::ModelAndInsights`], which hold each tick, and
    /// [`crate::stacks::view::StackSamplesBuilder::on_event`] those of [`Consumer::Stacks`], whose
    /// ticks also hold their stacks. A NetPerf file's and
    /// an .etl's ticks come one by one, and so does a tick without a digest (a payload that does not
    /// fit its layout). Set it before the first push; the default is [`Consumer::EveryEvent`].
    pub fn set_consumer(&mut self, consumer: Consumer) {
        if let Some(f) = consumer.filter() {
            self.set_filter(f);
        }
        self.note_consumer(consumer, consumer.tick_lane());
        if consumer == Consumer::Stacks {
            self.set_keep_stacks(true);
        }
    }

    /// [`set_consumer`](Self::set_consumer), builder style.
    pub fn with_consumer(mut self, consumer: Consumer) -> Self {
        self.set_consumer(consumer);
        self
    }
}
