//! Refusals made before or instead of a handler — a method a route does not take, a page or
//! asset that does not exist, a URI or header block too long, a request hyper cannot read at
//! all — answered as the API's JSON errors (`{"error": {"code", "message"}}`), never as empty
//! bodies.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::api::{ApiError, Unreadable};
pub use crate::api::{MAX_HEADER_BYTES, MAX_URI_BYTES};

/// Refuses over-long URIs and header blocks, and rewrites the bodiless refusals of the
/// router (404, 405) and of layers (414, 431) as JSON errors.
pub async fn json_refusals(request: Request, next: Next) -> Response {
    let uri_bytes = request.uri().to_string().len();
    if uri_bytes > MAX_URI_BYTES {
        return ApiError::UriTooLong {
            bytes: uri_bytes,
            max: MAX_URI_BYTES,
        }
        .into_response();
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return ApiError::HeadersTooLarge {
            bytes: header_bytes,
            max: MAX_HEADER_BYTES,
        }
        .into_response();
    }
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let response = next.run(request).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"application/json"));
    if is_json {
        return response;
    }
    let error = match response.status() {
        StatusCode::NOT_FOUND => ApiError::NoRoute(path),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed(method.to_string()),
        StatusCode::URI_TOO_LONG => ApiError::UriTooLong {
            bytes: uri_bytes,
            max: MAX_URI_BYTES,
        },
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => ApiError::HeadersTooLarge {
            bytes: header_bytes,
            max: MAX_HEADER_BYTES,
        },
        _ => return response,
    };
    let mut refusal = error.into_response();
    // Keep what the router said about the methods a route takes.
    if let Some(allow) = response.headers().get(header::ALLOW) {
        refusal.headers_mut().insert(header::ALLOW, allow.clone());
    }
    refusal
}

/// The heads hyper writes, with no body, when it cannot read a request (it then closes the
/// connection): the status line each starts with, and why.
const HYPER_REFUSALS: [(&[u8], Unreadable); 3] = [
    (b"HTTP/1.1 400 Bad Request\r\n", Unreadable::Malformed),
    (b"HTTP/1.1 414 URI Too Long\r\n", Unreadable::UriTooLong),
    (
        b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
        Unreadable::HeadersTooLarge,
    ),
];

/// Which of hyper's bodiless refusals `head` is, if it is one: one of their status lines, an
/// empty body, and the whole head in this one write. (The router's own answers with these
/// statuses always have JSON bodies.)
fn hyper_refusal(head: &[u8]) -> Option<Unreadable> {
    let (_, why) = HYPER_REFUSALS
        .iter()
        .find(|(line, _)| head.starts_with(line))?;
    let empty = head
        .windows(b"\r\ncontent-length: 0\r\n".len())
        .any(|w| w.eq_ignore_ascii_case(b"\r\ncontent-length: 0\r\n"));
    (empty && head.ends_with(b"\r\n\r\n")).then_some(*why)
}

/// The JSON answer written instead of hyper's bodiless refusal.
fn json_refusal(why: Unreadable) -> Vec<u8> {
    let (status, body) = ApiError::Unreadable(why).status_and_json();
    let mut answer = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    answer
}

/// A connection whose writes pass through, except hyper's bodiless refusals of requests it
/// cannot read (400, 414, 431), which become the API's JSON errors.
pub struct JsonHeadRefusals<S> {
    inner: S,
    /// A JSON refusal still to write, and how much of it is written.
    refusal: Option<(Vec<u8>, usize)>,
}

impl<S: AsyncWrite + Unpin> JsonHeadRefusals<S> {
    /// Wraps `inner`.
    pub fn new(inner: S) -> JsonHeadRefusals<S> {
        JsonHeadRefusals {
            inner,
            refusal: None,
        }
    }

    /// Writes what is left of a JSON refusal.
    fn poll_refusal(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((answer, written)) = &mut self.refusal {
            if *written == answer.len() {
                self.refusal = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &answer[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }

    /// Takes `head` as written if it is one of hyper's refusals, queuing its JSON answer.
    fn replaced(&mut self, head: &[u8], cx: &mut Context<'_>) -> Option<Poll<io::Result<usize>>> {
        let why = hyper_refusal(head)?;
        self.refusal = Some((json_refusal(why), 0));
        // Written (or queued for the flush hyper makes next).
        Some(match self.poll_refusal(cx) {
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            _ => Poll::Ready(Ok(head.len())),
        })
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonHeadRefusals<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for JsonHeadRefusals<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_refusal(cx))?;
        if let Some(done) = self.replaced(buf, cx) {
            return done;
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_refusal(cx))?;
        // hyper writes a bodiless head as one slice.
        if let [head] = bufs
            && let Some(done) = self.replaced(head, cx)
        {
            return done;
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_refusal(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_refusal(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hyper_s_bodiless_refusals_are_recognised() {
        let head = |status: &str, length: &str| {
            format!("HTTP/1.1 {status}\r\ncontent-length: {length}\r\ndate: x\r\n\r\n")
        };
        assert_eq!(
            hyper_refusal(head("431 Request Header Fields Too Large", "0").as_bytes()),
            Some(Unreadable::HeadersTooLarge)
        );
        assert_eq!(
            hyper_refusal(head("400 Bad Request", "0").as_bytes()),
            Some(Unreadable::Malformed)
        );
        assert_eq!(
            hyper_refusal(head("400 Bad Request", "57").as_bytes()),
            None
        );
        assert_eq!(hyper_refusal(head("404 Not Found", "0").as_bytes()), None);
        assert_eq!(
            hyper_refusal(b"HTTP/1.1 414 URI Too Long\r\ncontent-"),
            None
        );
    }

    #[test]
    fn the_json_refusal_is_a_whole_answer() {
        let answer = String::from_utf8(json_refusal(Unreadable::UriTooLong)).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["error"]["code"], "uri_too_long");
        assert!(json["error"]["message"].as_str().unwrap().contains("8192"));
    }
}
