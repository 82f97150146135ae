// SPDX-License-Identifier: GPL-2.0
/*
 * The init of the arm64 guest with asymmetric CPU capacities and SMT
 * (make arm64-asym, scripts/arm64-asym.sh). Built with the kernel tree's
 * nolibc (tools/include/nolibc) as a static aarch64 binary, the only file
 * of its initramfs besides /dev/console.
 *
 * The KUnit suites have run at boot by the time this starts. It checks that
 * the topology is the one the device tree describes, then, once with the C
 * and once with the Rust capacity fit (sched/rust/asym_fit in debugfs), it
 * runs three workloads that reach fair.c's call sites of the fit:
 *
 *   wakeups   pairs of processes waking each other through pipes, spread
 *             over all CPUs: select_idle_sibling() on an asymmetric system
 *             (asym_fits_cpu() on target, prev and recent_used_cpu, then
 *             select_idle_capacity());
 *   misfit    CPU-bound tasks started on little CPUs, too big for them
 *             (their utilization saturates at the little capacity, which
 *             fits_capacity() refuses): the misfit check and the load
 *             balancer's misfit pull must move each to a big CPU;
 *   idle core a task that fits a big CPU and not a little one, whose big
 *             core's other thread is kept busy, sleeps and wakes: it must
 *             wake on the other big core, whose two threads are idle,
 *             rather than next to the busy thread (the SMT-aware fit) or on
 *             a little CPU, in at least 80% of its wakeups (idle_core()).
 *
 * Each check prints one line on the console,
 *
 *   sched-rust: asym check=<name> impl=<c|rust|-> result=<ok|fail> <detail>
 *
 * and the shadow check's counters (/sys/kernel/debug/sched/rust/shadow)
 * before and after each implementation's workloads. Then the guest powers
 * off.
 */
#include <linux/reboot.h>

/* The topology of scripts/arm64-asym.sh: cores of 2 threads, big first. */
#define NR_CPUS_WANTED	12
#define NR_BIG_CPUS	4
#define BIG_CAPACITY	1024
#define LITTLE_CAPACITY	512

static int failures;

static void check(const char *name, const char *impl, int ok, const char *detail)
{
	printf("sched-rust: asym check=%s impl=%s result=%s %s\n", name, impl,
	       ok ? "ok" : "fail", detail);
	if (!ok)
		failures++;
}

static int read_file(const char *path, char *buf, int size)
{
	int fd = open(path, O_RDONLY), n, len = 0;

	if (fd < 0)
		return -1;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return len;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void spin_ms(long ms)
{
	long end = now_us() + ms * 1000;

	while (now_us() < end)
		;
}

static int pin(unsigned long mask)
{
	return syscall(__NR_sched_setaffinity, 0, sizeof(mask), &mask);
}

static int this_cpu(void)
{
	unsigned int cpu = ~0U;

	syscall(__NR_getcpu, &cpu, NULL, NULL);
	return (int)cpu;
}

#define ALL_CPUS	((1UL << NR_CPUS_WANTED) - 1)
#define BIG_CPUS	((1UL << NR_BIG_CPUS) - 1)

static int is_big(int cpu)
{
	return cpu >= 0 && cpu < NR_BIG_CPUS;
}

/* The topology that the device tree describes, as the scheduler sees it. */
static void check_topology(void)
{
	char path[128], buf[4096], detail[256];
	int cpu, ok = 1, asym_domains = 0, level;

	for (cpu = 0; cpu < NR_CPUS_WANTED; cpu++) {
		int want = is_big(cpu) ? BIG_CAPACITY : LITTLE_CAPACITY, first;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
		if (read_file(path, buf, sizeof(buf)) <= 0 || atoi(buf) != want) {
			snprintf(detail, sizeof(detail), "cpu%d capacity %s, wanted %d",
				 cpu, buf, want);
			check("topology", "-", 0, detail);
			ok = 0;
		}
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
		first = cpu & ~1;
		snprintf(detail, sizeof(detail), "%d-%d\n", first, first + 1);
		if (read_file(path, buf, sizeof(buf)) <= 0 || strcmp(buf, detail)) {
			snprintf(detail, sizeof(detail), "cpu%d SMT siblings %s, wanted %d-%d",
				 cpu, buf, first, first + 1);
			check("topology", "-", 0, detail);
			ok = 0;
		}
	}
	if (read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) <= 0 ||
	    strcmp(buf, "0-11\n")) {
		snprintf(detail, sizeof(detail), "online CPUs %s", buf);
		check("topology", "-", 0, detail);
		ok = 0;
	}
	for (level = 0; level < 8; level++) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/debug/sched/domains/cpu0/domain%d/flags", level);
		if (read_file(path, buf, sizeof(buf)) <= 0)
			break;
		if (strstr(buf, "SD_ASYM_CPUCAPACITY_FULL"))
			asym_domains++;
	}
	if (!asym_domains) {
		check("topology", "-", 0, "no sched domain of cpu0 has SD_ASYM_CPUCAPACITY_FULL");
		ok = 0;
	}
	if (ok)
		check("topology", "-", 1,
		      "12 CPUs online, cpu0-3 capacity 1024, cpu4-11 capacity 512, SMT pairs, SD_ASYM_CPUCAPACITY_FULL");
}

