/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload bisect --kernel GOOD --kernel ... --kernel BAD -- run ARGS`:
 * find the first kernel of an ordered list that is slower than the first
 * (good) one.  Each step chosen by the bisection (cmd/bisect_logic.h) is
 * measured against the good reference by vm --until-decided (both booted
 * afresh: re-measured, never guessed), its runs stored under labels that
 * name the step (NAME/STEP/good and NAME/STEP/FILE), so that a re-run
 * reads the steps already measured back from the store and goes on from
 * there.  At the end the culprit is confirmed against its parent in a
 * fresh A/B of its own.  Everything on disk and every VM is vm's, which
 * leaves nothing after an interrupt or a kill -9 (and `underload
 * cleanup`).
 *
 * With --git DIR --good REV --bad REV --build CMD the steps are the
 * commits of a git range instead, each built when an A/B needs its kernel
 * (bisect_git.c) and named by its short hash in the labels; a commit that
 * does not build is a skipped step.  The build's work directory is
 * bisect's own, journalled like vm's; the terminating signals stay blocked
 * while it exists, so that Ctrl-C reaches the child running then (git,
 * the build, vm) and bisect removes it on its way out.
 */
#include "core/compat.h"
#include "cmd/bisect.h"
#include "cmd/cmd.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/parse.h"
#include "proc/supervise.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char bisect_help[] =
	"Find the first kernel of an ordered list that is slower than the first one:\n"
	"the first --kernel is known good, the last known bad, and each kernel may\n"
	"carry extra kernel command-line words (append=, the rest of the argument).\n"
	"Each step the bisection chooses is booted with 'underload vm --until-decided'\n"
	"against the good kernel (both afresh) until the tests of 'run ARGS' are\n"
	"decided: slower is bad; equal or faster is good; still open after --max-runs\n"
	"or --budget, it is booted against the bad kernel: faster is good, equal or\n"
	"slower bad, still open skipped (a neighbour is tried).  A crash is bad when\n"
	"the bad kernel crashes too, else reported and skipped.  The runs are stored\n"
	"under NAME/STEP/good and NAME/STEP/FILE (STEP counts the kernels from 1;\n"
	"NAME/STEP/bad and NAME/STEP/FILE/vs-bad against the bad kernel), so a\n"
	"re-run with the same NAME resumes from the steps stored.  The culprit is\n"
	"then confirmed: slower than its parent in a fresh A/B (NAME/confirm/...), or\n"
	"crashing where its parent does not when a crash is bad.\n"
	"Exit 0: a culprit found and confirmed; 4: not confirmed, or only a range\n"
	"('cannot tell': skipped steps surround the change).\n"
	"With --git DIR --good REV --bad REV --build CMD instead of --kernel, the\n"
	"steps are REV and the commits of REV..REV on the bad one's first-parent\n"
	"line, oldest first (git rev-list), named in labels by their short hash.  A\n"
	"commit is built when its kernel is first booted: checked out in a clone of\n"
	"DIR in a work directory under /var/tmp (removed at the end, and by\n"
	"'underload cleanup' after a kill -9), CMD run there by sh with the commit in\n"
	"UL_BISECT_COMMIT, and the image at --image booted, with --append-file's\n"
	"words.  A commit whose build fails is skipped (unbuildable), stored as a\n"
	"failed run NAME/STEP/HASH/unbuildable that a re-run reads back.\n"
	"\n";

/* --kernel IMAGE[,append=ARGS] */
static int add_kernel(void *base, const char *arg, char *err, size_t errlen)
{
	struct ul_bisect_args *a = base;
	struct ul_bisect_kernel *k;
	const char *comma = strstr(arg, ",append="), *file;
	static char images[UL_BISECT_MAX_STEPS][4096];

	if (a->n_kernels >= UL_BISECT_MAX_STEPS) {
		snprintf(err, errlen, "--kernel: at most %d kernels", UL_BISECT_MAX_STEPS);
		return -EINVAL;
	}
	k = &a->kernels[a->n_kernels];
	snprintf(images[a->n_kernels], sizeof(images[0]), "%.*s",
		 comma ? (int)(comma - arg) : (int)strlen(arg), arg);
	k->image = images[a->n_kernels];
	k->append = comma && comma[8] ? comma + 8 : NULL;
	if (access(k->image, R_OK) < 0) {
		snprintf(err, errlen, "--kernel '%s': %s", k->image, strerror(errno));
		return -EINVAL;
	}
	file = strrchr(k->image, '/');
	snprintf(k->file, sizeof(k->file), "%.90s", file ? file + 1 : k->image);
	a->n_kernels++;
	return 0;
}

#define A(member) UL_OPT_AT(struct ul_bisect_args, member)
/* The two usage lines: a list of images, or a git range. */
#define FORM_KERNELS UL_OPT_FORM(0)
#define FORM_GIT UL_OPT_FORM(1)

static const struct ul_opt bisect_opts[] = {
	{ "kernel", UL_OPT_CALL, .arg = "IMAGE[,append=ARGS]", .set = add_kernel,
	  .flags = UL_OPTF_REQUIRED | UL_OPTF_REPEATS, .form = FORM_KERNELS,
	  .help = "a step, in order: the first is good, the last bad (at least two); append= adds "
		  "kernel command-line words" },
	{ "git", UL_OPT_DIR, .arg = "DIR", A(git_dir), .flags = UL_OPTF_REQUIRED, .form = FORM_GIT,
	  .help = "instead of --kernel: the steps are commits of this git tree, each built by "
		  "--build" },
	{ "good", UL_OPT_STRING, 256, .arg = "REV", A(good), .flags = UL_OPTF_REQUIRED,
	  .form = FORM_GIT, .help = "with --git: the good commit (the first step)" },
	{ "bad", UL_OPT_STRING, 256, .arg = "REV", A(bad), .flags = UL_OPTF_REQUIRED,
	  .form = FORM_GIT,
	  .help = "with --git: the bad commit (the last step); the steps between are "
		  "good..bad's first-parent commits" },
	{ "build", UL_OPT_STRING, 4096, .arg = "CMD", A(build), .flags = UL_OPTF_REQUIRED,
	  .form = FORM_GIT,
	  .help = "with --git: the shell command that builds the checked-out commit (in "
		  "UL_BISECT_COMMIT); failing, the step is skipped as unbuildable" },
	{ "image", UL_OPT_STRING, 1024, .arg = "PATH", A(image),
	  .def_text = "arch/x86/boot/bzImage", .form = FORM_GIT,
	  .help = "with --git: the kernel image the build makes, in the tree" },
	{ "append-file", UL_OPT_STRING, 1024, .arg = "PATH", A(append_file), .form = FORM_GIT,
	  .help = "with --git: a file in the tree, read after the build, whose words are added "
		  "to the kernel's command line (absent: none)" },
	{ "name", UL_OPT_STRING, 64, .arg = "NAME", A(name), .def_str = "bisect",
	  .help = "the runs' labels begin NAME/ (a re-run with the same NAME resumes)" },
	{ "cpus", UL_OPT_COUNT, 1, 64, 2, "CPUs of the VM", .arg = "N", A(cpus) },
	{ "mem", UL_OPT_SIZE, 256 * UL_MiB, 64 * UL_GiB, 1 * UL_GiB, "memory of the VM",
	  .arg = "SIZE", A(mem_bytes) },
	{ "hang-timeout", UL_OPT_DURATION, 10 * UL_NS_PER_SEC, 24 * 3600 * UL_NS_PER_SEC,
	  120 * UL_NS_PER_SEC, "a guest silent this long is taken as hung (vm's --hang-timeout)",
	  .arg = "DURATION", A(hang_ns) },
	{ "margin", UL_OPT_PCT, 1, 10000, 500, "a step within +-PCT% of the good kernel is good",
	  .arg = "PCT", A(margin_centi) },
	{ "max-runs", UL_OPT_COUNT, 2, 100000, 10,
	  "boots of a step's A/B, both sides together; still open then: skipped", .arg = "N",
	  A(max_runs) },
	{ "budget", UL_OPT_DURATION, 0, INT64_MAX, 0,
	  "a step's A/B starts no pair that would end after this (0: none)", .arg = "DURATION",
	  A(budget_ns) },
	{ "no-confirm", UL_OPT_FLAG, 0, 1, 0, "do not confirm the culprit against its parent",
	  A(no_confirm) },
	UL_CMD_OPT_DB(struct ul_bisect_args),
	{ NULL },
};

#undef A
#undef FORM_KERNELS
#undef FORM_GIT

extern const struct ul_cmd ul_cmd_desc_bisect;

/* The A/B of step `cand` (0-based) against `base`; labels NAME/TAG/... */
static void ab_of(const struct ul_bisect_args *a, struct ul_bisect_ab *ab, int base, int cand,
		  bool confirm)
{
	ab->base = base;
	ab->cand = cand;
	if (confirm) {
		snprintf(ab->labels[0], sizeof(ab->labels[0]), "%s/confirm/%d:%s", a->name,
			 base + 1, a->kernels[base].file);
		snprintf(ab->labels[1], sizeof(ab->labels[1]), "%s/confirm/%d:%s", a->name,
			 cand + 1, a->kernels[cand].file);
	} else if (base == a->n_kernels - 1) {
		snprintf(ab->labels[0], sizeof(ab->labels[0]), "%s/%d/bad", a->name, cand + 1);
		snprintf(ab->labels[1], sizeof(ab->labels[1]), "%s/%d/%s/vs-bad", a->name, cand + 1,
			 a->kernels[cand].file);
	} else if (base == 0 && cand == a->n_kernels - 1) {
		snprintf(ab->labels[0], sizeof(ab->labels[0]), "%s/refs/good", a->name);
		snprintf(ab->labels[1], sizeof(ab->labels[1]), "%s/refs/bad", a->name);
	} else {
		snprintf(ab->labels[0], sizeof(ab->labels[0]), "%s/%d/good", a->name, cand + 1);
		snprintf(ab->labels[1], sizeof(ab->labels[1]), "%s/%d/%s", a->name, cand + 1,
			 a->kernels[cand].file);
	}
}

/* "4m10s" */
static const char *took(ul_nsec t0, char *buf, size_t len)
{
	ul_fmt_duration(buf, len, (int64_t)((ul_now_ns() - t0) / UL_NS_PER_SEC * UL_NS_PER_SEC));
	return buf;
}

/* --git: the A/B's kernels built, the step's first.  A step that does not
 * build is stored as a failed run under NAME/STEP/HASH/unbuildable (and
 * read back from there by a re-run, *measured false), v saying so; its
 * reference is not built for nothing.  A reference that does not build
 * stops the bisect.  0 or an exit code. */
static int build_ab(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab,
		    struct ul_bisect_verdict *v, bool *measured)
{
	struct ul_bisect_kernel *cand = &a->kernels[ab->cand], *base = &a->kernels[ab->base];
	bool ref = ab->cand == a->n_kernels - 1;
	char label[160], what[1024];
	int64_t id = 0;
	int rc = 0;

	snprintf(label, sizeof(label), "%s/%d/%s/unbuildable", a->name, ab->cand + 1, cand->file);
	if (!ref && !cand->image && !cand->unbuildable)
		rc = ul_bisect_find_failed(a, label, &id);
	if (!rc && id) {
		cand->unbuildable = true;
		snprintf(cand->why, sizeof(cand->why),
			 "it did not build before (run %lld, '%.100s')", (long long)id, label);
		*measured = false;
	}
	if (!rc && !id)
		rc = ul_bisect_git_build(a, cand);
	if (!rc && cand->unbuildable && !ref) {
		if (!id) {
			snprintf(what, sizeof(what), "underload bisect --build '%.700s' # %s: %s",
				 a->build, cand->commit, cand->why);
			rc = ul_bisect_store_failed(a, label, what);
		}
		v->unbuildable = true;
		snprintf(v->why, sizeof(v->why), "%s", cand->why);
		return rc;
	}
	if (!rc)
		rc = ul_bisect_git_build(a, base);
	for (int i = 0; i < 2 && !rc; i++) {
		const struct ul_bisect_kernel *k = i ? cand : base;

		if (k->unbuildable) {
			ul_error("bisect: %s, a reference, does not build (%s): stopped", k->file,
				 k->why);
			rc = UL_EXIT_ERROR;
		}
	}
	return rc;
}

/* The A/B read back, or measured when the store lacks it (or holds only
 * an interrupted, undecided part of it: measured again, afresh); with
 * --git, its kernels built first. */
static int judge(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab,
		 struct ul_bisect_verdict *v, bool *measured)
{
	int rc = ul_bisect_read(a, ab, v);
	bool failed;

	*measured = false;
	if (rc || (v->stored && (v->decided || v->crashed || v->runs >= (size_t)a->max_runs)))
		return rc;
	if (v->runs) {
		printf("bisect: '%s' and '%s' hold %zu runs of an interrupted A/B: set aside as "
		       "LABEL~interrupted, measured again\n",
		       ab->labels[0], ab->labels[1], v->runs);
		rc = ul_bisect_set_aside(a, ab, v);
		if (rc)
			return rc;
	}
	*measured = true;
	if (a->git) {
		rc = build_ab(a, ab, v, measured);
		if (rc || v->unbuildable)
			return rc;
	}
	rc = ul_bisect_measure(a, ab);
	if (rc == UL_EXIT_INTERRUPTED || rc == UL_EXIT_USAGE || rc == UL_EXIT_UNSUPPORTED)
		return rc;
	failed = rc == UL_EXIT_ERROR;
	/* Other exits (a flagged run, a crashed boot) leave what was stored to judge. */
	rc = ul_bisect_read(a, ab, v);
	/* vm failed on the host's side (it said why: qemu, the store, its
	 * files), which tells nothing of the kernel: unless what was stored
	 * already tells, stop rather than call the step skipped.  A re-run
	 * resumes here, the A/B's runs set aside and measured again. */
	if (!rc && failed && !(v->stored && (v->decided || v->crashed || v->slower || v->faster))) {
		ul_error("bisect: vm failed before '%s' against '%s' was decided (above): "
			 "stopped; a re-run resumes from the stored steps",
			 ab->labels[1], ab->labels[0]);
		return UL_EXIT_ERROR;
	}
	return rc;
}

/*
 * The outcome of a step's verdict against the reference it was measured
 * with.  Against the good kernel: slower is bad; every test equal or
 * faster is good.  Against the bad one (vs_bad): faster in some test is
 * good (it lacks the slowdown); every test equal or slower is bad.  Else
 * skipped (against the good kernel, then asked of the bad one).
 */
static enum ul_bisect_outcome outcome_of(const struct ul_bisect_verdict *v, bool vs_bad)
{
	bool moved = vs_bad ? v->faster : v->slower; /* away from the reference */

	if (!v->stored)
		return UL_BISECT_SKIP;
	if (v->crashed)
		return UL_BISECT_CRASH;
	if (moved)
		return vs_bad ? UL_BISECT_GOOD : UL_BISECT_BAD;
	if (!v->decided)
		return UL_BISECT_SKIP;
	return vs_bad ? UL_BISECT_BAD : UL_BISECT_GOOD;
}

/* Does the bad kernel crash too?  Its A/B against the good one, once. */
static int bad_crashes(const struct ul_bisect_args *a, bool *out)
{
	struct ul_bisect_ab ab;
	struct ul_bisect_verdict v;
	bool measured;
	int rc;

	ab_of(a, &ab, 0, a->n_kernels - 1, false);
	printf("bisect: a step crashed: does the bad kernel crash too? (%s)\n", ab.labels[1]);
	rc = judge(a, &ab, &v, &measured);
	*out = v.crashed;
	if (!rc)
		printf("bisect: the bad kernel %s\n",
		       v.crashed ? "crashes too: a crash is bad" : "does not crash");
	return rc;
}

/* Step i for the log: "IMAGE append=ARGS", or "HASH 'subject'". */
static const char *describe(const struct ul_bisect_args *a, int i, char *buf, size_t len)
{
	const struct ul_bisect_kernel *k = &a->kernels[i];

	if (a->git)
		snprintf(buf, len, "%s '%s'", k->file, k->subject);
	else
		snprintf(buf, len, "%s%s%s", k->image, k->append ? " append=" : "",
			 k->append ? k->append : "");
	return buf;
}

/* Measure (or read back) step i and record its outcome. */
static int step(const struct ul_bisect_args *a, struct ul_bisect *b, int i, bool *bad_known)
{
	struct ul_bisect_ab ab;
	struct ul_bisect_verdict v;
	enum ul_bisect_outcome o;
	char t[64], d[PATH_MAX + 256];
	bool measured;
	ul_nsec t0 = ul_now_ns();
	int rc;

	ab_of(a, &ab, 0, i, false);
	printf("bisect: step %d of %d: %s (%s against %s)\n", i + 1, a->n_kernels,
	       describe(a, i, d, sizeof(d)), ab.labels[1], ab.labels[0]);
	fflush(stdout);
	rc = judge(a, &ab, &v, &measured);
	if (rc)
		return rc;
	if (v.unbuildable) {
		printf("bisect: step %d is skipped (unbuildable): %s (%s)\n", i + 1, v.why,
		       measured ? took(t0, t, sizeof(t)) : "stored");
		fflush(stdout);
		return ul_bisect_record(b, (size_t)i, UL_BISECT_SKIP) ? UL_EXIT_ERROR : 0;
	}
	o = outcome_of(&v, false);
	if (o == UL_BISECT_SKIP && v.stored) {
		/* Open against the good kernel (an equal is hard to prove where
		 * runs spread): is it faster than the bad one? */
		printf("bisect: step %d is open against the good kernel: %s; against the bad "
		       "one:\n",
		       i + 1, v.why);
		ab_of(a, &ab, a->n_kernels - 1, i, false);
		rc = judge(a, &ab, &v, &measured);
		if (rc)
			return rc;
		o = outcome_of(&v, true);
	}
	if (o == UL_BISECT_CRASH && !*bad_known) {
		rc = bad_crashes(a, &b->bad_crashes);
		if (rc)
			return rc;
		*bad_known = true;
	}
	printf("bisect: step %d is %s: %s against '%s' (%zu runs, %s)\n", i + 1,
	       o == UL_BISECT_CRASH  ? (b->bad_crashes ? "bad (it crashes, as the bad kernel does)"
						       : "crashed (the bad kernel does not)")
	       : o == UL_BISECT_SKIP ? "skipped (undecided)"
				     : ul_bisect_outcome_name(o),
	       v.stored ? v.why : "nothing measured", ab.labels[0], v.runs,
	       measured ? took(t0, t, sizeof(t)) : "stored");
	fflush(stdout);
	return ul_bisect_record(b, (size_t)i, o) ? UL_EXIT_ERROR : 0;
}

/* The culprit against its parent, afresh: 0 confirmed, UL_EXIT_FLAGGED not.
 * Slower confirms it; so does crashing where its parent does not when a
 * crash is the regression (the bad kernel crashes too: crash_is_bad). */
static int confirm(const struct ul_bisect_args *a, int culprit, bool crash_is_bad)
{
	struct ul_bisect_ab ab;
	struct ul_bisect_verdict v;
	char t[64];
	bool measured, crashes;
	ul_nsec t0 = ul_now_ns();
	int rc;

	ab_of(a, &ab, culprit - 1, culprit, true);
	printf("bisect: confirming step %d against its parent, step %d (%s against %s)\n",
	       culprit + 1, culprit, ab.labels[1], ab.labels[0]);
	fflush(stdout);
	rc = judge(a, &ab, &v, &measured);
	if (rc)
		return rc;
	crashes = crash_is_bad && v.crashed && !v.base_crashed;
	printf("bisect: step %d %s its parent%s: %s (%zu runs, %s)\n", culprit + 1,
	       crashes	  ? "crashes, unlike"
	       : v.slower ? "is slower than"
			  : "is not shown slower than",
	       crashes ? " (a crash is bad)" : "", v.stored ? v.why : "nothing measured", v.runs,
	       measured ? took(t0, t, sizeof(t)) : "stored");
	return v.slower || crashes ? UL_EXIT_OK : UL_EXIT_FLAGGED;
}

static int bisect_main(struct ul_bisect_args *a)
{
	struct ul_bisect b;
	struct ul_bisect_result r;
	bool bad_known = false;
	ul_nsec t0 = ul_now_ns();
	char t[64], d[PATH_MAX + 256];
	int rc = ul_bisect_init(&b, (size_t)a->n_kernels, false);

	if (rc)
		return ul_error_errno(rc, "bisect: cannot start");
	for (;;) {
		ul_bisect_next(&b, &r);
		if (r.state != UL_BISECT_NEXT)
			break;
		rc = step(a, &b, (int)r.step, &bad_known);
		if (rc)
			break;
	}
	for (int i = 1; !rc && i + 1 < a->n_kernels; i++)
		if (ul_bisect_crashed(&b, (size_t)i))
			printf("bisect: step %d (%s) crashes, the bad kernel does not: a finding of its "
			       "own\n",
			       i + 1, describe(a, i, d, sizeof(d)));
	if (!rc && r.state == UL_BISECT_FOUND) {
		printf("bisect: the first bad step is %d: %s (its parent, step %d, is good)\n",
		       (int)r.step + 1, describe(a, (int)r.step, d, sizeof(d)), (int)r.step);
		fflush(stdout);
		rc = a->no_confirm ? UL_EXIT_OK : confirm(a, (int)r.step, b.bad_crashes);
	} else if (!rc) {
		printf("bisect: cannot tell: the first bad step is one of %d to %d (the steps "
		       "between %d and %d were skipped)\n",
		       (int)r.lo + 2, (int)r.hi + 1, (int)r.lo + 1, (int)r.hi + 1);
		rc = UL_EXIT_FLAGGED;
	}
	if (a->git)
		ul_bisect_git_finish(a->git);
	if (rc != UL_EXIT_INTERRUPTED)
		printf("bisect: done in %s\n", took(t0, t, sizeof(t)));
	ul_bisect_free(&b);
	return rc;
}

/* --git's checks, its range, and its run with the terminating signals
 * blocked (bisect.c's contract above): bisect_main's exit code. */
static int bisect_git_main(struct ul_bisect_args *a)
{
	static struct ul_bisect_git g;
	sigset_t old;
	int rc;

	if (a->n_kernels)
		return ul_usage_error("bisect", "--git and --kernel: give one of them");
	if (!a->good || !a->bad || !a->build)
		return ul_usage_error("bisect",
				      "--git needs --good REV, --bad REV and --build CMD");
	if (!a->image)
		a->image = "arch/x86/boot/bzImage";
	memset(&g, 0, sizeof(g));
	g.journal.fd = -1;
	a->git = &g;
	if (ul_sup_block_signals(&old)) {
		ul_error("bisect: cannot block the terminating signals");
		return UL_EXIT_ERROR;
	}
	rc = ul_bisect_git_range(a);
	if (!rc) {
		char label[160];

		snprintf(label, sizeof(label), "%s/%d/%s/vs-bad", a->name, a->n_kernels,
			 a->kernels[0].file);
		printf("bisect: %d commits from %s to %s\n", a->n_kernels, a->kernels[0].file,
		       a->kernels[a->n_kernels - 1].file);
		rc = ul_label_check("bisect", "the runs' label", label) ? UL_EXIT_USAGE
									: bisect_main(a);
	}
	if (ul_sup_unblock_signals(&old) && !rc) {
		ul_error("bisect: interrupted");
		rc = UL_EXIT_INTERRUPTED;
	}
	if (a->kernels != a->list)
		free(a->kernels);
	a->kernels = a->list;
	return rc;
}

int ul_cmd_bisect(int argc, char **argv);
int ul_cmd_bisect(int argc, char **argv)
{
	static struct ul_bisect_args a;
	struct ul_store *store;
	char label[160];
	int first, ret;

	memset(&a, 0, sizeof(a));
	a.kernels = a.list;
	ret = ul_cmd_parse(&ul_cmd_desc_bisect, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (!a.git_dir && (a.good || a.bad || a.build || a.image || a.append_file))
		return ul_usage_error("bisect", "--good, --bad, --build, --image and "
						"--append-file go with --git");
	if (!a.git_dir && a.n_kernels < 2)
		return ul_usage_error("bisect", "give at least two --kernel: the good, then the "
						"bad (or --git DIR)");
	if (first >= argc || strcmp(argv[first], "run"))
		return ul_usage_error("bisect", "expected '-- run ARGS...' after the options");
	a.run_args = argv + first;
	a.n_run_args = argc - first;
	ret = ul_cmd_db_path(a.db, a.db_path, sizeof(a.db_path));
	if (ret)
		return ret;
	/* The store made first: each step begins by reading it, and a fresh
	 * PostgreSQL database has no tables to read until a write makes them. */
	ret = ul_cmd_open_store_rw(a.db_path, &store);
	if (ret)
		return ret;
	ul_store_close(store);
	if (a.git_dir)
		return bisect_git_main(&a);
	snprintf(label, sizeof(label), "%s/%d/%s", a.name, a.n_kernels, a.kernels[0].file);
	if (ul_label_check("bisect", "the runs' label", label))
		return UL_EXIT_USAGE;
	return bisect_main(&a);
}

const struct ul_cmd ul_cmd_desc_bisect = {
	.name = "bisect",
	.summary = "the first slower kernel of an ordered list or git range, each step decided in "
		   "VMs",
	.operands = "-- run ARGS...",
	.help = bisect_help,
	.opts = bisect_opts,
	.fn = ul_cmd_bisect,
};
