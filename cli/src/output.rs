//! Everything the commands print goes through here, so that no write can panic: a failed write
//! to standard output is an error the command returns (a closed pipe among them, which `main`
//! turns into a quiet exit), and a failed write to standard error is dropped (there is nowhere
//! left to say so).

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};

/// Writes one formatted line to standard output, returning from the enclosing function with the
/// error when the write fails.
macro_rules! outln {
    () => {
        $crate::output::line(format_args!(""))?
    };
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))?
    };
}

/// Writes formatted text to standard output, returning from the enclosing function with the
/// error when the write fails.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::text(format_args!($($arg)*))?
    };
}

/// Writes one formatted line to standard error; a failure is dropped, never a panic.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::error_line(format_args!($($arg)*))
    };
}

pub(crate) use {errln, out, outln};

const WRITING: &str = "cannot write to standard output";

/// One line on standard output.
pub fn line(args: fmt::Arguments<'_>) -> Result<()> {
    io_line(args).context(WRITING)
}

/// One line on standard output from a workflow's progress callback: a failure (the reader
/// went away) stops the workflow, with the [`io::Error`] as its reason.
pub fn progress_line(args: fmt::Arguments<'_>) -> pentagrid_client::ProgressResult {
    Ok(io_line(args)?)
}

/// One line on standard output, reporting an [`io::Error`].
pub fn io_line(args: fmt::Arguments<'_>) -> io::Result<()> {
    let mut stdout = stdout();
    stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(b"\n"))
}

