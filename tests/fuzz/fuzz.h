/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the libFuzzer targets share.  Each tests/fuzz/fuzz_TARGET.c defines
 * LLVMFuzzerTestOneInput(); a target must not leak (ASan's leak check runs
 * after every input), must not print on success and must leave no file.
 */
#ifndef UL_FUZZ_H
#define UL_FUZZ_H

#include "core/compat.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Installs the suite registry, as main() does (fuzz.c). */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A malloc'ed NUL-terminated copy of the input (a NUL inside ends it early). */
char *ul_fuzz_cstr(const uint8_t *data, size_t size);
/* A private directory (mode 0700) under $TMPDIR or /tmp, made on first use
 * and removed with whatever it holds when the process exits normally. */
const char *ul_fuzz_dir(void);
/* A property of the code under test does not hold: print and abort, so
 * libFuzzer keeps the input as a crash. */
_Noreturn void ul_fuzz_fail(const char *fmt, ...) UL_PRINTF(1, 2);

#endif
