// SPDX-License-Identifier: GPL-2.0
/*
 * rfprobe benchmark helper, run in the guest (see run.sh). Built static on
 * the host. Times are CLOCK_MONOTONIC, which counts guest instructions when
 * QEMU runs with -icount shift=0 (1 ns per instruction).
 *
 *   bench loop read N     N x read(/dev/zero, buf, 1)    (hits vfs_read)
 *   bench loop prctl N    N x prctl(PR_SET_NAME)          (hits __set_task_comm
 *                                                          and task_rename)
 *       prints "ns_per_op=X.XX"
 *   bench write FILE LIST one write() per line of LIST to FILE (opened once,
 *                         O_WRONLY|O_APPEND); prints "ns=T ok=N fail=N"
 *   bench insmod KO       finit_module(KO); prints "ns=T"
 *   bench rmmod NAME      delete_module(NAME); prints "ns=T"
 *   bench profile PERIOD CMD...
 *                         runs CMD (one of the above) while sampling this
 *                         process's instruction pointer every PERIOD ns of
 *                         cpu-clock (perf_event_open, kernel and user); prints
 *                         the symbols (/proc/kallsyms) with their share, in ns
 *                         per loop iteration for loops, else in ns in total.
 *                         With -icount shift=0 this is an instruction profile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Warm-up iterations before each timed loop (first-hit effects). */
#define WARMUP 1000

/* Profiling (bench profile): the loops enable the sampler around the timed part. */
static int prof_fd = -1;
static long prof_ops = 1;