/// Set once a write to standard output found its reader gone.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard output for everything a command prints: it notes a closed pipe, so that `main` can
/// tell the quiet end of a pipeline from a broken pipe anywhere else (a connection reset in the
/// middle of a call is an error like any other).
pub struct Stdout(io::StdoutLock<'static>);

/// Standard output, locked, noting a closed pipe (see [`Stdout`]).
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

fn noted<T>(result: io::Result<T>) -> io::Result<T> {
    if let Err(error) = &result
        && error.kind() == io::ErrorKind::BrokenPipe
    {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
    result
}

impl Write for Stdout {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        noted(self.0.write(bytes))
    }

    fn flush(&mut self) -> io::Result<()> {
        noted(self.0.flush())
    }
}

/// `error` as a command that printed through its own [`Write`] reports it: a failed write says
/// it was writing to standard output (a closed pipe stays recognisable under the context).
pub fn writing(error: anyhow::Error) -> anyhow::Error {
    if error.is::<io::Error>() {
        error.context(WRITING)
    } else {
        error
    }
}

/// Text on standard output, as it is.
pub fn text(args: fmt::Arguments<'_>) -> Result<()> {
    stdout().write_fmt(args).context(WRITING)
}

/// Flushes standard output, so that a failure to write what is buffered is reported, not lost
/// at exit.
pub fn flush() -> Result<()> {
    stdout().flush().context(WRITING)
}

/// One line on standard error, if it can be written.
pub fn error_line(args: fmt::Arguments<'_>) {
    let mut stderr = io::stderr().lock();
    let _ = stderr
        .write_fmt(args)
        .and_then(|()| stderr.write_all(b"\n"));
}

/// Most characters of peer-supplied text shown in one place.
const PEER_CHARS: usize = 64;

/// Text that came from the network (worker names and ids, player strings, reasons) as a
/// terminal may show it: control characters (ESC, newlines...) escaped, so that a peer can neither
/// drive the admin's terminal nor forge lines, and at most [`PEER_CHARS`] characters.
pub fn peer(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * PEER_CHARS));
    for (index, c) in text.chars().enumerate() {
        if index == PEER_CHARS {
            out.push_str(&format!("… ({} bytes)", text.len()));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Text that came from the network, escaped as [`peer`] escapes it but never cut: for what
/// must be shown whole (a player's full specification on request).
pub fn peer_full(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A stored player (`NAME=SPEC` or `SPEC`) as tables show it: its name, or the short form of
/// its specification ([`pentago::player_label`]), escaped, never cut.
pub fn player(text: &str) -> String {
    peer_full(&pentago::player_label(text))
}

/// A stored player's full specification (without its name); text that does not read as a
/// player is its own specification. Not escaped: for JSON, or [`peer_full`] first.
pub fn player_spec(text: &str) -> String {
    text.parse::<pentago::NamedPlayer>()
        .map_or_else(|_| text.to_owned(), |p| p.spec())
}

/// Labels for a table column `width` characters wide: a label that fits is shown as it is; a
/// longer one is shown as `#N` and listed whole under the table ([`Legend::print`]), so that
/// nothing is cut silently.
pub struct Legend {
    width: usize,
    long: Vec<String>,
}

impl Legend {
    /// A legend for a column of `width` characters.
    pub fn new(width: usize) -> Legend {
        Legend {
            width,
            long: Vec::new(),
        }
    }

    /// What the column shows for `label` (escaped).
    pub fn label(&mut self, label: &str) -> String {
        let shown = peer_full(label);
        if shown.chars().count() <= self.width {
            return shown;
        }
        let index = match self.long.iter().position(|l| *l == shown) {
            Some(index) => index,
            None => {
                self.long.push(shown);
                self.long.len() - 1
            }
        };
        format!("#{}", index + 1)
    }

    /// The long labels, one a line (`#1 = ...`), after the table.
    pub fn print(&self) -> Result<()> {
        for (index, label) in self.long.iter().enumerate() {
            line(format_args!("#{} = {label}", index + 1))?;
        }
        Ok(())
    }
}

/// `x` with its sign and `decimals` decimals (`+12`, `-3.5`, `+inf`), a value that rounds to
/// zero always as `+0` (never `-0`: an even score is no loss).
pub fn signed(x: f64, decimals: usize) -> String {
    let text = format!("{x:+.decimals$}");
    match text.strip_prefix('-') {
        Some(digits) if digits.chars().all(|c| c == '0' || c == '.') => format!("+{digits}"),
        _ => text,
    }
}

/// Whether the error is a write to standard output whose reader went away (`head`, a closed
/// pager): the conventional quiet end of a command in a pipeline. A broken pipe while standard
/// output is open (a socket the coordinator closed mid-call) is an error like any other.
/// `error` and its causes as `{error:#}` prints them, the libraries' refusals in the command
/// line's words: a parameter by its flag (`--pairs`), a short puzzle round with the flags that
/// would find more, a database that lost data with the commands that restore it or accept the
/// loss.
pub fn in_flags(error: &anyhow::Error) -> String {
    let mut text = client_in_flags(error);
    if error
        .chain()
        .filter_map(store_error)
        .any(pentagrid_store::StoreError::can_be_accepted)
    {
        text.push_str(
            " (`pentagrid restore` restores a backup; --accept-data-loss opens the database \
             with the loss accepted)",
        );
    }
    text
}

/// The store's error behind `cause`, also where a server or an embedded cluster passes it on
/// unchanged.
fn store_error<'a>(
    cause: &'a (dyn std::error::Error + 'static),
) -> Option<&'a pentagrid_store::StoreError> {
    let served = |error: &'a pentagrid_edge::ServeError| match error {
        pentagrid_edge::ServeError::Store(store) => Some(store),
        _ => None,
    };
    cause
        .downcast_ref::<pentagrid_store::StoreError>()
        .or_else(|| cause.downcast_ref().and_then(served))
        .or_else(|| match cause.downcast_ref() {
            Some(pentagrid_embedded::EmbeddedError::Serve(error)) => served(error),
            _ => None,
        })
}

/// [`in_flags`] for the client library's refusals.
fn client_in_flags(error: &anyhow::Error) -> String {
    let flag = |parameter: pentagrid_client::Parameter| format!("--{}", parameter.key());
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let client = cause
            .downcast_ref::<pentagrid_client::ClientError>()
            .or_else(|| {
                cause
                    .downcast_ref::<pentagrid_embedded::EmbeddedError>()
                    .and_then(pentagrid_embedded::EmbeddedError::client_error)
            });
        let part = match client {
            Some(pentagrid_client::ClientError::Parameter(refused)) => refused.render(&flag),
            Some(short @ pentagrid_client::ClientError::PuzzlesShort { stored_only, .. }) => {
                let random = if *stored_only {
                    " (drop --stored-only to mine random games too)"
                } else {
                    ""
                };
                format!("{short}{random}; raise --rounds or --max-moves, or lower --min-stones")
            }
            _ => cause.to_string(),
        };
        parts.push(part);
    }
    parts.join(": ")
}

pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    closed_pipe(error, STDOUT_CLOSED.load(Ordering::Relaxed))
}

fn closed_pipe(error: &anyhow::Error, stdout_closed: bool) -> bool {
    stdout_closed
        && error.chain().any(|cause| {
            cause
                .downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_refusals_are_told_with_the_command_lines_flags() {
        use pentagrid_client::{ClientError, Parameter, ParameterError};
        let refused = ParameterError::range(Parameter::Pairs, 1, 100_000, None);
        let error = anyhow::Error::from(ClientError::from(refused)).context("match");
        assert_eq!(in_flags(&error), "match: --pairs must be from 1 to 100000");
        let lost = pentagrid_store::StoreError::LostWrites {
            dir: "db".into(),
            recorded: 12,
            found: 10,
        };
        let told = in_flags(&anyhow::Error::from(lost).context("coordinator"));
        assert!(
            told.starts_with("coordinator: the database in db has lost writes"),
            "{told}"
        );
        assert!(told.ends_with("--accept-data-loss opens the database with the loss accepted)"));
        let plain = anyhow::anyhow!("no such file").context("reading x");
        assert_eq!(in_flags(&plain), format!("{plain:#}"));
    }

    #[test]
    fn peer_text_is_escaped_and_bounded() {
        assert_eq!(peer("w-1 ünïcode"), "w-1 ünïcode");
        assert_eq!(peer("evil\u{1b}[2J\nfake"), "evil\\u{1b}[2J\\nfake");
        let long = "n".repeat(10_000);
        assert_eq!(
            peer(&long),
            format!("{}… (10000 bytes)", "n".repeat(PEER_CHARS))
        );
    }

    #[test]
    fn long_labels_go_under_the_table_whole() {
        let mut legend = Legend::new(6);
        assert_eq!(legend.label("fast"), "fast");
        let long = "uct:k=0.5,playouts=600";
        assert_eq!(legend.label(long), "#1");
        assert_eq!(legend.label("another-long"), "#2");
        assert_eq!(legend.label(long), "#1");
        assert_eq!(legend.long, [long, "another-long"]);
        assert_eq!(player("p3=uct:playouts=300"), "p3");
        assert_eq!(player("uct:playouts=300"), "uct:playouts=300");
        assert_eq!(peer_full(&"n".repeat(100)), "n".repeat(100));
    }

    #[test]
    fn signed_numbers_never_show_a_negative_zero() {
        assert_eq!(signed(-0.0, 0), "+0");
        assert_eq!(signed(-0.4, 0), "+0");
        assert_eq!(signed(-0.04, 1), "+0.0");
        assert_eq!(signed(0.0, 1), "+0.0");
        assert_eq!(signed(-0.6, 0), "-1");
        assert_eq!(signed(190.85, 0), "+191");
        assert_eq!(signed(-12.34, 1), "-12.3");
        assert_eq!(signed(f64::INFINITY, 0), "+inf");
        assert_eq!(signed(f64::NEG_INFINITY, 1), "-inf");
    }

    #[test]
    fn a_closed_pipe_is_found_anywhere_in_the_chain_once_stdout_closed() {
        let closed = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe))
            .context(WRITING)
            .context("printing the status");
        assert!(closed_pipe(&closed, true));
        let full = anyhow::Error::new(io::Error::from_raw_os_error(28)).context(WRITING);
        assert!(!closed_pipe(&full, true));
        assert!(!closed_pipe(&anyhow::anyhow!("broken pipe"), true));
        // A broken pipe while standard output is open (a connection reset mid-call) is no
        // quiet end.
        assert!(!closed_pipe(&closed, false));
    }
}
