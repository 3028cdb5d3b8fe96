//! Warnings and errors the engine logs (a broken part detached at start-up)
//! go to stderr as `<Warning> target: message`, ClickHouse's level words;
//! nothing below a warning is printed.

use log::{Level, LevelFilter, Log, Metadata, Record};

struct Stderr;

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= Level::Warn
    }

    fn log(&self, record: &Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let level = match record.level() {
            Level::Error => "Error",
            _ => "Warning",
        };
        eprintln!("<{level}> {}: {}", record.target(), record.args());
    }

    fn flush(&self) {}
}

static LOGGER: Stderr = Stderr;

/// Installs the stderr logger; a second call changes nothing.
pub fn init() {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LevelFilter::Warn);
    }
}
