/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * underload-hello: the target the lm-exec and lm-sh tests exec, a program
 * of LMbench's "hello" kind (lat_proc's /tmp/hello): dynamically linked
 * against libc only, it writes one line and exits 0.  lat_proc closes
 * the child's stdout before the exec, so the write fails there (EBADF),
 * which is part of what is timed.
 */
#include <unistd.h>

int main(void)
{
	static const char line[] = "Hello world\n";
	ssize_t n = write(STDOUT_FILENO, line, sizeof(line) - 1);

	(void)n; /* EBADF under lat_proc's closed stdout: exit 0 all the same */
	return 0;
}
