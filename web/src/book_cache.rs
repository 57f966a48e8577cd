//! A short-lived cache of `/book` answers, so that the positions every visitor passes through
//! (the start, the first plies, a shared link) are answered without a coordinator round trip,
//! and a crowd asking for one position at once costs one read.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::HeaderValue;
use moka::future::Cache;
use pentago::PositionKey;

/// How long and how much the explorer keeps `/book` answers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookCacheSettings {
    /// The oldest an answer may be when served; zero turns the cache off.
    pub max_age: Duration,
    /// The most bytes of answers kept (rarely asked ones make room first); zero turns the
    /// cache off.
    pub max_bytes: u64,
}

impl BookCacheSettings {
    /// No cache: every request reads the coordinator.
    pub const OFF: BookCacheSettings = BookCacheSettings {
        max_age: Duration::ZERO,
        max_bytes: 0,
    };
}

impl Default for BookCacheSettings {
    /// Five seconds, 64 MiB: a campaign's new counts show within seconds, and about 20,000
    /// answers fit.
    fn default() -> BookCacheSettings {
        BookCacheSettings {
            max_age: Duration::from_secs(5),
            max_bytes: 64 << 20,
        }
    }
}

/// The JSON bodies of `/book` answers by the exact position asked (answers are in the asker's
/// frame, so turned positions are kept apart).
#[derive(Clone)]
pub(crate) struct BookCache {
    answers: Option<Cache<PositionKey, Bytes>>,
    cache_control: HeaderValue,
}

impl BookCache {
    pub(crate) fn new(settings: BookCacheSettings) -> BookCache {
        let on = !settings.max_age.is_zero() && settings.max_bytes > 0;
        let answers = on.then(|| {
            Cache::builder()
                .time_to_live(settings.max_age)
                .max_capacity(settings.max_bytes)
                .weigher(|_, body: &Bytes| u32::try_from(body.len()).unwrap_or(u32::MAX))
                .build()
        });
        let max_age = if on { settings.max_age } else { Duration::ZERO };
        // Browsers may keep an answer as long as the explorer does.
        let cache_control = match max_age.as_secs() {
            0 => HeaderValue::from_static("no-cache"),
            seconds => HeaderValue::try_from(format!("public, max-age={seconds}"))
                .unwrap_or(HeaderValue::from_static("no-cache")),
        };
        BookCache {
            answers,
            cache_control,
        }
    }

    /// The `Cache-Control` header for an answer: as long as the explorer keeps it.
    pub(crate) fn cache_control(&self) -> HeaderValue {
        self.cache_control.clone()
    }

    /// The answer for `key`: a kept one, or what `fetch` gives (kept unless it failed).
    /// Concurrent misses on one key wait for one fetch and share its outcome.
    pub(crate) async fn get_or_fetch<E>(
        &self,
        key: PositionKey,
        fetch: impl Future<Output = Result<Bytes, E>>,
    ) -> Result<Bytes, E>
    where
        E: Clone + Send + Sync + 'static,
    {
        match &self.answers {
            Some(answers) => answers
                .try_get_with(key, fetch)
                .await
                .map_err(Arc::unwrap_or_clone),
            None => fetch.await,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use tokio::sync::Semaphore;

    use super::*;

    /// A fetch that counts itself and answers `result` once `gate` has a permit.
    async fn fetch(
        fetches: Arc<AtomicU32>,
        gate: Arc<Semaphore>,
        result: Result<&'static str, &'static str>,
    ) -> Result<Bytes, &'static str> {
        fetches.fetch_add(1, Ordering::SeqCst);
        let _permit = gate.acquire().await.expect("the gate stays open");
        result.map(|text| Bytes::from_static(text.as_bytes()))
    }

    /// A counter and an open gate.
    fn counter() -> (Arc<AtomicU32>, Arc<Semaphore>) {
        (
            Arc::default(),
            Arc::new(Semaphore::new(Semaphore::MAX_PERMITS)),
        )
    }

    #[tokio::test]
    async fn a_kept_answer_is_served_without_fetching_and_positions_are_kept_apart() {
        let cache = BookCache::new(BookCacheSettings::default());
        let (fetches, gate) = counter();
        let ask = |key, text| {
            cache.get_or_fetch(
                PositionKey(key),
                fetch(fetches.clone(), gate.clone(), Ok(text)),
            )
        };
        assert_eq!(ask(1, "a").await, Ok(Bytes::from_static(b"a")));
        assert_eq!(ask(1, "b").await, Ok(Bytes::from_static(b"a")));
        assert_eq!(ask(2, "c").await, Ok(Bytes::from_static(b"c")));
        assert_eq!(fetches.load(Ordering::SeqCst), 2);
        assert_eq!(cache.cache_control(), "public, max-age=5");
    }

    #[tokio::test]
    async fn failures_are_not_kept() {
        let cache = BookCache::new(BookCacheSettings::default());
        let (fetches, gate) = counter();
        let failed = cache.get_or_fetch(
            PositionKey(1),
            fetch(fetches.clone(), gate.clone(), Err("down")),
        );
        assert_eq!(failed.await, Err("down"));
        let next = cache.get_or_fetch(PositionKey(1), fetch(fetches.clone(), gate, Ok("a")));
        assert_eq!(next.await, Ok(Bytes::from_static(b"a")));
        assert_eq!(fetches.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn concurrent_misses_on_one_position_share_one_fetch() {
        let cache = BookCache::new(BookCacheSettings::default());
        let fetches = Arc::new(AtomicU32::new(0));
        let gate = Arc::new(Semaphore::new(0));
        let askers: Vec<_> = (0..8)
            .map(|_| {
                let (cache, fetches, gate) = (cache.clone(), fetches.clone(), gate.clone());
                tokio::spawn(async move {
                    cache
                        .get_or_fetch(PositionKey(7), fetch(fetches, gate, Ok("a")))
                        .await
                })
            })
            .collect();
        // The test runtime has one thread: one yield lets every asker reach the cache, and the
        // first one's fetch holds until the gate opens.
        tokio::task::yield_now().await;
        gate.add_permits(1);
        for asker in askers {
            assert_eq!(asker.await.expect("asker"), Ok(Bytes::from_static(b"a")));
        }
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn turned_off_every_request_fetches() {
        for settings in [
            BookCacheSettings::OFF,
            BookCacheSettings {
                max_bytes: 0,
                ..BookCacheSettings::default()
            },
        ] {
            let cache = BookCache::new(settings);
            let (fetches, gate) = counter();
            for _ in 0..3 {
                let answer = cache.get_or_fetch(
                    PositionKey(1),
                    fetch(fetches.clone(), gate.clone(), Ok("a")),
                );
                assert_eq!(answer.await, Ok(Bytes::from_static(b"a")));
            }
            assert_eq!(fetches.load(Ordering::SeqCst), 3);
            assert_eq!(cache.cache_control(), "no-cache");
        }
    }
}
