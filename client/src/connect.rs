//! Reaching a coordinator: the token from its file, the TLS authority, one client.

use std::path::Path;

use pentagrid_proto::Client;

use crate::error::{ClientError, Result};

/// The token in the first line of the file at `path` (printable ASCII, no spaces).
pub fn read_token(path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ClientError::Token(format!("reading token file {}: {e}", path.display())))?;
    let token = text.lines().next().unwrap_or("").trim().to_owned();
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ClientError::Token(format!(
            "token file {} must hold a token (printable ASCII, no spaces) on its first line",
            path.display()
        )));
    }
    if token.len() > pentagrid_proto::MAX_TOKEN_BYTES {
        return Err(ClientError::Token(format!(
            "the token in {} is {} bytes long; at most {} are allowed",
            path.display(),
            token.len(),
            pentagrid_proto::MAX_TOKEN_BYTES
        )));
    }
    Ok(token)
}

/// A client of the coordinator at `url` with `token`, checking an `https://` coordinator
/// against the PEM authority `tls_ca`. Connects on first use; must be called in a tokio runtime.
pub fn connect(url: &str, token: &str, tls_ca: Option<&[u8]>) -> Result<Client> {
    Ok(pentagrid_proto::connect(url, token, tls_ca)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_come_from_the_first_line_and_must_be_printable() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good");
        std::fs::write(&good, "s3cret \nignored\n").unwrap();
        assert_eq!(read_token(&good).unwrap(), "s3cret");
        let bad = dir.path().join("bad");
        std::fs::write(&bad, "two words\n").unwrap();
        assert!(
            read_token(&bad)
                .unwrap_err()
                .to_string()
                .contains("must hold a token")
        );
        let long = dir.path().join("long");
        std::fs::write(&long, "t".repeat(133_000)).unwrap();
        assert!(
            read_token(&long)
                .unwrap_err()
                .to_string()
                .contains("133000 bytes")
        );
        assert!(matches!(
            read_token(&dir.path().join("missing")),
            Err(ClientError::Token(_))
        ));
    }
}
