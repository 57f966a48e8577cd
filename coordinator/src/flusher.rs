//! Group commit: results are acknowledged only once durable, and concurrent submissions share
//! one flush instead of paying for one each.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use pentagrid_store::Store;

type Waiter = oneshot::Sender<Result<(), String>>;

/// Hands out "durable now" notifications.
#[derive(Clone)]
pub struct Flusher {
    waiters: mpsc::UnboundedSender<Waiter>,
}

impl Flusher {
    /// Starts the flushing task on the current tokio runtime.
    #[must_use]
    pub fn start(store: Arc<Store>) -> Flusher {
        let (waiters, mut incoming) = mpsc::unbounded_channel::<Waiter>();
        tokio::spawn(async move {
            while let Some(first) = incoming.recv().await {
                let mut batch = vec![first];
                while let Ok(more) = incoming.try_recv() {
                    batch.push(more);
                }
                let result = store.flush().await.map_err(|e| e.to_string());
                for waiter in batch {
                    let _ = waiter.send(result.clone());
                }
            }
        });
        Flusher { waiters }
    }

    /// Waits until everything written before this call is on disk.
    pub async fn durable(&self) -> Result<(), String> {
        let (done, wait) = oneshot::channel();
        self.waiters
            .send(done)
            .map_err(|_| "the flusher has stopped".to_owned())?;
        wait.await
            .map_err(|_| "the flusher has stopped".to_owned())?
    }
}
