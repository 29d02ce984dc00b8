/* SPDX-License-Identifier: MIT */
/*
 * katomic-litmus: run the kernel's C litmus tests on this machine against the
 * katomic headers.  For each test: parse (parse.c), generate a C harness,
 * compile it (cached by content hash), run it, judge the histogram.
 *
 * Harness technique (docs/litmus.md): every thread walks an array of fresh
 * zeroed cells, each shared variable of each iteration on its own 64-byte
 * line, with no per-iteration handshake; the thread bodies are inlined into
 * the loop and store their registers to per-iteration arrays; threads
 * resynchronise every SYNC iterations with a spinning (then yielding) barrier
 * and a common start time; after a batch each thread folds its share of the
 * iterations into a histogram and zeroes its share of the cells.
 */
#define _GNU_SOURCE
#include "parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The harness runtime (harness-head.h, harness-main.h), embedded by embed.awk. */
extern const char kl_rt_head[], kl_rt_main[];

/* ------------------------------------------------------------ utilities */
struct sbuf {
	char *s;
	size_t n, cap;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("katomic-litmus: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->n + (size_t)n + 1 > b->cap) {
		b->cap = (b->n + (size_t)n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

static int read_file(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = { 0 };
	char tmp[65536];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		sb_add(&b, tmp, n);
	if (ferror(f)) {
		fclose(f);
		free(b.s);
		return -1;
	}
	fclose(f);
	if (!b.s)
		sb_add(&b, "", 0);
	*out = b.s;
	*len = b.n;
	return 0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--) {
		h ^= *s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}
#define FNV0 0xcbf29ce484222325ULL

/* Order-independent hash of every file under dir (the headers a harness uses). */
static uint64_t hash_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t acc = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			acc += hash_tree(path) * 31 + fnv(FNV0, e->d_name, strlen(e->d_name));
		} else if (S_ISREG(st.st_mode)) {
			char *buf;
			size_t len;

			if (read_file(path, &buf, &len))
				continue;
			acc += fnv(fnv(FNV0, e->d_name, strlen(e->d_name)), buf, len);
			free(buf);
		}
	}
	closedir(d);
	return acc;
}

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(tmp))
		return -1;
	memcpy(tmp, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (tmp[i] == '/' || tmp[i] == 0) {
			char c = tmp[i];

			tmp[i] = 0;
			if (mkdir(tmp, 0777) && errno != EEXIST)
				return -1;
			tmp[i] = c;
		}
	}
	return 0;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* ------------------------------------------------------------ options */
static struct {
	const char *backend;
	const char *cc;
	const char *include;
	const char *cache;
	long long iterations;
	double time;
	long batch, sync;
	int json, jobs, verbose, timeout, no_urcu;
	long long rcu_iterations;
	const char **mutate;
	int nmutate;
	const char *cflags;
} opt = {
	.backend = "c11", .cc = "gcc", .iterations = -1, .batch = 0, .sync = 0,
	.jobs = 0, .timeout = 600, .rcu_iterations = 50000,
};

/* ------------------------------------------------------------ tests */
enum verdict { V_PASS, V_NOTSEEN, V_FAIL, V_ERROR, V_SKIP, V_PARSE };

struct state {
	long long count;
	long long *vals;
};

struct test {
	const char *path;
	struct lt_test *lt;
	char *src;		/* the test text (owned) */
	const char *skip;	/* reason, if skipped */
	int urcu;		/* maps RCU to liburcu (-DKL_URCU -lurcu-memb) */
	int grace;		/* calls synchronize_rcu(): iterations capped */
	struct lt_loc *cols;	/* observed locations: the histogram's columns */
	int ncols;
	char *harness;		/* generated C */
	char binpath[PATH_MAX];
	int compiled_ok;
	char *compile_log;
	/* results */
	struct state *states;
	int nstates;
	long long iters, pos, neg;
	double secs, loop_secs;
	enum verdict verdict;
	const char *observation, *expected;
	char *error;
};

static const char *verdict_name(enum verdict v)
{
	switch (v) {
	case V_PASS: return "PASS";
	case V_NOTSEEN: return "PASS (not seen)";
	case V_FAIL: return "FAIL";
	case V_ERROR: return "ERROR";
	case V_SKIP: return "SKIP";
	default: return "PARSE ERROR";
	}
}

static int col_is_ptr(const struct lt_test *t, const struct lt_loc *l)
{
	if (l->thread >= 0)
		return t->threads[l->thread].regs[l->index].is_ptr;
	return t->vars[l->index].kind == LT_PTR;
}

static void add_col(struct test *T, const struct lt_loc *l)
{
	int i;

	for (i = 0; i < T->ncols; i++)
		if (T->cols[i].thread == l->thread && T->cols[i].index == l->index)
			return;
	T->cols = xrealloc(T->cols, sizeof(*T->cols) * (size_t)(T->ncols + 1));
	T->cols[T->ncols++] = *l;
}

static void expr_cols(struct test *T, const struct lt_expr *e)
{
	if (!e)
		return;
	if (e->kind == LT_E_ATOM)
		add_col(T, &e->loc);
	expr_cols(T, e->a);
	expr_cols(T, e->b);
}

static int find_col(const struct test *T, const struct lt_loc *l)
{
	int i;

	for (i = 0; i < T->ncols; i++)
		if (T->cols[i].thread == l->thread && T->cols[i].index == l->index)
			return i;
	return -1;
}

static int eval(const struct test *T, const struct lt_expr *e, const long long *v)
{
	switch (e->kind) {
	case LT_E_TRUE: return 1;
	case LT_E_FALSE: return 0;
	case LT_E_NOT: return !eval(T, e->a, v);
	case LT_E_AND: return eval(T, e->a, v) && eval(T, e->b, v);
	case LT_E_OR: return eval(T, e->a, v) || eval(T, e->b, v);
	case LT_E_ATOM: {
		int c = find_col(T, &e->loc);
		long long x = v[c];

		if (col_is_ptr(T->lt, &e->loc)) {
			if (e->val.is_sym)
				return x == e->val.var + 1;
			return x == 0 && e->val.num == 0;
		}
		return x == e->val.num;
	}
	}
	return 0;
}

