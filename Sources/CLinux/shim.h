// Linux system calls that Swift's Glibc module does not import: `syscall` is variadic, and glibc's
// own pidfd_open (2.36) is in <sys/pidfd.h>, which the module leaves out.
#include <sys/syscall.h>
#include <unistd.h>

/// A descriptor naming process `pid` (Linux 5.3): readable once it has exited; -1 and errno on failure.
static inline int waypost_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/// A pipe whose ends have `flags` (O_CLOEXEC, O_NONBLOCK): glibc's pipe2 needs _GNU_SOURCE.
static inline int waypost_pipe2(int ends[2], int flags) { return (int)syscall(SYS_pipe2, ends, flags); }
