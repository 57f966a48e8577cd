//! `--metrics-listen`: Prometheus text at `GET /metrics` over plain HTTP, rendered at each scrape.

use axum::http::header::CONTENT_TYPE;

/// The content type of what `prometheus_client` writes.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Binds `address` and serves `render()` at `/metrics` from a task; returns the bound address.
pub async fn start(
    address: &str,
    render: impl Fn() -> String + Clone + Send + Sync + 'static,
) -> anyhow::Result<std::net::SocketAddr> {
    use anyhow::Context;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("listening for metrics on {address}"))?;
    let bound = listener.local_addr()?;
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let render = render.clone();
            async move { ([(CONTENT_TYPE, OPENMETRICS)], render()) }
        }),
    );
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            tracing::error!(%error, "metrics endpoint stopped");
        }
    });
    tracing::info!(address = %bound, "serving metrics at /metrics");
    Ok(bound)
}
