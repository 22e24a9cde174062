/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload vm --kernel A --kernel B [--boots N] -- run ARGS`: each kernel
 * booted in a fresh VM of one shape, kernels alternated over the boots (A B
 * A B: drift of the host is shared), `underload run ARGS` inside, every run
 * brought back into the host's store under its kernel's label, then the
 * comparison.  A panic or a hang ends its boot with the run stored as
 * crashed; the next boot goes on.  Everything on disk lives in one
 * journalled scratch directory (cleanup removes it after a kill -9); qemu
 * dies with us.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/decide.h"
#include "cmd/vm.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/parse.h"
#include "core/selfexe.h"
#include "core/testhook.h"
#include "proc/changes.h"
#include "proc/journal.h"
#include "proc/supervise.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VM_MAX_KERNELS 8
#define VM_WORK_PARENT "/var/tmp"

static const char vm_help[] =
	"Boot each kernel image in a fresh VM of the same shape (qemu-system-x86_64;\n"
	"KVM when /dev/kvm works, else TCG, whose runs are flagged emulated), the\n"
	"kernels alternated over the boots (A B A B), and run 'underload run ARGS'\n"
	"inside.  The guest sees nothing of the host's files but underload, its\n"
	"helpers and libraries (in its initramfs), a scratch disk on /tmp and\n"
	"/var/tmp, and a share for its store.  Each boot's run (only the one vm\n"
	"started: the guest is untrusted) is imported into the host's store under\n"
	"its kernel's label, then the labels are compared.  A kernel that panics or\n"
	"stops answering ends its boot; its run is stored as crashed at the test it\n"
	"was in (before its run began: with no test), with the console's tail in its\n"
	"fingerprint (show --env), and the next boot goes on.  Needs root, a static\n"
	"busybox and mkfs.ext4.\n"
	"With --until-decided (two kernels), the boots go in pairs A B, B A, ... until\n"
	"every test is decided (see underload(1), \"UNTIL DECIDED\").\n"
	"\n";

struct vm_args {
	const char *db, *label_from, *modules;
	const char *kernels[VM_MAX_KERNELS];
	int n_kernels;
	int boots, cpus;
	int64_t mem_bytes, hang_ns;
	struct ul_decide_args decide;
};

static int add_kernel(void *base, const char *arg, char *err, size_t errlen)
{
	struct vm_args *a = base;

	if (a->n_kernels >= VM_MAX_KERNELS) {
		snprintf(err, errlen, "--kernel: at most %d kernels", VM_MAX_KERNELS);
		return -EINVAL;
	}
	if (access(arg, R_OK) < 0) {
		snprintf(err, errlen, "--kernel '%s': %s", arg, strerror(errno));
		return -EINVAL;
	}
	a->kernels[a->n_kernels++] = arg;
	return 0;
}

#define A(member) UL_OPT_AT(struct vm_args, member)

static const struct ul_opt vm_opts[] = {
	{ "kernel", UL_OPT_CALL, .arg = "IMAGE", .set = add_kernel,
	  .flags = UL_OPTF_REQUIRED | UL_OPTF_REPEATS,
	  .help = "a kernel image to boot (bzImage; give it twice or more to compare)" },
	{ "boots", UL_OPT_COUNT, 1, 100, 1, "boots of each kernel, alternated", .arg = "N",
	  A(boots) },
	{ "cpus", UL_OPT_COUNT, 1, 64, 2, "CPUs of the VM", .arg = "N", A(cpus) },
	{ "mem", UL_OPT_SIZE, 256 * UL_MiB, 64 * UL_GiB, 1 * UL_GiB, "memory of the VM",
	  .arg = "SIZE", A(mem_bytes) },
	{ "label-from", UL_OPT_CHOICE, .arg = "release|file", A(label_from), .def_str = "release",
	  .help = "the runs' label: the image's kernel release, or its file name (a label "
		  "given twice gains #2, #3...)" },
	{ "modules", UL_OPT_DIR, .arg = "DIR", A(modules),
	  .def_text = "/lib/modules/RELEASE when it exists, else none (drivers built in)",
	  .help = "the kernel's modules (the directory holding modules.dep)" },
	{ "hang-timeout", UL_OPT_DURATION, 10 * UL_NS_PER_SEC, 24 * 3600 * UL_NS_PER_SEC,
	  120 * UL_NS_PER_SEC,
	  "a guest silent this long (console and signs of life) is taken as hung and stopped; "
	  "a kernel gets at least 2 min to boot",
	  .arg = "DURATION", A(hang_ns) },
	UL_CMD_OPT_DB(struct vm_args),
	UL_DECIDE_OPTS(struct vm_args, decide),
	{ NULL },
};

#undef A

extern const struct ul_cmd ul_cmd_desc_vm;

/* A program on PATH (or in /sbin, /usr/sbin) into out; false when absent. */
static bool find_prog(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[4096];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "");
	for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, name);
		if (d[0] == '/' && access(out, X_OK) == 0)
			return true;
	}
	out[0] = '\0';
	return false;
}

struct vm_tools {
	char qemu[PATH_MAX], busybox[PATH_MAX], mkfs[PATH_MAX];
};

/* What this machine lacks for a VM (a package to install), or NULL. */
static const char *missing(struct vm_tools *t)
{
	if (geteuid() != 0)
		return "root";
	if (!find_prog("qemu-system-x86_64", t->qemu, sizeof(t->qemu)))
		return "qemu-system-x86_64 (package qemu-system-x86)";
	if (!find_prog("busybox", t->busybox, sizeof(t->busybox)) || ul_vm_static_elf(t->busybox))
		return "a static busybox (package busybox-static)";
	if (!find_prog("mkfs.ext4", t->mkfs, sizeof(t->mkfs)))
		return "mkfs.ext4 (package e2fsprogs)";
	return NULL;
}

/* UL_EXIT_UNSUPPORTED saying what is missing, or 0. */
static int check_host(struct vm_tools *t)
{
	const char *what = missing(t);

	if (!what)
		return 0;
	ul_error("vm: this machine cannot boot a VM: it needs %s", what);
	return UL_EXIT_UNSUPPORTED;
}

/* Each kernel's release, label (made unique: "#2" for the second of a name) and modules. */
static int describe_kernels(const struct vm_args *a, struct ul_vm_kernel *k)
{
	char base[VM_MAX_KERNELS][128];

	for (int i = 0; i < a->n_kernels; i++) {
		const char *file = strrchr(a->kernels[i], '/');
		char dep[PATH_MAX + 160];
		int rc = ul_vm_image_release(a->kernels[i], k[i].release, sizeof(k[i].release));
		int same = 1;

		k[i].image = a->kernels[i];
		if (rc && !strcmp(a->label_from, "release"))
			return ul_usage_error("vm",
					      "--kernel '%s': cannot read its release (%s): "
					      "use --label-from file",
					      k[i].image,
					      rc == -EINVAL ? "not a bzImage" : strerror(-rc));
		snprintf(base[i], sizeof(base[i]), "%.100s",
			 !strcmp(a->label_from, "release") ? k[i].release
			 : file				   ? file + 1
							   : k[i].image);
		for (int j = 0; j < i; j++)
			same += !strcmp(base[j], base[i]);
		if (same > 1)
			snprintf(k[i].label, sizeof(k[i].label), "%.100s#%d", base[i], same);
		else
			snprintf(k[i].label, sizeof(k[i].label), "%.100s", base[i]);
		if (ul_label_check("vm", "the kernel's label", k[i].label))
			return UL_EXIT_USAGE;
		snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", k[i].release);
		if (a->modules)
			snprintf(k[i].moddir, sizeof(k[i].moddir), "%s", a->modules);
		else if (k[i].release[0] && access(dep, R_OK) == 0)
			snprintf(k[i].moddir, sizeof(k[i].moddir), "/lib/modules/%s", k[i].release);
		else
			ul_note("vm: no modules for '%s': its drivers must be built in",
				k[i].image);
	}
	return 0;
}

/* Append s single-quoted for sh to buf; false when it does not fit. */
static bool put_quoted(char *buf, size_t len, const char *s)
{
	size_t off = strlen(buf);

	if (off + 1 >= len)
		return false;
	buf[off++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t n = piece ? 4 : 1;

		if (off + n + 2 >= len)
			return false;
		memcpy(buf + off, piece ? piece : s, n);
		off += n;
	}
	buf[off++] = '\'';
	buf[off] = '\0';
	return true;
}

int ul_vm_guest_env(const char *label, char **run_args, int n_args, int points, char *buf,
		    size_t len)
{
	char n[16];
	char *design[] = { (char *)"--min-points", n, (char *)"--max-points", n };
	bool ok;

	snprintf(n, sizeof(n), "%d", points);
	buf[0] = '\0';
	ok = snprintf(buf, len, "UL_LABEL=") > 0 && put_quoted(buf, len, label);
	ok = ok && strlen(buf) + 8 < len && strcat(buf, "\nset --");
	for (int i = 0; i < n_args && ok; i++)
		ok = strlen(buf) + 2 < len && strcat(buf, " ") && put_quoted(buf, len, run_args[i]);
	for (size_t i = 0; points > 0 && i < UL_ARRAY_SIZE(design) && ok; i++)
		ok = strlen(buf) + 2 < len && strcat(buf, " ") && put_quoted(buf, len, design[i]);
	ok = ok && strlen(buf) + 2 < len && strcat(buf, "\n");
	return ok ? 0 : ul_error("vm: the run's arguments are too long");
}

/* What the guest gets of the host: this program, its helpers and
 * libraries.  The program is read through /proc/self/exe, not its path: a
 * bisect makes an initramfs per step for hours, and a rebuild meanwhile
 * replaces (or deletes) the file the path names. */
static int guest_files(struct ul_vm_files *files)
{
	char dir[PATH_MAX], why[512];
	int rc = ul_self_dir(dir, sizeof(dir));

	if (rc)
		return ul_error_errno(rc, "vm: cannot read " UL_SELF_EXE);
	if (ul_vm_guest_files(UL_SELF_EXE, dir, files, why, sizeof(why)))
		return ul_error("vm: %s", why);
	return 0;
}

/* `-- run ARGS`: the operands, checked (vm sets --label and --db itself,
 * however ARGS spell them: vm_args.c). */
static int check_run_args(char **ops, int n)
{
	const char *which;
	int rc;

	if (n < 1 || strcmp(ops[0], "run"))
		return ul_usage_error("vm", "expected '-- run ARGS...' after the options");
	rc = ul_vm_run_sets_own(n, ops, &which);
	if (rc < 0) {
		ul_error_errno(rc, "vm: cannot read the run's arguments");
		return UL_EXIT_ERROR;
	}
	if (rc)
		return ul_usage_error("vm",
				      "run's --%s: vm sets the run's label (--label-from) "
				      "and store (the host's --db)",
				      which);
	return 0;
}

struct vm_state {
	struct vm_args a;
	struct vm_tools tools;
	struct ul_vm_kernel k[VM_MAX_KERNELS];
	struct ul_vm_shape shape;
	struct ul_sup sup;
	struct ul_journal journal;
	struct ul_store *store;
	char work[PATH_MAX / 2]; /* short: the boots' paths are made in it */
	char db[PATH_MAX];
	int crashed;
	int booted;	 /* boots so far (--until-decided numbers them) */
	char **run_args; /* `run ARGS`'s ARGS, for the initramfs */
	int n_args;
	bool points_given; /* ARGS fix the points a cell: --until-decided's pilot leaves them */
	int points;	   /* > 0: --until-decided's design, for the boots from now on */
	int env_points;	   /* the points the initramfs give the guest's run (0: ARGS's) */
	const struct ul_vm_extra *extra; /* ul_cmd_vm_with()'s, or NULL */
	int n_extra;
};

int ul_vm_kernel_initramfs(const struct ul_vm_kernel *k, const char *busybox, char **run_args,
			   int n_args, int points, const struct ul_vm_files *files)
{
	char why[512], env[8192];

	/* ul_vm_initramfs() makes a new file only: the old one goes */
	if (unlink(k->initramfs) < 0 && errno != ENOENT)
		return ul_error_errno(errno, "vm: cannot remove %s", k->initramfs);
	if (ul_vm_guest_env(k->label, run_args, n_args, points, env, sizeof(env)))
		return -1;
	if (ul_vm_initramfs(k->initramfs, busybox, k->moddir, env, files, why, sizeof(why)))
		return ul_error("vm: %s", why);
	return 0;
}

/* An initramfs per kernel (made again over the old), its guest's run at
 * s->points a cell when > 0 (else at ARGS's). */
static int make_initramfs(struct vm_state *s)
{
	struct ul_vm_files files = { 0 };
	int rc = guest_files(&files);

	for (int i = 0; i < s->a.n_kernels && !rc; i++) {
		snprintf(s->k[i].initramfs, sizeof(s->k[i].initramfs), "%s/initramfs-%d.cpio",
			 s->work, i + 1);
		rc = ul_vm_kernel_initramfs(&s->k[i], s->tools.busybox, s->run_args, s->n_args,
					    s->points, &files);
	}
	ul_vm_files_free(&files);
	if (!rc)
		s->env_points = s->points;
	return rc;
}

/* The work directory (journalled) and an initramfs per kernel. */
static int prepare(struct vm_state *s)
{
	char why[512];
	int rc = ul_journal_open(&s->journal);

	if (rc)
		return ul_error_errno(rc, "vm: cannot open the journal of system changes");
	if (ul_change_scratch_create(&s->journal, VM_WORK_PARENT, s->work, sizeof(s->work), why,
				     sizeof(why)))
		return ul_error("vm: %s", why);
	printf("vm: working in %s\n", s->work);
	return make_initramfs(s);
}

/*
 * The tests' hooks (guest-init.sh acts on them once the run is inside a
 * test): UL_TEST_VM_PANIC=N crashes boot N's kernel (sysrq c);
 * UL_TEST_VM_HANG=N makes boot N's guest stop making progress (every
 * process stopped) for the watchdog.  The kernel's command line
 * words, or NULL.
 */
static const char *test_hook(int boot_no)
{
	static const struct {
		const char *env, *word;
	} hooks[] = {
		{ "UL_TEST_VM_PANIC", "ul_panic_test=1" },
		{ "UL_TEST_VM_HANG", "ul_hang_test=1" },
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(hooks); i++) {
		const char *v = ul_test_hook(hooks[i].env);

		if (v && atoi(v) == boot_no)
			return hooks[i].word;
	}
	return NULL;
}

/* The console's last lines of boot boot_no, which did not finish (on
 * stderr, escaped by ul_note: the guest's bytes; its run's fingerprint
 * keeps more of them). */
static void console_tail(const struct ul_vm_boot *b, int boot_no)
{
	char tail[2048], *line, *save = NULL;

	ul_vm_console_tail(b, 10, tail, sizeof(tail));
	fflush(stdout);
	ul_note("vm: boot %d: the console's last lines%s", boot_no, tail[0] ? ":" : ": none");
	for (line = strtok_r(tail, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ul_note("vm: boot %d: console: %s", boot_no, line);
}

/* Boot i (0-based) of total (0: not known yet), of kernel `kernel`: boot,
 * watch, bring its runs home.  1 when interrupted. */
static int one_boot(struct vm_state *s, int i, int total, int kernel)
{
	struct ul_vm_boot b = { .kernel = &s->k[kernel],
				.shape = &s->shape,
				.hang_ns = s->a.hang_ns,
				.qemu = s->tools.qemu,
				.mkfs = s->tools.mkfs,
				.journal = &s->journal };
	char why[512];
	struct ul_run id;
	size_t added = 0;

	if (ul_sup_check_signals(&s->sup))
		return 1;
	/* The guest's run gets its id from us: the only run taken back. */
	ul_run_init(&id);
	if (ul_run_new_uuid(&id))
		return ul_error("vm: boot %d: cannot make a run id", i + 1);
	snprintf(b.run_uuid, sizeof(b.run_uuid), "%s", id.uuid);
	ul_run_release(&id);
	char words[1024];
	const char *hook = test_hook(i + 1), *append = b.kernel->append;

	snprintf(words, sizeof(words), "%s%s%s", append ? append : "", append && hook ? " " : "",
		 hook ? hook : "");
	b.cmdline_extra = words[0] ? words : NULL;
	snprintf(b.dir, sizeof(b.dir), "%s/boot-%d", s->work, i + 1);
	if (mkdir(b.dir, 0700) < 0)
		return ul_error_errno(errno, "vm: cannot make %s", b.dir);
	char of[32] = "";

	if (total)
		snprintf(of, sizeof(of), " of %d", total);
	printf("vm: boot %d%s: %s (label '%s'), %s\n", i + 1, of, b.kernel->image,
	       ul_esc(b.kernel->label), s->shape.accel);
	fflush(stdout);
	if (ul_vm_boot_run(&s->sup, &b, why, sizeof(why)))
		return ul_sup_interrupted(&s->sup) ? 1 : ul_error("vm: boot %d: %s", i + 1, why);
	if (b.end == UL_VM_END_INTERRUPTED)
		return 1;
	printf("vm: boot %d%s: %s after %.1f s", i + 1, of, ul_vm_end_name(b.end), b.wall_s);
	if (b.end == UL_VM_END_DONE)
		printf(" (underload run exited %d)\n", b.guest_status);
	else
		printf(" (console kept in the run's fingerprint: show --env)\n");
	if (b.end != UL_VM_END_DONE) {
		char phase[160];

		ul_vm_boot_phase(&b, phase, sizeof(phase));
		printf("vm: boot %d%s: %s; qemu used %.1f s of CPU\n", i + 1, of, ul_esc(phase),
		       b.qemu_cpu_s);
	}
	fflush(stdout);
	s->crashed += b.end != UL_VM_END_DONE;
	if (ul_cmd_vm_collect(s->store, &b, i + 1, total, &added))
		return -1;
	if (b.end != UL_VM_END_DONE)
		console_tail(&b, i + 1);
	printf("vm: boot %d: %zu run%s imported into %s\n", i + 1, added, added == 1 ? "" : "s",
	       s->db);
	return 0;
}

/* `underload compare --db DB label:A label:B ...`, as the last word. */
static int compare_labels(struct vm_state *s)
{
	char *argv[6 + VM_MAX_KERNELS] = { (char *)"compare", (char *)"--db", s->db };
	char names[VM_MAX_KERNELS][140];
	int n = 3;

	for (int i = 0; i < s->a.n_kernels; i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= !strcmp(s->k[i].label, s->k[j].label);
		if (seen)
			continue;
		snprintf(names[i], sizeof(names[i]), "label:%s", s->k[i].label);
		argv[n++] = names[i];
	}
	if (s->a.decide.fail_on) {
		argv[n++] = (char *)"--fail-on";
		argv[n++] = (char *)s->a.decide.fail_on;
	}
	argv[n] = NULL;
	fflush(stdout);
	return ul_cmd_find("compare")->fn(n, argv);
}

static int boots(struct vm_state *s)
{
	int total = s->a.boots * s->a.n_kernels, rc = 0;

	for (int i = 0; i < total && !rc; i++)
		rc = one_boot(s, i, total, i % s->a.n_kernels);
	if (!rc && s->crashed)
		printf("vm: %d of %d boots did not finish (a panic or a hang): their runs are stored "
		       "as crashed\n",
		       s->crashed, total);
	if (rc > 0) {
		ul_error("vm: interrupted");
		return UL_EXIT_INTERRUPTED;
	}
	return rc ? UL_EXIT_ERROR : 0;
}

/* --until-decided: one boot of kernel `side` (decide.h's run_side), the
 * initramfs first made again when the design changed the points. */
static int decide_side(void *ctx, int side)
{
	struct vm_state *s = ctx;
	int rc;

	if (s->points != s->env_points) {
		if (make_initramfs(s))
			return UL_EXIT_ERROR;
		printf("vm: the guest's runs take %d points a cell from now on (initramfs made "
		       "again)\n",
		       s->points);
	}
	rc = one_boot(s, s->booted++, 0, side);
	return rc > 0 ? UL_EXIT_INTERRUPTED : rc ? UL_EXIT_ERROR : UL_EXIT_OK;
}

/* --until-decided: the later boots' points a cell (decide.h's set_points). */
static void decide_points(void *ctx, int points)
{
	((struct vm_state *)ctx)->points = points;
}

/* --until-decided: pairs of boots until every test is decided. */
static int boots_decided(struct vm_state *s)
{
	struct ul_decide d = { .cmd = "vm",
			       .db = s->db,
			       .labels = { s->k[0].label, s->k[1].label },
			       .a = s->a.decide,
			       .run_side = decide_side,
			       .set_points = s->points_given ? NULL : decide_points,
			       .ctx = s };
	int rc = ul_decide_run(&d);

	if (s->crashed)
		printf("vm: %d of %d boots did not finish (a panic or a hang): their runs are stored "
		       "as crashed\n",
		       s->crashed, s->booted);
	return rc;
}

static int vm_main(struct vm_state *s)
{
	char why[256];
	int ret = check_host(&s->tools);

	if (!ret)
		ret = describe_kernels(&s->a, s->k);
	for (int i = 0; !ret && i < s->n_extra && i < s->a.n_kernels; i++) {
		if (s->extra[i].label)
			snprintf(s->k[i].label, sizeof(s->k[i].label), "%s", s->extra[i].label);
		s->k[i].append = s->extra[i].append;
	}
	if (!ret)
		ret = ul_cmd_db_path(s->a.db, s->db, sizeof(s->db));
	if (!ret)
		ret = ul_cmd_open_store_rw(s->db, &s->store);
	if (ret)
		return ret;
	if (ul_sup_init(&s->sup)) {
		ul_error("vm: cannot set up the supervisor");
		ul_store_close(s->store);
		return UL_EXIT_ERROR;
	}
	s->shape.accel = ul_vm_accel(&s->sup, s->tools.qemu, why, sizeof(why));
	s->shape.cpus = s->a.cpus;
	s->shape.mem_bytes = (uint64_t)s->a.mem_bytes;
	printf("vm: %s, %d CPUs, %lld MiB a VM%s%s%s\n", s->shape.accel, s->shape.cpus,
	       (long long)(s->a.mem_bytes >> 20), why[0] ? " (emulated: " : "", why,
	       why[0] ? ")" : "");
	ret = prepare(s) ? UL_EXIT_ERROR : s->a.decide.until_decided ? boots_decided(s) : boots(s);
	ul_sup_fini(&s->sup);
	if (s->work[0] && ul_change_undo(&s->journal, "scratch", s->work))
		ul_warning("vm: cannot remove %s ('underload cleanup' will)", s->work);
	ul_journal_finish(&s->journal);
	ul_store_close(s->store);
	s->store = NULL;
	if (!ret && !s->a.decide.until_decided)
		ret = compare_labels(s);
	return ret;
}

int ul_cmd_vm_with(int argc, char **argv, const struct ul_vm_extra *extra, int n_extra)
{
	static struct vm_state s;
	int first, ret;

	memset(&s, 0, sizeof(s));
	s.journal.fd = -1;
	s.extra = extra;
	s.n_extra = n_extra;
	ret = ul_cmd_parse(&ul_cmd_desc_vm, &s.a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (!s.a.n_kernels)
		return ul_usage_error("vm", "--kernel IMAGE is required");
	ret = ul_decide_check("vm", &s.a.decide, (size_t)s.a.n_kernels);
	if (ret)
		return ret;
	if (s.a.decide.until_decided && s.a.boots != 1)
		return ul_usage_error("vm", "--until-decided chooses the boots: no --boots");
	ret = check_run_args(argv + first, argc - first);
	if (ret)
		return ret;
	ret = ul_vm_run_fixes_points(argc - first, argv + first);
	if (ret < 0) {
		ul_error_errno(ret, "vm: cannot read the run's arguments");
		return UL_EXIT_ERROR;
	}
	s.points_given = ret;
	s.run_args = argv + first + 1;
	s.n_args = argc - first - 1;
	return vm_main(&s);
}

int ul_cmd_vm(int argc, char **argv);
int ul_cmd_vm(int argc, char **argv)
{
	return ul_cmd_vm_with(argc, argv, NULL, 0);
}

const struct ul_cmd ul_cmd_desc_vm = {
	.name = "vm",
	.summary = "kernels booted in VMs, alternated: a run in each, imported, compared",
	.operands = "-- run ARGS...",
	.help = vm_help,
	.opts = vm_opts,
	.fn = ul_cmd_vm,
};
