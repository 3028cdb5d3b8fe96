//! What the engine logs (a broken part detached at start-up) goes to stderr
//! as `<Warning> target: message`, ClickHouse's level words: warnings and
//! errors for `strata local`, information too for `strata server`; the
//! same records are kept for `system.text_log`.

use std::time::SystemTime;

use log::{Level, LevelFilter, Log, Metadata, Record};
use strata_common::text_log::{self, TextLogRecord};

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
        let message = record.args().to_string();
        eprintln!("<{level}> {}: {message}", record.target());
        text_log::push(TextLogRecord {
            event_time: SystemTime::now(),
            level,
            logger_name: record.target().to_string(),
            message,
            thread_name: std::thread::current().name().unwrap_or("").to_string(),
        });
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
