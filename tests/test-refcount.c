/* SPDX-License-Identifier: MIT */
/*
 * refcount_t: the ordinary operations, the __refcount_* forms that report
 * the old value, and saturation: overflow, increment from zero, underflow,
 * a plain decrement to zero and operations on a saturated count all leave
 * REFCOUNT_SATURATED (INT_MIN / 2), never a wrapped value, and the warning
 * appears exactly once on stderr however many times it saturates.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <katomic/katomic.h>
#include "tap.h"

#define SAT ((int)(INT_MIN / 2))

static int count_of(const refcount_t *r) { return (int)refcount_read(r); }

static void test_basics(void)
{
	refcount_t r = REFCOUNT_INIT(1);
	static refcount_t s = REFCOUNT_INIT(7);
	int old = -99;
	bool good;

	ok(REFCOUNT_MAX == INT_MAX && REFCOUNT_SATURATED == INT_MIN / 2 && REFCOUNT_SATURATED == SAT,
	   "REFCOUNT_MAX is INT_MAX, REFCOUNT_SATURATED is INT_MIN / 2");
	ok(refcount_read(&r) == 1 && refcount_read(&s) == 7 && sizeof(refcount_read(&r)) == sizeof(int),
	   "REFCOUNT_INIT, refcount_read");
	refcount_set(&r, 42);
	good = refcount_read(&r) == 42;
	refcount_set_release(&r, 43);
	ok(good && refcount_read(&r) == 43, "refcount_set, refcount_set_release");

	refcount_set(&r, 1);
	refcount_inc(&r);
	good = count_of(&r) == 2;
	refcount_add(5, &r);
	good &= count_of(&r) == 7;
	__refcount_inc(&r, &old);
	good &= old == 7 && count_of(&r) == 8;
	__refcount_add(10, &r, &old);
	good &= old == 8 && count_of(&r) == 18;
	refcount_set(&r, INT_MAX - 1);
	refcount_inc(&r);
	ok(good && count_of(&r) == INT_MAX, "refcount_inc / refcount_add / __refcount_inc / __refcount_add, up to INT_MAX");

	refcount_set(&r, 3);
	refcount_dec(&r);
	good = count_of(&r) == 2;
	__refcount_dec(&r, &old);
	ok(good && old == 2 && count_of(&r) == 1, "refcount_dec / __refcount_dec above 1");

	refcount_set(&r, 2);
	good = !refcount_dec_and_test(&r) && count_of(&r) == 1;
	good &= refcount_dec_and_test(&r) && count_of(&r) == 0;
	refcount_set(&r, 2);
	good &= !__refcount_dec_and_test(&r, &old) && old == 2;
	good &= __refcount_dec_and_test(&r, &old) && old == 1 && count_of(&r) == 0;
	ok(good, "refcount_dec_and_test / __refcount_dec_and_test: true exactly when it reaches 0");

	refcount_set(&r, 5);
	good = !refcount_sub_and_test(3, &r) && count_of(&r) == 2;
	good &= refcount_sub_and_test(2, &r) && count_of(&r) == 0;
	refcount_set(&r, INT_MAX);
	good &= refcount_sub_and_test(INT_MAX, &r) && count_of(&r) == 0;
	refcount_set(&r, 9);
	good &= !__refcount_sub_and_test(4, &r, &old) && old == 9 && count_of(&r) == 5;
	good &= __refcount_sub_and_test(5, &r, &old) && old == 5 && count_of(&r) == 0;
	ok(good, "refcount_sub_and_test / __refcount_sub_and_test");

	refcount_set(&r, 0);
	good = !refcount_inc_not_zero(&r) && count_of(&r) == 0;
	good &= !refcount_add_not_zero(5, &r) && count_of(&r) == 0;
	good &= !__refcount_inc_not_zero(&r, &old) && old == 0 && count_of(&r) == 0;
	old = -99;
	good &= !__refcount_add_not_zero(2, &r, &old) && old == 0 && count_of(&r) == 0;
	ok(good, "inc_not_zero / add_not_zero on 0: false, count stays 0 (no saturation)");

	refcount_set(&r, 5);
	good = refcount_inc_not_zero(&r) && count_of(&r) == 6;
	good &= refcount_add_not_zero(4, &r) && count_of(&r) == 10;
	good &= __refcount_inc_not_zero(&r, &old) && old == 10 && count_of(&r) == 11;
	good &= __refcount_add_not_zero(9, &r, &old) && old == 11 && count_of(&r) == 20;
	ok(good, "inc_not_zero / add_not_zero on a live count");

	refcount_set(&r, 1);
	good = refcount_dec_if_one(&r) && count_of(&r) == 0;
	refcount_set(&r, 2);
	good &= !refcount_dec_if_one(&r) && count_of(&r) == 2;
	refcount_set(&r, 0);
	good &= !refcount_dec_if_one(&r) && count_of(&r) == 0;
	ok(good, "refcount_dec_if_one: 1 -> 0 only");

	refcount_set(&r, 1);
	good = !refcount_dec_not_one(&r) && count_of(&r) == 1;
	refcount_set(&r, 5);
	good &= refcount_dec_not_one(&r) && count_of(&r) == 4;
	refcount_set(&r, 2);
	good &= refcount_dec_not_one(&r) && count_of(&r) == 1;
	refcount_set(&r, SAT);
	good &= refcount_dec_not_one(&r) && count_of(&r) == SAT;
	ok(good, "refcount_dec_not_one: decrements unless 1; a saturated count stays saturated");
}

static void test_dec_and_lock(void)
{
	refcount_t r = REFCOUNT_INIT(2);
	DEFINE_SPINLOCK(lock);
	bool good;

	good = !refcount_dec_and_lock(&r, &lock) && count_of(&r) == 1 && !spin_is_locked(&lock);
	good &= refcount_dec_and_lock(&r, &lock) && count_of(&r) == 0 && spin_is_locked(&lock);
	spin_unlock(&lock);
	good &= !spin_is_locked(&lock);
	refcount_set(&r, 3);
	good &= !refcount_dec_and_lock(&r, &lock) && count_of(&r) == 2 && !spin_is_locked(&lock);
	ok(good, "refcount_dec_and_lock: true with the lock held exactly when it reaches 0");
}

/* Each case starts from a count, does one operation, must end saturated. */
static void test_saturation(void)
{
	refcount_t r;
	int old;
	bool res;

	refcount_set(&r, INT_MAX);
	refcount_inc(&r);
	ok(count_of(&r) == SAT, "refcount_inc from INT_MAX saturates (got %d)", count_of(&r));

	refcount_set(&r, INT_MAX - 1);
	refcount_add(2, &r);
	ok(count_of(&r) == SAT, "refcount_add(2) from INT_MAX - 1 saturates (got %d)", count_of(&r));

	refcount_set(&r, 1);
	refcount_add(INT_MAX, &r);
	ok(count_of(&r) == SAT, "refcount_add(INT_MAX) from 1 saturates (got %d)", count_of(&r));

	refcount_set(&r, 0);
	refcount_inc(&r);
	ok(count_of(&r) == SAT, "refcount_inc from 0 (use after free) saturates (got %d)", count_of(&r));

	refcount_set(&r, 0);
	old = -99;
	__refcount_add(3, &r, &old);
	ok(count_of(&r) == SAT && old == 0, "__refcount_add from 0 saturates and reports old 0 (got %d, old %d)",
	   count_of(&r), old);

	refcount_set(&r, INT_MAX);
	res = refcount_inc_not_zero(&r);
	ok(res && count_of(&r) == SAT, "refcount_inc_not_zero from INT_MAX saturates (got %d)", count_of(&r));

	refcount_set(&r, INT_MAX - 2);
	res = __refcount_add_not_zero(5, &r, &old);
	ok(res && old == INT_MAX - 2 && count_of(&r) == SAT,
	   "__refcount_add_not_zero(5) from INT_MAX - 2 saturates (got %d)", count_of(&r));

	refcount_set(&r, 1);
	refcount_dec(&r);
	ok(count_of(&r) == SAT, "refcount_dec reaching 0 (leak) saturates (got %d)", count_of(&r));

	refcount_set(&r, 0);
	__refcount_dec(&r, &old);
	ok(count_of(&r) == SAT && old == 0, "__refcount_dec from 0 (underflow) saturates (got %d)", count_of(&r));

	refcount_set(&r, 0);
	res = refcount_dec_and_test(&r);
	ok(!res && count_of(&r) == SAT, "refcount_dec_and_test from 0 (underflow): false, saturated (got %d)",
	   count_of(&r));

	refcount_set(&r, 1);
	res = refcount_sub_and_test(2, &r);
	ok(!res && count_of(&r) == SAT, "refcount_sub_and_test(2) from 1 (underflow): false, saturated (got %d)",
	   count_of(&r));

	/* The kernel warns and leaves 0 alone (its count is unsigned there: 0 - 1 > 0). */
	refcount_set(&r, 0);
	res = refcount_dec_not_one(&r);
	ok(res && (count_of(&r) == 0 || count_of(&r) == SAT),
	   "refcount_dec_not_one from 0 (underflow): true, and no decrement to -1 (got %d)", count_of(&r));

	refcount_set(&r, INT_MIN);
	res = refcount_dec_not_one(&r);
	ok(res && count_of(&r) == SAT, "refcount_dec_not_one from INT_MIN: saturates, does not wrap (got %d)",
	   count_of(&r));

	/* Once saturated, it stays there. */
	refcount_set(&r, SAT);
	refcount_inc(&r);
	res = count_of(&r) == SAT;
	refcount_add(1000, &r);
	res &= count_of(&r) == SAT;
	refcount_dec(&r);
	res &= count_of(&r) == SAT;
	res &= !refcount_dec_and_test(&r) && count_of(&r) == SAT;
	res &= !refcount_sub_and_test(1000, &r) && count_of(&r) == SAT;
	res &= refcount_inc_not_zero(&r) && count_of(&r) == SAT;
	res &= !refcount_dec_if_one(&r) && count_of(&r) == SAT;
	ok(res, "a saturated count stays saturated through inc/add/dec/dec_and_test/sub_and_test/inc_not_zero");
}