/* ------------------------------------------------------------ harness generator */
/* A type without const/volatile, for the register arrays. */
static char *strip_cv(const char *type)
{
	struct sbuf b = { 0 };
	const char *s = type;

	while (*s) {
		size_t n = strcspn(s, " ");

		if (!((n == 5 && !memcmp(s, "const", 5)) || (n == 8 && !memcmp(s, "volatile", 8)))) {
			if (b.n)
				sb_add(&b, " ", 1);
			sb_add(&b, s, n);
		}
		s += n;
		while (*s == ' ')
			s++;
	}
	if (!b.s)
		sb_add(&b, "int", 3);
	return b.s;
}

static void emit_line_directive(struct sbuf *b, int line, const char *path)
{
	sb_printf(b, "#line %d \"", line);
	for (; *path; path++) {
		if (*path == '"' || *path == '\\')
			sb_add(b, "\\", 1);
		if ((unsigned char)*path >= 0x20)
			sb_add(b, path, 1);
	}
	sb_add(b, "\"\n", 2);
}

/*
 * The cell of variable var in iteration idx: iteration i of a batch uses cell
 * i + kl_off[var] (offs "kl_off"); the reset prepares the next batch's cells,
 * at kl_noff (see kl_relayout() in harness-main.h).
 */
static void emit_cell(struct sbuf *b, const struct lt_test *t, int var, const char *idx, const char *offs)
{
	sb_printf(b, "kl_c_%s[%s + %s[%d]]", t->vars[var].name, idx, offs, var);
}

static void emit_ptr_value(struct sbuf *b, const struct lt_test *t, const char *type, int var,
			   const char *idx, const char *offs)
{
	if (var < 0) {
		sb_printf(b, "(%s)0", type);
		return;
	}
	sb_printf(b, "(%s)&", type);
	emit_cell(b, t, var, idx, offs);
	sb_printf(b, ".v");
}

/*
 * The thread that first writes a variable (a guess from the text: the
 * variable passed as the first argument, "f(*x," or "f(x,"); it resets the
 * variable's cells, so that its stores hit its own cache while the other
 * threads' loads miss: the store-buffer window the weak outcomes need.
 */
static int var_home(const struct lt_test *t, int vi)
{
	int th, j, first = -1;

	for (th = 0; th < t->nthreads; th++) {
		const struct lt_thread *tt = &t->threads[th];

		for (j = 0; j < tt->nparams; j++) {
			const char *pn = tt->params[j].name, *s = tt->body, *end = tt->body + tt->body_len;
			size_t n = strlen(pn);

			if (tt->params[j].var != vi)
				continue;
			if (first < 0)
				first = th;
			while ((s = memmem(s, (size_t)(end - s), pn, n))) {
				const char *a = s + n;
				const char *b = s;

				s += n;
				while (a < end && (*a == ' ' || *a == '\t'))
					a++;
				if (a >= end || *a != ',')
					continue;
				while (b > tt->body && (b[-1] == ' ' || b[-1] == '\t'))
					b--;
				if (b > tt->body && b[-1] == '*')
					b--;
				while (b > tt->body && (b[-1] == ' ' || b[-1] == '\t'))
					b--;
				if (b > tt->body && b[-1] == '(')
					return th;
			}
		}
	}
	return first < 0 ? 0 : first;
}

