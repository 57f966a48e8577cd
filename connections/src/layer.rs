//! The service layer that counts a connection as one that made a request when a request
//! from it reaches the server's services (for servers over tonic, which put each
//! connection's [`ConnectionInfo`] in its requests' extensions).

use std::task::{Context, Poll};

use super::ConnectionInfo;

/// Wraps a service so that each request proves its connection (see [`Proof`](super::Proof)).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProveLayer;

impl<S> tower_layer::Layer<S> for ProveLayer {
    type Service = Proving<S>;

    fn layer(&self, inner: S) -> Proving<S> {
        Proving { inner }
    }
}

/// A service whose requests prove their connections.
#[derive(Clone, Debug)]
pub struct Proving<S> {
    inner: S,
}

impl<S, B> tower_service::Service<http::Request<B>> for Proving<S>
where
    S: tower_service::Service<http::Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if let Some(info) = request.extensions().get::<ConnectionInfo>() {
            info.proof.prove();
        }
        self.inner.call(request)
    }
}
