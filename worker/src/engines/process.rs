//! One engine program as a child process: commands written to its standard input, answers
//! read from its standard output by a thread (so that every wait has a deadline), the end of
//! its standard error kept for the record. The child is killed when this is dropped.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pentago::gtp::{Answer, MalformedAnswer};
use thiserror::Error;

use super::EngineCommand;

/// Longest answer line read; an engine that writes more in one line is broken.
pub const MAX_ANSWER_LINE: usize = 64 * 1024;

/// Most lines in one answer.
pub const MAX_ANSWER_LINES: usize = 1_000;

/// Bytes of standard error kept (the last ones).
pub const STDERR_KEPT: usize = 8 * 1024;

/// What went wrong talking to an engine process.
#[derive(Debug, Error)]
pub enum ProcessError {
    /// The program could not be started.
    #[error("cannot start {program:?}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The process ended (or closed its output) while a command was open.
    #[error("the engine exited ({})", exit_text(.0))]
    Exited(Option<ExitStatus>),
    /// No complete answer by the deadline.
    #[error("no answer in time")]
    Timeout,
    /// An answer that does not follow the framing.
    #[error("malformed answer: {0}")]
    Malformed(#[from] MalformedAnswer),
    /// A line or an answer past the size limits.
    #[error("an answer longer than {MAX_ANSWER_LINES} lines of {MAX_ANSWER_LINE} bytes")]
    TooLong,
}

fn exit_text(status: &Option<ExitStatus>) -> String {
    status.map_or_else(
        || "still running, output closed".to_owned(),
        |s| s.to_string(),
    )
}

/// What the reader thread sees on standard output.
enum Output {
    Line(String),
    TooLong,
    End,
}

/// A running engine program.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    output: Receiver<Output>,
    stderr: Arc<Mutex<StderrTail>>,
    /// Answers once the standard error reader has read to the end.
    stderr_read: Receiver<()>,
    /// Set once the output ended: every later wait fails at once.
    ended: bool,
}

impl EngineProcess {
    /// Starts `command` with piped standard streams.
    pub fn spawn(command: &EngineCommand) -> Result<EngineProcess, ProcessError> {
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ProcessError::Spawn {
                program: pentago::excerpt(&command.program),
                source,
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        // Bounded: an engine that floods its output waits on its own write, not on our memory.
        let (send, output) = sync_channel(256);
        std::thread::spawn(move || read_lines(stdout, &send));
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let writer = Arc::clone(&tail);
        let (read_all, stderr_read) = sync_channel(1);
        std::thread::spawn(move || {
            keep_tail(stderr, &writer);
            let _ = read_all.send(());
        });
        Ok(EngineProcess {
            stdin: child.stdin.take(),
            child,
            output,
            stderr: tail,
            stderr_read,
            ended: false,
        })
    }

    /// Writes one command line.
    pub fn send(&mut self, line: &str) -> Result<(), ProcessError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(ProcessError::Exited(self.exit_status()));
        };
        let written = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if written.is_err() {
            self.stdin = None;
            return Err(ProcessError::Exited(self.exit_status()));
        }
        Ok(())
    }

    /// Reads one answer (the lines up to an empty line), waiting until `deadline` at most.
    pub fn receive(&mut self, deadline: Instant) -> Result<Answer, ProcessError> {
        let mut lines: Vec<String> = Vec::new();
        loop {
            if self.ended {
                return Err(ProcessError::Exited(self.exit_status()));
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(wait) {
                Ok(Output::Line(line)) if line.trim().is_empty() => {
                    // Empty lines before an answer are stray; after one they end it.
                    if !lines.is_empty() {
                        return Ok(Answer::parse(&lines)?);
                    }
                }
                Ok(Output::Line(line)) => {
                    if lines.len() == MAX_ANSWER_LINES {
                        return Err(ProcessError::TooLong);
                    }
                    lines.push(line);
                }
                Ok(Output::TooLong) => return Err(ProcessError::TooLong),
                Ok(Output::End) | Err(RecvTimeoutError::Disconnected) => {
                    self.ended = true;
                    self.stdin = None;
                }
                Err(RecvTimeoutError::Timeout) => return Err(ProcessError::Timeout),
            }
        }
    }

    /// Sends `line` and reads its answer by `deadline`.
    pub fn ask(&mut self, line: &str, deadline: Instant) -> Result<Answer, ProcessError> {
        self.send(line)?;
        self.receive(deadline)
    }

    /// How the process ended, if it has; waits a moment for a process whose output closed.
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        for _ in 0..50 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if !self.ended {
                return None;
            }
            // The output closes a moment before the exit is visible.
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        None
    }

    /// The end of what the engine wrote to standard error since the last call (at most
    /// [`STDERR_KEPT`] bytes, with a note of how much was left out).
    pub fn take_stderr(&self) -> String {
        let mut tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *tail).text()
    }

    /// Kills the engine and returns the rest of its standard error: all it wrote, once the
    /// reader has drained the pipe (waiting at most [`STDERR_DRAIN`], in case a process the
    /// engine started still holds the pipe open).
    pub fn finish(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = self.stderr_read.recv_timeout(STDERR_DRAIN);
        self.take_stderr()
    }
}

