/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One fsbench round: spawn the clients (supervised children, each in its
 * own process group), release them together, run the warm-up and the
 * measured window (or one pass), stop them, and gather what they did.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/engine.h"
#include "engine/suites/fsbench/round.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long stopped clients get to finish their operation and remove their
 * directory before they are killed. */
#define CLIENT_EXIT_NS (120 * UL_NS_PER_SEC)

struct shared {
	_Atomic int phase;
	_Atomic int64_t go_ns;
	struct ul_fsb_stats stats[]; /* one per client */
};

struct client_arg {
	const struct ul_fsb_trace *trace;
	struct shared *sh;
	int index, root_fd, ready_fd, go_fd;
	uint64_t disk_reserve_bytes;
	bool once;
};

/* In the client process: set up, report ready, wait for go, replay. */
static int client_main(void *p)
{
	struct client_arg *a = p;
	struct ul_fsb_client c;
	char byte = 'r';
	int rc;

	if (ul_fsb_client_init(&c, a->trace, a->root_fd, a->index, a->disk_reserve_bytes))
		return 2;
	c.stats = &a->sh->stats[a->index];
	if (write(a->ready_fd, &byte, 1) != 1)
		return 2;
	close(a->ready_fd);
	while (read(a->go_fd, &byte, 1) > 0) /* EOF is go */
		;
	rc = ul_fsb_client_run(&c, &a->sh->phase, a->once, atomic_load(&a->sh->go_ns));
	ul_fsb_client_cleanup(&c);
	ul_fsb_client_fini(&c);
	return rc ? 1 : 0;
}

struct round {
	struct ul_engine *eng;
	const struct ul_fsb_round_cfg *cfg;
	struct ul_fsb_round *out;
	struct shared *sh;
	size_t sh_len;
	struct ul_child *kids;
	int n_spawned, n_live;
	int ready[2], go[2];
};

static int client_of(const struct round *r, const struct ul_child *c)
{
	if (!c || c < r->kids || c >= r->kids + r->n_spawned)
		return -1;
	return (int)(c - r->kids);
}

static void set_phase(struct round *r, int phase)
{
	atomic_store(&r->sh->phase, phase);
}

/* Stop every client still registered (TERM to its group, grace, KILL). */
static void kill_clients(struct round *r)
{
	int64_t grace = ul_engine_stop_grace(r->eng);

	set_phase(r, UL_FSB_STOP);
	for (int i = 0; i < r->n_spawned; i++)
		if (!r->kids[i].reaped && ul_sup_stop(&r->eng->sup, &r->kids[i], grace) == 0)
			r->n_live--;
}

/* A client ended by itself: why, into the round's note; sets outcome. */
static void client_failed(struct round *r, int i)
{
	const struct ul_fsb_stats *s = &r->sh->stats[i];
	struct ul_fsb_round *o = r->out;
	char how[96];

	if (o->outcome != UL_FSB_ROUND_OK)
		return;
	o->outcome = UL_FSB_ROUND_CLIENT_FAILED;
	if (s->fatal_errno == ENOSPC || s->fatal_errno == EDQUOT) {
		char where[48];

		o->disk_full = true;
		if (s->fatal_line)
			snprintf(where, sizeof(where), "loadfile line %u", s->fatal_line);
		else
			snprintf(where, sizeof(where), "built-in trace, operation %llu",
				 (unsigned long long)s->fatal_index + 1);
		snprintf(o->note, sizeof(o->note), "client %d: %s during %s (%s): %s", i + 1,
			 s->reserve_hit ? "free space fell below --disk-reserve"
					: "the scratch file system is full",
			 ul_fsb_kind_name(s->fatal_kind), where, strerror(s->fatal_errno));
		return;
	}
	ul_wstatus_describe(r->kids[i].wstatus, how, sizeof(how));
	snprintf(o->note, sizeof(o->note), "client %d ended before it was stopped (%s)", i + 1,
		 how);
}

