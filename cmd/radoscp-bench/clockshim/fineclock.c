/*
 * radoscp-bench's clock shim, preloaded (LD_PRELOAD) into the contenders
 * of a run with an injected delay (--delay-clock fine). Ceph's messenger
 * stamps and releases delayed messages by CLOCK_MONOTONIC_COARSE, which
 * advances once a kernel tick (4 ms at HZ=250): a delay of up to 1 ms
 * becomes one of up to a tick, and the thread waiting for it polls without
 * sleeping until the tick. Read through this shim, the coarse clocks are
 * the fine ones, and the delay is the one drawn.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

static int (*real_clock_gettime)(clockid_t, struct timespec *);

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