static void generate(struct test *T)
{
	const struct lt_test *t = T->lt;
	struct sbuf b = { 0 };
	int i, j, k;

	sb_printf(&b, "/* katomic-litmus harness for %s (generated) */\n", t->name);
	sb_printf(&b, "#define _GNU_SOURCE\n%s#include <katomic/katomic.h>\n%s", T->urcu ? "#define KL_URCU 1\n" : "", kl_rt_head);
	/* Mutations: replace a primitive by another, e.g. smp_mb=barrier. */
	for (i = 0; i < opt.nmutate; i++) {
		const char *eq = strchr(opt.mutate[i], '=');

		sb_printf(&b, "#undef %.*s\n#define %.*s(...) %s(__VA_ARGS__)\n",
			  (int)(eq - opt.mutate[i]), opt.mutate[i], (int)(eq - opt.mutate[i]),
			  opt.mutate[i], eq + 1);
	}
	sb_printf(&b, "#define KL_NT %d\n#define KL_NCOL %d\n", t->nthreads, T->ncols ? T->ncols : 1);
	/* Cells: KL_SPREAD spare ones per variable, so each batch can start each
	 * variable's cells at a different offset (a new relative layout). */
	sb_printf(&b, "#define KL_NVARS %d\nstatic long kl_off[KL_NVARS + 1], kl_noff[KL_NVARS + 1];\n", t->nvars);
	for (i = 0; i < t->nvars; i++)
		sb_printf(&b, "struct kl_cell_%s { %s v; } __attribute__((aligned(64)));\n"
			  "static struct kl_cell_%s kl_c_%s[KL_BMAX + KL_SPREAD];\n",
			  t->vars[i].name, t->vars[i].type, t->vars[i].name, t->vars[i].name);
	for (i = 0; i < t->nthreads; i++)
		for (j = 0; j < t->threads[i].nregs; j++) {
			char *ty = strip_cv(t->threads[i].regs[j].type);

			sb_printf(&b, "static %s kl_r_%d_%s[KL_BMAX] __attribute__((aligned(64)));\n", ty, i, t->threads[i].regs[j].name);
			free(ty);
		}
	/* Reset of a range of iterations: zero, then the init block. */
	sb_add(&b, "static void kl_reset(int t, long lo, long hi)\n{\n\tlong i;\n\n\t(void)i;\n", 59);
	for (i = 0; i < t->nvars; i++)
	{
		sb_printf(&b, "\tif (t < 0 || t == %d)\n\t\tmemset(&", var_home(t, i));
		emit_cell(&b, t, i, "lo", "kl_noff");
		sb_printf(&b, ", 0, (size_t)(hi - lo) * sizeof(*kl_c_%s));\n", t->vars[i].name);
	}
	for (i = 0; i < t->nvars; i++) {
		const struct lt_var *v = &t->vars[i];

		if (!v->has_init || (v->kind != LT_PTR && v->init_val == 0) ||
		    (v->kind == LT_PTR && v->init_ptr < 0))
			continue;
		sb_printf(&b, "\tif (t < 0 || t == %d)\n", var_home(t, i));
		sb_printf(&b, "\tfor (i = lo; i < hi; i++)\n\t\t");
		emit_cell(&b, t, i, "i", "kl_noff");
		sb_printf(&b, ".v%s = ", v->kind == LT_ATOMIC ? ".counter" : "");
		if (v->kind == LT_PTR)
			emit_ptr_value(&b, t, v->type, v->init_ptr, "i", "kl_noff");
		else
			sb_printf(&b, "%lldLL", v->init_val);
		sb_add(&b, ";\n", 2);
	}
	sb_add(&b, "}\n", 2);
	/* Pointer identification: 0 NULL, k+1 variable k, -1 elsewhere. */
	sb_add(&b, "static long long kl_ptr_id(long i, const void *p)\n{\n\tif (!p)\n\t\treturn 0;\n", 73);
	for (i = 0; i < t->nvars; i++) {
		sb_printf(&b, "\tif (p == (const void *)&");
		emit_cell(&b, t, i, "i", "kl_off");
		sb_printf(&b, ".v)\n\t\treturn %d;\n", i + 1);
	}
	sb_add(&b, "\t(void)i;\n\treturn -1;\n}\n", 24);
	/* Threads. */
	for (i = 0; i < t->nthreads; i++) {
		const struct lt_thread *th = &t->threads[i];
		size_t off = 0;

		sb_printf(&b, "static inline __attribute__((always_inline)) void kl_P%d(long kl_i", i);
		for (j = 0; j < th->nparams; j++)
			sb_printf(&b, ", %s%s%s", th->params[j].type,
				  th->params[j].type[strlen(th->params[j].type) - 1] == '*' ? "" : " ",
				  th->params[j].name);
		sb_add(&b, ")\n{\n", 4);
		emit_line_directive(&b, th->body_line, T->path);
		for (k = 1; k < th->body_col; k++)
			sb_add(&b, " ", 1);
		for (j = 0; j < th->nregs; j++) {
			const struct lt_reg *r = &th->regs[j];

			if (r->zero_at == (size_t)-1)
				continue;
			sb_add(&b, th->body + off, r->zero_at - off);
			off = r->zero_at;
			sb_add(&b, " = ", 3);
			if (r->has_init && r->is_ptr && r->init_ptr >= 0)
				emit_ptr_value(&b, t, r->type, r->init_ptr, "kl_i", "kl_off");
			else
				sb_printf(&b, "(%s)%lldLL", r->type, r->has_init ? r->init_val : 0);
		}
		sb_add(&b, th->body + off, th->body_len - off);
		sb_add(&b, "\n", 1);
		for (j = 0; j < th->nregs; j++)
			sb_printf(&b, "\tkl_r_%d_%s[kl_i] = %s;\n", i, th->regs[j].name, th->regs[j].name);
		sb_add(&b, "\t(void)kl_i;\n}\n", 15);
		emit_line_directive(&b, 1, "harness.c");
	}
	sb_add(&b, "static void kl_run(int t, long lo, long hi)\n{\n\tlong i;\n\n\tswitch (t) {\n", 70);
	for (i = 0; i < t->nthreads; i++) {
		const struct lt_thread *th = &t->threads[i];

		sb_printf(&b, "\tcase %d:\n\t\tfor (i = lo; i < hi; i++)\n\t\t\tkl_P%d(i", i, i);
		for (j = 0; j < th->nparams; j++) {
			sb_printf(&b, ", &");
			emit_cell(&b, t, th->params[j].var, "i", "kl_off");
			sb_printf(&b, ".v");
		}
		sb_add(&b, ");\n\t\tbreak;\n", 12);
	}
	sb_add(&b, "\t}\n}\n", 5);
	/* The final state of iteration i. */
	sb_add(&b, "static void kl_state(long i, long long *s)\n{\n", 45);
	for (i = 0; i < T->ncols; i++) {
		const struct lt_loc *l = &T->cols[i];

		if (l->thread >= 0) {
			const struct lt_reg *r = &t->threads[l->thread].regs[l->index];

			if (r->is_ptr)
				sb_printf(&b, "\ts[%d] = kl_ptr_id(i, (const void *)kl_r_%d_%s[i]);\n", i, l->thread, r->name);
			else
				sb_printf(&b, "\ts[%d] = (long long)kl_r_%d_%s[i];\n", i, l->thread, r->name);
		} else {
			const struct lt_var *v = &t->vars[l->index];

			switch (v->kind) {
			case LT_PTR:
				sb_printf(&b, "\ts[%d] = kl_ptr_id(i, (const void *)", i);
				emit_cell(&b, t, l->index, "i", "kl_off");
				sb_printf(&b, ".v);\n");
				break;
			case LT_ATOMIC:
				sb_printf(&b, "\ts[%d] = (long long)", i);
				emit_cell(&b, t, l->index, "i", "kl_off");
				sb_printf(&b, ".v.counter;\n");
				break;
			case LT_LOCK:
				sb_printf(&b, "\ts[%d] = spin_is_locked(&", i);
				emit_cell(&b, t, l->index, "i", "kl_off");
				sb_printf(&b, ".v);\n");
				break;
			default:
				sb_printf(&b, "\ts[%d] = (long long)", i);
				emit_cell(&b, t, l->index, "i", "kl_off");
				sb_printf(&b, ".v;\n");
			}
		}
	}
	if (!T->ncols)
		sb_add(&b, "\ts[0] = 0;\n", 11);
	sb_printf(&b, "\t(void)i;\n}\n%s", kl_rt_main);
	T->harness = b.s;
}

