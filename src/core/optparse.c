/* SPDX-License-Identifier: GPL-2.0-or-later */
/* getopt_long, --help and man page OPTIONS from ul_opt tables (see optparse.h). */
#include "core/compat.h"
#include "core/optparse.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/parse.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LONG (UL_OPT_GROUPS_MAX * 8)
#define CODE_BASE 0x1000 /* getopt codes: CODE_BASE + group * 64 + index */
#define HELP_COL 25	 /* where help text starts in --help */
#define HELP_WIDTH 79

static bool takes_arg(const struct ul_opt *o)
{
	return o->type != UL_OPT_FLAG;
}

static void store_int(void *base, const struct ul_opt *o, int64_t v)
{
	char *p = (char *)base + o->off;

	switch (o->size) {
	case sizeof(int8_t): {
		bool b = v != 0; /* the only one-byte targets are bools */

		memcpy(p, &b, 1);
		break;
	}
	case sizeof(int32_t): {
		int32_t i = (int32_t)v;

		memcpy(p, &i, sizeof(i));
		break;
	}
	case sizeof(int64_t):
		memcpy(p, &v, sizeof(v));
		break;
	default:
		UL_BUG("option --%s: target of %zu bytes", o->name, o->size);
	}
}

static void store_str(void *base, const struct ul_opt *o, const char *s)
{
	if (o->size != sizeof(s))
		UL_BUG("option --%s: string target of %zu bytes", o->name, o->size);
	memcpy((char *)base + o->off, &s, sizeof(s));
}

void ul_opt_apply_defaults(const struct ul_opt *opts, void *base)
{
	for (size_t i = 0; opts && opts[i].name; i++) {
		const struct ul_opt *o = &opts[i];

		if (!o->size)
			continue; /* a callback's or a flag without target */
		if (o->type == UL_OPT_CALL)
			memset((char *)base + o->off, 0, o->size); /* its target starts empty */
		else if (o->type == UL_OPT_STRING || o->type == UL_OPT_DIR ||
			 o->type == UL_OPT_CHOICE)
			store_str(base, o, o->def_str);
		else
			store_int(base, o, o->def);
	}
}

