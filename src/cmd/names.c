/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one rule for a NAME that may be a label or a run (compare, report,
 * export, push), and the scope it is looked for in (--host): "label:X" is
 * the label X, "run:X" the run reference X; a plain name is whichever it
 * names, and one that names both (a label "1" and run 1, a label "last")
 * is refused as ambiguous rather than guessed.  With --host, labels and
 * runs are those of the hosts' runs only, and 'last' is their newest.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_PREFIX "label:"
#define RUN_PREFIX "run:"
/* The longest hostname the model keeps (struct ul_run_summary). */
#define HOST_MAX_BYTES 255

int ul_cmd_hosts_add(void *hosts, const char *arg, char *err, size_t errlen)
{
	struct ul_cmd_hosts *h = hosts;

	if (!*arg || strlen(arg) > HOST_MAX_BYTES) {
		snprintf(err, errlen, "--host: a host name of 1 to %d bytes", HOST_MAX_BYTES);
		return -EINVAL;
	}
	if (h->n == UL_CMD_MAX_HOSTS) {
		snprintf(err, errlen, "--host: at most %d hosts", UL_CMD_MAX_HOSTS);
		return -ERANGE;
	}
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], arg)) {
			snprintf(err, errlen, "--host '%.64s' given twice", arg);
			return -EINVAL;
		}
	h->name[h->n++] = arg;
	return 0;
}

bool ul_cmd_hosts_has(const struct ul_cmd_hosts *h, const char *hostname)
{
	if (!h || !h->n)
		return true;
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], hostname))
			return true;
	return false;
}

int ul_cmd_scope_open(struct ul_store *st, const struct ul_cmd_hosts *hosts,
		      struct ul_cmd_scope *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->st = st;
	sc->hosts = hosts;
	if (st->ops->list_runs(st, &sc->all, &sc->n_all)) {
		ul_error("cannot list runs: %s", st->err);
		return UL_EXIT_ERROR;
	}
	sc->sum = calloc(sc->n_all ? sc->n_all : 1, sizeof(*sc->sum));
	if (!sc->sum) {
		ul_oom();
		return UL_EXIT_ERROR;
	}
	for (size_t i = 0; i < sc->n_all; i++)
		if (ul_cmd_hosts_has(hosts, sc->all[i].hostname))
			sc->sum[sc->n++] = sc->all[i];
	return UL_EXIT_OK;
}

void ul_cmd_scope_free(struct ul_cmd_scope *sc)
{
	free(sc->all);
	free(sc->sum);
	memset(sc, 0, sizeof(*sc));
}

const char *ul_cmd_scope_hosts_text(const struct ul_cmd_scope *sc, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; sc->hosts && i < sc->hosts->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s'%s'",
					i		   ? ", "
					: sc->hosts->n > 1 ? "hosts "
							   : "host ",
					ul_esc(sc->hosts->name[i]));
	return buf;
}

int ul_cmd_scope_check_any(const struct ul_cmd_scope *sc, const char *cmd)
{
	char hosts[512];

	if (sc->n || !*ul_cmd_scope_hosts_text(sc, hosts, sizeof(hosts)))
		return UL_EXIT_OK;
	return ul_usage_error(cmd, "no run of %s is stored", hosts);
}

static bool has_label(const struct ul_run_summary *sum, size_t n, const char *label)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(sum[i].label, label))
			return true;
	return false;
}

/*
 * The run `ref` names in the scope, *why saying why not: 0; -ENOENT or
 * -EINVAL (no such run, or a reference that cannot name one); -EXDEV, a
 * run of another host; another code when the store failed.
 */
