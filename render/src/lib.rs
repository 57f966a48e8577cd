//! `pentagrid-render`: the pages pentagrid writes for people, as self-contained HTML (inline CSS,
//! SVG boards, no scripts): a puzzle collection ([`collection_html`]) and an opening study
//! ([`study_html`]), each from the plain report the client library's workflow returns. Kept
//! apart from the client so that the library that talks to a cluster carries no page layout.

mod collection;
mod study;
pub mod svg;

pub use collection::collection_html;
pub use study::study_html;
