// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * objtool --smp-locks: the compiler's lock prefixes in .smp_locks.
 *
 * An SMP kernel running on one CPU turns the lock prefix (0xf0) of every
 * instruction that .smp_locks names into a DS prefix (0x3e), and back before
 * a second CPU comes up: alternatives_smp_unlock() and alternatives_smp_lock()
 * in arch/x86/kernel/alternative.c, over the kernel's text (_text.._etext)
 * and over each module's core text.  LOCK_PREFIX records the locks the
 * kernel's asm writes; those the compiler emits (the __atomic builtins of
 * CONFIG_X86_ATOMIC_C11) are recorded nowhere.  This pass records every
 * lock-prefixed instruction of the object that .smp_locks does not name yet,
 * in a .smp_locks section of its own that the linker concatenates with the
 * assembler's: one s32 per site, relative to the entry (R_X86_64_PC32), the
 * address of the 0xf0 byte, as LOCK_PREFIX_HERE writes it.
 *
 * Not recorded, the lock stays on one CPU:
 *  - a lock in text that does not outlive init: .init* sections (a module's
 *    init text), and for the kernel image also .exit.text, .text.exit,
 *    .text.startup and .altinstr_aux, which lie outside _text.._etext (the
 *    kernel skips any entry outside the text it patches);
 *  - a lock annotated ANNOTATE_KEEP_LOCK: memory shared with a hypervisor or
 *    a device, sync_*() and edac_atomic_scrub();
 *  - a full barrier: lock add/or of $0 to the stack, the kernel's __smp_mb(),
 *    which it never records (virt_mb() must order on one CPU too);
 *  - a lock with an FS/GS segment prefix (a DS prefix would be a second
 *    segment override) or a DS prefix (the mark of a lock that stays).
 *
 * An error, nothing written: a new lock in an alternative's original
 * instructions (apply_alternatives() may have rewritten those bytes when
 * alternatives_smp_unlock() patches the site) or in its replacement (the
 * replacement is copied over the original without an entry of its own); an
 * .smp_locks entry that names no lock-prefixed instruction.
 */

#include <stdlib.h>
#include <string.h>

#include <objtool/builtin.h>
#include <objtool/check.h>
#include <objtool/elf.h>
#include <objtool/objtool.h>
#include <objtool/warn.h>
#include <arch/special.h>

#define SMP_LOCKS		".smp_locks"
#define KEEP_LOCK		".rela.discard.keep_lock"

#define PREFIX_LOCK		0xf0
#define PREFIX_DS		0x3e
#define PREFIX_FS		0x64
#define PREFIX_GS		0x65

struct smp_lock_entry {
	struct section *sec;
	unsigned long offset;
	unsigned int len;
	bool found;
};

struct smp_lock_table {
	struct smp_lock_entry *e;
	unsigned int nr, max;
};

