// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup-latency: a wakeup-latency load in the manner of schbench (which is
 * not packaged where this project installs from).
 *
 * Each of M message threads owns T worker threads. A message thread stamps
 * the time, wakes each of its workers through a futex, then sleeps until the
 * last of them has finished its request; and again, until the run time is
 * over. A woken worker records its wakeup latency (from the stamp to the
 * moment it runs), does a fixed amount of CPU work (the request) and goes
 * back to sleep. With more workers than CPUs, woken workers queue behind
 * running ones: how soon a queued one gets a CPU is what the scheduler's
 * placement and idle balancing (and the steal series) decide.
 *
 * Prints one line: requests, seconds, requests per second, and the wakeup
 * latency percentiles p50, p90, p99 and the maximum in microseconds, exact
 * (every latency is kept and sorted).
 *
 * Usage: wakeup-latency [-m message-threads] [-t workers-per-message-thread]
 *                       [-r seconds] [-w work-loops-in-thousands]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { ASLEEP, WOKEN, STOP };

/* At most this many latencies are kept per worker; past it, a run fails. */
#define MAX_SAMPLES (1u << 24)

struct worker {
	_Atomic uint32_t state;
	_Atomic uint64_t stamp_ns;
	struct message *msg;
	uint64_t *lat_ns;
	size_t n, cap;
	pthread_t tid;
};

struct message {
	_Atomic uint32_t pending;
	struct worker *workers;
	unsigned int nr_workers;
	pthread_t tid;
};

static unsigned long work_loops = 50 * 1000;
static _Atomic int stop;

static void die(const char *what)
{
	fprintf(stderr, "wakeup-latency: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0) &&
	    errno != EAGAIN && errno != EINTR)
		die("futex wait");
}

static void futex_wake(_Atomic uint32_t *word)
{
	if (syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) < 0)
		die("futex wake");
}

/* The request: the same CPU work in every run, kernel, and round. */
static void request(void)
{
	volatile unsigned long sink = 0;
	unsigned long i;

	for (i = 0; i < work_loops; i++)
		sink += i;
}

static void record(struct worker *w, uint64_t lat)
{
	if (w->n == w->cap) {
		if (w->cap >= MAX_SAMPLES) {
			fprintf(stderr, "wakeup-latency: more than %u requests per worker; use a shorter run\n",
				MAX_SAMPLES);
			exit(1);
		}
		w->cap = w->cap ? 2 * w->cap : 4096;
		w->lat_ns = realloc(w->lat_ns, w->cap * sizeof(*w->lat_ns));
		if (!w->lat_ns)
			die("realloc");
	}
	w->lat_ns[w->n++] = lat;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		uint32_t s = atomic_load(&w->state);

		if (s == ASLEEP) {
			futex_wait(&w->state, ASLEEP);
			continue;
		}
		if (s == STOP)
			return NULL;
		record(w, now_ns() - atomic_load(&w->stamp_ns));
		request();
		atomic_store(&w->state, ASLEEP);
		if (atomic_fetch_sub(&w->msg->pending, 1) == 1)
			futex_wake(&w->msg->pending);
	}
}

static void *message_fn(void *arg)
{
	struct message *m = arg;
	unsigned int i;

	while (!atomic_load(&stop)) {
		atomic_store(&m->pending, m->nr_workers);
		for (i = 0; i < m->nr_workers; i++) {
			struct worker *w = &m->workers[i];

			atomic_store(&w->stamp_ns, now_ns());
			atomic_store(&w->state, WOKEN);
			futex_wake(&w->state);
		}
		for (;;) {
			uint32_t p = atomic_load(&m->pending);

			if (!p)
				break;
			futex_wait(&m->pending, p);
		}
	}
	for (i = 0; i < m->nr_workers; i++) {
		atomic_store(&m->workers[i].state, STOP);
		futex_wake(&m->workers[i].state);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The p-th percentile (nearest rank) of the n sorted values, in us. */
static double pct(const uint64_t *v, size_t n, unsigned int p)
{
	size_t rank = (n * p + 99) / 100;

	return v[rank ? rank - 1 : 0] / 1000.0;
}

static unsigned long arg_ul(const char *s, char opt, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !*s || v == 0 || v > max) {
		fprintf(stderr, "wakeup-latency: -%c wants a number from 1 to %lu, not '%s'\n",
			opt, max, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long nr_msg = 2, nr_workers = 4, seconds = 5;
	struct message *msgs;
	uint64_t *all, start, elapsed;
	size_t total = 0, k = 0;
	unsigned int i, j;
	int opt;

	while ((opt = getopt(argc, argv, "m:t:r:w:")) != -1) {
		switch (opt) {
		case 'm': nr_msg = arg_ul(optarg, 'm', 64); break;
		case 't': nr_workers = arg_ul(optarg, 't', 256); break;
		case 'r': seconds = arg_ul(optarg, 'r', 3600); break;
		case 'w': work_loops = arg_ul(optarg, 'w', 1000000) * 1000; break;
		default:
			fprintf(stderr, "usage: wakeup-latency [-m message-threads] [-t workers-per-message-thread] [-r seconds] [-w work-loops-in-thousands]\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "wakeup-latency: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

	msgs = calloc(nr_msg, sizeof(*msgs));
	if (!msgs)
		die("calloc");
	for (i = 0; i < nr_msg; i++) {
		msgs[i].nr_workers = nr_workers;
		msgs[i].workers = calloc(nr_workers, sizeof(struct worker));
		if (!msgs[i].workers)
			die("calloc");
		for (j = 0; j < nr_workers; j++) {
			msgs[i].workers[j].msg = &msgs[i];
			errno = pthread_create(&msgs[i].workers[j].tid, NULL, worker_fn,
					       &msgs[i].workers[j]);
			if (errno)
				die("pthread_create");
		}
	}
	start = now_ns();
	for (i = 0; i < nr_msg; i++) {
		errno = pthread_create(&msgs[i].tid, NULL, message_fn, &msgs[i]);
		if (errno)
			die("pthread_create");
	}
	sleep(seconds);
	atomic_store(&stop, 1);
	for (i = 0; i < nr_msg; i++) {
		pthread_join(msgs[i].tid, NULL);
		for (j = 0; j < nr_workers; j++)
			pthread_join(msgs[i].workers[j].tid, NULL);
	}
	elapsed = now_ns() - start;

	for (i = 0; i < nr_msg; i++)
		for (j = 0; j < nr_workers; j++)
			total += msgs[i].workers[j].n;
	if (!total) {
		fprintf(stderr, "wakeup-latency: no request completed\n");
		return 1;
	}
	all = malloc(total * sizeof(*all));
	if (!all)
		die("malloc");
	for (i = 0; i < nr_msg; i++)
		for (j = 0; j < nr_workers; j++) {
			struct worker *w = &msgs[i].workers[j];

			memcpy(all + k, w->lat_ns, w->n * sizeof(*all));
			k += w->n;
		}
	qsort(all, total, sizeof(*all), cmp_u64);
	printf("requests=%zu seconds=%.3f rps=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f\n",
	       total, elapsed / 1e9, total / (elapsed / 1e9), pct(all, total, 50),
	       pct(all, total, 90), pct(all, total, 99), all[total - 1] / 1000.0);
	return 0;
}
