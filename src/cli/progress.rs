//! Progress bars for the library's progress events.

use indicatif::{ProgressBar, ProgressStyle};
use morris::solve::generate::{Report, Reporter};
use morris::Progress;
use morris::Unit;
use std::sync::Mutex;

pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    current: ProgressBar,
    pub quiet: bool,
    /// Each table's line as a JSON object on standard output (`solve --json`), printed
    /// even when `quiet` hides the bars.
    pub json: bool,
}

impl Bars {
    pub fn new(quiet: bool) -> Bars {
        let current = if quiet { ProgressBar::hidden() } else { ProgressBar::new(0) };
        current.set_style(ProgressStyle::with_template("{prefix:>10} {msg:28} [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta}").unwrap().progress_chars("=> "));
        Bars { bar: Mutex::new(None), current, quiet, json: false }
    }

    pub fn finish(&self) {
        self.current.finish_and_clear();
        let _ = self.bar.lock().map(|mut b| b.take());
    }

    /// `line` on standard output whether or not a bar is drawn (the bar, on standard
    /// error, is hidden meanwhile): for output that scripts read.
    pub fn print_out(&self, line: &str) {
        use std::io::Write as _;
        self.current.suspend(|| {
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        });
    }

    pub fn println(&self, line: &str) {
        if self.current.is_hidden() {
            use std::io::Write as _;
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        } else {
            self.current.println(line);
        }
    }
}

impl Progress for Bars {
    fn begin(&self, label: &str, total: u64) {
        self.current.set_message(label.to_string());
        self.current.set_length(total);
        self.current.set_position(0);
    }
    fn advance(&self, n: u64) {
        self.current.inc(n);
    }
}

impl Reporter for Bars {
    fn unit_start(&self, unit: Unit, position: usize, count: usize) {
        self.current.set_prefix(format!("{}/{}", position + 1, count));
        self.current.set_message(format!("{unit}"));
    }
    fn sector_start(&self, sector: morris::Sector, position: usize, count: usize) {
        self.current.set_prefix(format!("{}/{}", position + 1, count));
        self.current.set_message(format!("sector {sector}"));
    }
    fn done(&self, r: &Report) {
        if self.json {
            self.print_out(&super::solve::json_line(r).to_string());
        } else if !self.quiet {
            self.println(&super::solve::summary_line(r));
        }
    }
}
