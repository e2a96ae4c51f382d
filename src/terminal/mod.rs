//! What fleetsim shows on a terminal: the summary table of a run, a sweep's best points, and
//! progress bars on stderr (drawn only when someone watches). Text for people; the files are
//! the `files` module's.

mod best_points;
mod progress;
mod summary_table;

pub use best_points::best_points;
pub use progress::TerminalProgress;
pub use summary_table::{NoteInput, Starving, notes_of, starving, summary_table};