static void prof_on(long n)
{
	if (prof_fd >= 0) {
		prof_ops = n;
		ioctl(prof_fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

static void prof_off(void)
{
	if (prof_fd >= 0)
		ioctl(prof_fd, PERF_EVENT_IOC_DISABLE, 0);
}

static int loop_read(long n)
{
	char buf[1];
	long i;
	long long t0, t1;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		die("open /dev/zero");
	for (i = 0; i < WARMUP; i++)
		if (read(fd, buf, 1) != 1)
			die("read");
	prof_on(n);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (read(fd, buf, 1) != 1)
			die("read");
	t1 = now_ns();
	prof_off();
	close(fd);
	printf("ns_per_op=%.2f\n", (double)(t1 - t0) / n);
	return 0;
}

static int loop_prctl(long n)
{
	long i;
	long long t0, t1;

	for (i = 0; i < WARMUP; i++)
		if (prctl(PR_SET_NAME, "bench", 0, 0, 0))
			die("prctl");
	prof_on(n);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (prctl(PR_SET_NAME, "bench", 0, 0, 0))
			die("prctl");
	t1 = now_ns();
	prof_off();
	printf("ns_per_op=%.2f\n", (double)(t1 - t0) / n);
	return 0;
}

static int write_lines(const char *file, const char *list)
{
	FILE *in = fopen(list, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long ok = 0, fail = 0;
	long long total = 0, t0;
	int fd;

	if (!in)
		die(list);
	fd = open(file, O_WRONLY | O_APPEND);
	if (fd < 0)
		die(file);
	prof_on(1);
	while ((len = getline(&line, &cap, in)) > 0) {
		t0 = now_ns();
		if (write(fd, line, len) == len)
			ok++;
		else
			fail++;
		total += now_ns() - t0;
	}
	prof_off();
	close(fd);
	fclose(in);
	free(line);
	printf("ns=%lld ok=%ld fail=%ld\n", total, ok, fail);
	return 0;
}

static int insmod(const char *ko)
{
	long long t0, t1;
	int fd = open(ko, O_RDONLY);

	if (fd < 0)
		die(ko);
	t0 = now_ns();
	if (syscall(SYS_finit_module, fd, "", 0))
		die("finit_module");
	t1 = now_ns();
	close(fd);
	printf("ns=%lld\n", t1 - t0);
	return 0;
}

static int rmmod(const char *name)
{
	long long t0, t1;

	t0 = now_ns();
	if (syscall(SYS_delete_module, name, O_NONBLOCK))
		die("delete_module");
	t1 = now_ns();
	printf("ns=%lld\n", t1 - t0);
	return 0;
}

struct ksym {
	unsigned long addr;
	char name[200];
	long hits;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int hits_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return y->hits > x->hits ? 1 : y->hits < x->hits ? -1 : 0;
}

#define PROF_PAGES 1024 /* 4 MiB of samples: ~170k (24 bytes each) */

static int dispatch(int argc, char **argv);

static int profile(long period, int argc, char **argv)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP,
		.disabled = 1,
	};
	long page = sysconf(_SC_PAGESIZE), nsyms = 0, cap = 1 << 16, total = 0, user = 0, unknown = 0, lost = 0;
	struct perf_event_mmap_page *meta;
	struct ksym *syms = malloc(cap * sizeof(*syms));
	unsigned long head, pos;
	char line[256], name[128], type;
	unsigned long addr;
	unsigned char *data;
	FILE *f;
	int ret, i;

	prof_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (prof_fd < 0)
		die("perf_event_open");
	meta = mmap(NULL, (PROF_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, prof_fd, 0);
	if (meta == MAP_FAILED)
		die("mmap perf buffer");
	ret = dispatch(argc, argv);
	prof_off();

	f = fopen("/proc/kallsyms", "r");
	if (!f || !syms)
		die("/proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		char mod[64] = "";

		if (sscanf(line, "%lx %c %127s %63s", &addr, &type, name, mod) < 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (nsyms == cap) {
			cap *= 2;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				die("realloc");
		}
		syms[nsyms].addr = addr;
		snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s%s%s", name, *mod ? " " : "", mod);
		syms[nsyms].hits = 0;
		nsyms++;
	}
	fclose(f);
	qsort(syms, nsyms, sizeof(*syms), ksym_cmp);

	data = (unsigned char *)meta + page;
	head = meta->data_head;
	__sync_synchronize();
	for (pos = meta->data_tail; pos < head;) {
		struct perf_event_header *h = (void *)(data + pos % (PROF_PAGES * page));

		if (h->type == PERF_RECORD_SAMPLE) {
			unsigned long ip = *(unsigned long *)(h + 1);
			long lo = 0, hi = nsyms - 1, mid;

			total++;
			if (ip < 0x8000000000000000UL) {
				user++;
			} else if (!nsyms || ip < syms[0].addr) {
				unknown++;
			} else {
				while (lo < hi) {
					mid = (lo + hi + 1) / 2;
					if (syms[mid].addr <= ip)
						lo = mid;
					else
						hi = mid - 1;
				}
				syms[lo].hits++;
			}
		} else if (h->type == PERF_RECORD_LOST) {
			lost += ((unsigned long *)(h + 1))[1];
		}
		pos += h->size;
	}
	qsort(syms, nsyms, sizeof(*syms), hits_cmp);
	printf("profile: period=%ld samples=%ld lost=%ld ops=%ld (figures: ns per op)\n", period, total, lost, prof_ops);
	printf("profile: %10.1f  (total)\n", (double)total * period / prof_ops);
	printf("profile: %10.1f  [user]\n", (double)user * period / prof_ops);
	if (unknown)
		printf("profile: %10.1f  [unknown]\n", (double)unknown * period / prof_ops);
	for (i = 0; i < nsyms && syms[i].hits; i++)
		printf("profile: %10.1f  %s\n", (double)syms[i].hits * period / prof_ops, syms[i].name);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "profile"))
		return profile(atol(argv[2]), argc - 2, argv + 2);
	return dispatch(argc, argv);
}

static int dispatch(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "loop")) {
		long n = atol(argv[3]);

		if (n <= 0)
			return 2;
		if (!strcmp(argv[2], "read"))
			return loop_read(n);
		if (!strcmp(argv[2], "prctl"))
			return loop_prctl(n);
	}
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_lines(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "insmod"))
		return insmod(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "rmmod"))
		return rmmod(argv[2]);
	fprintf(stderr, "usage: bench loop read|prctl N | write FILE LIST | insmod KO | rmmod NAME\n");
	return 2;
}