/* Handle one wait result; returns false when the round must end now. */
static bool on_wait(struct round *r, enum ul_wait_result w, struct ul_child *ex, bool stopping)
{
	struct ul_fsb_round *o = r->out;
	int i;

	switch (w) {
	case UL_WAIT_READY:
	case UL_WAIT_TIMEOUT:
		return true;
	case UL_WAIT_INTERRUPTED:
		o->outcome = UL_FSB_ROUND_INTERRUPTED;
		snprintf(o->note, sizeof(o->note), "interrupted while the clients ran");
		return false;
	case UL_WAIT_CHILD_EXITED:
		i = client_of(r, ex);
		if (i >= 0) {
			r->n_live--;
			/* Clean ends: after the stop, or after its pass. */
			if (!((stopping || r->cfg->once) && WIFEXITED(ex->wstatus) &&
			      WEXITSTATUS(ex->wstatus) == 0))
				client_failed(r, i);
			return o->outcome == UL_FSB_ROUND_OK;
		}
		if (r->cfg->load_child && ex == r->cfg->load_child) {
			o->outcome = UL_FSB_ROUND_LOAD_DIED;
			ul_wstatus_describe(ex->wstatus, o->note, sizeof(o->note));
			return false;
		}
		return true; /* a monitor's child or an orphan: its owner notices */
	}
	return true;
}

/* Wait until `until` (0: until every client has exited) or a failure. */
static bool wait_phase(struct round *r, ul_nsec until, bool stopping)
{
	while (r->n_live > 0) {
		struct ul_child *ex = NULL;
		enum ul_wait_result w;

		if (until && ul_now_ns() >= until)
			return true;
		w = ul_sup_wait(&r->eng->sup, -1, until, &ex);
		if (!on_wait(r, w, ex, stopping))
			return false;
	}
	return true;
}

static int spawn_clients(struct round *r, struct client_arg *args)
{
	struct ul_engine *eng = r->eng;

	for (int i = 0; i < r->cfg->clients; i++) {
		struct ul_spawn_opts so = {
			.name = "fsbench",
			.fn = client_main,
			.arg = &args[i],
			.keep_fds = { r->cfg->root_fd, r->ready[1], r->go[0] },
			.n_keep_fds = 3,
			.cgroup_procs = eng->have_cgroup ? eng->cgroup.procs : NULL,
		};
		int rc;

		args[i] = (struct client_arg){ .trace = r->cfg->trace,
					       .sh = r->sh,
					       .index = i,
					       .root_fd = r->cfg->root_fd,
					       .ready_fd = r->ready[1],
					       .go_fd = r->go[0],
					       .once = r->cfg->once,
					       .disk_reserve_bytes = eng->cfg->disk_reserve_bytes };
		r->kids[i].pidfd = -1;
		rc = ul_spawn(&eng->sup, &so, &r->kids[i]);
		if (rc) {
			snprintf(r->out->note, sizeof(r->out->note), "cannot start client %d: %s",
				 i + 1, strerror(-rc));
			return rc;
		}
		r->n_spawned++;
		r->n_live++;
	}
	close(r->ready[1]);
	close(r->go[0]);
	r->ready[1] = r->go[0] = -1;
	return 0;
}

/* Wait for every client's ready byte; false on failure (note set). */
static bool wait_ready(struct round *r)
{
	ul_nsec deadline = ul_now_ns() + r->eng->cfg->ready_timeout_ns;
	int got = 0;

	while (got < r->cfg->clients) {
		struct ul_child *ex = NULL;
		enum ul_wait_result w = ul_sup_wait(&r->eng->sup, r->ready[0], deadline, &ex);
		char buf[64];
		ssize_t n;

		if (w == UL_WAIT_TIMEOUT) {
			r->out->outcome = UL_FSB_ROUND_CLIENT_FAILED;
			snprintf(r->out->note, sizeof(r->out->note),
				 "%d of %d clients were not ready in time", r->cfg->clients - got,
				 r->cfg->clients);
			return false;
		}
		if (w != UL_WAIT_READY) {
			bool go_on = on_wait(r, w, ex, false);

			if (go_on && client_of(r, ex) < 0)
				continue;
			if (r->out->outcome == UL_FSB_ROUND_OK)
				r->out->outcome = UL_FSB_ROUND_CLIENT_FAILED;
			return false;
		}
		n = read(r->ready[0], buf, sizeof(buf));
		if (n <= 0)
			continue; /* EOF: a client died; its exit is reported next */
		got += (int)n;
	}
	return true;
}

