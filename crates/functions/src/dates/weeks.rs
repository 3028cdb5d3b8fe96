//! Week arithmetic behind ClickHouse's `mode` arguments: `toDayOfWeek`,
//! `toWeek`, `toYearWeek`, `toStartOfWeek` and `toLastDayOfWeek`.
//!
//! `toWeek` modes 0 to 7 are MySQL's `WEEK()` modes. Bit 0 makes Monday
//! the first day of the week, bit 1 numbers weeks 1 to 53 (a week before
//! week 1 belongs to the previous year) instead of 0 to 53, and bit 2
//! (read inverted when Sunday comes first) decides whether week 1 is the
//! first week with four or more days in the year or the first that starts
//! in it. ClickHouse adds bit 3: week 1 is the week holding January 1st.

use chrono::{Datelike, Duration, NaiveDate};

const MONDAY_FIRST: u8 = 1;
const WEEK_YEAR: u8 = 2;
const FIRST_WEEKDAY: u8 = 4;
const NEW_YEAR_DAY: u8 = 8;

/// The day's number within its week: mode 0 counts Monday 1 to Sunday 7,
/// 1 Monday 0 to Sunday 6, 2 Sunday 0 to Saturday 6, 3 Sunday 1 to Saturday 7.
pub fn day_of_week(date: NaiveDate, mode: u8) -> u32 {
    let weekday = date.weekday();
    match mode & 3 {
        0 => weekday.number_from_monday(),
        1 => weekday.num_days_from_monday(),
        2 => weekday.num_days_from_sunday(),
        _ => weekday.number_from_sunday(),
    }
}

/// The first day of the week holding `date`: a Monday when bit 0 is set,
/// else a Sunday.
pub fn start_of_week(date: NaiveDate, mode: u8) -> NaiveDate {
    date - Duration::days(days_into_week(date, mode & MONDAY_FIRST != 0))
}

/// The last day of the week holding `date`: a Sunday when bit 0 is set,
/// else a Saturday.
pub fn last_day_of_week(date: NaiveDate, mode: u8) -> NaiveDate {
    start_of_week(date, mode) + Duration::days(6)
}

/// `toYearWeek`: the year the week belongs to, times 100, plus its number;
/// weeks always count 1 to 53 here.
pub fn year_week(date: NaiveDate, mode: u8) -> u32 {
    let (year, week) = week(date, mode | WEEK_YEAR);
    (year * 100) as u32 + week
}

/// `toWeek`: the week's number in `date`'s year.
pub fn week_number(date: NaiveDate, mode: u8) -> u32 {
    week(date, mode).1
}

fn days_into_week(date: NaiveDate, monday_first: bool) -> i64 {
    let weekday = date.weekday();
    if monday_first {
        weekday.num_days_from_monday() as i64
    } else {
        weekday.num_days_from_sunday() as i64
    }
}

fn days_in_year(year: i32) -> i64 {
    if NaiveDate::from_ymd_opt(year, 2, 29).is_some() {
        366
    } else {
        365
    }
}

fn first_of_year(year: i32) -> NaiveDate {
    NaiveDate::from_ymd_opt(year, 1, 1).unwrap_or(NaiveDate::MIN)
}

/// The year a week belongs to and its number, by `mode`.
fn week(date: NaiveDate, mode: u8) -> (i32, u32) {
    if mode & NEW_YEAR_DAY != 0 {
        return new_year_week(date, mode);
    }
    // Sunday-first modes read the fourth bit the other way round.
    let mut behaviour = mode & 7;
    if behaviour & MONDAY_FIRST == 0 {
        behaviour ^= FIRST_WEEKDAY;
    }
    let monday_first = behaviour & MONDAY_FIRST != 0;
    let mut week_year = behaviour & WEEK_YEAR != 0;
    let first_weekday = behaviour & FIRST_WEEKDAY != 0;
    let mut year = date.year();
    let mut first = first_of_year(year);
    let mut weekday = days_into_week(first, monday_first);
    // Whether week 1 starts after January 1st's week.
    let late_start =
        |weekday: i64| (first_weekday && weekday != 0) || (!first_weekday && weekday >= 4);
    if date.month() == 1 && (date.day() as i64) <= 7 - weekday {
        if !week_year && late_start(weekday) {
            return (year, 0);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first -= Duration::days(days);
        weekday = (weekday + 53 * 7 - days) % 7;
    }
    let days = if late_start(weekday) {
        (date - first).num_days() - (7 - weekday)
    } else {
        (date - first).num_days() + weekday
    };
    if week_year && days >= 52 * 7 {
        let next_weekday = (weekday + days_in_year(year)) % 7;
        if !late_start(next_weekday) {
            return (year + 1, 1);
        }
    }
    (year, (days / 7 + 1) as u32)
}

/// Bit 3: week 1 is the week holding January 1st, so the last days of
/// December may be in week 1 of the next year.
fn new_year_week(date: NaiveDate, mode: u8) -> (i32, u32) {
    let monday_first = mode & MONDAY_FIRST != 0;
    let start = date - Duration::days(days_into_week(date, monday_first));
    let next_year = first_of_year(date.year() + 1);
    if (next_year - start).num_days() < 7 {
        return (date.year() + 1, 1);
    }
    let first = first_of_year(date.year());
    let first_start = first - Duration::days(days_into_week(first, monday_first));
    (
        date.year(),
        ((start - first_start).num_days() / 7 + 1) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn modes_follow_mysql() {
        // 2021-01-03 is a Sunday; 2021 starts on a Friday.
        let sunday = day("2021-01-03");
        assert_eq!(week_number(sunday, 0), 1);
        assert_eq!(week_number(sunday, 1), 0);
        assert_eq!(week_number(sunday, 2), 1);
        assert_eq!(week_number(sunday, 3), 53);
        assert_eq!(year_week(sunday, 3), 202053);
        assert_eq!(year_week(day("2024-12-30"), 3), 202501);
        assert_eq!(week_number(day("2024-12-30"), 3), 1);
    }

    #[test]
    fn week_bounds_follow_the_first_day() {
        let wednesday = day("2024-01-10");
        assert_eq!(start_of_week(wednesday, 0), day("2024-01-07"));
        assert_eq!(start_of_week(wednesday, 1), day("2024-01-08"));
        assert_eq!(last_day_of_week(wednesday, 0), day("2024-01-13"));
        assert_eq!(last_day_of_week(wednesday, 9), day("2024-01-14"));
        assert_eq!(day_of_week(day("2024-01-07"), 2), 0);
    }
}
