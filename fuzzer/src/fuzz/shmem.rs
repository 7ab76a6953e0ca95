//! Shared memory that goes away with the last process using it, however that process ends.
//!
//! LibAFL 0.16's standard provider on Linux is System V shared memory (`shmget`): a segment
//! lives until its creator removes it (`IPC_RMID`) when the mapping is dropped. A process
//! killed with SIGKILL or SIGTERM drops nothing, and every segment it created stays in the
//! kernel, with whatever pages were touched, until reboot or `ipcrm`: a killed `--cores`
//! run left six 256 MB segments (the broker's pages, each client's LLMP pages and restart
//! state), and a killed single-core run its 256 MB restart state. A fuzzing process that
//! LibAFL restarts after a crash also attaches the pages its predecessor created, which
//! nobody owns any more, so they outlived the run even when it ended normally.
//!
//! [`RunShMemProvider`] marks each segment for removal as soon as it is created. On Linux a
//! segment so marked stays usable, and attachable by its id, while any process has it
//! attached (shmat(2): "Linux permits a process to attach a shared memory segment that has
//! already been marked for deletion"); the kernel frees it when the last one detaches or
//! dies. Every LLMP page and restart state has an attached holder from its creation until
//! another process has attached it: the broker keeps its pages and each client's, a client
//! keeps its own until the broker has read them (LibAFL waits for that before a restart),
//! and a supervisor keeps the restart state its fuzzing processes attach.
//! On other systems this is LibAFL's provider unchanged.

#[cfg(target_os = "linux")]
mod linux {
    use libafl_bolts::Error;
    use libafl_bolts::shmem::{ShMem, ShMemId, ShMemProvider, StdShMemProvider};

    /// LibAFL's standard provider, each new segment marked for removal at once (see the
    /// module's documentation).
    #[derive(Clone, Debug, Default)]
    pub struct RunShMemProvider(StdShMemProvider);

    impl ShMemProvider for RunShMemProvider {
        type ShMem = <StdShMemProvider as ShMemProvider>::ShMem;

        fn new() -> Result<Self, Error> {
            Ok(Self(StdShMemProvider::new()?))
        }

        fn new_shmem(&mut self, map_size: usize) -> Result<Self::ShMem, Error> {
            let shmem = self.0.new_shmem(map_size)?;
            mark_for_removal(shmem.id());
            Ok(shmem)
        }

        fn shmem_from_id_and_size(
            &mut self,
            id: ShMemId,
            size: usize,
        ) -> Result<Self::ShMem, Error> {
            self.0.shmem_from_id_and_size(id, size)
        }

        fn pre_fork(&mut self) -> Result<(), Error> {
            self.0.pre_fork()
        }

        fn post_fork(&mut self, is_child: bool) -> Result<(), Error> {
            self.0.post_fork(is_child)
        }

        fn release_shmem(&mut self, shmem: &mut Self::ShMem) {
            self.0.release_shmem(shmem);
        }
    }

    /// Marks the segment for removal once nobody has it attached; the creator, attached, keeps
    /// it alive meanwhile.
    pub fn mark_for_removal(id: ShMemId) {
        let id: i32 = id.into();
        // SAFETY: IPC_RMID reads no buffer; a stale id only makes the call fail.
        unsafe {
            libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
        }
    }
}

#[cfg(target_os = "linux")]
pub use linux::RunShMemProvider;

#[cfg(not(target_os = "linux"))]
pub type RunShMemProvider = libafl_bolts::shmem::StdShMemProvider;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use libafl_bolts::shmem::{ShMem, ShMemProvider};

    use super::RunShMemProvider;

    /// Whether /proc/sysvipc/shm lists the segment.
    fn listed(id: i32) -> bool {
        std::fs::read_to_string("/proc/sysvipc/shm")
            .unwrap()
            .lines()
            .skip(1)
            .any(|line| line.split_whitespace().nth(1) == Some(&id.to_string()))
    }

    #[test]
    fn a_segment_stays_usable_while_attached_and_goes_with_the_last_holder() {
        let mut provider = RunShMemProvider::new().unwrap();
        let mut first = provider.new_shmem(4096).unwrap();
        let id: i32 = first.id().into();
        first[0] = 42;
        // Attached again by id after the mark, as a client attaches a broker's page.
        let second = provider.shmem_from_id_and_size(first.id(), 4096).unwrap();
        assert_eq!(second[0], 42);
        drop(first);
        assert!(listed(id), "freed while still attached");
        assert_eq!(second[0], 42);
        drop(second);
        assert!(!listed(id), "segment {id} outlived its last holder");
    }

    #[test]
    fn a_killed_holder_leaves_no_segment() {
        let mut provider = RunShMemProvider::new().unwrap();
        // SAFETY: the child only creates a segment, reports its id and waits to be killed.
        let mut fds = [0; 2];
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let child = unsafe { libc::fork() };
        if child == 0 {
            let shmem = provider.new_shmem(1 << 20).unwrap();
            let id: i32 = shmem.id().into();
            let bytes = id.to_ne_bytes();
            unsafe {
                libc::write(fds[1], bytes.as_ptr().cast(), bytes.len());
                loop {
                    libc::pause();
                }
            }
        }
        let mut bytes = [0u8; 4];
        assert_eq!(
            unsafe { libc::read(fds[0], bytes.as_mut_ptr().cast(), 4) },
            4
        );
        let id = i32::from_ne_bytes(bytes);
        assert!(listed(id));
        unsafe {
            libc::kill(child, libc::SIGKILL);
            libc::waitpid(child, std::ptr::null_mut(), 0);
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
        assert!(!listed(id), "segment {id} outlived its killed creator");
    }
}
