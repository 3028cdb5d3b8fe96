//! What the engine logs (a broken part detached at start-up) goes to stderr
//! as `<Warning> target: message`, ClickHouse's level words: warnings and
//! errors for `strata local`, information too for `strata server`.

use log::{Level, LevelFilter, Log, Metadata, Record};

struct Stderr;

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let level = match record.level() {
            Level::Error => "Error",
            Level::Warn => "Warning",
            Level::Info => "Information",
            Level::Debug => "Debug",
            Level::Trace => "Trace",
        };
        eprintln!("<{level}> {}: {}", record.target(), record.args());
    }

    fn flush(&self) {}
}

static LOGGER: Stderr = Stderr;

/// Installs the stderr logger at `level`; a second call changes nothing.
pub fn init(level: LevelFilter) {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(level);
    }
}
