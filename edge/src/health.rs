//! `grpc.health.v1` for load balancers, container health checks and Kubernetes probes: the
//! coordinator reports NOT_SERVING while it opens (and recovers) its database and again once
//! shutdown begins, SERVING in between. Until the database is open, every coordinator call is
//! answered `UNAVAILABLE`, which workers and clients retry.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use tonic::body::Body;
use tonic::server::NamedService;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

/// The health status every probe asks about: the empty service name, the whole server.
const WHOLE_SERVER: &str = "";

/// Sets what the health service answers, for the whole server and for `S` (the answer a
/// client reads back is its `health::Health`).
#[derive(Clone)]
pub struct HealthSwitch {
    reporter: HealthReporter,
    service: &'static str,
}

impl HealthSwitch {
    /// A health service reporting NOT_SERVING for the server and for the service `S`, and the
    /// handle that changes it.
    pub async fn not_serving<S: NamedService>() -> (
        HealthSwitch,
        tonic_health::pb::health_server::HealthServer<impl tonic_health::pb::health_server::Health>,
    ) {
        let (reporter, server) = tonic_health::server::health_reporter();
        let health = HealthSwitch {
            reporter,
            service: S::NAME,
        };
        health.set(ServingStatus::NotServing).await;
        (health, server)
    }

    /// Reports SERVING.
    pub async fn serving(&self) {
        self.set(ServingStatus::Serving).await;
    }

    /// Reports NOT_SERVING.
    pub async fn stopping(&self) {
        self.set(ServingStatus::NotServing).await;
    }

    async fn set(&self, status: ServingStatus) {
        self.reporter.set_service_status(WHOLE_SERVER, status).await;
        self.reporter.set_service_status(self.service, status).await;
    }
}

/// A gRPC service that exists before its inner service does: calls made before [`Gate::open`]
/// are answered `UNAVAILABLE` without reaching anything.
pub struct Gate<S> {
    inner: Arc<OnceLock<S>>,
}

impl<S> Clone for Gate<S> {
    fn clone(&self) -> Self {
        Gate {
            inner: self.inner.clone(),
        }
    }
}

impl<S> Gate<S> {
    /// A closed gate and the handle that opens it.
    #[must_use]
    pub fn closed() -> (Gate<S>, Arc<OnceLock<S>>) {
        let inner = Arc::new(OnceLock::new());
        (
            Gate {
                inner: inner.clone(),
            },
            inner,
        )
    }
}

impl<S: NamedService> NamedService for Gate<S> {
    const NAME: &'static str = S::NAME;
}

impl<S, B> tower_service::Service<http::Request<Body>> for Gate<S>
where
    S: tower_service::Service<
            http::Request<Body>,
            Response = http::Response<B>,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: tonic::codegen::Body<Data = tonic::codegen::Bytes> + Send + 'static,
    B::Error: Into<tonic::codegen::StdError>,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // The inner services are always ready (tonic's generated servers are).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        match self.inner.get() {
            Some(service) => {
                let response = service.clone().call(request);
                Box::pin(async move { Ok(response.await?.map(Body::new)) })
            }
            None => {
                let status = tonic::Status::unavailable("the coordinator is opening its database");
                Box::pin(std::future::ready(Ok(status.into_http())))
            }
        }
    }
}
