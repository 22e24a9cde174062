/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output plumbing shared by commands: format specs, atomic files, stdout
 * checks, --db and loading stored runs.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/outfile.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/engine.h"
#include "report/format.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ul_default_formats(const char *suites, char *buf, size_t len)
{
	char copy[256], *save = NULL, *tok;
	size_t off = 0;

	buf[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", suites);
	for (tok = strtok_r(copy, ",", &save); tok && off < len; tok = strtok_r(NULL, ",", &save)) {
		const struct ul_suite *suite = ul_suite_find(tok);

		if (suite && suite->format && !strstr(buf, suite->format))
			off += (size_t)snprintf(buf + off, len - off, "%s,", suite->format);
	}
	if (off < len)
		snprintf(buf + off, len - off, "text");
}

/*
 * Can FILE of --format X=FILE be written?  Checked when the option is read,
 * so a bad path is refused before the first cell, not after the run: a
 * sane name, then the rules of every output file (cmd/outfile.h).  The
 * store must be registered (ul_cmd_db_path()) before.
 */
static int check_path(const char *cmd, const char *fmt, const char *path)
{
	if (path[0] == '=' || strlen(path) >= PATH_MAX || path[strlen(path) - 1] == '/')
		return ul_usage_error(cmd,
				      "bad file name for format '%s' in --format: want "
				      "--format %s=FILE",
				      fmt, fmt);
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return ul_usage_error(cmd,
					      "file name for format '%s' in --format holds a "
					      "control character",
					      fmt);
	return ul_outfile_check(path);
}

int ul_outputs_parse(const char *cmd, const char *spec, struct ul_outputs *outs)
{
	char *copy = outs->spec, *save = NULL, *tok;
	char names[256];
	int rc = 0;

	outs->n = 0;
	if (strlen(spec) >= sizeof(outs->spec))
		return ul_usage_error(cmd, "--format is longer than %zu bytes",
				      sizeof(outs->spec) - 1);
	snprintf(outs->spec, sizeof(outs->spec), "%s", spec);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const struct ul_format *f;

		if (eq)
			*eq = '\0';
		f = ul_format_find(tok);
		if (!f) {
			ul_format_names(names, sizeof(names));
			ul_usage_error(cmd, "unknown format '%s' in --format (known: %s)", tok,
				       names);
			rc = -1;
			break;
		}
		if (eq && !eq[1]) {
			ul_usage_error(cmd, "empty file name for format '%s' in --format", tok);
			rc = -1;
			break;
		}
		if (eq && check_path(cmd, tok, eq + 1)) {
			rc = -1;
			break;
		}
		for (size_t i = 0; eq && i < outs->n; i++) {
			if (outs->out[i].path && !strcmp(outs->out[i].path, eq + 1)) {
				ul_usage_error(cmd, "file '%s' named twice in --format", eq + 1);
				rc = -1;
				break;
			}
		}
		if (rc)
			break;
		if (outs->n == UL_MAX_OUTPUTS) {
			ul_usage_error(cmd, "at most %d outputs in --format", UL_MAX_OUTPUTS);
			rc = -1;
			break;
		}
		outs->out[outs->n].format = f;
		/* Points into outs->spec, cut at each comma. */
		outs->out[outs->n].path = eq ? eq + 1 : NULL;
		outs->n++;
	}
	if (!rc && outs->n == 0) {
		ul_usage_error(cmd, "--format needs at least one format");
		rc = -1;
	}
	return rc;
}

struct run_in_format {
	const struct ul_format *format;
	const struct ul_run *run;
};

static int write_run_in_format(FILE *f, const void *arg)
{
	const struct run_in_format *r = arg;

	return r->format->write_run(f, r->run);
}

static int write_file(const struct ul_output *o, const struct ul_run *run)
{
	struct run_in_format r = { o->format, run };

	return ul_outfile_write(o->path, write_run_in_format, &r);
}

int ul_outputs_write(const struct ul_outputs *outs, const struct ul_run *run)
{
	int ret = 0;

	for (size_t i = 0; i < outs->n; i++) {
		const struct ul_output *o = &outs->out[i];

		if (o->path) {
			if (write_file(o, run))
				ret = -1;
			continue;
		}
		if (i > 0 && outs->out[i - 1].path == NULL)
			putchar('\n');
		if (o->format->write_run(stdout, run))
			ret = ul_stdout_gone()
				      ? -1
				      : ul_error("cannot write format '%s' to standard output",
						 o->format->name);
	}
	return ret;
}

