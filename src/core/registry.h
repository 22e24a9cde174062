/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lookups every registry shares.  A kind (loads, probes, suites,
 * formats, commands, monitors) lists its members once, one line each, in
 * its .def file; the kind's registry.c expands that list into a
 * NULL-terminated array of pointers and then states
 *
 *	UL_REGISTRY_LOOKUPS(struct ul_load, ul_load, loads)
 *
 * which defines, for the kind's prefix P, member type T and array A:
 *
 *	size_t P_count(void)              the members, without the NULL
 *	const T *P_at(size_t i)           member i, NULL from P_count() on
 *	const T *P_find(const char *name) the member whose `name` equals name
 *	                                  exactly, NULL if none
 *
 * A kind whose list is installed at run time (the suites, which model/
 * names but the engine lists) states UL_REGISTRY_LIST_LOOKUPS(T, P, A, N)
 * instead, N being the list's length counted at its install.
 *
 * UL_REGISTRY_NAMES(T, P) adds, for a kind whose names a message lists,
 *
 *	void P_names(char *buf, size_t len) every name, ", "-separated, cut
 *	                                    to fit len
 *
 * Written once here so that the six registries cannot drift apart.
 */
#ifndef UL_CORE_REGISTRY_H
#define UL_CORE_REGISTRY_H

#include "core/compat.h"

#include <stdio.h>
#include <string.h>

/*
 * A registry's size as a constant expression, for checking it against a
 * fixed capacity at build time:
 *
 *	_Static_assert(0
 *	#define UL_LOAD UL_REGISTRY_ONE
 *	#include "load/loads.def"
 *	#undef UL_LOAD
 *		       <= UL_MAX_ITEMS, "...");
 */
#define UL_REGISTRY_ONE(...) +1

/* P_count and P_at only, for a kind looked up by position alone. */
#define UL_REGISTRY_INDEX(T, P, A) UL_REGISTRY_INDEX_N(T, P, A, UL_ARRAY_SIZE(A) - 1)

/*
 * The same over a list only a pointer names, installed at run time (the
 * suites: model/suite.c): N is an expression giving its length without the
 * NULL, which the kind counts once when it installs the list.
 */
#define UL_REGISTRY_INDEX_N(T, P, A, N)                                                            \
	size_t P##_count(void)                                                                     \
	{                                                                                          \
		return (N);                                                                        \
	}                                                                                          \
	const T *P##_at(size_t i)                                                                  \
	{                                                                                          \
		return i < P##_count() ? (A)[i] : NULL;                                            \
	}

/* P_find over P_count and P_at. */
#define UL_REGISTRY_FIND(T, P)                                                                     \
	const T *P##_find(const char *name)                                                        \
	{                                                                                          \
		size_t n = P##_count();                                                            \
                                                                                                   \
		for (size_t i = 0; i < n; i++)                                                     \
			if (!strcmp(P##_at(i)->name, name))                                        \
				return P##_at(i);                                                  \
		return NULL;                                                                       \
	}

#define UL_REGISTRY_LOOKUPS(T, P, A) UL_REGISTRY_INDEX(T, P, A) UL_REGISTRY_FIND(T, P)
#define UL_REGISTRY_LIST_LOOKUPS(T, P, A, N) UL_REGISTRY_INDEX_N(T, P, A, N) UL_REGISTRY_FIND(T, P)

#define UL_REGISTRY_NAMES(T, P)                                                                    \
	void P##_names(char *buf, size_t len)                                                      \
	{                                                                                          \
		size_t n = P##_count(), off = 0;                                                   \
                                                                                                   \
		buf[0] = '\0';                                                                     \
		for (size_t i = 0; i < n && off < len; i++)                                        \
			off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",       \
						P##_at(i)->name);                                  \
	}

#endif