#define smp_locks_error(sec, offset, format, ...)			\
({									\
	char *_str = offstr(sec, offset);				\
	fprintf(stderr, "%s: error: objtool: %s: " format "\n",		\
		objname, _str, ##__VA_ARGS__);				\
	free(_str);							\
})

static bool is_legacy_prefix(unsigned char b)
{
	static const unsigned char legacy[] = {
		0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3,
	};

	return memchr(legacy, b, sizeof(legacy));
}

static int entry_cmp(const void *a, const void *b)
{
	const struct smp_lock_entry *x = a, *y = b;

	if (x->sec->idx != y->sec->idx)
		return x->sec->idx < y->sec->idx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

static int table_add(struct smp_lock_table *t, struct section *sec, unsigned long offset,
		     unsigned int len)
{
	if (t->nr == t->max) {
		struct smp_lock_entry *e;

		t->max = t->max ? 2 * t->max : 256;
		e = realloc(t->e, t->max * sizeof(*e));
		if (!e) {
			perror("realloc");
			return -1;
		}
		t->e = e;
	}
	t->e[t->nr].sec = sec;
	t->e[t->nr].offset = offset;
	t->e[t->nr].len = len;
	t->e[t->nr].found = false;
	t->nr++;
	return 0;
}

static struct smp_lock_entry *table_find(struct smp_lock_table *t, struct section *sec,
					 unsigned long offset)
{
	struct smp_lock_entry key = { .sec = sec, .offset = offset };

	if (!t->nr)
		return NULL;
	return bsearch(&key, t->e, t->nr, sizeof(key), entry_cmp);
}

/* Is @offset of @sec inside one of the ranges of @t (the nearest start at or before it)? */
static bool table_covers(struct smp_lock_table *t, struct section *sec, unsigned long offset)
{
	struct smp_lock_entry key = { .sec = sec, .offset = offset };
	unsigned int lo = 0, hi = t->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (entry_cmp(&t->e[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && t->e[lo - 1].sec == sec && offset < t->e[lo - 1].offset + t->e[lo - 1].len;
}

/*
 * objtool's ELF interface changed in Linux 6.6: a section's relocation
 * section became sec->rsec (sec->reloc before), relocations an array walked
 * by for_each_reloc() (a list before), the addend reloc_addend(reloc)
 * (reloc->addend before), and a site table is made by
 * elf_create_section_pair() and elf_init_reloc_text_sym() (before:
 * elf_create_section() and elf_add_reloc_to_insn(), 6.1).  for_each_reloc,
 * a macro that came with the new interface, tells which one the tree has;
 * these shims give the older one the new names this file uses.
 */
#ifdef for_each_reloc
#define smp_locks_rsec(sec)	((sec)->rsec)
#else
#define SMP_LOCKS_OLD_ELF
#define smp_locks_rsec(sec)	((sec)->reloc)
#define for_each_reloc(rsec, reloc) list_for_each_entry(reloc, &(rsec)->reloc_list, list)

static inline s64 reloc_addend(struct reloc *reloc)
{
	return reloc->addend;
}
#endif

/*
 * Where the relocations of a site table point: the kernel's entries (every
 * .smp_locks section, the assembler's and an earlier run's) and the
 * ANNOTATE_KEEP_LOCK marks.
 */
static int read_sites(struct section *rsec, struct smp_lock_table *t)
{
	struct reloc *reloc;

	for_each_reloc(rsec, reloc) {
		struct symbol *sym = reloc->sym;

		if (!sym->sec || !(sym->sec->sh.sh_flags & SHF_EXECINSTR)) {
			fprintf(stderr, "%s: error: objtool: %s: relocated against %s, not text\n",
				objname, rsec->name, sym->name);
			return -1;
		}
		if (table_add(t, sym->sec, sym->offset + reloc_addend(reloc), 1))
			return -1;
	}
	return 0;
}

/* Sorted, each start once (with its longest range). */
static void table_sort(struct smp_lock_table *t)
{
	unsigned int i, n = 0;

	qsort(t->e, t->nr, sizeof(*t->e), entry_cmp);
	for (i = 0; i < t->nr; i++) {
		if (!n || entry_cmp(&t->e[i], &t->e[n - 1]))
			t->e[n++] = t->e[i];
		else if (t->e[i].len > t->e[n - 1].len)
			t->e[n - 1].len = t->e[i].len;
	}
	t->nr = n;
}

/*
 * The original instructions of every alternative, read from .altinstructions
 * here: objtool groups alternatives only for the actions that follow control
 * flow, and special_get_alts() may not run twice (arch_handle_alternative()
 * keeps the previous call's entries).  Nested alternatives share a start: the
 * longest range counts.
 */
static int read_alternatives(struct objtool_file *file, struct smp_lock_table *t)
{
	struct section *sec = find_section_by_name(file->elf, ".altinstructions");
	unsigned long off;

	if (!sec)
		return 0;

	for (off = 0; off + ALT_ENTRY_SIZE <= sec->sh.sh_size; off += ALT_ENTRY_SIZE) {
		struct reloc *reloc = find_reloc_by_dest(file->elf, sec, off + ALT_ORIG_OFFSET);
		unsigned char *entry = (unsigned char *)sec->data->d_buf + off;
		unsigned char len = entry[ALT_ORIG_LEN_OFFSET];
		unsigned long orig;

		if (!reloc || !reloc->sym->sec) {
			fprintf(stderr, "%s: error: objtool: .altinstructions+0x%lx: no original\n",
				objname, off);
			return -1;
		}
		orig = reloc->sym->offset + reloc_addend(reloc);
		if (len && table_add(t, reloc->sym->sec, orig, len))
			return -1;
	}
	table_sort(t);
	return 0;
}

static int read_tables(struct objtool_file *file, struct smp_lock_table *locks,
		       struct smp_lock_table *keep)
{
	struct section *sec;

	for_each_sec(file, sec) {
		if (strcmp(sec->name, SMP_LOCKS) || !smp_locks_rsec(sec))
			continue;
		if (read_sites(smp_locks_rsec(sec), locks))
			return -1;
	}

	sec = find_section_by_name(file->elf, KEEP_LOCK);
	if (sec && read_sites(sec, keep))
		return -1;

	table_sort(locks);
	table_sort(keep);
	return 0;
}

static int create_smp_locks_section(struct objtool_file *file, struct instruction **sites,
				    unsigned long *lock_off, unsigned int nr)
{
	struct section *sec;
	unsigned int i;

#ifdef SMP_LOCKS_OLD_ELF
	sec = elf_create_section(file->elf, SMP_LOCKS, 0, sizeof(s32), nr);
	if (!sec)
		return -1;
	sec->sh.sh_addralign = sizeof(s32);
	sec->data->d_align = sizeof(s32);

	for (i = 0; i < nr; i++) {
		if (elf_add_reloc_to_insn(file->elf, sec, i * sizeof(s32), R_X86_64_PC32,
					  sites[i]->sec, lock_off[i]))
			return -1;
	}
#else
	sec = elf_create_section_pair(file->elf, SMP_LOCKS, sizeof(s32), nr, nr);
	if (!sec)
		return -1;
	sec->sh.sh_addralign = sizeof(s32);

	for (i = 0; i < nr; i++) {
		if (!elf_init_reloc_text_sym(file->elf, sec, i * sizeof(s32), i,
					     sites[i]->sec, lock_off[i]))
			return -1;
	}
#endif
	return 0;
}

/* Text that the kernel never patches for one CPU. */
static bool init_text(struct section *sec)
{
	if (!strncmp(sec->name, ".init", 5) || !strncmp(sec->name, ".discard.", 9))
		return true;
	if (opts.module)
		return false;
	return !strcmp(sec->name, ".exit.text") || !strcmp(sec->name, ".text.exit") ||
	       !strcmp(sec->name, ".text.startup") || !strcmp(sec->name, ".altinstr_aux");
}

/*
 * lock add/or $0, disp(%rsp): a full barrier, not an atomic.  @p: the first
 * byte after the legacy prefixes.
 */
static bool stack_fence(const unsigned char *insn, unsigned int p, unsigned int len)
{
	unsigned char modrm, sib;

	if (p < len && (insn[p] & 0xf0) == 0x40) {	/* REX: neither B nor X */
		if (insn[p] & 0x3)
			return false;
		p++;
	}
	if (p + 3 > len || (insn[p] != 0x80 && insn[p] != 0x81 && insn[p] != 0x83))
		return false;
	modrm = insn[p + 1];
	sib = insn[p + 2];
	if ((modrm >> 6) == 3 || ((modrm >> 3) & 7) > 1 || (modrm & 7) != 4)
		return false;
	if ((sib & 7) != 4 || ((sib >> 3) & 7) != 4)	/* base %rsp, no index */
		return false;
	p += 3 + ((modrm >> 6) == 1 ? 1 : (modrm >> 6) == 2 ? 4 : 0);
	if (p >= len)
		return false;
	for (; p < len; p++) {				/* the immediate */
		if (insn[p])
			return false;
	}
	return true;
}

int create_smp_locks_sections(struct objtool_file *file)
{
	struct smp_lock_table locks = {}, keep = {}, alts = {};
	struct instruction **sites = NULL, *insn;
	unsigned long *lock_off = NULL;
	unsigned int nr = 0, max = 0, nr_table = 0, nr_kept = 0, nr_init = 0, i;
	struct section *sec;
	int ret = -1;

	if (read_tables(file, &locks, &keep) || read_alternatives(file, &alts))
		goto out;

	for_each_sec(file, sec) {
		if (!(sec->sh.sh_flags & SHF_EXECINSTR))
			continue;

		sec_for_each_insn(file, sec, insn) {
			const unsigned char *b = sec->data->d_buf + insn->offset;
			struct smp_lock_entry *e;
			unsigned int p, lock = insn->len;
			bool seg = false, ds = false;

			for (p = 0; p < insn->len && is_legacy_prefix(b[p]); p++) {
				if (b[p] == PREFIX_LOCK && lock == insn->len)
					lock = p;
				else if (b[p] == PREFIX_FS || b[p] == PREFIX_GS)
					seg = true;
				else if (b[p] == PREFIX_DS && lock == insn->len)
					ds = true;
			}
			if (lock == insn->len)
				continue;

			/* LOCK_PREFIX names the lock byte, or the instruction's first byte */
			e = table_find(&locks, sec, insn->offset + lock);
			if (!e && lock)
				e = table_find(&locks, sec, insn->offset);
			if (e) {
				e->found = true;
				nr_table++;
				continue;
			}

			if (init_text(sec)) {
				nr_init++;
				continue;
			}

			if (seg || ds || table_find(&keep, sec, insn->offset) ||
			    table_find(&keep, sec, insn->offset + lock) ||
			    stack_fence(b, p, insn->len)) {
				nr_kept++;
				continue;
			}

			if (!strcmp(sec->name, ".altinstr_replacement")) {
				smp_locks_error(sec, insn->offset,
						"lock prefix in an alternative's replacement: .smp_locks cannot name it");
				goto out;
			}
			if (table_covers(&alts, sec, insn->offset + lock)) {
				smp_locks_error(sec, insn->offset,
						"lock prefix in an alternative's original: .smp_locks cannot name it");
				goto out;
			}

			if (nr == max) {
				struct instruction **s;
				unsigned long *o;

				max = max ? 2 * max : 256;
				s = realloc(sites, max * sizeof(*s));
				if (s)
					sites = s;
				o = realloc(lock_off, max * sizeof(*o));
				if (o)
					lock_off = o;
				if (!s || !o) {
					perror("realloc");
					goto out;
				}
			}
			sites[nr] = insn;
			lock_off[nr++] = insn->offset + lock;
		}
	}

	for (i = 0; i < locks.nr; i++) {
		struct smp_lock_entry *e = &locks.e[i];

		if (e->found)
			continue;
		smp_locks_error(e->sec, e->offset, ".smp_locks entry names no lock prefix");
		goto out;
	}

	if (opts.stats) {
		printf("smp_locks: recorded by the asm:  %u\n", nr_table);
		printf("smp_locks: recorded:             %u\n", nr);
		printf("smp_locks: kept locked:          %u\n", nr_kept);
		printf("smp_locks: in init text:         %u\n", nr_init);
	}

	ret = nr ? create_smp_locks_section(file, sites, lock_off, nr) : 0;

out:
	free(sites);
	free(lock_off);
	free(locks.e);
	free(keep.e);
	free(alts.e);
	return ret;
}
