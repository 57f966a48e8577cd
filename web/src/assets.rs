//! The pages and their scripts and styles, compiled into the binary.

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::AppState;

/// A file served as is.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

macro_rules! asset {
    ($name:literal, $content_type:expr) => {
        Asset {
            name: $name,
            content_type: $content_type,
            body: include_str!(concat!("../assets/", $name)),
        }
    };
}

/// Everything under `/assets/`.
const ASSETS: &[Asset] = &[
    asset!("style.css", CSS),
    asset!("common.js", JS),
    asset!("board.js", JS),
    asset!("chart.js", JS),
    asset!("exact.js", JS),
    asset!("game.js", JS),
    asset!("explorer.js", JS),
    asset!("puzzles.js", JS),
    asset!("matches.js", JS),
    asset!("tunes.js", JS),
    asset!("ratings.js", JS),
    asset!("cluster.js", JS),
    asset!("solitaire.js", JS),
];

/// The pages, by path.
const PAGES: &[(&str, Asset)] = &[
    ("/", asset!("explorer.html", HTML)),
    ("/puzzles", asset!("puzzles.html", HTML)),
    ("/matches", asset!("matches.html", HTML)),
    ("/tunes", asset!("tunes.html", HTML)),
    ("/game", asset!("game.html", HTML)),
    ("/ratings", asset!("ratings.html", HTML)),
    ("/cluster", asset!("cluster.html", HTML)),
    ("/solitaire", asset!("solitaire.html", HTML)),
];

fn respond(asset: &Asset) -> Response {
    (
        [
            (header::CONTENT_TYPE, asset.content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        asset.body,
    )
        .into_response()
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|asset| asset.name == name) {
        Some(asset) => respond(asset),
        None => (StatusCode::NOT_FOUND, "no such asset").into_response(),
    }
}

/// The page and asset routes.
pub fn routes() -> Router<AppState> {
    let mut router = Router::new().route("/assets/{name}", get(asset));
    for (path, page) in PAGES {
        router = router.route(path, get(|| async { respond(page) }));
    }
    router
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_loads_only_assets_that_exist() {
        for (path, page) in PAGES {
            for part in page.body.split("/assets/").skip(1) {
                let name = part.split('"').next().unwrap_or_default();
                assert!(
                    ASSETS.iter().any(|asset| asset.name == name),
                    "{path} loads a missing asset {name:?}"
                );
            }
        }
    }
}
