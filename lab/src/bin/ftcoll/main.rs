//! `ftcoll`: the command line of the ftcoll workspace, a shell over [`ftcoll_lab::cli`].

use std::process::ExitCode;

fn main() -> ExitCode {
    map_large_allocations_directly();
    ftcoll_lab::cli::run(std::env::args_os().collect())
}

/// Serves every allocation of 128 KiB or more with its own mapping (glibc's `M_MMAP_THRESHOLD`,
/// fixed at its initial value). glibc raises that threshold as large blocks are freed, up to
/// 32 MiB, after which the driver's growing event lists are reallocated inside the heap, by
/// copying, and leave freed copies resident; a mapping grows in place and is returned when
/// freed. On large runs this lowers the peak RSS at no measured cost in time (figures and
/// command in docs/performance.md). It changes no result, and other targets keep their
/// allocator's defaults.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn map_large_allocations_directly() {
    // SAFETY: `mallopt` only sets an allocator parameter; it is called before any other
    // thread exists, and a failure (return value 0) leaves the default, which is also correct.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Other targets keep their allocator's defaults.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn map_large_allocations_directly() {}
