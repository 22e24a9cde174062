/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload import FILE...`: merge runs exported elsewhere (or a run's recovery file). */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/exchange.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char import_help[] =
	"usage: underload import [--db PATH] FILE...\n"
	"\n"
	"Merge runs written by 'underload export --format json' (or the recovery\n"
	"file of a run whose database refused its cells) into the store.  Each\n"
	"FILE is one transaction: a malformed, truncated, wrong-version or hostile\n"
	"file is refused with one line and nothing of it is inserted.  A run\n"
	"already stored (same UUID) only gains the cells it lacks, so importing a\n"
	"file twice changes nothing.  FILE '-' is standard input.\n"
	"\n";

extern const struct ul_cmd ul_cmd_desc_import;

/* The whole file, at most UL_EXCHANGE_MAX_BYTES + 1 bytes (one more says "too big"). */
static int slurp(const char *path, char **buf, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
	size_t cap = 1 << 16, n = 0;
	char *b = NULL;
	int e = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (n == cap || !b) {
			char *nb;

			cap = b ? cap * 2 : cap;
			if (cap > UL_EXCHANGE_MAX_BYTES + 1)
				cap = UL_EXCHANGE_MAX_BYTES + 1;
			nb = realloc(b, cap);
			if (!nb) {
				e = ENOMEM;
				break;
			}
			b = nb;
		}
		if (n == cap)
			break; /* over the limit: the parser refuses it */
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : 0;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (e) {
		free(b);
		return -e;
	}
	*buf = b;
	*len = n;
	return 0;
}

int ul_cmd_import_file(struct ul_store *st, const char *path, size_t *added_runs)
{
	struct ul_run *runs = NULL;
	char why[512], *buf = NULL;
	size_t len = 0, n = 0, added = 0;
	int rc = slurp(path, &buf, &len);

	if (rc)
		return ul_error_errno(rc, "cannot read '%s'", path);
	rc = ul_exchange_read_json(buf, len, &runs, &n, why, sizeof(why));
	free(buf);
	if (rc)
		return ul_error("'%s' refused, nothing imported: %s", path, why);
	rc = st->ops->import_runs(st, runs, n, &added);
	ul_exchange_free(runs, n);
	if (rc)
		return ul_error("'%s' not imported: %s", path, st->err);
	if (added_runs)
		*added_runs = added;
	return 0;
}

void ul_cmd_import_recovery(struct ul_store *st, const char *db_path)
{
	char dir[4096], prefix[512], path[8192];
	const char *slash = strrchr(db_path, '/');
	struct dirent *de;
	DIR *d;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - db_path + 1), db_path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (snprintf(prefix, sizeof(prefix), "%s.recovery-", slash ? slash + 1 : db_path) >=
	    (int)sizeof(prefix))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, prefix, strlen(prefix)) || len < 5 ||
		    strcmp(de->d_name + len - 5, ".json") || de->d_type == DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s%s%s", dir, slash ? "" : "/", de->d_name);
		if (ul_cmd_import_file(st, path, NULL))
			continue; /* said why; the file stays for a look */
		ul_note("loaded '%s', kept by an earlier run that could not store it", path);
		if (unlink(path))
			ul_warning("cannot remove '%s': %s", path, strerror(errno));
	}
	closedir(d);
}

int ul_cmd_import(int argc, char **argv);
int ul_cmd_import(int argc, char **argv)
{
	struct ul_cmd_db_args a;
	struct ul_store *store;
	int first, ret;

	ret = ul_cmd_parse(&ul_cmd_desc_import, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (first == argc)
		return ul_usage_error("import", "expected at least one FILE");
	ret = ul_cmd_open_store_rw(a.db, &store);
	if (ret)
		return ret;
	for (int i = first; i < argc; i++) {
		size_t added = 0;

		if (ul_cmd_import_file(store, argv[i], &added)) {
			ret = UL_EXIT_ERROR;
			continue;
		}
		printf("%s: %zu run%s added or completed\n", ul_esc(argv[i]), added,
		       added == 1 ? "" : "s");
	}
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_import = {
	.name = "import",
	.summary = "merge runs exported by another store (or a recovery file)",
	.help = import_help,
	.opts = ul_cmd_db_opts,
	.fn = ul_cmd_import,
};
