/*
 * radoscp-bench's clock shim, preloaded (LD_PRELOAD) into the contenders
 * of a run with an injected delay (--delay-clock fine). Ceph's messenger
 * stamps and releases delayed messages by CLOCK_MONOTONIC_COARSE, which
 * advances once a kernel tick (4 ms at HZ=250), and waits for them in
 * epoll_wait with a timeout in whole milliseconds: a delay of up to 1 ms
 * becomes one of up to a tick, and while less than a millisecond is left
 * the thread calls epoll_wait with no timeout, again and again, until the
 * delay is over. Through this shim the coarse clocks read the fine ones,
 * so the delay is the one drawn, and an epoll_wait with no timeout waits
 * up to POLL_NS for a file descriptor, so that the wait sleeps as it would
 * for a network's delay (a timed event fires up to POLL_NS late).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/epoll.h>
#include <time.h>

#define POLL_NS 100000

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (!real_clock_gettime)
		real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	if (id == CLOCK_MONOTONIC_COARSE)
		id = CLOCK_MONOTONIC;
	else if (id == CLOCK_REALTIME_COARSE)
		id = CLOCK_REALTIME;
	return real_clock_gettime(id, ts);
}

int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
	if (timeout == 0) {
		struct timespec wait = {0, POLL_NS};
		return epoll_pwait2(epfd, events, maxevents, &wait, NULL);
	}
	if (!real_epoll_wait)
		real_epoll_wait = (int (*)(int, struct epoll_event *, int, int))dlsym(RTLD_NEXT, "epoll_wait");
	return real_epoll_wait(epfd, events, maxevents, timeout);
}
