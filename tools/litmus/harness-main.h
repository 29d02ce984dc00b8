/*
 * katomic-litmus harness runtime, part 2: the driver and main().  Needs the
 * generated kl_tests[] (struct kl_test, harness-head.h) and KL_NTESTS.
 *
 * main() runs each test asked for in a child process of its own and watches
 * it: a test that makes no progress (no batch completed) for -D seconds is
 * killed and reported "deadlock", one that crashes "crash"; the next test
 * runs either way.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

static const struct kl_test *kl_T;	/* the test this (child) process runs */
static long kl_batch = 4096, kl_sync = 128;
static int kl_sync_set, kl_batch_set;
static long long kl_max_iter = 1000000, kl_grace_iter;
static double kl_max_time, kl_loop;
static unsigned kl_spin_limit;
static int kl_cpus[1024], kl_ncpus;
static int kl_stop;
static long long kl_total;
static long long kl_ndisc[KL_MAXT];	/* per thread: iterations of its share abandoned (KL_ORPHAN) */
static volatile long long *kl_progress;	/* kl_total, shared with the watching parent */
static long kl_rotate = 64;	/* batches between thread-to-CPU reassignments (a migration costs ~20% at every 8); 0: never */
static int kl_relayout_on = 1;
static double kl_deadline = 5, kl_watchdog = 600;

/*
 * Variation between batches, as litmus7 does: each variable's cells start at
 * a new pseudo-random offset (noff, applied to the next batch), and every
 * kl_rotate batches the threads move round the CPUs.
 */
static unsigned long long kl_rng = 0x9e3779b97f4a7c15ULL;

static void kl_relayout(void)
{
	int v;

	for (v = 0; v < kl_T->nvars; v++) {
		kl_rng ^= kl_rng << 13;
		kl_rng ^= kl_rng >> 7;
		kl_rng ^= kl_rng << 17;
		kl_T->noff[v] = kl_relayout_on ? (long)(kl_rng % KL_SPREAD) : 0;
	}
}

static struct {
	int count __attribute__((aligned(64)));
	int sense __attribute__((aligned(64)));
} kl_bar;

/*
 * A common start for each block: the thread that completes the barrier sets
 * kl_go a little in the future (kl_delay ticks of a clock all CPUs share);
 * everyone waits for it.  Without this the releasing thread starts about one
 * cache-line transfer ahead of the others, and the threads' iterations no
 * longer overlap (measured on SB: 13% witnesses without, 26% with).
 */
static inline unsigned long long kl_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	unsigned long long v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
#endif
}
#if defined(__x86_64__) || defined(__i386__)
static long kl_delay = 500;	/* TSC ticks */
#elif defined(__aarch64__)
static long kl_delay = 20;	/* generic timer ticks (tens of MHz) */
#else
static long kl_delay = 200;	/* nanoseconds */
#endif
static unsigned long long kl_go __attribute__((aligned(64)));

/*
 * Sense-reversing barrier: spin, then yield (threads may outnumber CPUs).
 * With go, the thread that completes it also publishes the block start kl_go.
 */
static void kl_barrier_sync(int *sense, int go)
{
	int s = !*sense;

	*sense = s;
	if (__atomic_add_fetch(&kl_bar.count, 1, __ATOMIC_ACQ_REL) == kl_T->nt) {
		__atomic_store_n(&kl_bar.count, 0, __ATOMIC_RELAXED);
		if (go)
			__atomic_store_n(&kl_go, kl_ticks() + (unsigned long long)kl_delay, __ATOMIC_RELAXED);
		__atomic_store_n(&kl_bar.sense, s, __ATOMIC_RELEASE);
	} else {
		unsigned n = 0;

		while (__atomic_load_n(&kl_bar.sense, __ATOMIC_ACQUIRE) != s) {
			if (++n >= kl_spin_limit) {
				n = 0;
				sched_yield();
			} else {
				cpu_relax();
			}
		}
	}
}

static void kl_barrier(int *sense)
{
	kl_barrier_sync(sense, 0);
}