/* Pairs of processes that wake each other through two pipes. */
static void wakeups(const char *impl, int pairs, int rounds)
{
	char detail[128];
	long start = now_us();
	int i, status, bad = 0;

	for (i = 0; i < pairs; i++) {
		int ping[2], pong[2];
		pid_t a, b;

		if (pipe(ping) || pipe(pong)) {
			bad++;
			continue;
		}
		a = fork();
		if (a == 0) {
			char c = 0;
			int r;

			for (r = 0; r < rounds; r++)
				if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
					exit(1);
			exit(0);
		}
		b = fork();
		if (b == 0) {
			char c;
			int r;

			for (r = 0; r < rounds; r++)
				if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
					exit(1);
			exit(0);
		}
		close(ping[0]);
		close(ping[1]);
		close(pong[0]);
		close(pong[1]);
		if (a < 0 || b < 0)
			bad++;
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	snprintf(detail, sizeof(detail), "%d pairs x %d round trips in %ld ms",
		 pairs, rounds, (now_us() - start) / 1000);
	check("wakeups", impl, !bad, detail);
}

/*
 * CPU-bound tasks, each started pinned on its own little core so that its
 * utilization saturates there, then allowed everywhere: the misfit pull
 * must take each to a big CPU.
 */
static void misfit(const char *impl, int tasks, long settle_ms)
{
	int report[2], i, status, on_big = 0, got = 0;
	char detail[160], *p = detail;

	if (pipe(report)) {
		check("misfit", impl, 0, "no pipe");
		return;
	}
	for (i = 0; i < tasks; i++) {
		if (fork() == 0) {
			int cpu = NR_BIG_CPUS + 2 * i;

			pin(1UL << cpu);
			spin_ms(300);
			pin(ALL_CPUS);
			spin_ms(settle_ms);
			cpu = this_cpu();
			write(report[1], &cpu, sizeof(cpu));
			exit(0);
		}
	}
	close(report[1]);
	p += snprintf(p, sizeof(detail), "%d tasks from little CPUs ended on cpu", tasks);
	for (i = 0; i < tasks; i++) {
		int cpu;

		if (read(report[0], &cpu, sizeof(cpu)) != sizeof(cpu))
			break;
		got++;
		on_big += is_big(cpu);
		p += snprintf(p, detail + sizeof(detail) - p, " %d", cpu);
	}
	close(report[0]);
	while (wait(&status) > 0)
		;
	snprintf(p, detail + sizeof(detail) - p, " (%d on big CPUs)", on_big);
	check("misfit", impl, got == tasks && on_big == tasks, detail);
}

/*
 * Busy @busy_ms, then asleep @sleep_ms: a task of utilization about
 * 1024 * busy / (busy + sleep) on a big CPU.
 */
static void duty_cycle(long busy_ms, long sleep_ms)
{
	spin_ms(busy_ms);
	usleep(sleep_ms * 1000);
}

/*
 * A task that fits a big CPU but not a little one (busy 60% of the time:
 * utilization about 610, which fits 1024 and not 512 with fair.c's 20%
 * margin), next to a busy thread: cpu0 runs a hog; the task runs on cpu1
 * (its sibling), then sleeps with every CPU allowed. At each wakeup
 * asym_fits_cpu() refuses cpu1, whose core is busy, and
 * select_idle_capacity() should return cpu2 or cpu3 at once: they fit and
 * their core is wholly idle.
 */
static void idle_core(const char *impl, int wakes)
{
	int on_idle_core = 0, on_busy_sibling = 0, on_little = 0, other = 0, i;
	char detail[160];
	pid_t hog;

	hog = fork();
	if (hog == 0) {
		pin(1UL << 0);
		for (;;)
			;
	}
	pin(1UL << 1);
	for (i = 0; i < 50; i++)
		duty_cycle(6, 4);
	for (i = 0; i < wakes; i++) {
		int cpu;

		pin(1UL << 1);
		spin_ms(6);
		pin(ALL_CPUS);
		usleep(4000);
		cpu = this_cpu();
		if (cpu == 2 || cpu == 3)
			on_idle_core++;
		else if (cpu == 1)
			on_busy_sibling++;
		else if (!is_big(cpu))
			on_little++;
		else
			other++;
	}
	pin(ALL_CPUS);
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	snprintf(detail, sizeof(detail),
		 "%d wakeups: %d on the idle big core (cpu2-3), %d next to the busy thread, %d on little CPUs, %d on cpu0",
		 wakes, on_idle_core, on_busy_sibling, on_little, other);
	/*
	 * Not every wakeup: a kworker or another CPU's wakeup may hold cpu2
	 * and cpu3 at that moment, and then the biggest idle CPU, a little
	 * one, is the right answer (seen once in 40 wakeups). Next to the
	 * busy thread only when both threads of the other core are busy.
	 */
	check("idle_core", impl, on_idle_core * 10 >= wakes * 8 &&
	      on_busy_sibling * 10 <= wakes, detail);
}

static void print_shadow(const char *impl, const char *when)
{
	static char buf[4096];
	char *line, *next;

	if (read_file("/sys/kernel/debug/sched/rust/shadow", buf, sizeof(buf)) <= 0) {
		check("shadow", impl, 0, "no /sys/kernel/debug/sched/rust/shadow");
		return;
	}
	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		printf("sched-rust: asym shadow impl=%s at=%s %s\n", impl, when, line);
	}
}

/* Rust (Y) or C (N): the kernel must be able to switch (SCHED_RUST_SWITCH). */
static int use_rust(const char *yes_no)
{
	return write_file("/sys/kernel/debug/sched/rust/asym_fit", yes_no);
}

int main(void)
{
	static const char * const impls[] = { "c", "rust" };
	int i;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);

	printf("sched-rust: asym guest up, %ld ms since boot\n", now_us() / 1000);
	check_topology();

	for (i = 0; i < 2; i++) {
		const char *impl = impls[i];

		if (use_rust(i ? "Y" : "N")) {
			check("switch", impl, 0, "cannot write /sys/kernel/debug/sched/rust/asym_fit");
			continue;
		}
		/* A call that read the switch before it moved counts before. */
		usleep(20000);
		print_shadow(impl, "start");
		wakeups(impl, 6, 2000);
		misfit(impl, 2, 1500);
		idle_core(impl, 40);
		print_shadow(impl, "end");
	}
	use_rust("Y");

	printf("sched-rust: asym guest done, %d failed, %ld ms since boot\n",
	       failures, now_us() / 1000);
	reboot(LINUX_REBOOT_CMD_POWER_OFF);
	return 0;
}
