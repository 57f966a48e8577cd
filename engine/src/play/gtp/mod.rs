//! The GTP-style text protocol (GTP version 2 conventions) with pentagrid's notation: the
//! framing both sides share ([`parse_request`], [`format_response`], [`Answer`]) and pentagrid as an engine program ([`GtpEngine`]).
//! Pure: lines in, lines out; the command line binary does the reading and writing.

mod commands;
mod engine;
mod protocol;

pub use commands::{COMMANDS, parse_colour};
pub use engine::{Exchange, GtpEngine, GtpError, GtpOptions};
pub use protocol::{
    Answer, MAX_LINE_BYTES, MalformedAnswer, Request, RequestError, format_response, parse_request,
};
