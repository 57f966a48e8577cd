//! One engine program as a child process: commands written to its standard input, answers
//! read from its standard output by a thread (so that every wait has a deadline), the end of
//! its standard error kept for the record. The engine runs in a process group of its own, and
//! the whole group is killed when it ends or this is dropped: an engine that forks, or one
//! started through a wrapper script, leaves nothing running behind it.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard};
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
    /// How it ended, once it was reaped (its group was killed first, while the leader's id
    /// still named it).
    status: Option<ExitStatus>,
    stdin: Option<ChildStdin>,
    output: Receiver<Output>,
    stderr: Arc<Mutex<StderrPipe>>,
    /// Set once the output ended: every later wait fails at once.
    ended: bool,
}

impl EngineProcess {
    /// Starts `command` with piped standard streams, as the leader of a new process group.
    pub fn spawn(command: &EngineCommand) -> Result<EngineProcess, ProcessError> {
        let spawn_error = |source| ProcessError::Spawn {
            program: pentago::excerpt(&command.program),
            source,
        };
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(spawn_error)?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        // Bounded: an engine that floods its output waits on its own write, not on our memory.
        let (send, output) = sync_channel(256);
        std::thread::spawn(move || read_lines(stdout, &send));
        let pipe = match StderrPipe::new(stderr.into()) {
            Ok(pipe) => Arc::new(Mutex::new(pipe)),
            Err(error) => {
                kill_group(&mut child);
                let _ = child.wait();
                return Err(spawn_error(error));
            }
        };
        let follower = Arc::clone(&pipe);
        std::thread::spawn(move || follow_stderr(&follower));
        Ok(EngineProcess {
            stdin: child.stdin.take(),
            child,
            status: None,
            output,
            stderr: pipe,
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
    /// An engine seen ended takes its process group with it.
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        for _ in 0..50 {
            if let Some(status) = self.status {
                return Some(status);
            }
            if leader_exited(&self.child) {
                // Unreaped, the leader's id still names its group: kill what it left running,
                // then read how it ended.
                self.kill();
                continue;
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
    /// [`STDERR_KEPT`] bytes, with a note of how much was left out). Everything the engine
    /// wrote before its last answer is in it: what is still in the pipe is read first.
    pub fn take_stderr(&self) -> String {
        let mut pipe = lock(&self.stderr);
        pipe.drain();
        std::mem::take(&mut pipe.tail).text()
    }

    /// Kills the engine's process group and returns the rest of its standard error: all it
    /// wrote before it was killed.
    pub fn finish(mut self) -> String {
        self.kill();
        self.take_stderr()
    }

    /// Kills the whole process group (unless the engine was reaped already) and reaps the engine.
    fn kill(&mut self) {
        if self.status.is_none() {
            kill_group(&mut self.child);
            self.status = self.child.wait().ok();
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Sends SIGKILL to the process group `child` leads, and to `child` itself. Call it only while
/// `child` is not reaped: until then its id cannot name another process or group.
fn kill_group(child: &mut Child) {
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: killpg has no memory effects; the group is the one the child leads.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// Whether the (unreaped) child has exited, without reaping it.
fn leader_exited(child: &Child) -> bool {
    let pid: libc::id_t = child.id();
    // SAFETY: a zeroed siginfo_t is a valid value; waitid writes into it and nothing else.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        libc::waitid(libc::P_PID, pid, &raw mut info, flags) == 0 && info.si_pid() != 0
    }
}

fn lock(pipe: &Mutex<StderrPipe>) -> MutexGuard<'_, StderrPipe> {
    pipe.lock().unwrap_or_else(|e| e.into_inner())
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

/// The engine's standard error, read without blocking: by a thread as it comes (so that a
/// chatty engine never blocks on a full pipe) and by [`EngineProcess::take_stderr`] before it
/// takes the tail (so that nothing written before the engine's last answer is still in the
/// pipe). Every read happens under the lock, so the two never split a write between them.
struct StderrPipe {
    pipe: File,
    tail: StderrTail,
    /// Set once the pipe reached its end (every writer is gone).
    closed: bool,
}

impl StderrPipe {
    fn new(pipe: OwnedFd) -> std::io::Result<StderrPipe> {
        let fd = pipe.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns, with integer arguments.
        let set = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) >= 0
        };
        if !set {
            return Err(std::io::Error::last_os_error());
        }
        Ok(StderrPipe {
            pipe: File::from(pipe),
            tail: StderrTail::default(),
            closed: false,
        })
    }

    /// Reads everything the pipe holds now.
    fn drain(&mut self) {
        let mut buffer = [0u8; 4096];
        while !self.closed {
            match self.pipe.read(&mut buffer) {
                Ok(0) => self.closed = true,
                Ok(read) => self.tail.push(&buffer[..read]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(_) => self.closed = true,
            }
        }
    }
}

/// How long the standard error thread sleeps in one wait: it ends within this time of its
/// process being dropped, when a process the engine started outlived it holding the pipe.
const STDERR_WAIT_MS: libc::c_int = 1_000;

/// Reads standard error as it comes, until its end or until the process is dropped.
fn follow_stderr(pipe: &Arc<Mutex<StderrPipe>>) {
    let fd: RawFd = lock(pipe).pipe.as_raw_fd();
    // The descriptor stays open while this thread holds its share of the pipe.
    while Arc::strong_count(pipe) > 1 {
        let mut wanted = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, for a descriptor kept open (see above).
        let ready = unsafe { libc::poll(&raw mut wanted, 1, STDERR_WAIT_MS) };
        if ready == 0 {
            continue;
        }
        if ready < 0 && std::io::Error::last_os_error().kind() != ErrorKind::Interrupted {
            return;
        }
        let mut state = lock(pipe);
        state.drain();
        if state.closed {
            return;
        }
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
    fn all_the_stderr_written_before_an_answer_is_taken_with_it() {
        // More than the tail keeps, in many writes, the last of them just before the answer.
        let mut p = EngineProcess::spawn(&shell(
            "read line; i=0; while [ $i -lt 300 ]; do printf '%0100d' $i >&2; i=$((i+1)); done; \
             echo >&2 last words; printf '= done\\n\\n'; read line",
        ))
        .unwrap();
        assert_eq!(p.ask("go", soon()).unwrap().text, "done");
        let text = p.take_stderr();
        assert!(text.starts_with('['), "notes what it left out");
        assert!(
            text.ends_with("last words\n"),
            "{}",
            &text[text.len() - 40..]
        );
        assert_eq!(p.take_stderr(), "", "taken once");
        assert_eq!(p.finish(), "");
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