/* ------------------------------------------------------------ compile and run */
static char include_dir[PATH_MAX + 64];
static uint64_t headers_hash;

static void find_include(const char *argv0)
{
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	const char *env = getenv("KATOMIC_INCLUDE");
	ssize_t n;
	struct stat st;

	if (opt.include) {
		snprintf(include_dir, sizeof(include_dir), "%s", opt.include);
	} else if (env && *env) {
		snprintf(include_dir, sizeof(include_dir), "%s", env);
	} else {
		include_dir[0] = 0;
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n > 0) {
			char *slash;

			exe[n] = 0;
			slash = strrchr(exe, '/');
			if (slash) {
				*slash = 0;
				/* build/katomic-litmus -> ../include */
				snprintf(cand, sizeof(cand), "%s/../include/katomic/katomic.h", exe);
				if (!stat(cand, &st))
					snprintf(include_dir, sizeof(include_dir), "%s/../include", exe);
			}
		}
		if (!include_dir[0])
			snprintf(include_dir, sizeof(include_dir), "include");
		(void)argv0;
	}
	snprintf(cand, sizeof(cand), "%s/katomic/katomic.h", include_dir);
	if (stat(cand, &st))
		die("cannot find the katomic headers (%s): use --include DIR or KATOMIC_INCLUDE", cand);
	snprintf(cand, sizeof(cand), "%s/katomic", include_dir);
	headers_hash = hash_tree(cand);
	if (!opt.cache) {
		/* Next to the binary: build/litmus-cache */
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n > 0 && strrchr(exe, '/')) {
			exe[n] = 0;
			*strrchr(exe, '/') = 0;
			snprintf(cand, sizeof(cand), "%s/litmus-cache", exe);
			opt.cache = xstrdup(cand);
		} else {
			opt.cache = "build/litmus-cache";
		}
	}
}

/* The compiler command line (after the cc itself), NULL-terminated. */
static int compile_args(const char **argv, int max, const char *out, const char *src, char *incflag,
			int urcu)
{
	int n = 0;
	static const char *fixed[] = { "-std=gnu11", "-O2", "-pthread", "-w", NULL };
	int i;

	argv[n++] = opt.cc;
	for (i = 0; fixed[i]; i++)
		argv[n++] = fixed[i];
	argv[n++] = incflag;
	if (!strcmp(opt.backend, "asm"))
		argv[n++] = "-DKATOMIC_BACKEND_ASM";
	if (opt.cflags) {
		/* Extra flags, split on blanks. */
		static char buf[4096];
		char *s;

		snprintf(buf, sizeof(buf), "%s", opt.cflags);
		for (s = strtok(buf, " \t"); s && n < max - 5; s = strtok(NULL, " \t"))
			argv[n++] = s;
	}
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = src;
	if (urcu)
		argv[n++] = "-lurcu-memb";
	argv[n] = NULL;
	return n;
}

/*
 * Is liburcu (Debian: liburcu-dev) usable with the harness compiler?  Link a
 * probe calling the memb flavour once per run (the answer is not cached on
 * disk: installing the package takes effect at once).
 */
static int urcu_available(void)
{
	static int avail = -1;
	char src[PATH_MAX + 32], bin[PATH_MAX + 32];
	const char *argv[16];
	FILE *f;
	pid_t pid;
	int status, n = 0;

	if (avail >= 0)
		return avail;
	avail = 0;
	if (opt.no_urcu)
		return avail;
	snprintf(src, sizeof(src), "%s/urcu-probe-%ld.c", opt.cache, (long)getpid());
	snprintf(bin, sizeof(bin), "%s/urcu-probe-%ld", opt.cache, (long)getpid());
	f = fopen(src, "w");
	if (!f)
		return avail;
	fputs("extern void urcu_memb_register_thread(void);\n"
	      "extern void urcu_memb_unregister_thread(void);\n"
	      "extern void urcu_memb_read_lock(void);\n"
	      "extern void urcu_memb_read_unlock(void);\n"
	      "extern void urcu_memb_synchronize_rcu(void);\n"
	      "int main(void)\n{\n\turcu_memb_register_thread();\n\turcu_memb_read_lock();\n"
	      "\turcu_memb_read_unlock();\n\turcu_memb_synchronize_rcu();\n"
	      "\turcu_memb_unregister_thread();\n\treturn 0;\n}\n", f);
	if (fclose(f))
		return avail;
	argv[n++] = opt.cc;
	argv[n++] = "-pthread";
	argv[n++] = "-o";
	argv[n++] = bin;
	argv[n++] = src;
	argv[n++] = "-lurcu-memb";
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status)) {
		/* Run it too: the library must load and a grace period complete. */
		pid = fork();
		if (pid == 0) {
			alarm(10);
			execl(bin, bin, (char *)NULL);
			_exit(127);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status))
			avail = 1;
	}
	unlink(src);
	unlink(bin);
	return avail;
}

struct job {
	pid_t pid;
	struct test *T;
	char tmp[PATH_MAX + 16], log[PATH_MAX + 16];
};

