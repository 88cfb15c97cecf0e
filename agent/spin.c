/* Not part of the agent's work: the daemon loads this library with ctypes for this one function
 * (jdwpd/daemon/fast/spin.py), so that one native build serves both.
 *
 * On a virtual machine a thread that sleeps costs its waker an IPI and itself a halted vCPU to
 * restart: 20-30 us each way on the 2-vCPU machines we measure on.  When an answer is due within
 * microseconds (the agent's reply to a request just sent, a debugger's next command), looking
 * for it without sleeping avoids both.  ctypes releases the GIL around the call, so Python
 * threads (the fast lanes) run meanwhile. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <poll.h>
#include <time.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Polls fd for input without sleeping for at most max_ns: 1 when it is readable (or in error),
 * 0 when the time ran out, -1 when poll itself failed. */
int spin_until_readable(int fd, long long max_ns) {
    struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    long long end = now_ns() + max_ns;
    do {
        int k = poll(&p, 1, 0);
        if (k != 0) return k > 0 ? 1 : -1;
    } while (now_ns() < end);
    return 0;
}
