// Linux system calls and C helpers that Swift's Glibc module does not import: `syscall` is variadic,
// glibc's own pidfd_open (2.36) is in <sys/pidfd.h>, which the module leaves out; `SIG_DFL` is a macro.
#include <sys/syscall.h>
#include <unistd.h>

/// A descriptor naming process `pid` (Linux 5.3): readable once it has exited; -1 and errno on failure.
static inline int waypost_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/// A pipe whose ends have `flags` (O_CLOEXEC, O_NONBLOCK): glibc's pipe2 needs _GNU_SOURCE.
static inline int waypost_pipe2(int ends[2], int flags) { return (int)syscall(SYS_pipe2, ends, flags); }

#include <signal.h>

/// For a child between fork and exec (GLib's `GSpawnChildSetupFunc`): no signal blocked and every
/// disposition the default, since both survive exec and a launching thread may block nearly all
/// (libdispatch's workers do). Only async-signal-safe calls. `SIG_DFL` is a cast macro Swift lacks.
static inline void waypost_reset_signals(void *unused) {
    (void)unused;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, 0);
    struct sigaction action = {0};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (int number = 1; number < NSIG; number++) {
        if (number != SIGKILL && number != SIGSTOP) sigaction(number, &action, 0);
    }
}