static void job_start(struct job *j, struct test *T)
{
	char src[PATH_MAX + 16];
	char incflag[PATH_MAX + 4];
	const char *argv[64];
	FILE *f;
	int fd;

	j->T = T;
	snprintf(src, sizeof(src), "%s.c", T->binpath);
	snprintf(j->tmp, sizeof(j->tmp), "%s.tmp%ld", T->binpath, (long)getpid());
	snprintf(j->log, sizeof(j->log), "%s.log", T->binpath);
	f = fopen(src, "w");
	if (!f || fputs(T->harness, f) == EOF || fclose(f)) {
		T->compile_log = xstrdup("cannot write the harness source in the cache directory");
		j->pid = -1;
		return;
	}
	snprintf(incflag, sizeof(incflag), "-I%s", include_dir);
	compile_args(argv, 64, j->tmp, src, incflag, T->urcu);
	fflush(NULL);
	j->pid = fork();
	if (j->pid == 0) {
		fd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (j->pid < 0)
		T->compile_log = xstrdup("fork failed");
}

static void job_finish(struct job *j, int status)
{
	struct test *T = j->T;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !rename(j->tmp, T->binpath)) {
		T->compiled_ok = 1;
		unlink(j->log);
	} else {
		char *buf;
		size_t len;

		if (!read_file(j->log, &buf, &len))
			T->compile_log = buf;
		else
			T->compile_log = xstrdup("compiler failed");
		unlink(j->tmp);
	}
}

/* Compile every harness not in the cache, opt.jobs at a time. */
static void compile_all(struct test *tests, int ntests)
{
	struct job *jobs = xmalloc(sizeof(*jobs) * (size_t)opt.jobs);
	int running = 0, i, k;

	for (i = 0; i <= ntests; i++) {
		struct test *T = i < ntests ? &tests[i] : NULL;
		struct stat st;

		if (T && (!T->harness || T->skip))
			continue;
		if (T && !stat(T->binpath, &st)) {
			T->compiled_ok = 1;
			continue;
		}
		while (running && (running >= opt.jobs || !T)) {
			int status;
			pid_t pid = wait(&status);

			if (pid < 0)
				break;
			for (k = 0; k < running; k++)
				if (jobs[k].pid == pid) {
					job_finish(&jobs[k], status);
					jobs[k] = jobs[--running];
					break;
				}
		}
		if (!T)
			break;
		if (!opt.json)
			fprintf(stderr, "katomic-litmus: compiling %s\n", T->lt->name);
		job_start(&jobs[running], T);
		if (jobs[running].pid > 0)
			running++;
	}
	free(jobs);
}