static void kl_barrier_go(int *sense)
{
	unsigned long long g;
	unsigned n;

	kl_barrier_sync(sense, 1);
	/* Bounded: a clock that differs between CPUs must not stall us. */
	g = __atomic_load_n(&kl_go, __ATOMIC_RELAXED);
	for (n = 0; kl_ticks() < g && n < 100000; n++)
		cpu_relax();
}

static double kl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Histogram: open addressing on the state vector; one per thread.  An entry
 * is a count and ncol values (kl_T->ncol + 1 long longs). */
struct kl_hist {
	long long *e, *last;
	unsigned long cap, n;
};
static struct kl_hist kl_hist[KL_MAXT];

static unsigned long kl_hash(const long long *v)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < kl_T->ncol; i++) {
		h ^= (unsigned long long)v[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return (unsigned long)h;
}

#define KL_ENT(h, j) ((h)->e + (size_t)(j) * (size_t)(kl_T->ncol + 1))

static void kl_hinit(struct kl_hist *h, unsigned long cap)
{
	h->e = calloc(cap, sizeof(long long) * (size_t)(kl_T->ncol + 1));
	if (!h->e) {
		fprintf(stderr, "harness: out of memory\n");
		exit(3);
	}
	h->cap = cap;
	h->n = 0;
	h->last = NULL;
}

static long long *kl_hput(struct kl_hist *h, const long long *v, long long count)
{
	unsigned long m = h->cap - 1, j = kl_hash(v) & m;
	size_t vs = sizeof(long long) * (size_t)kl_T->ncol;

	for (;;) {
		long long *e = KL_ENT(h, j);

		if (!e[0]) {
			memcpy(e + 1, v, vs);
			e[0] = count;
			h->n++;
			return e;
		}
		if (!memcmp(e + 1, v, vs)) {
			e[0] += count;
			return e;
		}
		j = (j + 1) & m;
	}
}

static void kl_hadd(struct kl_hist *h, const long long *v)
{
	if (h->last && !memcmp(h->last + 1, v, sizeof(long long) * (size_t)kl_T->ncol)) {
		h->last[0]++;
		return;
	}
	if ((h->n + 1) * 2 > h->cap) {
		struct kl_hist nh;
		unsigned long i;

		if (h->cap >= (1UL << 24)) {
			fprintf(stderr, "harness: too many distinct final states\n");
			exit(3);
		}
		kl_hinit(&nh, h->cap * 2);
		for (i = 0; i < h->cap; i++)
			if (KL_ENT(h, i)[0])
				kl_hput(&nh, KL_ENT(h, i) + 1, KL_ENT(h, i)[0]);
		free(h->e);
		*h = nh;
	}
	h->last = kl_hput(h, v, 1);
}

/* Pin thread t to CPU slot (t + rot) of the affinity mask. */
static void kl_pin(int t, long rot)
{
#ifdef __linux__
	cpu_set_t set;

	if (!kl_ncpus)
		return;
	CPU_ZERO(&set);
	CPU_SET(kl_cpus[(t + rot) % kl_ncpus], &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
#else
	(void)t;
	(void)rot;
#endif
}

static double kl_t0;

/*
 * A test that may leave a lock held: its complete executions may need a
 * given thread to come last (a thread that takes a lock for good must run
 * after those waiting for it), so each block starts the threads in a
 * rotating order, the k-th behind by k yields and spins.  Without it, the
 * thread that happened to start first took every lock of every block.
 */
static void kl_stagger(int k)
{
	int n;

	for (; k > 0; k--) {
		sched_yield();
		for (n = 0; n < 2000; n++)
			cpu_relax();
	}
}

/*
 * One thread: run the batch in blocks of kl_sync iterations with a barrier
 * and a common start time before each block (the threads start each block
 * together and drift apart within it), fold this thread's share of the batch
 * into its histogram, then zero this thread's share of every variable's cells
 * (spreading the cells' ownership between the threads' caches).  Thread 0
 * times the blocks only: kl_loop excludes histogram and reset.
 */
static void *kl_thread(void *arg)
{
	int t = (int)(intptr_t)arg, sense = 0, nt = kl_T->nt, nv = kl_T->nvars;
	long lo = kl_batch * t / nt, hi = kl_batch * (t + 1) / nt;
	long long s[kl_T->ncol];
	long nb = 0;

	kl_pin(t, 0);
	if (kl_T->rcu)
		KL_RCU_REGISTER();
	for (;;) {
		long b, i;
		double q = 0;

		for (b = 0; b < kl_batch; b += kl_sync) {
			kl_barrier_go(&sense);
			if (!t && !b)
				q = kl_now();
			if (kl_T->orphan)
				kl_stagger((int)((t + b / kl_sync + nb) % nt));
			kl_T->run(t, b, b + kl_sync < kl_batch ? b + kl_sync : kl_batch);
		}
		kl_barrier(&sense);
		if (!t)
			kl_loop += kl_now() - q;
		for (i = lo; i < hi; i++) {
			if (kl_discard[i]) {	/* not a complete execution: no final state */
				kl_discard[i] = 0;
				kl_ndisc[t]++;
				continue;
			}
			kl_T->state(i, s);
			kl_hadd(&kl_hist[t], s);
		}
		if (t == 0)
			kl_relayout();	/* noff: nobody reads it in this phase */
		kl_barrier(&sense);	/* everyone has read the batch */
		/* Move before the reset: the cells a thread zeroes are then in the cache of the CPU it will run on. */
		if (kl_rotate > 0 && ++nb % kl_rotate == 0 && kl_ncpus > 1)
			kl_pin(t, nb / kl_rotate);
		kl_T->reset(-1, lo, hi);	/* the next batch's cells, at noff */
		if (t == 0) {
			memcpy(kl_T->off, kl_T->noff, sizeof(long) * (size_t)nv);	/* read again after the barrier */
			kl_base += KL_BMAX;	/* kl_prog of the next batch's iterations: above this one's */
			kl_total += kl_batch;
			if (kl_progress)
				*kl_progress = kl_total;
			if ((kl_max_iter > 0 && kl_total >= kl_max_iter) ||
			    (kl_max_time > 0 && kl_now() - kl_t0 >= kl_max_time))
				__atomic_store_n(&kl_stop, 1, __ATOMIC_RELAXED);
		}
		kl_barrier(&sense);
		if (__atomic_load_n(&kl_stop, __ATOMIC_RELAXED))
			break;
	}
	if (kl_T->rcu)
		KL_RCU_UNREGISTER();
	return NULL;
}

/* Run test k in this process and print its histogram. */
static int kl_run_test(int k)
{
	pthread_t th[KL_MAXT];
	int i, nt;
	unsigned long j;
	double t1;

	kl_T = kl_tests[k];
	nt = kl_nthreads = kl_T->nt;
	/* A grace period per iteration costs microseconds; so does a hand-over
	 * between threads at each iteration abandoned on a lock never released. */
	if ((kl_T->grace || kl_T->orphan) && kl_grace_iter > 0 && (kl_max_iter <= 0 || kl_max_iter > kl_grace_iter))
		kl_max_iter = kl_grace_iter;
	/* A test that may leave a lock held hands over between threads at every
	 * abandoned iteration (each waits until the others have finished it): slow
	 * on a loaded machine, so smaller batches, for the deadline's sake. */
	if (kl_T->orphan && !kl_batch_set && kl_batch > 256)
		kl_batch = 256;
	if (kl_batch < nt)
		kl_batch = nt;
	if (kl_batch > KL_BMAX)
		kl_batch = KL_BMAX;
	if (kl_max_iter > 0 && kl_max_iter < kl_batch)
		kl_batch = kl_max_iter < nt ? nt : (long)kl_max_iter;
	if (kl_sync < 1)
		kl_sync = 1;
	/* Spin, then yield: soon when threads outnumber CPUs, later otherwise (on
	 * a loaded machine the partner may be preempted: yielding beats spinning). */
	if (!kl_spin_limit)
		kl_spin_limit = nt > (kl_ncpus ? kl_ncpus : 1) ? 64 : 1024;
	kl_lock_spins = kl_spin_limit;
	/* Threads that share a CPU run their blocks one after the other anyway:
	 * more blocks only add context switches (IRIW, 4 threads on 2 CPUs: about
	 * 4x the rate with one block per batch instead of blocks of 128).  A test
	 * calling a grace period too: with liburcu's membarrier flavour each block
	 * cost 1-2 ms more (RCU-MP+sync: 20480 iterations in 0.33 s with blocks of
	 * 128, 0.03-0.04 s with one block per batch). */
	if (!kl_sync_set && (nt > (kl_ncpus ? kl_ncpus : 1) || kl_T->grace))
		kl_sync = kl_batch;
	/* ... but a test that may leave a lock held needs its threads to start
	 * together, in varied order (kl_stagger), and often. */
	if (!kl_sync_set && kl_T->orphan)
		kl_sync = 16;
	for (i = 0; i < nt; i++)
		kl_hinit(&kl_hist[i], 64);
	kl_relayout();
	kl_T->reset(-1, 0, kl_batch);
	memcpy(kl_T->off, kl_T->noff, sizeof(long) * (size_t)kl_T->nvars);
	kl_t0 = kl_now();
	for (i = 1; i < nt; i++)
		if (pthread_create(&th[i], NULL, kl_thread, (void *)(intptr_t)i)) {
			fprintf(stderr, "harness: pthread_create failed\n");
			return 3;
		}
	kl_thread((void *)0);
	for (i = 1; i < nt; i++)
		pthread_join(th[i], NULL);
	t1 = kl_now();
	printf("test %d\nthreads %d\ncpus %d\niterations %lld\nseconds %.6f\nloop_seconds %.6f\n", k, nt, kl_ncpus,
	       kl_total, t1 - kl_t0, kl_loop);
	if (kl_T->orphan) {
		long long d = 0;

		for (i = 0; i < nt; i++)
			d += kl_ndisc[i];
		printf("discarded %lld\n", d);
	}
	for (i = 0; i < nt; i++)
		for (j = 0; j < kl_hist[i].cap; j++)
			if (KL_ENT(&kl_hist[i], j)[0]) {
				const long long *e = KL_ENT(&kl_hist[i], j);
				int c;

				printf("state %lld", e[0]);
				for (c = 0; c < kl_T->ncol; c++)
					printf(" %lld", e[c + 1]);
				putchar('\n');
			}
	printf("end %d\n", k);
	return fflush(stdout) ? 3 : 0;
}

/* CPU seconds process pid has used (all its threads), or -1 where /proc cannot tell. */
static double kl_cpu_seconds(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');	/* after the command name, which may hold blanks */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Is every thread of process pid asleep (blocked, e.g. on a futex), none runnable? */
static int kl_all_asleep(pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int asleep = 1, seen = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (asleep && (e = readdir(d))) {
		char stat[320], buf[512], *p;
		FILE *f;
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(stat, sizeof(stat), "%s/%s/stat", path, e->d_name);
		f = fopen(stat, "r");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		p = strrchr(buf, ')');
		seen++;
		asleep = p && (p[2] == 'S' || p[2] == 'D');
	}
	closedir(d);
	return asleep && seen;
}

/*
 * Run test k in a child process and watch it: no batch completed for
 * kl_deadline seconds is a deadlock, more than kl_watchdog seconds in all a
 * timeout; the child is killed and the verdict printed instead of its
 * histogram.  A deadlock needs more than no progress: the test spent a
 * quarter of the deadline on the CPUs meanwhile (spinning on a lock, a
 * barrier) or all its threads are asleep (a grace period waiting for
 * itself); a test that did not get the CPUs (a loaded machine, nice) is
 * given more time.
 */
static void kl_watch(int k)
{
	sigset_t chld;
	pid_t pid;
	int status = 0;
	long long seen = 0;
	double t0, tseen, cseen, now;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	*kl_progress = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("error %d fork failed\n", k);
		return;
	}
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		_exit(kl_run_test(k));
	}
	t0 = tseen = kl_now();
	cseen = kl_cpu_seconds(pid);
	for (;;) {
		struct timespec ts = { 0, 20000000 };	/* SIGCHLD ends the wait at once */
		pid_t r = waitpid(pid, &status, WNOHANG);
		long long p = *kl_progress;
		int dead = 0;

		if (r == pid)
			break;
		now = kl_now();
		if (p != seen) {
			seen = p;
			tseen = now;
			cseen = kl_cpu_seconds(pid);
		}
		if (now - tseen >= kl_deadline) {
			double c = kl_cpu_seconds(pid);

			dead = c < 0 || cseen < 0 || c - cseen >= kl_deadline / 4 || kl_all_asleep(pid);
		}
		if (dead || (kl_watchdog > 0 && now - t0 >= kl_watchdog)) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			printf("%s %d iterations %lld seconds %.3f\n", dead ? "deadlock" : "timeout", k, seen, now - t0);
			return;
		}
		(void)sigtimedwait(&chld, NULL, &ts);
	}
	if (WIFSIGNALED(status))
		printf("crash %d signal %d\n", k, WTERMSIG(status));
	else if (WEXITSTATUS(status))
		printf("error %d exit status %d\n", k, WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	int i, c;

	while ((c = getopt(argc, argv, "n:t:b:s:w:D:g:y:d:a:l:")) != -1) {
		switch (c) {
		case 'n': kl_max_iter = atoll(optarg); break;
		case 't': kl_max_time = atof(optarg); break;
		case 'b': kl_batch = atol(optarg); kl_batch_set = 1; break;
		case 's': kl_sync = atol(optarg); kl_sync_set = 1; break;
		case 'w': kl_watchdog = atof(optarg); break;
		case 'D': kl_deadline = atof(optarg); break;
		case 'g': kl_grace_iter = atoll(optarg); break;
		case 'y': kl_spin_limit = (unsigned)atol(optarg); break;
		case 'd': kl_delay = atol(optarg); break;
		case 'a': kl_rotate = atol(optarg); break;
		case 'l': kl_relayout_on = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n iterations] [-t seconds] [-b batch] [-s sync] [-w watchdog] "
				"[-D deadline] [-g grace-period and lock-orphan iterations] [-y spins] [-d delay] [-a rotate] [-l 0|1] "
				"[TEST...]\n(%d tests:", argv[0], KL_NTESTS);
			for (i = 0; i < KL_NTESTS; i++)
				fprintf(stderr, " %d %s", i, kl_tests[i]->name);
			fprintf(stderr, ")\n");
			return 2;
		}
	}
#ifdef __linux__
	{
		cpu_set_t set;

		if (!sched_getaffinity(0, sizeof(set), &set))
			for (i = 0; i < CPU_SETSIZE && kl_ncpus < 1024; i++)
				if (CPU_ISSET(i, &set))
					kl_cpus[kl_ncpus++] = i;
	}
#endif
	kl_progress = mmap(NULL, sizeof(*kl_progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (kl_progress == MAP_FAILED) {
		fprintf(stderr, "harness: mmap failed\n");
		return 3;
	}
	{
		sigset_t chld;

		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, NULL);
	}
	if (optind == argc) {
		for (i = 0; i < KL_NTESTS; i++)
			kl_watch(i);
	} else {
		for (i = optind; i < argc; i++) {
			int k = atoi(argv[i]);

			if (k < 0 || k >= KL_NTESTS) {
				fprintf(stderr, "harness: no test %s (0..%d)\n", argv[i], KL_NTESTS - 1);
				return 2;
			}
			kl_watch(k);
		}
	}
	return fflush(stdout) ? 3 : 0;
}