static int set_dir(const struct ul_opt *o, const char *arg, char *err, size_t errlen)
{
	struct stat st;

	if (stat(arg, &st) < 0) {
		snprintf(err, errlen, "--%s '%s': %s", o->name, arg, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--%s '%s': not a directory", o->name, arg);
		return -EINVAL;
	}
	return 0;
}

/* A CHOICE's argument: one of the words of o->arg, else "expected a, b or c". */
static int set_choice(const struct ul_opt *o, const char *arg, char *err, size_t errlen)
{
	char words[256] = "";
	size_t len = strlen(arg), off = 0;

	for (const char *p = o->arg; *p;) {
		size_t w = strcspn(p, "|");

		if (w == len && !strncmp(p, arg, len))
			return 0;
		if (off < sizeof(words))
			off += (size_t)snprintf(words + off, sizeof(words) - off, "%s%.*s",
						!off   ? ""
						: p[w] ? ", "
						       : " or ",
						(int)w, p);
		p += w + (p[w] == '|');
	}
	snprintf(err, errlen, "--%s '%.64s': expected %s", o->name, arg, words);
	return -EINVAL;
}

/* One option's argument into its group's struct. */
static int set_one(struct ul_opt_group *g, const struct ul_opt *o, const char *arg, char *err,
		   size_t errlen)
{
	char what[80];
	int64_t v;
	int rc;

	snprintf(what, sizeof(what), "--%s", o->name);
	switch (o->type) {
	case UL_OPT_FLAG:
		if (o->size)
			store_int(g->base, o, o->max);
		return 0;
	case UL_OPT_CALL: /* its target, or the whole struct without one */
		return o->set(o->size ? (char *)g->base + o->off : g->base, arg, err, errlen);
	case UL_OPT_CHOICE:
		rc = set_choice(o, arg, err, errlen);
		if (!rc)
			store_str(g->base, o, arg);
		return rc;
	case UL_OPT_DIR:
		rc = set_dir(o, arg, err, errlen);
		if (!rc)
			store_str(g->base, o, arg);
		return rc;
	case UL_OPT_STRING:
		/* A bounded string is a name people read (a label): the one check. */
		if (o->max > 0) {
			char why[96];

			if (ul_text_check(arg, (size_t)o->max, why, sizeof(why))) {
				snprintf(err, errlen, "%s %s", what, why);
				return -EINVAL;
			}
		}
		store_str(g->base, o, arg);
		return 0;
	default:
		rc = ul_opt_parse_value(o, what, arg, &v, err, errlen);
		if (!rc)
			store_int(g->base, o, v);
		return rc;
	}
}

/* Build getopt_long's tables; the codes index groups and options. */
static void build(const struct ul_opt_group *groups, size_t n, struct option *longs, char *shorts,
		  size_t shorts_len)
{
	size_t nl = 0, ns = 0;

	shorts[ns++] = 'h';
	for (size_t gi = 0; gi < n; gi++) {
		const struct ul_opt *opts = groups[gi].opts;

		for (size_t i = 0; opts && opts[i].name; i++) {
			if (i >= UL_OPT_GROUP_MAX || nl + 2 >= MAX_LONG)
				UL_BUG("too many options (--%s)", opts[i].name);
			longs[nl++] = (struct option){ opts[i].name,
						       takes_arg(&opts[i]) ? required_argument
									   : no_argument,
						       NULL, CODE_BASE + (int)(gi * 64 + i) };
			if (opts[i].short_name && ns + 3 < shorts_len) {
				shorts[ns++] = opts[i].short_name;
				if (takes_arg(&opts[i]))
					shorts[ns++] = ':';
			}
		}
	}
	longs[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	longs[nl] = (struct option){ NULL, 0, NULL, 0 };
	shorts[ns] = '\0';
}

/* The group and option a getopt code names (a short name is looked up). */
static bool decode(struct ul_opt_group *groups, size_t n, int c, size_t *gi, size_t *oi)
{
	if (c >= CODE_BASE) {
		*gi = (size_t)(c - CODE_BASE) / 64;
		*oi = (size_t)(c - CODE_BASE) % 64;
		return *gi < n;
	}
	for (*gi = 0; *gi < n; (*gi)++)
		for (*oi = 0; groups[*gi].opts && groups[*gi].opts[*oi].name; (*oi)++)
			if (groups[*gi].opts[*oi].short_name == c)
				return true;
	return false;
}

/*
 * Why getopt_long (opterr 0, optstring led by ':') returned `c`, as one
 * phrase naming the word: '?' unknown, ambiguous or a value given to a
 * flag, ':' a missing value, or a code no table knows.  A short option's letter is optopt (it may sit
 * inside a cluster); a long one's optopt is 0 (unknown, ambiguous) or its
 * code (no value), its word the one before optind.
 */
static void refused(int c, int argc, char **argv, char *err, size_t errlen)
{
	const char *w = optind > 1 && optind <= argc ? argv[optind - 1] : "?";

	if (c == '?' && optopt >= CODE_BASE) /* "--flag=VALUE" */
		snprintf(err, errlen, "'%s': that option takes no value", w);
	else if (optopt == 0 || optopt >= CODE_BASE)
		snprintf(err, errlen, "%s '%s'",
			 c == ':' ? "no value for" : "unknown or ambiguous option", w);
	else
		snprintf(err, errlen, "%s '-%c'", c == ':' ? "no value for" : "unknown option",
			 optopt);
}

int ul_opt_parse_argv(struct ul_opt_group *groups, size_t n, int argc, char **argv, int *operands,
		      char *err, size_t errlen)
{
	struct option longs[MAX_LONG];
	char shorts[2 * MAX_LONG + 2];
	int c, rc = 0, saved_opterr = opterr;

	/* ':' first: a missing value is ':', told apart from an unknown '?'. */
	shorts[0] = ':';
	build(groups, n, longs, shorts + 1, sizeof(shorts) - 1);
	for (size_t gi = 0; gi < n; gi++)
		groups[gi].given = 0;
	/* getopt_long's own message would be a second line beside the
	 * caller's: it says nothing, refused() words the one error. */
	opterr = 0;
	/* 0, not 1: glibc then also forgets where it was inside a cluster of
	 * short options ("-Zc7" refused at Z), which would otherwise be read
	 * from the previous, maybe freed, argv on the next call. */
	optind = 0;
	/* getopt permutes: options may follow operands, as they always could. */
	while (!rc && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		size_t gi, oi;

		if (c == 'h') {
			rc = UL_OPT_PARSE_HELP;
		} else if (c == '?' || c == ':' || !decode(groups, n, c, &gi, &oi)) {
			refused(c, argc, argv, err, errlen);
			rc = -EINVAL;
		} else {
			rc = set_one(&groups[gi], &groups[gi].opts[oi], optarg, err, errlen);
			if (rc > 0)
				rc = -EINVAL;
			if (!rc)
				groups[gi].given |= UINT64_C(1) << oi;
		}
	}
	opterr = saved_opterr;
	*operands = optind;
	return rc;
}

int ul_opt_scan_argv(const struct ul_opt_group *groups, size_t n, int argc, char **argv,
		     ul_opt_scan_fn fn, void *arg, char *err, size_t errlen)
{
	struct option longs[MAX_LONG];
	char shorts[2 * MAX_LONG + 2], **copy;
	int c, rc = 0, saved_opterr = opterr;

	if (argc < 1)
		return 0;
	/* getopt_long permutes what it reads: a copy, the caller's argv stays. */
	copy = calloc((size_t)argc + 1, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	/* ':' first: a missing argument is ':', told apart from an unknown '?'. */
	shorts[0] = ':';
	build(groups, n, longs, shorts + 1, sizeof(shorts) - 1);
	opterr = 0;
	optind = 0;
	while (!rc && (c = getopt_long(argc, copy, shorts, longs, NULL)) != -1) {
		size_t gi, oi;

		if (c == 'h') {
			rc = fn(arg, NULL, "help", NULL);
		} else if (c == '?' || c == ':' ||
			   !decode((struct ul_opt_group *)groups, n, c, &gi, &oi)) {
			refused(c, argc, copy, err, errlen);
			rc = -EINVAL;
		} else {
			rc = fn(arg, &groups[gi], groups[gi].opts[oi].name, optarg);
		}
	}
	/* getopt_long moved the operands after the options, in their order. */
	for (int i = optind; !rc && i < argc; i++)
		rc = fn(arg, NULL, NULL, copy[i]);
	opterr = saved_opterr;
	optind = 0;
	free(copy);
	return rc;
}

bool ul_opt_given(const struct ul_opt_group *g, const char *name)
{
	int i = ul_opt_index(g->opts, name);

	return i >= 0 && (g->given & (UINT64_C(1) << i));
}

void ul_opt_given_names(const struct ul_opt_group *g, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; g->opts && g->opts[i].name && off < len; i++)
		if (g->given & (UINT64_C(1) << i))
			off += (size_t)snprintf(buf + off, len - off, "%s--%s", off ? ", " : "",
						g->opts[i].name);
}

/* "(default: 20s)" as --help and the man page say it, or "" for none. */
static void default_only(const struct ul_opt *o, char *buf, size_t len)
{
	char v[48];

	buf[0] = '\0';
	if (o->flags & UL_OPTF_NO_DEFAULT)
		return;
	if (o->def_text || o->def_str) {
		snprintf(buf, len, "(default: %s)", o->def_text ? o->def_text : o->def_str);
		return;
	}
	if (o->type > UL_OPT_BOOL)
		return;
	ul_opt_fmt(o, o->def, v, sizeof(v));
	snprintf(buf, len, "(default: %s)", v);
}

/* The default, after "(only resp,deadline)" for an option only some
 * suites read (struct ul_opt's used_by). */
static void default_text(const struct ul_opt *o, char *buf, size_t len)
{
	char def[160];

	default_only(o, def, sizeof(def));
	if (o->used_by && o->used_with)
		snprintf(buf, len, "(only %s, or any suite with --%s)%s%s", o->used_by,
			 o->used_with, *def ? " " : "", def);
	else if (o->used_by)
		snprintf(buf, len, "(only %s)%s%s", o->used_by, *def ? " " : "", def);
	else
		snprintf(buf, len, "%s", def);
}

static void opt_synopsis(const struct ul_opt *o, char *buf, size_t len)
{
	char shortn[8] = "";

	if (o->short_name)
		snprintf(shortn, sizeof(shortn), "-%c, ", o->short_name);
	snprintf(buf, len, "%s--%s%s%s", shortn, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* One option as the usage line shows it: "[-o|--output FILE]", "--to URI",
 * "[--host H]...". */
static void usage_word(const struct ul_opt *o, char *buf, size_t len)
{
	char shortn[8] = "";
	bool required = o->flags & UL_OPTF_REQUIRED;

	if (o->short_name)
		snprintf(shortn, sizeof(shortn), "-%c|", o->short_name);
	snprintf(buf, len, "%s%s--%s%s%s%s%s", required ? "" : "[", shortn, o->name,
		 o->arg ? " " : "", o->arg ? o->arg : "", required ? "" : "]",
		 o->flags & UL_OPTF_REPEATS ? "..." : "");
}

/* `word` at column *col of a usage line, on a new line indented `indent`
 * when it would pass HELP_WIDTH. */
static void usage_put(FILE *out, const char *word, size_t indent, size_t *col)
{
	size_t w = strlen(word);

	if (*col > indent && *col + 1 + w > HELP_WIDTH) {
		fprintf(out, "\n%*s", (int)indent, "");
		*col = indent;
	} else {
		fputc(' ', out);
		(*col)++;
	}
	fputs(word, out);
	*col += w;
}

/* Is o on usage line `form` (0: every option is)? */
static bool on_line(const struct ul_opt *o, unsigned form)
{
	return !form || !o->form || (o->form & form);
}

unsigned ul_opt_usage_forms(const struct ul_opt_group *groups, size_t n)
{
	unsigned forms = 0;

	for (size_t gi = 0; gi < n; gi++)
		for (size_t i = 0; groups[gi].opts && groups[gi].opts[i].name; i++)
			forms |= groups[gi].opts[i].form;
	return forms;
}

void ul_opt_print_usage(FILE *out, const char *prefix, const struct ul_opt_group *groups, size_t n,
			unsigned form, const char *operands)
{
	size_t indent = strlen(prefix) + 1, col = strlen(prefix);

	fputs(prefix, out);
	for (size_t gi = 0; gi < n; gi++)
		for (size_t i = 0; groups[gi].opts && groups[gi].opts[i].name; i++) {
			char word[128];

			if (!on_line(&groups[gi].opts[i], form))
				continue;
			usage_word(&groups[gi].opts[i], word, sizeof(word));
			usage_put(out, word, indent, &col);
		}
	if (operands)
		usage_put(out, operands, indent, &col);
	fputc('\n', out);
}

/* Words of `text` from column `col`, wrapped at HELP_WIDTH, indented HELP_COL. */
static void put_wrapped(FILE *out, const char *text, size_t col)
{
	const char *p = text;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > HELP_COL && col + 1 + w > HELP_WIDTH) {
			fprintf(out, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (col > HELP_COL) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, w, out);
		col += w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static void help_line(FILE *out, const char *left, const char *help, const char *def)
{
	char text[512];
	int col = fprintf(out, "  %s", left);

	if (col + 2 > HELP_COL) {
		fprintf(out, "\n%*s", HELP_COL, "");
	} else {
		fprintf(out, "%*s", HELP_COL - col, "");
	}
	snprintf(text, sizeof(text), "%s%s%s", help, *def ? " " : "", def);
	put_wrapped(out, text, HELP_COL);
}

void ul_opt_print_help(FILE *out, const struct ul_opt_group *groups, size_t n)
{
	for (size_t gi = 0; gi < n; gi++) {
		const struct ul_opt *opts = groups[gi].opts;

		if (groups[gi].heading)
			fprintf(out, "%s%s%s:\n", groups[gi].heading, groups[gi].intro ? " " : "",
				groups[gi].intro ? groups[gi].intro : "");
		for (size_t i = 0; opts && opts[i].name; i++) {
			char left[96], def[160];

			opt_synopsis(&opts[i], left, sizeof(left));
			default_text(&opts[i], def, sizeof(def));
			help_line(out, left, opts[i].help, def);
		}
	}
}

void ul_opt_print_help_line(FILE *out, const char *left, const char *help)
{
	help_line(out, left, help, "");
}

/* Text for troff: '-' as \-, backslashes doubled; a leading '.' or '\''
 * would be a request, so it gets a zero-width escape. */
static void put_troff(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", out);
		else if (*s == '\\')
			fputs("\\e", out);
		else
			fputc(*s, out);
	}
}

/* One usage word as a troff text line: an option ("--db") and a literal
 * value ("mwu", "run") bold, a metavariable ("PATH", "V1") italic, the
 * punctuation between roman.  Its spaces cannot break ("\\ ") and it is
 * never hyphenated ("\\%"), so "[--db PATH|URL]" stays whole on a line. */
static void man_usage_word(FILE *out, const char *word, size_t len)
{
	fputs("\\%", out); /* also keeps a leading '.' from being a request */
	for (size_t at = 0; at < len;) {
		const char *set = NULL;

		if (word[at] == '-' || (word[at] >= 'a' && word[at] <= 'z')) {
			set = "abcdefghijklmnopqrstuvwxyz0123456789-";
			fputs("\\fB", out);
		} else if (word[at] >= 'A' && word[at] <= 'Z') {
			set = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
			fputs("\\fI", out);
		} else {
			if (word[at] == ' ')
				fputs("\\ ", out);
			else
				fputc(word[at], out);
			at++;
			continue;
		}
		for (; at < len && strchr(set, word[at]); at++) {
			if (word[at] == '-')
				fputs("\\-", out);
			else
				fputc(word[at], out);
		}
		fputs("\\fR", out);
	}
	fputs("\\&\n", out); /* "RUN..." ends no sentence: one space after it */
}

void ul_opt_print_man_usage(FILE *out, const char *command, const struct ul_opt_group *groups,
			    size_t n, unsigned form, const char *operands)
{
	fputs(".B ", out);
	put_troff(out, command);
	fputc('\n', out);
	for (size_t gi = 0; gi < n; gi++)
		for (size_t i = 0; groups[gi].opts && groups[gi].opts[i].name; i++) {
			char word[128];

			if (!on_line(&groups[gi].opts[i], form))
				continue;
			usage_word(&groups[gi].opts[i], word, sizeof(word));
			man_usage_word(out, word, strlen(word));
		}
	/* The operands one word a line: troff may break between them. */
	for (const char *p = operands; p && *p; p += strspn(p, " ")) {
		size_t len = strcspn(p, " ");

		man_usage_word(out, p, len);
		p += len;
	}
	fputs(".br\n", out);
}

static void man_entry(FILE *out, const struct ul_opt *o)
{
	char def[160];

	fputs(".TP\n", out);
	fputs(o->arg ? ".BI " : ".B ", out);
	if (o->short_name)
		fprintf(out, "\\-%c \"\\fR, \\fP\" ", o->short_name);
	fputs("\\-\\-", out);
	put_troff(out, o->name);
	if (o->arg) {
		fputs(" \" ", out);
		put_troff(out, o->arg);
		fputc('"', out);
	}
	fputc('\n', out);
	default_text(o, def, sizeof(def));
	/* A sentence in the man page: "Think time ..." where --help says "think time". */
	if (o->help[0] >= 'a' && o->help[0] <= 'z')
		fputc(o->help[0] - 'a' + 'A', out);
	put_troff(out, o->help + (o->help[0] >= 'a' && o->help[0] <= 'z'));
	if (*def) {
		fputc(' ', out);
		put_troff(out, def);
	}
	fputs(".\n", out);
	if (o->man)
		fprintf(out, "%s\n", o->man); /* already troff */
}

void ul_opt_print_man(FILE *out, const struct ul_opt_group *groups, size_t n)
{
	for (size_t gi = 0; gi < n; gi++) {
		if (groups[gi].heading) {
			fputs(".SS ", out);
			put_troff(out, groups[gi].heading);
			fputc('\n', out);
			if (groups[gi].intro) {
				put_troff(out, groups[gi].intro);
				fputc('\n', out);
			}
		}
		for (size_t i = 0; groups[gi].opts && groups[gi].opts[i].name; i++)
			man_entry(out, &groups[gi].opts[i]);
	}
}

void ul_opt_print_man_values(FILE *out, const char *item, const struct ul_opt *opts)
{
	for (size_t i = 0; opts && opts[i].name; i++) {
		const struct ul_opt *o = &opts[i];
		char lo[32], hi[32], def[32];

		ul_opt_fmt(o, o->min, lo, sizeof(lo));
		ul_opt_fmt(o, o->max, hi, sizeof(hi));
		ul_opt_fmt(o, o->def, def, sizeof(def));
		fputs(".TP\n.BI \"", out);
		put_troff(out, item);
		fputc('.', out);
		put_troff(out, o->name);
		fprintf(out, "=\" %s\n", ul_opt_type_name(o->type));
		put_troff(out, o->help);
		fputs(" (", out);
		put_troff(out, lo);
		fputs("..", out);
		put_troff(out, hi);
		fputs(", default ", out);
		put_troff(out, def);
		fputs(").\n", out);
	}
}