static int find_in_scope(const struct ul_cmd_scope *sc, const char *ref, struct ul_run_summary *out,
			 char *why, size_t len)
{
	const char *bare = strncmp(ref, RUN_PREFIX, strlen(RUN_PREFIX)) ? ref
									: ref + strlen(RUN_PREFIX);
	char hosts[512];
	int rc;

	ul_cmd_scope_hosts_text(sc, hosts, sizeof(hosts));
	if (*hosts && !strcmp(bare, "last")) { /* the hosts' newest run */
		if (!sc->n) {
			snprintf(why, len, "no run of %s is stored", hosts);
			return -ENOENT;
		}
		*out = sc->sum[0];
		return 0;
	}
	rc = sc->st->ops->find_run(sc->st, ref, out);
	if (rc) {
		snprintf(why, len, "%s", sc->st->err);
		return rc;
	}
	if (!ul_cmd_hosts_has(sc->hosts, out->hostname)) {
		snprintf(why, len, "run %lld (%.8s) was made on host '%s', not on %s",
			 (long long)out->id, out->uuid, ul_esc(out->hostname), hosts);
		return -EXDEV;
	}
	return 0;
}

int ul_cmd_scope_find_run(const struct ul_cmd_scope *sc, const char *cmd, const char *ref,
			  struct ul_run_summary *out)
{
	char why[1024];
	int rc = find_in_scope(sc, ref, out, why, sizeof(why));

	if (!rc)
		return UL_EXIT_OK;
	if (rc == -ENOENT || rc == -EINVAL || rc == -EXDEV)
		return ul_usage_error(cmd, "%s", why);
	ul_error("%s", why);
	return UL_EXIT_ERROR;
}

const char *ul_cmd_label_name(const char *name)
{
	return strncmp(name, LABEL_PREFIX, strlen(LABEL_PREFIX)) ? name
								 : name + strlen(LABEL_PREFIX);
}

bool ul_cmd_label_has_run(const struct ul_run_summary *s, const char *label, const char *host)
{
	return s->status != UL_RUN_RUNNING && !strcmp(s->label, label) &&
	       (!host || !strcmp(s->hostname, host));
}

/* Neither a label nor a run in the scope: say so, naming the hosts. */
static int not_found(const struct ul_cmd_scope *sc, const char *cmd, const char *name,
		     bool want_label, bool want_run, int rc, const char *why)
{
	const char *label = ul_cmd_label_name(name);
	char hosts[512];

	ul_cmd_scope_hosts_text(sc, hosts, sizeof(hosts));
	if (want_run || (!want_label && rc == -EXDEV))
		return ul_usage_error(cmd, "%s", why);
	if (*hosts && (want_label || has_label(sc->all, sc->n_all, label)))
		return ul_usage_error(cmd, "no run of %s has the label '%.64s'", hosts, label);
	if (want_label)
		return ul_usage_error(cmd, "no stored run has the label '%.64s'", label);
	return ul_usage_error(cmd, "'%.64s' is neither a label nor a run%s%s", name,
			      *hosts ? " of " : "", hosts);
}

int ul_cmd_name(const struct ul_cmd_scope *sc, const char *cmd, const char *name,
		struct ul_cmd_named *out)
{
	bool want_label = !strncmp(name, LABEL_PREFIX, strlen(LABEL_PREFIX));
	bool want_run = !strncmp(name, RUN_PREFIX, strlen(RUN_PREFIX));
	const char *label = ul_cmd_label_name(name);
	bool a_label = !want_run && has_label(sc->sum, sc->n, label);
	char why[1024] = "";
	int rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!want_label) {
		rc = find_in_scope(sc, name, &out->run, why, sizeof(why));
		if (rc && rc != -ENOENT && rc != -EINVAL && rc != -EXDEV) {
			ul_error("%s", why);
			return UL_EXIT_ERROR;
		}
	}
	if (!rc && a_label)
		return ul_usage_error(cmd,
				      "'%.64s' is both a label and a run: write '" LABEL_PREFIX
				      "%.64s' or '" RUN_PREFIX "%.64s'",
				      name, name, name);
	if (a_label) {
		out->is_label = true;
		out->label = label;
		return UL_EXIT_OK;
	}
	if (!rc)
		return UL_EXIT_OK;
	return not_found(sc, cmd, name, want_label, want_run, rc, why);
}
