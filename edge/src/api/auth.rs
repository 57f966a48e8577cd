//! Authentication and authorisation of every call, before any handler runs: the protocol
//! version, a bearer token naming what the caller may do and, for a user's own token, who the
//! caller is ([`Credentials`], [`User`]), and the role the called method requires
//! ([`super::roles`]). Tokens are compared in constant time and never logged.

use std::sync::Arc;
use std::task::{Context, Poll};

use pentagrid_proto::v2::ErrorReason;
use pentagrid_proto::{PROTOCOL_HEADER, PROTOCOL_VERSION};
use tonic::Status;
use tonic::body::Body;
use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::NamedService;

use super::roles::{Grant, Role, required_role};
use pentagrid_coordinator::identity::same_secret;

/// Why a call was refused before reaching a handler.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The caller speaks another protocol version.
    #[error(
        "incompatible protocol {0:?}: this coordinator speaks pentagrid protocol {PROTOCOL_VERSION}"
    )]
    Protocol(String),
    /// The caller sent no protocol version.
    #[error(
        "missing {PROTOCOL_HEADER} header: this coordinator speaks pentagrid protocol {PROTOCOL_VERSION}"
    )]
    NoProtocol,
    /// The token is wrong.
    #[error("wrong token")]
    WrongToken,
    /// There is no token.
    #[error("missing token (authorization: Bearer <token>)")]
    NoToken,
    /// The token is right but does not grant the role the method needs.
    #[error("{method} needs the {needed} role; this token has {held}")]
    WrongRole {
        /// The method called.
        method: String,
        /// The role it needs.
        needed: Role,
        /// What the caller's token grants.
        held: Grant,
    },
    /// The method is not open to any role (not in the role table).
    #[error("{0} is not open to any role")]
    Unlisted(String),
}

/// Why a set of tokens cannot serve.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    /// No token at all: the coordinator would refuse everything.
    #[error("no token given: a coordinator needs at least one token")]
    None,
    /// A token is empty.
    #[error("the token for {0} is empty")]
    Empty(Grant),
    /// A token is longer than any client can send in a header.
    #[error("the token for {0} is {1} bytes long; at most {max} are allowed", max = pentagrid_proto::MAX_TOKEN_BYTES)]
    TooLong(Grant, usize),
    /// A token holds characters an HTTP header cannot carry.
    #[error("the token for {0} must be printable ASCII without spaces")]
    Unprintable(Grant),
    /// The same token was given twice: a caller holding it would have two meanings.
    #[error(
        "the same token is given for {0} and for {1}: each role needs its own token (one token for every role is --token-file)"
    )]
    Shared(Grant, Grant),
    /// A user's name is not a name.
    #[error("user name {0:?} must be 1 to {MAX_USER_NAME} letters, digits, '.', '_' or '-'")]
    BadUser(String),
    /// A user is given twice.
    #[error("user {0} is given twice: each user has one token")]
    DuplicateUser(String),
    /// A user's token cannot be sent in a header.
    #[error(
        "the token of user {0} must be 1 to {max} printable ASCII characters without spaces",
        max = pentagrid_proto::MAX_TOKEN_BYTES
    )]
    BadUserToken(String),
    /// A user's token is also given for a role or another user.
    #[error(
        "the token of user {0} is also given for a role or another user: each user needs a token of their own"
    )]
    SharedUser(String),
}

/// Longest user name.
pub const MAX_USER_NAME: usize = 64;

/// The user a call's token names, put in the request's extensions by the guard (never taken
/// from anything the caller sends but the token): the matches and tuning runs it creates are
/// this user's. Calls made with a token naming no user carry none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User(pub Arc<str>);

/// One accepted token: `Bearer <token>` as the caller sends it, its grant, and the user it
/// names, if any.
#[derive(Clone)]
struct Bearer {
    header: String,
    grant: Grant,
    user: Option<User>,
}

/// The tokens a coordinator accepts, what each grants and whose each is.
#[derive(Clone)]
pub struct Credentials {
    bearers: Vec<Bearer>,
}

/// Shows the grants and users only: a token must never reach a log.
impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grants: Vec<(Grant, Option<&str>)> = self
            .bearers
            .iter()
            .map(|b| (b.grant, b.user.as_ref().map(|u| &*u.0)))
            .collect();
        f.debug_struct("Credentials")
            .field("grants", &grants)
            .finish_non_exhaustive()
    }
}