bool ul_stdout_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO };

	return ferror(stdout) && poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int ul_stdout_close(void)
{
	/* errno is fflush's only when it failed now; an earlier failed write
	 * left just the error flag, and errno has changed since (a closed
	 * store's fcntl: "Bad file descriptor"). */
	int err = fflush(stdout) ? errno : ferror(stdout) ? EIO : 0;

	if (!err)
		return 0;
	if (ul_stdout_gone())
		return -1;
	return ul_error_errno(err, "cannot write to standard output");
}

int ul_cmd_db_path(const char *db_opt, char *buf, size_t len)
{
	int rc;

	if (db_opt) {
		if (!*db_opt) {
			ul_error("--db needs a path or a URL");
			return UL_EXIT_USAGE;
		}
		snprintf(buf, len, "%s", db_opt);
		ul_outfile_protect(buf);
		return 0;
	}
	rc = ul_store_default_path(buf, len);
	if (rc) {
		ul_error("no default database location: set UNDERLOAD_DB, XDG_DATA_HOME or "
			 "HOME, or give --db PATH|URL");
		return UL_EXIT_USAGE;
	}
	ul_outfile_protect(buf);
	return 0;
}

/* UNDERLOAD_DB_WAIT: how long a write waits for a locked database. */
static int db_wait_ms(int64_t *ms)
{
	const char *env = getenv("UNDERLOAD_DB_WAIT");
	int64_t ns = 0;

	*ms = 0;
	if (!env || !*env)
		return 0;
	if (ul_parse_duration_ns(env, UL_NS_PER_MS, 24 * 3600 * UL_NS_PER_SEC, &ns)) {
		ul_error("UNDERLOAD_DB_WAIT='%s': expected a duration from 1ms to 24h", env);
		return UL_EXIT_USAGE;
	}
	*ms = ns / UL_NS_PER_MS;
	return 0;
}

static int open_store(const char *db_opt, unsigned flags, struct ul_store **out)
{
	struct ul_store_config cfg = { .flags = flags };
	char db[PATH_MAX], err[512];
	int rc;

	*out = NULL;
	if ((rc = ul_cmd_db_path(db_opt, db, sizeof(db))) || (rc = db_wait_ms(&cfg.busy_wait_ms)))
		return rc;
	if (ul_store_open_cfg(db, &cfg, out, err, sizeof(err))) {
		ul_error("%s", err);
		return UL_EXIT_ERROR;
	}
	if ((*out)->note[0])
		ul_note("%s", (*out)->note);
	if (!(flags & UL_STORE_READ))
		ul_cmd_settle_crashed(db, *out);
	return UL_EXIT_OK;
}

const struct ul_opt ul_cmd_db_opts[] = {
	UL_CMD_OPT_DB(struct ul_cmd_db_args),
	{ NULL },
};

int ul_cmd_open_store(const char *db_opt, struct ul_store **out)
{
	return open_store(db_opt, UL_STORE_READ, out);
}

int ul_cmd_open_store_settled(const char *db_opt, struct ul_store **out)
{
	char db[PATH_MAX];
	int rc = ul_cmd_db_path(db_opt, db, sizeof(db));

	if (rc)
		return rc;
	/* A store that does not exist holds no run to mark, and is not made. */
	if (strstr(db, "://") || access(db, F_OK) == 0)
		ul_cmd_settle_crashed(db, NULL);
	return open_store(db, UL_STORE_READ, out);
}

int ul_cmd_open_store_rw(const char *db_opt, struct ul_store **out)
{
	return open_store(db_opt, 0, out);
}

int ul_cmd_run_exit(const struct ul_store *st, int rc)
{
	if (!rc)
		return UL_EXIT_OK;
	ul_error("%s", st->err);
	/* No such run and a reference that cannot name one are both bad usage. */
	return rc == -ENOENT || rc == -EINVAL ? UL_EXIT_USAGE : UL_EXIT_ERROR;
}

int ul_cmd_load_run(struct ul_store *st, const char *ref, struct ul_run *run)
{
	ul_run_init(run);
	return ul_cmd_run_exit(st, st->ops->load_run(st, ref, run));
}

int ul_cmd_find_run(struct ul_store *st, const char *ref, struct ul_run_summary *out)
{
	return ul_cmd_run_exit(st, st->ops->find_run(st, ref, out));
}

int ul_label_check(const char *cmd, const char *what, const char *label)
{
	char why[96];

	if (ul_text_check(label, UL_LABEL_MAX_BYTES, why, sizeof(why)))
		return ul_usage_error(cmd, "%s %s", what, why);
	return 0;
}
