//! Why a fuzzing process stopped, told to its supervisor.
//!
//! A fuzzing process that cannot go on (a full disk, an unwritable directory) ends without the
//! summary the supervisor reads, and LibAFL's respawner, which expects a process to end with
//! its state saved or by a signal, took such an end for a bug: it panicked with a backtrace,
//! the supervisor launched again, and the user got a page of noise around the one line that
//! mattered. Instead the fuzzing process writes that line into a pipe and tells LibAFL it is
//! exiting; the supervisor ends the run with it as its error.

use std::io::{PipeReader, PipeWriter, Read, Write};
use std::os::fd::AsRawFd;
use std::path::PathBuf;

use libafl_bolts::Error;

use crate::diagnostic::Diagnostic;

/// Longest message sent: one write of at most `PIPE_BUF` bytes arrives whole.
const MAX_MESSAGE: usize = 4000;

pub struct FatalChannel {
    reader: PipeReader,
    writer: PipeWriter,
}

impl FatalChannel {
    /// Made by the supervisor before LibAFL forks the fuzzing process, which inherits it.
    pub fn new() -> std::io::Result<Self> {
        let (reader, writer) = std::io::pipe()?;
        // The supervisor keeps a writing end too, so reading must not wait for the end of
        // the pipe, only take what is there.
        // SAFETY: changing the flags of a descriptor this value owns.
        if unsafe { libc::fcntl(reader.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self { reader, writer })
    }

    /// In the fuzzing process: why it stops. The file a failed write names travels with the
    /// message (the store wraps its diagnostic into the error), so that the supervisor's
    /// message is located. False if the message could not be sent.
    pub fn send(&self, why: &Error) -> bool {
        let diagnostic = match why {
            Error::OsError(io, _, _) => io
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<Diagnostic>())
                .cloned(),
            _ => None,
        };
        let (path, message) = match diagnostic {
            Some(d) => (
                d.location.map(|l| l.path).or(d.path).unwrap_or_default(),
                d.message,
            ),
            None => (PathBuf::new(), why.to_string()),
        };
        let mut bytes = path.to_string_lossy().into_owned().into_bytes();
        bytes.push(0);
        bytes.extend(message.bytes());
        bytes.truncate(MAX_MESSAGE);
        (&self.writer).write_all(&bytes).is_ok()
    }

    /// In the supervisor, once the fuzzing process has ended: its last words, if it left any.
    pub fn take(&self) -> Option<Diagnostic> {
        let mut bytes = vec![0; MAX_MESSAGE];
        let n = (&self.reader).read(&mut bytes).ok().filter(|&n| n > 0)?;
        let text = String::from_utf8_lossy(&bytes[..n]).into_owned();
        let (path, message) = text.split_once('\0').unwrap_or(("", &text));
        let diagnostic = Diagnostic::error(message.to_string());
        Some(if path.is_empty() {
            diagnostic
        } else {
            diagnostic.in_file(&PathBuf::from(path))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_located_write_failure_arrives_located_and_nothing_else_waits() {
        let channel = FatalChannel::new().unwrap();
        assert!(channel.take().is_none(), "an empty pipe does not block");
        let failure = Diagnostic::error("cannot write: No space left on device (os error 28)")
            .in_file(std::path::Path::new("/out/queue/000007.meta"));
        let error = Error::os_error(std::io::Error::other(failure.clone()), "writing the corpus");
        assert!(channel.send(&error));
        assert_eq!(channel.take(), Some(failure));
        assert!(channel.send(&Error::illegal_state("no room")));
        let plain = channel.take().unwrap();
        assert!(
            plain.message.contains("no room") && plain.path.is_none(),
            "{plain}"
        );
    }
}
