// Preloaded into the daemon by daemon-instructions.sh, only when it runs under valgrind. Valgrind
// 3.19 (Debian 12's) has no handler for pidfd_open (Linux 5.3) and answers ENOSYS, so the daemon
// could not hold the registering app's process, and rightly refuses the registration. This makes
// that one system call on the real CPU (VALGRIND_NON_SIMD_CALL2) and passes every other syscall()
// through: the daemon counted is the release binary, its code unchanged. Outside valgrind it only
// passes calls through.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <valgrind/valgrind.h>

// Runs on the real CPU: no libc, no globals (valgrind.h's advice for such calls).
static long native_pidfd_open(long thread, long pid, long flags) {
    (void)thread;
    long result;
    __asm__ volatile("syscall" : "=a"(result) : "0"((long)SYS_pidfd_open), "D"(pid), "S"(flags) : "rcx", "r11", "memory");
    return result;
}

long syscall(long number, ...) {
    va_list arguments;
    va_start(arguments, number);
    long a = va_arg(arguments, long), b = va_arg(arguments, long), c = va_arg(arguments, long);
    long d = va_arg(arguments, long), e = va_arg(arguments, long), f = va_arg(arguments, long);
    va_end(arguments);
    if (number == SYS_pidfd_open && RUNNING_ON_VALGRIND) {
        long result = VALGRIND_NON_SIMD_CALL2(native_pidfd_open, a, b);
        if (result < 0) {
            errno = (int)-result;
            return -1;
        }
        return result;
    }
    static long (*next)(long, ...);
    if (!next) next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return next(number, a, b, c, d, e, f);
}
