/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replaying a trace: one fsbench client executes the operations of a
 * ul_fsb_trace against the local file system, timing each, the way dbench
 * 4's fileio backend does (same system calls for the same operation):
 *
 *  - every path operation first resolves the name as dbench simulates a
 *    Windows server: stat(), and on a miss a case-insensitive scan of the
 *    parent directory;
 *  - NTCreateX opens (FILE_CREATE adds O_CREAT, FILE_OVERWRITE(_IF) and
 *    FILE_OPEN_IF/SUPERSEDE add O_CREAT|O_TRUNC / O_CREAT; a directory
 *    option mkdirs first) then fstat()s; ReadX/WriteX pread/pwrite zeros;
 *    Flush fsync()s; QUERY_FILE_INFORMATION fstat()s; QUERY_FS_INFORMATION
 *    statvfs()es; SET_FILE_INFORMATION fstat()s and sets the times by name;
 *    FIND_FIRST with a wildcard lists the directory (up to its max count);
 *    LockX/UnlockX take and drop a POSIX write lock; Deltree removes a tree;
 *  - an operation whose outcome (success or failure) differs from the
 *    status the trace expects is counted, and the replay goes on (dbench
 *    stops the client); Deltree, Mkdir, FIND_FIRST and Sleep outcomes are
 *    not checked, as in dbench;
 *  - bytes are those actually read and written (dbench counts the sizes
 *    asked for);
 *  - running out of space (ENOSPC, EDQUOT, or free space falling below
 *    the disk reserve) is fatal to the client.  The reserve is checked by
 *    bytes written: after each look at the free space a client may write
 *    its budget (ul_fsb_write_budget) before it looks again, and near the
 *    reserve it looks before every write.
 *
 * All files live under root_fd, in clients/clientN (the trace's `client1`
 * component renamed).  Nothing here prints or exits.
 */
#ifndef UL_FSB_REPLAY_H
#define UL_FSB_REPLAY_H

#include "core/compat.h"
#include "dbench/loadfile.h"
#include "stats/hist.h"

#include <limits.h>
#include <stdatomic.h>

struct ul_fsb_opstat {
	uint64_t count, sum_ns, max_ns;
	uint64_t mismatches;	  /* outcome differed from the expected status */
	uint32_t hist[UL_HIST_N]; /* latencies, stats/hist.h */
};

/* What one client did in the measured phase; written only by the client,
 * read by the suite after the client has exited. */
struct ul_fsb_stats {
	struct ul_fsb_opstat op[UL_FSB_N_KINDS];
	uint64_t ops, read_bytes, write_bytes, mismatches, passes;
	int64_t user_ns, sys_ns; /* getrusage over the measured phase */
	int64_t majflt, minflt;
	int64_t finished_ns;  /* one pass: when this client ended, since go */
	int fatal_errno;      /* what stopped the client, 0 = nothing */
	unsigned fatal_line;  /* its loadfile line (0: generated trace) */
	uint64_t fatal_index; /* its position in the trace, 0-based */
	int fatal_kind;	      /* its operation */
	bool reserve_hit;     /* fatal because of --disk-reserve */
};

/* Phases the suite sets in shared memory; clients check before each op. */
enum ul_fsb_phase {
	UL_FSB_WAIT = 0,
	UL_FSB_WARMUP,
	UL_FSB_MEASURE,
	UL_FSB_STOP,
};

#define UL_FSB_MAX_OPEN 200 /* open handles per client, as dbench */

struct ul_fsb_client {
	const struct ul_fsb_trace *t;
	int root_fd;   /* directory holding clients/ */
	char name[24]; /* "client3" */
	size_t name_len;
	uint64_t disk_reserve_bytes; /* keep this much free on root's fs; 0 = no check */
	struct ul_fsb_stats *stats;  /* NULL: no statistics (the load) */
	_Atomic uint64_t *units;     /* if set, operations done are added here */
	/* private */
	struct {
		int64_t handle;
		int fd;
		size_t op;
	} open[UL_FSB_MAX_OPEN];
	size_t n_open;
	char *buf;
	char path[2][PATH_MAX];
	int n_clients;	       /* replaying at once on the same file system */
	uint64_t write_budget; /* bytes it may write before it looks at the free space */
};

/* Prepare client `index` (0-based; named client<index+1>) of n_clients
 * writing to the same file system.  0 or -errno. */
int ul_fsb_client_init(struct ul_fsb_client *c, const struct ul_fsb_trace *t, int root_fd,
		       int index, int n_clients, uint64_t disk_reserve_bytes) UL_MUST_CHECK;

/*
 * The bytes one of n_clients may write before it looks at the free space
 * again: 1/2 of its share of the headroom above the reserve,
 * (free - reserve) / n_clients / 2, so that all of them writing their
 * budgets at once stay above the reserve; 0, looking before every write,
 * once that is less than one write of write_bytes (the trace's largest)
 * or there is no headroom.
 */
uint64_t ul_fsb_write_budget(uint64_t free_bytes, uint64_t reserve_bytes, int n_clients,
			     uint64_t write_bytes);
void ul_fsb_client_fini(struct ul_fsb_client *c);

/*
 * Execute one operation: 0 when its outcome (success or failure) is the
 * one expected, 1 when it differs, or -errno for a fatal error (no space).
 * Latency, bytes and counts go into c->stats when set.
 */
int ul_fsb_replay_op(struct ul_fsb_client *c, size_t i) UL_MUST_CHECK;

/*
 * Replay the trace following *phase: wait for nothing (the caller has
 * passed the start barrier), reset statistics when MEASURE begins, stop at
 * STOP (checked before each operation), or after one pass when `once`.
 * `go_ns` is the monotonic start for finished_ns.  Returns 0 or the
 * fatal -errno (also recorded in stats).
 */
int ul_fsb_client_run(struct ul_fsb_client *c, _Atomic int *phase, bool once, int64_t go_ns);

/* Remove the client's directory (clients/clientN), not clients/, which the
 * other clients of the round share. */
void ul_fsb_client_cleanup(struct ul_fsb_client *c);
/* Remove dirfd/path and everything under it, ignoring errors. */
void ul_fsb_remove_tree(int dirfd, const char *path);

/* Add b into a (counts, sums, max, histograms, bytes, rusage). */
void ul_fsb_stats_add(struct ul_fsb_stats *a, const struct ul_fsb_stats *b);

#endif