/* The timeline after go: warm-up, measured window, stop. */
static void drive(struct round *r)
{
	const struct ul_fsb_round_cfg *c = r->cfg;
	ul_nsec go = ul_now_ns(), start, stop;

	atomic_store(&r->sh->go_ns, go);
	set_phase(r, c->once || c->warmup_ns <= 0 ? UL_FSB_MEASURE : UL_FSB_WARMUP);
	close(r->go[1]); /* go */
	r->go[1] = -1;
	start = go;
	if (c->once) {
		if (!wait_phase(r, go + r->eng->cfg->sample_timeout_ns, false))
			return;
		stop = ul_now_ns();
		r->out->elapsed_ns = stop - start;
		if (r->n_live > 0) {
			r->out->outcome = UL_FSB_ROUND_TIMEOUT;
			snprintf(r->out->note, sizeof(r->out->note),
				 "a pass did not finish within --sample-timeout");
		}
		return;
	}
	if (c->warmup_ns > 0) {
		if (!wait_phase(r, go + c->warmup_ns, false))
			return;
		start = ul_now_ns();
		set_phase(r, UL_FSB_MEASURE);
	}
	if (!wait_phase(r, start + c->duration_ns, false))
		return;
	stop = ul_now_ns();
	set_phase(r, UL_FSB_STOP);
	r->out->elapsed_ns = stop - start;
	wait_phase(r, stop + CLIENT_EXIT_NS, true);
}

static void gather(struct round *r)
{
	struct ul_fsb_round *o = r->out;

	memset(&o->total, 0, sizeof(o->total));
	for (int i = 0; i < r->n_spawned; i++) {
		const struct ul_fsb_stats *s = &r->sh->stats[i];

		ul_fsb_stats_add(&o->total, s);
		o->client_ops[i] = s->ops;
		o->client_finish_ns[i] = s->finished_ns;
	}
	if (r->cfg->once) /* one pass: the clock stops at the last client, as dbench 1 */
		o->elapsed_ns = o->total.finished_ns > 0 ? o->total.finished_ns : o->elapsed_ns;
}

int ul_fsb_round_run(struct ul_engine *eng, const struct ul_fsb_round_cfg *cfg,
		     struct ul_fsb_round *out)
{
	struct round r = {
		.eng = eng, .cfg = cfg, .out = out, .ready = { -1, -1 }, .go = { -1, -1 }
	};
	struct client_arg *args = calloc((size_t)cfg->clients, sizeof(*args));
	int rc = 0;

	out->outcome = UL_FSB_ROUND_OK;
	out->note[0] = '\0';
	out->disk_full = false;
	out->elapsed_ns = 0;
	r.kids = calloc((size_t)cfg->clients, sizeof(*r.kids));
	r.sh_len = sizeof(*r.sh) + (size_t)cfg->clients * sizeof(r.sh->stats[0]);
	r.sh = mmap(NULL, r.sh_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!args || !r.kids || r.sh == MAP_FAILED) {
		rc = -ENOMEM;
		r.sh = NULL;
		goto out;
	}
	if (pipe2(r.ready, O_CLOEXEC) || pipe2(r.go, O_CLOEXEC)) {
		rc = -errno;
		goto out;
	}
	rc = spawn_clients(&r, args);
	if (rc) {
		out->outcome = UL_FSB_ROUND_CLIENT_FAILED;
		rc = 0;
	} else if (wait_ready(&r)) {
		drive(&r);
	}
	kill_clients(&r);
	/* What killed or failed clients left would shrink the next round's
	 * free space: every round starts from an empty directory. */
	ul_fsb_remove_tree(cfg->root_fd, "clients");
	if (r.sh)
		gather(&r);
out:
	for (int i = 0; i < 2; i++) {
		if (r.ready[i] >= 0)
			close(r.ready[i]);
		if (r.go[i] >= 0)
			close(r.go[i]);
	}
	/* A client that even SIGKILL could not reap stays registered: its
	 * record must outlive us (as mtest does). */
	if (r.kids && r.n_live <= 0)
		free(r.kids);
	if (r.sh)
		munmap(r.sh, r.sh_len);
	free(args);
	return rc;
}
