/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store front end: the backend registry (expanded from stores.def),
 * choosing a backend by URI, and the default results location.
 */
#include "core/compat.h"
#include "core/log.h"
#include "store/fault.h"
#include "store/store.h"
#include "ul_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define UL_STORE(file, ident) extern const struct ul_store_ops ul_store_##ident;
#include "store/stores.def"
#undef UL_STORE

static const struct ul_store_ops *const stores[] = {
#define UL_STORE(file, ident) &ul_store_##ident,
#include "store/stores.def"
#undef UL_STORE
	NULL,
};

/* The backend a plain path (no scheme) selects. */
#define DEFAULT_SCHEME "sqlite"

static const struct ul_store_ops *find_backend(const char *scheme, size_t len)
{
	for (size_t i = 0; stores[i]; i++)
		if (strlen(stores[i]->scheme) == len &&
		    !strncasecmp(stores[i]->scheme, scheme, len))
			return stores[i];
	return NULL;
}

/*
 * Length of the RFC 3986 scheme at the start of `uri` when it is followed by
 * ':', else 0.  A single letter is not taken as a scheme so that odd paths
 * like "c:x" stay paths.
 */
static size_t scheme_len(const char *uri)
{
	size_t i = 0;

	if (!((uri[0] >= 'a' && uri[0] <= 'z') || (uri[0] >= 'A' && uri[0] <= 'Z')))
		return 0;
	while (uri[i] && uri[i] != ':') {
		char c = uri[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '+' || c == '-' || c == '.'))
			return 0;
		i++;
	}
	return uri[i] == ':' && i > 1 ? i : 0;
}

/*
 * URI rules: "SCHEME:REST" with a registered scheme goes to that backend
 * with REST as its location (for "postgresql://h/db" that is "//h/db");
 * "postgres" is an alias of "postgresql"; an unknown scheme followed by
 * "//" is refused; anything else is a path for the default backend, so
 * paths containing ':' keep working.
 */
int ul_store_open(const char *uri, struct ul_store **out, char *err, size_t errlen)
{
	static const struct ul_store_config cfg = { 0 };

	return ul_store_open_cfg(uri, &cfg, out, err, errlen);
}

int ul_store_open_cfg(const char *uri, const struct ul_store_config *cfg, struct ul_store **out,
		      char *err, size_t errlen)
{
	const struct ul_store_ops *ops = NULL;
	const char *location = uri;
	size_t n;
	int r;

	*out = NULL;
	if (!uri || !*uri) {
		ul_whyf(err, errlen, "empty store location");
		return -EINVAL;
	}
	n = scheme_len(uri);
	if (n) {
		const char *scheme = uri;
		size_t slen = n;

		if (n == 8 && !strncasecmp(uri, "postgres", 8)) {
			scheme = "postgresql";
			slen = 10;
		}
		ops = find_backend(scheme, slen);
		if (ops) {
			location = uri + n + 1;
		} else if (slen == 10 && !strncasecmp(scheme, "postgresql", 10)) {
			ul_whyf(err, errlen, "PostgreSQL store not built in this version");
			return -EPROTONOSUPPORT;
		} else if (!strncmp(uri + n + 1, "//", 2)) {
			ul_whyf(err, errlen, "unknown store scheme '%.*s' in '%s'", (int)n, uri,
				uri);
			return -EPROTONOSUPPORT;
		}
	}
	if (!ops) {
		ops = find_backend(DEFAULT_SCHEME, strlen(DEFAULT_SCHEME));
		if (!ops) {
			ul_whyf(err, errlen, "no store backend for plain paths is built in");
			return -EPROTONOSUPPORT;
		}
	}
	if (!*location) {
		ul_whyf(err, errlen, "empty location in store URI '%s'", uri);
		return -EINVAL;
	}
	if (err && errlen)
		err[0] = '\0';
	r = ops->open(location, cfg, out, err, errlen);
	if (r < 0) {
		*out = NULL;
		if (err && errlen && !err[0])
			ul_whyf(err, errlen, "cannot open store '%s': %s", uri, strerror(-r));
		return r;
	}
	ul_store_fault_arm(*out);
	return 0;
}

void ul_store_close(struct ul_store *st)
{
	if (st) {
		ul_store_fault_disarm(st);
		st->ops->close(st);
	}
}

int ul_store_default_path(char *buf, size_t len)
{
	const char *env = getenv("UNDERLOAD_DB");
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	int n;

	/* A lab's shared store, named once for every command (an empty value,
	 * as `UNDERLOAD_DB= cmd` leaves, means unset). */
	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	/* The XDG spec says relative values are invalid and must be ignored. */
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/underload/results.db", xdg);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.local/share/underload/results.db", home);
	else
		return -ENOENT;
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}
