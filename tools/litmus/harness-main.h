/* katomic-litmus harness runtime, part 2: the driver.  Needs KL_NT, KL_NCOL,
 * kl_reset(thread or -1, lo, hi), kl_run(thread, lo, hi), kl_state(i, vals). */
static long kl_batch = 4096, kl_sync = 128;
static int kl_sync_set;
static long long kl_max_iter = 1000000;
static double kl_max_time, kl_loop;
static unsigned kl_spin_limit;
static int kl_cpus[1024], kl_ncpus;
static int kl_stop;
static long long kl_total;
static long kl_rotate = 64;	/* batches between thread-to-CPU reassignments (a migration costs ~20% at every 8); 0: never */
static int kl_relayout_on = 1;

/*
 * Variation between batches, as litmus7 does: each variable's cells start at
 * a new pseudo-random offset (kl_noff, applied to the next batch), and every
 * kl_rotate batches the threads move round the CPUs.
 */
static unsigned long long kl_rng = 0x9e3779b97f4a7c15ULL;

static void kl_relayout(void)
{
	int v;

	for (v = 0; v < KL_NVARS; v++) {
		kl_rng ^= kl_rng << 13;
		kl_rng ^= kl_rng >> 7;
		kl_rng ^= kl_rng << 17;
		kl_noff[v] = kl_relayout_on ? (long)(kl_rng % KL_SPREAD) : 0;
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
	if (__atomic_add_fetch(&kl_bar.count, 1, __ATOMIC_ACQ_REL) == KL_NT) {
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

/* Histogram: open addressing on the state vector; one per thread. */
struct kl_hent {
	long long count;
	long long v[KL_NCOL];
};
struct kl_hist {
	struct kl_hent *e, *last;
	unsigned long cap, n;
};
static struct kl_hist kl_hist[KL_NT];

static unsigned long kl_hash(const long long *v)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < KL_NCOL; i++) {
		h ^= (unsigned long long)v[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return (unsigned long)h;
}

static void kl_hinit(struct kl_hist *h, unsigned long cap)
{
	h->e = calloc(cap, sizeof(*h->e));
	if (!h->e) {
		fprintf(stderr, "harness: out of memory\n");
		exit(3);
	}
	h->cap = cap;
	h->n = 0;
	h->last = NULL;
}

static struct kl_hent *kl_hput(struct kl_hist *h, const long long *v, long long count)
{
	unsigned long m = h->cap - 1, j = kl_hash(v) & m;

	for (;;) {
		struct kl_hent *e = &h->e[j];

		if (!e->count) {
			memcpy(e->v, v, sizeof(e->v));
			e->count = count;
			h->n++;
			return e;
		}
		if (!memcmp(e->v, v, sizeof(e->v))) {
			e->count += count;
			return e;
		}
		j = (j + 1) & m;
	}
}

static void kl_hadd(struct kl_hist *h, const long long *v)
{
	if (h->last && !memcmp(h->last->v, v, sizeof(h->last->v))) {
		h->last->count++;
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
			if (h->e[i].count)
				kl_hput(&nh, h->e[i].v, h->e[i].count);
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
 * One thread: run the batch in blocks of kl_sync iterations with a barrier
 * and a common start time before each block (the threads start each block
 * together and drift apart within it), fold this thread's share of the batch into its histogram,
 * then zero this thread's share of every variable's cells (spreading the
 * cells' ownership between the threads' caches).  Thread 0 times the
 * blocks only: kl_loop excludes histogram and reset.
 */
static void *kl_thread(void *arg)
{
	int t = (int)(intptr_t)arg, sense = 0;
	long lo = kl_batch * t / KL_NT, hi = kl_batch * (t + 1) / KL_NT;
	long long s[KL_NCOL];

	long nb = 0;

	kl_pin(t, 0);
	KL_RCU_REGISTER();
	for (;;) {
		long b, i;
		double q = 0;

		for (b = 0; b < kl_batch; b += kl_sync) {
			kl_barrier_go(&sense);
			if (!t && !b)
				q = kl_now();
			kl_run(t, b, b + kl_sync < kl_batch ? b + kl_sync : kl_batch);
		}
		kl_barrier(&sense);
		if (!t)
			kl_loop += kl_now() - q;
		for (i = lo; i < hi; i++) {
			kl_state(i, s);
			kl_hadd(&kl_hist[t], s);
		}
		if (t == 0)
			kl_relayout();	/* kl_noff: nobody reads it in this phase */
		kl_barrier(&sense);	/* everyone has read the batch */
		/* Move before the reset: the cells a thread zeroes are then in the cache of the CPU it will run on. */
		if (kl_rotate > 0 && ++nb % kl_rotate == 0 && kl_ncpus > 1)
			kl_pin(t, nb / kl_rotate);
		kl_reset(-1, lo, hi);	/* the next batch's cells, at kl_noff */
		if (t == 0) {
			memcpy(kl_off, kl_noff, sizeof(kl_off));	/* read again after the barrier */
			kl_total += kl_batch;
			if ((kl_max_iter > 0 && kl_total >= kl_max_iter) ||
			    (kl_max_time > 0 && kl_now() - kl_t0 >= kl_max_time))
				__atomic_store_n(&kl_stop, 1, __ATOMIC_RELAXED);
		}
		kl_barrier(&sense);
		if (__atomic_load_n(&kl_stop, __ATOMIC_RELAXED))
			break;
	}
	KL_RCU_UNREGISTER();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[KL_NT];
	int i, c;
	unsigned long k;
	double t1;

	while ((c = getopt(argc, argv, "n:t:b:s:w:y:d:a:l:")) != -1) {
		switch (c) {
		case 'n': kl_max_iter = atoll(optarg); break;
		case 't': kl_max_time = atof(optarg); break;
		case 'b': kl_batch = atol(optarg); break;
		case 's': kl_sync = atol(optarg); kl_sync_set = 1; break;
		case 'w': alarm((unsigned)atoi(optarg)); break;
		case 'y': kl_spin_limit = (unsigned)atol(optarg); break;
		case 'd': kl_delay = atol(optarg); break;
		case 'a': kl_rotate = atol(optarg); break;
		case 'l': kl_relayout_on = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n iterations] [-t seconds] [-b batch] [-s sync] [-w watchdog] [-y spins] [-d delay] [-a rotate] [-l 0|1]\n", argv[0]);
			return 2;
		}
	}
	if (kl_batch < KL_NT)
		kl_batch = KL_NT;
	if (kl_batch > KL_BMAX)
		kl_batch = KL_BMAX;
	if (kl_max_iter > 0 && kl_max_iter < kl_batch)
		kl_batch = kl_max_iter < KL_NT ? KL_NT : (long)kl_max_iter;
	if (kl_sync < 1)
		kl_sync = 1;
#ifdef __linux__
	{
		cpu_set_t set;

		if (!sched_getaffinity(0, sizeof(set), &set))
			for (i = 0; i < CPU_SETSIZE && kl_ncpus < 1024; i++)
				if (CPU_ISSET(i, &set))
					kl_cpus[kl_ncpus++] = i;
	}
#endif
	/* Spin, then yield: soon when threads outnumber CPUs, later otherwise (on
	 * a loaded machine the partner may be preempted: yielding beats spinning). */
	if (!kl_spin_limit)
		kl_spin_limit = KL_NT > (kl_ncpus ? kl_ncpus : 1) ? 64 : 1024;
	/* Threads that share a CPU run their blocks one after the other anyway:
	 * more blocks only add context switches (IRIW, 4 threads on 2 CPUs: about
	 * 4x the rate with one block per batch instead of blocks of 128). */
	if (!kl_sync_set && KL_NT > (kl_ncpus ? kl_ncpus : 1))
		kl_sync = kl_batch;
	for (i = 0; i < KL_NT; i++)
		kl_hinit(&kl_hist[i], 64);
	kl_relayout();
	kl_reset(-1, 0, kl_batch);
	memcpy(kl_off, kl_noff, sizeof(kl_off));
	kl_t0 = kl_now();
	for (i = 1; i < KL_NT; i++)
		if (pthread_create(&th[i], NULL, kl_thread, (void *)(intptr_t)i)) {
			fprintf(stderr, "harness: pthread_create failed\n");
			return 3;
		}
	kl_thread((void *)0);
	for (i = 1; i < KL_NT; i++)
		pthread_join(th[i], NULL);
	t1 = kl_now();
	printf("threads %d\ncpus %d\niterations %lld\nseconds %.6f\nloop_seconds %.6f\n", KL_NT, kl_ncpus, kl_total,
	       t1 - kl_t0, kl_loop);
	for (i = 0; i < KL_NT; i++)
		for (k = 0; k < kl_hist[i].cap; k++)
			if (kl_hist[i].e[k].count) {
				int j;

				printf("state %lld", kl_hist[i].e[k].count);
				for (j = 0; j < KL_NCOL; j++)
					printf(" %lld", kl_hist[i].e[k].v[j]);
				putchar('\n');
			}
	return fflush(stdout) ? 3 : 0;
}