/// Whether `name` may name a user.
fn valid_user(name: &str) -> bool {
    (1..=MAX_USER_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

impl Credentials {
    /// Accepts each `(grant, token)`; every token must be non-empty and distinct.
    pub fn new(tokens: Vec<(Grant, String)>) -> Result<Credentials, CredentialError> {
        if tokens.is_empty() {
            return Err(CredentialError::None);
        }
        for (i, (grant, token)) in tokens.iter().enumerate() {
            if token.is_empty() {
                return Err(CredentialError::Empty(*grant));
            }
            if token.len() > pentagrid_proto::MAX_TOKEN_BYTES {
                return Err(CredentialError::TooLong(*grant, token.len()));
            }
            if !token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(CredentialError::Unprintable(*grant));
            }
            if let Some((first, _)) = tokens[..i].iter().find(|(_, earlier)| earlier == token) {
                return Err(CredentialError::Shared(*first, *grant));
            }
        }
        let bearers = tokens
            .into_iter()
            .map(|(grant, token)| Bearer {
                header: format!("Bearer {token}"),
                grant,
                user: None,
            })
            .collect();
        Ok(Credentials { bearers })
    }

    /// Adds each `(user, token)`: a token of the admin role naming its user, so that what it
    /// creates is that user's. Names must be valid and distinct, tokens distinct from every
    /// other token.
    pub fn with_users(
        mut self,
        users: Vec<(String, String)>,
    ) -> Result<Credentials, CredentialError> {
        for (user, token) in users {
            if !valid_user(&user) {
                return Err(CredentialError::BadUser(user));
            }
            let named = |b: &Bearer| b.user.as_ref().is_some_and(|u| *u.0 == *user);
            if self.bearers.iter().any(named) {
                return Err(CredentialError::DuplicateUser(user));
            }
            if token.is_empty()
                || token.len() > pentagrid_proto::MAX_TOKEN_BYTES
                || !token.bytes().all(|b| b.is_ascii_graphic())
            {
                return Err(CredentialError::BadUserToken(user));
            }
            let header = format!("Bearer {token}");
            if self.bearers.iter().any(|b| b.header == header) {
                return Err(CredentialError::SharedUser(user));
            }
            self.bearers.push(Bearer {
                header,
                grant: Grant::Role(Role::Admin),
                user: Some(User(user.into())),
            });
        }
        Ok(self)
    }

    /// One token for every role (one-person setups, embedded clusters).
    pub fn all_roles(token: &str) -> Result<Credentials, CredentialError> {
        Credentials::new(vec![(Grant::All, token.to_owned())])
    }

    /// What the `authorization` value `given` grants, and the user it names. Every token is
    /// compared in full, so timing reveals neither how much of a token matched nor which one
    /// did.
    fn bearer_of(&self, given: &str) -> Option<&Bearer> {
        self.bearers.iter().fold(None, |found, bearer| {
            let matches = same_secret(given.as_bytes(), bearer.header.as_bytes());
            if matches { Some(bearer) } else { found }
        })
    }

    /// What the `authorization` value `given` grants.
    #[cfg(test)]
    fn grant_of(&self, given: &str) -> Option<Grant> {
        self.bearer_of(given).map(|b| b.grant)
    }
}

/// Checks one call's metadata: protocol version first (so an old peer learns why), then the
/// token, then the role `method` (the last segment of the path) needs; returns what the
/// caller's token grants and the user it names.
fn authorize(
    credentials: &Credentials,
    headers: &http::HeaderMap,
    method: &str,
) -> Result<(Grant, Option<User>), AuthError> {
    let protocol = headers.get(PROTOCOL_HEADER).and_then(|v| v.to_str().ok());
    match protocol.map(str::parse::<u32>) {
        Some(Ok(PROTOCOL_VERSION)) => {}
        Some(_) => return Err(AuthError::Protocol(protocol.unwrap_or_default().to_owned())),
        None => return Err(AuthError::NoProtocol),
    }
    let given = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .ok_or(AuthError::NoToken)?;
    let bearer = credentials.bearer_of(given).ok_or_else(|| {
        tracing::warn!(method, "call with a wrong token refused");
        AuthError::WrongToken
    })?;
    let held = bearer.grant;
    let needed = required_role(method).ok_or_else(|| AuthError::Unlisted(method.to_owned()))?;
    if held.allows(needed) {
        Ok((held, bearer.user.clone()))
    } else {
        tracing::warn!(method, %needed, %held, "call without the needed role refused");
        Err(AuthError::WrongRole {
            method: method.to_owned(),
            needed,
            held,
        })
    }
}

/// A gRPC service behind [`authorize`]: refused calls never reach it.
#[derive(Clone)]
pub struct Guarded<S> {
    inner: S,
    credentials: Arc<Credentials>,
}

impl<S> Guarded<S> {
    /// `inner`, open to callers holding `credentials` with the role each method needs.
    pub fn new(inner: S, credentials: Credentials) -> Guarded<S> {
        Guarded {
            inner,
            credentials: Arc::new(credentials),
        }
    }
}

impl<S: NamedService> NamedService for Guarded<S> {
    const NAME: &'static str = S::NAME;
}

impl<S, B> Service<http::Request<B>> for Guarded<S>
where
    S: Service<http::Request<B>, Response = http::Response<Body>> + NamedService,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        // Paths are `/<package.Service>/<Method>`; anything else names no listed method.
        let path = request.uri().path();
        let method = path
            .strip_prefix('/')
            .and_then(|rest| rest.strip_prefix(S::NAME))
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(path);
        match authorize(&self.credentials, request.headers(), method) {
            Ok((held, user)) => {
                // For handlers that count per credential (open watches).
                request.extensions_mut().insert(held);
                // For handlers that record who created something (matches, tuning runs).
                if let Some(user) = user {
                    request.extensions_mut().insert(user);
                }
                let answer = self.inner.call(request);
                Box::pin(async move {
                    let mut response = answer.await?;
                    explain_transport_refusal(&mut response);
                    Ok(response)
                })
            }
            Err(refusal) => {
                let response = Status::from(refusal).into_http();
                Box::pin(std::future::ready(Ok(response)))
            }
        }
    }
}