static int run_harness(struct test *T)
{
	int pfd[2], status;
	pid_t pid;
	struct sbuf out = { 0 };
	char buf[65536], a_n[32], a_t[32], a_b[32], a_s[32], a_w[32];
	const char *argv[16];
	int n = 0;
	ssize_t r;
	char *line, *save = NULL;

	argv[n++] = T->binpath;
	/* A grace period per iteration costs microseconds: cap those tests. */
	snprintf(a_n, sizeof(a_n), "%lld", T->grace && (opt.iterations <= 0 || opt.iterations > opt.rcu_iterations) ?
		 opt.rcu_iterations : opt.iterations);
	argv[n++] = "-n";
	argv[n++] = a_n;
	if (opt.time > 0) {
		snprintf(a_t, sizeof(a_t), "%g", opt.time);
		argv[n++] = "-t";
		argv[n++] = a_t;
	}
	if (opt.batch > 0) {
		snprintf(a_b, sizeof(a_b), "%ld", opt.batch);
		argv[n++] = "-b";
		argv[n++] = a_b;
	}
	if (opt.sync > 0) {
		snprintf(a_s, sizeof(a_s), "%ld", opt.sync);
		argv[n++] = "-s";
		argv[n++] = a_s;
	}
	snprintf(a_w, sizeof(a_w), "%d", opt.timeout);
	argv[n++] = "-w";
	argv[n++] = a_w;
	argv[n] = NULL;
	if (pipe(pfd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return -1;
	}
	while ((r = read(pfd[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
		if (r > 0)
			sb_add(&out, buf, (size_t)r);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char msg[128];

		if (WIFSIGNALED(status))
			snprintf(msg, sizeof(msg), "harness killed by signal %d%s", WTERMSIG(status),
				 WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		else
			snprintf(msg, sizeof(msg), "harness exited with status %d", WEXITSTATUS(status));
		T->error = xstrdup(msg);
		free(out.s);
		return -1;
	}
	if (!out.s)
		sb_add(&out, "", 0);
	for (line = strtok_r(out.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "iterations ", 11)) {
			T->iters = atoll(line + 11);
		} else if (!strncmp(line, "seconds ", 8)) {
			T->secs = atof(line + 8);
		} else if (!strncmp(line, "loop_seconds ", 13)) {
			T->loop_secs = atof(line + 13);
		} else if (!strncmp(line, "state ", 6)) {
			long long cnt, *v = xmalloc(sizeof(long long) * (size_t)(T->ncols + 1));
			char *p = line + 6, *e;
			int i, k;

			cnt = strtoll(p, &e, 10);
			for (i = 0; i < (T->ncols ? T->ncols : 1); i++) {
				p = e;
				v[i] = strtoll(p, &e, 10);
			}
			for (k = 0; k < T->nstates; k++)
				if (!memcmp(T->states[k].vals, v, sizeof(long long) * (size_t)T->ncols))
					break;
			if (k < T->nstates) {
				T->states[k].count += cnt;
				free(v);
			} else {
				T->states = xrealloc(T->states, sizeof(*T->states) * (size_t)(T->nstates + 1));
				T->states[T->nstates].count = cnt;
				T->states[T->nstates].vals = v;
				T->nstates++;
			}
		}
	}
	free(out.s);
	return 0;
}

/* ------------------------------------------------------------ reporting */
static void format_val(const struct test *T, int c, long long v, char *buf, size_t size)
{
	if (col_is_ptr(T->lt, &T->cols[c])) {
		if (v > 0 && v <= T->lt->nvars)
			snprintf(buf, size, "%s", T->lt->vars[v - 1].name);
		else if (v == 0)
			snprintf(buf, size, "0");
		else
			snprintf(buf, size, "?");
	} else {
		snprintf(buf, size, "%lld", v);
	}
}

static void format_state(const struct test *T, const long long *v, struct sbuf *b)
{
	int c;

	for (c = 0; c < T->ncols; c++) {
		char loc[128], val[128];

		lt_loc_format(T->lt, &T->cols[c], loc, sizeof(loc));
		format_val(T, c, v[c], val, sizeof(val));
		sb_printf(b, "%s%s=%s;", c ? " " : "", loc, val);
	}
}

static const struct test *sort_T;
static int cmp_state(const void *a, const void *b)
{
	const struct state *x = a, *y = b;
	int c;

	for (c = 0; c < sort_T->ncols; c++)
		if (x->vals[c] != y->vals[c])
			return x->vals[c] < y->vals[c] ? -1 : 1;
	return 0;
}

static int in_filter(const struct test *T, const long long *v)
{
	return !T->lt->filter || eval(T, T->lt->filter, v);
}

static void judge(struct test *T)
{
	const struct lt_test *t = T->lt;
	enum lt_result exp = t->result;
	int k;

	T->pos = T->neg = 0;
	for (k = 0; k < T->nstates; k++) {
		if (!in_filter(T, T->states[k].vals))
			continue;
		if (eval(T, t->cond, T->states[k].vals))
			T->pos += T->states[k].count;
		else
			T->neg += T->states[k].count;
	}
	T->observation = T->pos == 0 ? "Never" : T->neg == 0 ? "Always" : "Sometimes";
	if (exp == LT_RES_NONE)
		exp = t->quant == LT_Q_NOT_EXISTS ? LT_RES_NEVER :
		      t->quant == LT_Q_FORALL ? LT_RES_ALWAYS : LT_RES_NONE;
	T->expected = exp == LT_RES_NONE ? "none" : lt_result_name(exp);
	T->verdict = V_PASS;
	if (exp == LT_RES_NEVER && T->pos)
		T->verdict = V_FAIL;
	else if (exp == LT_RES_ALWAYS && T->neg)
		T->verdict = V_FAIL;
	else if (exp == LT_RES_SOMETIMES && !T->pos)
		T->verdict = V_NOTSEEN;
}

static void print_text(struct test *T)
{
	const struct lt_test *t = T->lt;
	int k;

	printf("Test %s %s (%s)\n", t->name, T->expected ? T->expected : lt_result_name(t->result), T->path);
	if (T->verdict == V_SKIP) {
		printf("Skipped: %s\n\n", T->skip);
		return;
	}
	if (T->verdict == V_ERROR) {
		printf("Error: %s\n\n", T->error ? T->error : "?");
		return;
	}
	sort_T = T;
	qsort(T->states, (size_t)T->nstates, sizeof(*T->states), cmp_state);
	printf("Histogram (%d states)\n", T->nstates);
	for (k = 0; k < T->nstates; k++) {
		struct sbuf b = { 0 };
		const long long *v = T->states[k].vals;
		int f = in_filter(T, v), w = f && eval(T, t->cond, v);

		format_state(T, v, &b);
		printf("%-12lld%s>%s%s\n", T->states[k].count, !f ? "#" : w ? "*" : ":", b.s ? b.s : "",
		       f ? "" : "  (filtered out)");
		free(b.s);
	}
	printf("Witnesses\nPositive: %lld, Negative: %lld\n", T->pos, T->neg);
	if (t->filter)
		printf("Filter applied\n");
	printf("Condition %s\n", t->cond_text);
	printf("Observation %s %s %lld %lld\n", t->name, T->observation, T->pos, T->neg);
	printf("Rate %s %lld iterations in %.3f s: %.2fM iter/s (loop %.2fM iter/s), witnesses %.4f%% (%s, %s%s)\n",
	       t->name, T->iters, T->secs, T->secs > 0 ? (double)T->iters / T->secs / 1e6 : 0.0,
	       T->loop_secs > 0 ? (double)T->iters / T->loop_secs / 1e6 : 0.0,
	       T->pos + T->neg ? 100.0 * (double)T->pos / (double)(T->pos + T->neg) : 0.0,
	       opt.backend, opt.cc, T->urcu ? ", liburcu" : "");
	printf("Verdict %s %s (expected %s, observed %s)\n\n", t->name, verdict_name(T->verdict),
	       T->expected, T->observation);
}

static void print_json(struct test *tests, int ntests, int passed, int failed)
{
	int i, k, c;

	printf("{\"backend\":");
	json_str(stdout, opt.backend);
	printf(",\"cc\":");
	json_str(stdout, opt.cc);
	printf(",\"tests\":[");
	for (i = 0; i < ntests; i++) {
		struct test *T = &tests[i];

		printf("%s\n{\"file\":", i ? "," : "");
		json_str(stdout, T->path);
		if (T->verdict == V_PARSE) {
			printf(",\"verdict\":\"parse error\",\"error\":");
			json_str(stdout, T->error ? T->error : "");
			printf("}");
			continue;
		}
		printf(",\"name\":");
		json_str(stdout, T->lt->name);
		printf(",\"expected\":");
		json_str(stdout, T->expected ? T->expected : lt_result_name(T->lt->result));
		printf(",\"verdict\":");
		json_str(stdout, T->verdict == V_NOTSEEN ? "not seen" : verdict_name(T->verdict));
		if (T->verdict == V_SKIP || T->verdict == V_ERROR) {
			printf(",\"reason\":");
			json_str(stdout, T->skip ? T->skip : T->error ? T->error : "");
			printf("}");
			continue;
		}
		printf(",\"condition\":");
		json_str(stdout, T->lt->cond_text);
		printf(",\"observation\":\"%s\",\"positive\":%lld,\"negative\":%lld", T->observation,
		       T->pos, T->neg);
		printf(",\"iterations\":%lld,\"seconds\":%.6f,\"loop_seconds\":%.6f,\"iterations_per_second\":%.0f,"
		       "\"loop_iterations_per_second\":%.0f,\"rcu\":%s,\"witness_rate\":%.6f",
		       T->iters, T->secs, T->loop_secs, T->secs > 0 ? (double)T->iters / T->secs : 0.0,
		       T->loop_secs > 0 ? (double)T->iters / T->loop_secs : 0.0, T->urcu ? "\"liburcu\"" : "null",
		       T->pos + T->neg ? (double)T->pos / (double)(T->pos + T->neg) : 0.0);
		printf(",\"states\":[");
		for (k = 0; k < T->nstates; k++) {
			const long long *v = T->states[k].vals;

			printf("%s{\"count\":%lld,\"witness\":%s,\"values\":{", k ? "," : "", T->states[k].count,
			       in_filter(T, v) && eval(T, T->lt->cond, v) ? "true" : "false");
			for (c = 0; c < T->ncols; c++) {
				char loc[128], val[128];

				lt_loc_format(T->lt, &T->cols[c], loc, sizeof(loc));
				format_val(T, c, v[c], val, sizeof(val));
				printf("%s", c ? "," : "");
				json_str(stdout, loc);
				putchar(':');
				json_str(stdout, val);
			}
			printf("}}");
		}
		printf("]}");
	}
	printf("\n],\"passed\":%d,\"failed\":%d}\n", passed, failed);
}

/* ------------------------------------------------------------ main */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(const char *path, char ***files, int *nfiles)
{
	struct stat st;

	if (stat(path, &st))
		die("%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		char **list = NULL;
		int n = 0, i;

		if (!d)
			die("%s: %s", path, strerror(errno));
		while ((e = readdir(d))) {
			size_t l = strlen(e->d_name);

			if (l > 7 && !strcmp(e->d_name + l - 7, ".litmus")) {
				char *p = xmalloc(strlen(path) + l + 2);

				sprintf(p, "%s/%s", path, e->d_name);
				list = xrealloc(list, sizeof(*list) * (size_t)(n + 1));
				list[n++] = p;
			}
		}
		closedir(d);
		if (n)
			qsort(list, (size_t)n, sizeof(*list), cmp_str);
		*files = xrealloc(*files, sizeof(**files) * (size_t)(*nfiles + n));
		for (i = 0; i < n; i++)
			(*files)[(*nfiles)++] = list[i];
		free(list);
	} else {
		*files = xrealloc(*files, sizeof(**files) * (size_t)(*nfiles + 1));
		(*files)[(*nfiles)++] = xstrdup(path);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: katomic-litmus [options] FILE_OR_DIR...\n"
		"  --backend c11|asm     katomic backend (default c11)\n"
		"  --cc gcc|clang|PATH   compiler for the harnesses (default gcc)\n"
		"  --iterations N        iterations per test (default 10000000, or unbounded with --time)\n"
		"  --time S              run each test for S seconds\n"
		"  --json                JSON on stdout\n"
		"  --mutate NAME=REPL    #define NAME(...) REPL(__VA_ARGS__) in the harness, e.g. smp_mb=barrier\n"
		"  --cflags 'FLAGS'      extra compiler flags for the harnesses\n"
		"  --batch N, --sync N   iterations per batch (<= 16384) and between resynchronisations\n"
		"  --jobs N              parallel compilations (default: number of CPUs)\n"
		"  --include DIR         katomic headers (default: ../include next to the binary, or ./include)\n"
		"  --cache DIR           harness cache (default: litmus-cache next to the binary)\n"
		"  --timeout S           kill a harness after S seconds (default 600)\n"
		"  --no-urcu             do not map RCU to liburcu (tests calling synchronize_rcu are skipped)\n"
		"  --rcu-iterations N    at most N iterations for tests calling synchronize_rcu (default 50000)\n"
		"Exit status: 0 all passed, 1 a test failed, 2 bad input or usage.\n");
}

int main(int argc, char **argv)
{
	char **files = NULL;
	int nfiles = 0, i, passed = 0, failed = 0, notseen = 0, skipped = 0, bad = 0;
	struct test *tests;
	char asmh[PATH_MAX + 32];
	struct stat st;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && (v ? 1 : (die("%s needs a value", name), 0)) && ++i)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (ARG("--backend")) {
			opt.backend = v;
			if (strcmp(v, "c11") && strcmp(v, "asm"))
				die("--backend: c11 or asm");
		} else if (ARG("--cc")) {
			opt.cc = v;
		} else if (ARG("--iterations")) {
			char *e;

			opt.iterations = strtoll(v, &e, 10);
			if (*e || opt.iterations <= 0)
				die("--iterations: a positive number");
		} else if (ARG("--time")) {
			char *e;

			opt.time = strtod(v, &e);
			if (*e || !(opt.time > 0))
				die("--time: a positive number of seconds");
		} else if (ARG("--batch")) {
			opt.batch = atol(v);
		} else if (ARG("--sync")) {
			opt.sync = atol(v);
		} else if (ARG("--jobs")) {
			opt.jobs = atoi(v);
		} else if (ARG("--timeout")) {
			opt.timeout = atoi(v);
		} else if (ARG("--include")) {
			opt.include = v;
		} else if (ARG("--cache")) {
			opt.cache = v;
		} else if (ARG("--cflags")) {
			opt.cflags = v;
		} else if (ARG("--mutate")) {
			const char *eq = strchr(v, '=');
			const char *s;

			if (!eq || eq == v || !eq[1])
				die("--mutate: NAME=REPLACEMENT, e.g. smp_mb=barrier");
			for (s = v; *s; s++)
				if (s != eq && !(*s == '_' || (*s >= 'a' && *s <= 'z') ||
						 (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
					die("--mutate: names only, e.g. smp_mb=barrier");
			opt.mutate = xrealloc(opt.mutate, sizeof(*opt.mutate) * (size_t)(opt.nmutate + 1));
			opt.mutate[opt.nmutate++] = v;
		} else if (!strcmp(a, "--json")) {
			opt.json = 1;
		} else if (!strcmp(a, "--no-urcu")) {
			opt.no_urcu = 1;
		} else if (ARG("--rcu-iterations")) {
			char *e;

			opt.rcu_iterations = strtoll(v, &e, 10);
			if (*e || opt.rcu_iterations <= 0)
				die("--rcu-iterations: a positive number");
		} else if (a[0] == '-' && a[1]) {
			usage(stderr);
			die("unknown option %s", a);
		} else {
			collect(a, &files, &nfiles);
		}
#undef ARG
	}
	if (!nfiles) {
		usage(stderr);
		return 2;
	}
	if (opt.iterations <= 0)
		opt.iterations = opt.time > 0 ? 0 : 10000000;
	if (opt.jobs <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		opt.jobs = n > 0 ? (int)n : 1;
	}
	find_include(argv[0]);
	snprintf(asmh, sizeof(asmh), "%s/katomic/backend/asm.h", include_dir);
	if (!strcmp(opt.backend, "asm") && stat(asmh, &st))
		die("the asm backend is not available (%s is missing)", asmh);
	if (mkdir_p(opt.cache))
		die("cannot create %s: %s", opt.cache, strerror(errno));

	tests = xmalloc(sizeof(*tests) * (size_t)nfiles);
	memset(tests, 0, sizeof(*tests) * (size_t)nfiles);
	for (i = 0; i < nfiles; i++) {
		struct test *T = &tests[i];
		struct lt_error err;
		size_t len;
		int th;

		T->path = files[i];
		if (read_file(T->path, &T->src, &len)) {
			fprintf(stderr, "%s: %s\n", T->path, strerror(errno));
			T->verdict = V_PARSE;
			T->error = xstrdup(strerror(errno));
			bad = 1;
			continue;
		}
		T->lt = lt_parse(T->src, len, &err);
		if (!T->lt) {
			char msg[512];

			snprintf(msg, sizeof(msg), "%s:%d:%d: %s", T->path, err.line, err.col, err.msg);
			fprintf(stderr, "%s\n", msg);
			T->verdict = V_PARSE;
			T->error = xstrdup(msg);
			bad = 1;
			continue;
		}
		/*
		 * RCU: rcu_read_lock/unlock and synchronize_rcu(_expedited) map to
		 * liburcu when it is installed; call_rcu and SRCU are not mapped.
		 */
		for (th = 0; th < T->lt->nthreads; th++) {
			const struct lt_thread *tt = &T->lt->threads[th];

			if (memmem(tt->body, tt->body_len, "synchronize_rcu", 15))
				T->grace = 1;
			if (memmem(tt->body, tt->body_len, "rcu_read_lock", 13) || T->grace)
				T->urcu = 1;
			if (memmem(tt->body, tt->body_len, "call_rcu", 8) ||
			    memmem(tt->body, tt->body_len, "srcu", 4))
				T->skip = "needs call_rcu or SRCU, not mapped";
		}
		if (T->urcu && !urcu_available()) {
			T->urcu = 0;
			if (T->grace && !T->skip)
				T->skip = opt.no_urcu ?
					"needs RCU grace periods (synchronize_rcu): liburcu disabled by --no-urcu" :
					"needs RCU grace periods (synchronize_rcu): install liburcu-dev (liburcu, -lurcu-memb)";
		}
		{
			int l;

			for (l = 0; l < T->lt->nlocs; l++)
				add_col(T, &T->lt->locs[l]);
			expr_cols(T, T->lt->filter);
			expr_cols(T, T->lt->cond);
		}
		if (T->skip)
			continue;
		generate(T);
		{
			uint64_t h = fnv(FNV0, T->harness, strlen(T->harness));

			h = fnv(h, opt.cc, strlen(opt.cc) + 1);
			h = fnv(h, opt.backend, strlen(opt.backend) + 1);
			if (opt.cflags)
				h = fnv(h, opt.cflags, strlen(opt.cflags) + 1);
			h = fnv(h, &headers_hash, sizeof(headers_hash));
			snprintf(T->binpath, sizeof(T->binpath), "%s/%016llx", opt.cache, (unsigned long long)h);
		}
	}
	compile_all(tests, nfiles);
	for (i = 0; i < nfiles; i++) {
		struct test *T = &tests[i];

		if (T->verdict == V_PARSE)
			continue;
		if (T->skip) {
			T->verdict = V_SKIP;
			skipped++;
		} else if (!T->compiled_ok) {
			T->verdict = V_ERROR;
			T->error = T->compile_log;
			T->compile_log = NULL;
			if (!T->error)
				T->error = xstrdup("compilation failed");
		} else {
			if (!opt.json)
				fprintf(stderr, "katomic-litmus: [%d/%d] %s (%s, %s) ...", i + 1, nfiles,
					T->lt->name, opt.backend, opt.cc);
			if (run_harness(T))
				T->verdict = V_ERROR;
			else
				judge(T);
			if (!opt.json)
				fprintf(stderr, " %s, %.1fM iter/s\n", verdict_name(T->verdict),
					T->secs > 0 ? (double)T->iters / T->secs / 1e6 : 0.0);
		}
		if (T->verdict == V_PASS || T->verdict == V_NOTSEEN)
			passed++;
		if (T->verdict == V_NOTSEEN)
			notseen++;
		if (T->verdict == V_FAIL || T->verdict == V_ERROR)
			failed++;
		if (!opt.json)
			print_text(T);
		fflush(stdout);
	}
	if (opt.json) {
		print_json(tests, nfiles, passed, failed);
		fprintf(stderr, "%d passed, %d failed\n", passed, failed);
	} else {
		printf("(%d not seen, %d skipped, %d bad input; backend %s, cc %s)\n", notseen, skipped,
		       bad, opt.backend, opt.cc);
		printf("%d passed, %d failed\n", passed, failed);
	}
	for (i = 0; i < nfiles; i++) {
		int k;

		for (k = 0; k < tests[i].nstates; k++)
			free(tests[i].states[k].vals);
		free(tests[i].states);
		free(tests[i].cols);
		free(tests[i].harness);
		free(tests[i].error);
		free(tests[i].compile_log);
		free(tests[i].src);
		lt_free(tests[i].lt);
		free(files[i]);
	}
	free(tests);
	free(files);
	free(opt.mutate);
	return bad ? 2 : failed ? 1 : 0;
}
