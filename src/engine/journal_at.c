/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the run is, in its journal: the cell just begun (its test and
 * round), so that a run whose machine goes down is marked crashed there by
 * the next command that opens the store (cmd/crashed.c).  Its own file so
 * that engine.c, which begins cells, and engine_run.c, which owns the
 * journal's life, do not call each other.
 */
#include "core/compat.h"
#include "engine/engine.h"

void ul_engine_journal_at(struct ul_engine *eng, const struct ul_cell *cell)
{
	char at[256];
	size_t i = (size_t)(cell - eng->run->cells);

	/* Only a journalled run can be marked crashed; the cell is run->cells[i]. */
	if (eng->journal.fd < 0 || !eng->cfg->store_uri || i >= eng->run->n_cells ||
	    ul_cell_where_format(cell, ul_run_cell_round(eng->run, i), at, sizeof(at)))
		return;
	(void)ul_journal_at(&eng->journal, at);
}