/// Longest wait for a killed engine's standard error to reach its end.
const STDERR_DRAIN: std::time::Duration = std::time::Duration::from_millis(500);

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Forwards standard output line by line, cutting lines at [`MAX_ANSWER_LINE`] bytes.
fn read_lines(stdout: impl Read, send: &SyncSender<Output>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut bytes = Vec::new();
        let limit = (MAX_ANSWER_LINE + 1) as u64;
        let read = match (&mut reader).take(limit).read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => {
                let _ = send.send(Output::End);
                return;
            }
            Ok(read) => read,
        };
        if read > MAX_ANSWER_LINE && !bytes.ends_with(b"\n") {
            let _ = send.send(Output::TooLong);
            let _ = send.send(Output::End);
            return;
        }
        let text = String::from_utf8_lossy(&bytes);
        let line = text.trim_end_matches(['\n', '\r']).to_owned();
        if send.send(Output::Line(line)).is_err() {
            return;
        }
    }
}

/// The last [`STDERR_KEPT`] bytes of standard error and how many came before them.
#[derive(Default)]
struct StderrTail {
    kept: VecDeque<u8>,
    dropped: u64,
}

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        self.kept.extend(bytes);
        let over = self.kept.len().saturating_sub(STDERR_KEPT);
        self.kept.drain(..over);
        self.dropped = self.dropped.saturating_add(over as u64);
    }

    fn text(self) -> String {
        let (front, back) = self.kept.as_slices();
        let text = String::from_utf8_lossy(&[front, back].concat()).into_owned();
        if self.dropped == 0 {
            text
        } else {
            format!("[{} bytes left out]\n{text}", self.dropped)
        }
    }
}

fn keep_tail(mut stderr: impl Read, tail: &Mutex<StderrTail>) {
    let mut buffer = [0u8; 4096];
    while let Ok(read) = stderr.read(&mut buffer) {
        if read == 0 {
            return;
        }
        tail.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(&buffer[..read]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stderr_tail_is_bounded() {
        let mut tail = StderrTail::default();
        tail.push(&vec![b'a'; STDERR_KEPT]);
        tail.push(b"the end");
        let text = tail.text();
        assert!(text.starts_with("[7 bytes left out]\n"), "{}", &text[..30]);
        assert!(text.ends_with("the end"));
    }

    fn shell(script: &str) -> EngineCommand {
        EngineCommand {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
        }
    }

    fn soon() -> Instant {
        Instant::now() + std::time::Duration::from_secs(10)
    }

    #[test]
    fn answers_are_read_up_to_the_empty_line() {
        let mut p = EngineProcess::spawn(&shell(
            "read line; echo >&2 thinking; printf '\\n=1 c4-1R\\n\\n= two\\nlines\\n\\n'; read line",
        ))
        .unwrap();
        let answer = p.ask("1 genmove black", soon()).unwrap();
        assert_eq!((answer.id, answer.success), (Some(1), true));
        assert_eq!(answer.text, "c4-1R");
        assert_eq!(p.receive(soon()).unwrap().text, "two\nlines");
        assert!(matches!(
            p.receive(Instant::now() + std::time::Duration::from_millis(50)),
            Err(ProcessError::Timeout)
        ));
        assert!(p.take_stderr().contains("thinking"));
    }

    #[test]
    fn an_exit_is_reported_with_its_status() {
        let mut p = EngineProcess::spawn(&shell("read line; exit 3")).unwrap();
        match p.ask("name", soon()) {
            Err(ProcessError::Exited(Some(status))) => assert_eq!(status.code(), Some(3)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(p.send("name"), Err(ProcessError::Exited(_))));
        let missing = EngineCommand {
            program: "/nonexistent/engine".into(),
            args: Vec::new(),
        };
        assert!(matches!(
            EngineProcess::spawn(&missing),
            Err(ProcessError::Spawn { .. })
        ));
    }

    #[test]
    fn garbage_and_endless_lines_are_refused() {
        let mut p =
            EngineProcess::spawn(&shell("read line; printf 'hello\\n\\n'; read line")).unwrap();
        assert!(matches!(
            p.ask("name", soon()),
            Err(ProcessError::Malformed(MalformedAnswer::Mark(_)))
        ));
        let mut p = EngineProcess::spawn(&shell("read line; yes x | tr -d '\\n'")).unwrap();
        assert!(matches!(p.ask("name", soon()), Err(ProcessError::TooLong)));
    }
}