/* Increments and decrements from several threads balance out. */
#define THREADS 4
#define ROUNDS 50000
static refcount_t shared = REFCOUNT_INIT(1);

static void *getput(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		refcount_inc(&shared);
		if (!refcount_inc_not_zero(&shared))
			abort();
		refcount_dec(&shared);
		if (refcount_dec_and_test(&shared))
			abort();
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[THREADS];

	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, getput, NULL);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	ok(count_of(&shared) == 1 && refcount_dec_and_test(&shared),
	   "%d threads of inc/inc_not_zero/dec/dec_and_test: back to 1, then the last put hits 0", THREADS);
}

/* Lines of the file that mention "katomic: refcount_t". */
static int warning_lines(FILE *f, char *first, size_t size)
{
	char line[512];
	int n = 0;

	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "katomic: refcount_t") && n++ == 0)
			snprintf(first, size, "%s", line);
	return n;
}

int main(void)
{
	FILE *capture = tmpfile();
	int saved = dup(2);
	char first[512] = "";
	int n;

	if (!capture || saved < 0 || dup2(fileno(capture), 2) < 0) {
		perror("capturing stderr");
		return 2;
	}

	test_basics();
	test_dec_and_lock();
	test_threads();
	fflush(stderr);
	ok(warning_lines(capture, first, sizeof(first)) == 0, "no warning from operations that do not saturate");

	test_saturation();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = warning_lines(capture, first, sizeof(first));
	ok(n == 1, "the saturation warning was printed exactly once (%d times) after some twenty saturations", n);
	if (n)
		diag("first: %s", strtok(first, "\n"));
	fclose(capture);
	return done_testing();
}