/// Explains the transport's own refusals, which carry no details (the coordinator's own
/// errors always carry a reason, so they are never taken for one): an oversized request
/// (OUT_OF_RANGE) gets the [`ErrorReason::TooLarge`] reason and a message that says what to
/// do; a request that does not decode (INTERNAL: a string field that is not UTF-8, a truncated
/// message, a wrong wire type) gets INVALID_ARGUMENT and the [`ErrorReason::InvalidArgument`]
/// reason, since it is the caller's request that is wrong, not the coordinator.
fn explain_transport_refusal(response: &mut http::Response<Body>) {
    let Some(status) = Status::from_header_map(response.headers()) else {
        return;
    };
    if !status.details().is_empty() {
        return;
    }
    let said = super::quote::prefix(status.message(), 200);
    let explained = match status.code() {
        tonic::Code::OutOfRange => pentagrid_proto::error_status(
            tonic::Code::OutOfRange,
            ErrorReason::TooLarge,
            format!(
                "the request is over the {} byte message cap: send it in smaller parts ({said})",
                pentagrid_proto::MAX_MESSAGE_BYTES,
            ),
        ),
        tonic::Code::Internal => pentagrid_proto::error_status(
            tonic::Code::InvalidArgument,
            ErrorReason::InvalidArgument,
            format!(
                "the request does not decode as its message (every string field must be UTF-8): {said}"
            ),
        ),
        _ => return,
    };
    let _ = explained.add_header(response.headers_mut());
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_proto::reason_of;
    use tonic::Code;

    fn headers(token: Option<&str>, protocol: Option<&str>) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        if let Some(t) = token {
            h.insert("authorization", t.parse().unwrap());
        }
        if let Some(p) = protocol {
            h.insert(PROTOCOL_HEADER, p.parse().unwrap());
        }
        h
    }

    fn refusal(
        credentials: &Credentials,
        h: &http::HeaderMap,
        method: &str,
    ) -> (Code, ErrorReason) {
        let status = Status::from(authorize(credentials, h, method).unwrap_err());
        (status.code(), reason_of(&status))
    }

    #[test]
    fn token_and_protocol_are_required() {
        let all = Credentials::all_roles("s3cret").unwrap();
        assert!(authorize(&all, &headers(Some("Bearer s3cret"), Some("2")), "Status").is_ok());
        let unauthenticated = (Code::Unauthenticated, ErrorReason::Unauthenticated);
        let mismatch = (Code::FailedPrecondition, ErrorReason::ProtocolMismatch);
        for (h, expected) in [
            (headers(None, Some("2")), unauthenticated),
            (headers(Some("Bearer nope"), Some("2")), unauthenticated),
            (headers(Some("s3cret"), Some("2")), unauthenticated),
            (headers(Some("Bearer s3cret"), Some("1")), mismatch),
            (headers(Some("Bearer s3cret"), None), mismatch),
        ] {
            assert_eq!(refusal(&all, &h, "Status"), expected, "{h:?}");
        }
    }

    #[test]
    fn each_token_reaches_exactly_its_roles_and_unlisted_methods_nobody() {
        let credentials = Credentials::new(vec![
            (Grant::Role(Role::Worker), "w".into()),
            (Grant::Role(Role::Admin), "a".into()),
            (Grant::Role(Role::Read), "r".into()),
        ])
        .unwrap();
        let forbidden = (Code::PermissionDenied, ErrorReason::Forbidden);
        for (token, method, allowed) in [
            ("w", "Lease", true),
            ("w", "SubmitJobs", false),
            ("w", "Status", false),
            ("a", "SubmitJobs", true),
            ("a", "Status", true),
            ("a", "Submit", false),
            ("r", "GetGames", true),
            ("r", "BookImport", false),
            ("r", "Heartbeat", false),
        ] {
            let h = headers(Some(&format!("Bearer {token}")), Some("2"));
            match allowed {
                true => assert!(
                    authorize(&credentials, &h, method).is_ok(),
                    "{token} {method}"
                ),
                false => assert_eq!(refusal(&credentials, &h, method), forbidden),
            }
        }
        let h = headers(Some("Bearer a"), Some("2"));
        let message = authorize(&credentials, &h, "Submit")
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "Submit needs the worker role; this token has the admin role"
        );
        assert_eq!(refusal(&credentials, &h, "Unlisted"), forbidden);
    }

    #[test]
    fn credentials_need_a_token_and_distinct_tokens() {
        let worker = Grant::Role(Role::Worker);
        let read = Grant::Role(Role::Read);
        assert_eq!(Credentials::new(vec![]).unwrap_err(), CredentialError::None);
        assert_eq!(
            Credentials::new(vec![(worker, String::new())]).unwrap_err(),
            CredentialError::Empty(worker)
        );
        assert_eq!(
            Credentials::new(vec![(worker, "t".into()), (read, "t".into())]).unwrap_err(),
            CredentialError::Shared(worker, read)
        );
        assert_eq!(
            Credentials::new(vec![(Grant::All, "t".into()), (read, "t".into())]).unwrap_err(),
            CredentialError::Shared(Grant::All, read)
        );
        assert_eq!(
            Credentials::new(vec![(worker, "t".repeat(133_000))]).unwrap_err(),
            CredentialError::TooLong(worker, 133_000)
        );
        assert_eq!(
            Credentials::new(vec![(worker, "t\nx".into())]).unwrap_err(),
            CredentialError::Unprintable(worker)
        );
        let both = Credentials::new(vec![(Grant::All, "t".into()), (worker, "u".into())]).unwrap();
        assert_eq!(both.grant_of("Bearer u"), Some(worker));
        assert_eq!(both.grant_of("Bearer t"), Some(Grant::All));
        assert_eq!(both.grant_of("Bearer tt"), None);
        let shown = format!("{both:?}");
        assert!(
            !shown.contains("\"t\"") && !shown.contains("Bearer"),
            "{shown}"
        );
    }

    #[test]
    fn user_tokens_are_admin_tokens_naming_their_user() {
        let credentials = Credentials::new(vec![(Grant::Role(Role::Worker), "w".into())])
            .unwrap()
            .with_users(vec![
                ("ann".into(), "a1".into()),
                ("bob".into(), "b1".into()),
            ])
            .unwrap();
        let h = headers(Some("Bearer b1"), Some("2"));
        let (grant, user) = authorize(&credentials, &h, "CreateMatch").unwrap();
        assert_eq!(
            (grant, user),
            (Grant::Role(Role::Admin), Some(User("bob".into())))
        );
        let h = headers(Some("Bearer w"), Some("2"));
        assert_eq!(authorize(&credentials, &h, "Lease").unwrap().1, None);
        let h = headers(Some("Bearer a1"), Some("2"));
        assert!(authorize(&credentials, &h, "Lease").is_err());
        assert!(!format!("{credentials:?}").contains("a1"));
    }

    #[test]
    fn bad_user_tokens_are_refused_by_name() {
        let base = || Credentials::all_roles("t").unwrap();
        let users = |list: &[(&str, &str)]| {
            let list = list
                .iter()
                .map(|(u, t)| ((*u).into(), (*t).into()))
                .collect();
            base().with_users(list).unwrap_err()
        };
        assert_eq!(users(&[("", "x")]), CredentialError::BadUser(String::new()));
        assert_eq!(
            users(&[("a b", "x")]),
            CredentialError::BadUser("a b".into())
        );
        assert_eq!(
            users(&[("ann", "x"), ("ann", "y")]),
            CredentialError::DuplicateUser("ann".into())
        );
        assert_eq!(
            users(&[("ann", "")]),
            CredentialError::BadUserToken("ann".into())
        );
        assert_eq!(
            users(&[("ann", "t")]),
            CredentialError::SharedUser("ann".into())
        );
        assert_eq!(
            users(&[("ann", "x"), ("bob", "x")]),
            CredentialError::SharedUser("bob".into())
        );
        let message = users(&[("ann", "t")]).to_string();
        assert!(message.contains("user ann"), "{message}");
    }
}
