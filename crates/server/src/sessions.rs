//! Named HTTP sessions (`session_id`): settings, current database and
//! temporary state kept between requests of one user until the session has
//! been idle for its timeout. One request at a time uses a session; another
//! arriving meanwhile fails with SESSION_IS_LOCKED.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::Session;
use tokio::sync::OwnedMutexGuard;

/// Sessions are keyed by user and id: one user cannot reach another's.
type Key = (String, String);

struct Entry {
    session: Arc<tokio::sync::Mutex<Session>>,
    timeout: Duration,
    /// When the last request using the session ended (or began, while one runs).
    last_used: Arc<Mutex<Instant>>,
}

impl Entry {
    fn expired(&self, now: Instant) -> bool {
        now.duration_since(*self.last_used.lock()) > self.timeout
    }
}

#[derive(Default)]
pub struct Sessions {
    entries: Mutex<HashMap<Key, Entry>>,
}

/// A session held by one request; the idle clock restarts when it is dropped.
pub struct SessionGuard {
    session: OwnedMutexGuard<Session>,
    last_used: Arc<Mutex<Instant>>,
}

impl std::ops::Deref for SessionGuard {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl std::ops::DerefMut for SessionGuard {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        *self.last_used.lock() = Instant::now();
    }
}

/// What a request asks of a named session.
pub struct SessionRequest<'a> {
    pub user: &'a str,
    pub id: &'a str,
    pub timeout: Duration,
    /// `session_check = 1`: the session must exist already.
    pub check: bool,
}

impl Sessions {
    /// The session `request` names, created by `create` when it does not
    /// exist (or has expired) and `check` is off.
    pub fn acquire(
        &self,
        request: &SessionRequest,
        create: impl FnOnce() -> Session,
    ) -> Result<SessionGuard> {
        let key = (request.user.to_string(), request.id.to_string());
        let mut entries = self.entries.lock();
        let now = Instant::now();
        if entries.get(&key).is_some_and(|e| e.expired(now)) {
            entries.remove(&key);
        }
        if !entries.contains_key(&key) {
            if request.check {
                return Err(StrataError::new(
                    ErrorCode::SESSION_NOT_FOUND,
                    format!("Session {} not found", request.id),
                ));
            }
            entries.insert(
                key.clone(),
                Entry {
                    session: Arc::new(tokio::sync::Mutex::new(create())),
                    timeout: request.timeout,
                    last_used: Arc::new(Mutex::new(now)),
                },
            );
        }
        let entry = entries.get_mut(&key).expect("inserted above");
        entry.timeout = request.timeout;
        let session = Arc::clone(&entry.session).try_lock_owned().map_err(|_| {
            StrataError::new(
                ErrorCode::SESSION_IS_LOCKED,
                format!("Session {} is locked by a concurrent client", request.id),
            )
        })?;
        *entry.last_used.lock() = now;
        Ok(SessionGuard {
            session,
            last_used: Arc::clone(&entry.last_used),
        })
    }

    /// Drops sessions idle past their timeout; one in use is never idle.
    pub fn sweep(&self) {
        let now = Instant::now();
        self.entries.lock().retain(|_, entry| {
            let in_use = entry.session.try_lock().is_err();
            in_use || !entry.expired(now)
        });
    }
}
