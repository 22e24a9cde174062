/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A user's job command line: split into an argv vector without a shell,
 * and the program it names found as execvp() would.  Declared in
 * engine/suites/contest/contest.h; kept apart from the suite so the suite file stays
 * about running cells.
 */
#include "core/compat.h"
#include "engine/suites/contest/contest.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ul_contest_split(const char *cmd, char ***argv_out, char *why, size_t len)
{
	size_t n = strlen(cmd), nptr = n / 2 + 2, words = 0;
	char **argv, *buf, *w = NULL, quote = 0;
	const char *p;

	*argv_out = NULL;
	/* Words take at most the command's characters plus one NUL each. */
	argv = malloc(nptr * sizeof(*argv) + 2 * n + 2);
	if (!argv)
		return -ENOMEM;
	buf = (char *)(argv + nptr);
	for (p = cmd; *p; p++) {
		char c = *p;

		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
			else
				*buf++ = c;
			continue;
		}
		if (quote == '"') {
			if (c == '"')
				quote = 0;
			else if (c == '\\' && p[1] && strchr("\"\\$`", p[1]))
				*buf++ = *++p;
			else
				*buf++ = c;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n') {
			if (w) {
				*buf++ = '\0';
				w = NULL;
			}
			continue;
		}
		if (!w) {
			w = buf;
			argv[words++] = w;
		}
		if (c == '\'' || c == '"') {
			quote = c;
		} else if (c == '\\') {
			if (!p[1]) {
				snprintf(why, len, "a backslash ends the command");
				free(argv);
				return -EINVAL;
			}
			*buf++ = *++p;
		} else {
			*buf++ = c;
		}
	}
	if (quote) {
		snprintf(why, len, "unterminated %s quote", quote == '"' ? "double" : "single");
		free(argv);
		return -EINVAL;
	}
	if (w)
		*buf = '\0';
	if (!words) {
		snprintf(why, len, "empty command");
		free(argv);
		return -EINVAL;
	}
	argv[words] = NULL;
	*argv_out = argv;
	return 0;
}

/* An executable regular file?  0, -ENOENT, -EACCES. */
static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	return access(path, X_OK) < 0 ? -errno : 0;
}

int ul_contest_which(const char *name, const char *dir, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	char cwd[PATH_MAX], cand[PATH_MAX];
	int r, best = -ENOENT;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (name[0] == '/') {
			if ((size_t)snprintf(cand, sizeof(cand), "%s", name) >= sizeof(cand))
				return -ENAMETOOLONG;
		} else {
			if (!dir) {
				if (!getcwd(cwd, sizeof(cwd)))
					return -errno;
				dir = cwd;
			}
			if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", dir, name) >=
			    sizeof(cand))
				return -ENAMETOOLONG;
		}
		r = executable(cand);
		if (r)
			return r;
		if ((size_t)snprintf(out, len, "%s", cand) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; p; p = end ? end + 1 : NULL) {
		size_t dlen;

		end = strchr(p, ':');
		dlen = end ? (size_t)(end - p) : strlen(p);
		/* An empty PATH entry means the current directory, as for execvp(). */
		if ((size_t)snprintf(cand, sizeof(cand), "%.*s%s%s", (int)dlen, p, dlen ? "/" : "",
				     name) >= sizeof(cand))
			continue;
		if (cand[0] != '/') {
			if (!getcwd(cwd, sizeof(cwd)))
				continue;
			if ((size_t)snprintf(out, len, "%s/%s", cwd, cand) >= len)
				continue;
			snprintf(cand, sizeof(cand), "%s", out);
		}
		r = executable(cand);
		if (r == 0) {
			if ((size_t)snprintf(out, len, "%s", cand) >= len)
				return -ENAMETOOLONG;
			return 0;
		}
		if (r == -EACCES)
			best = r; /* execvp reports EACCES if nothing better is found */
	}
	return best;
}
