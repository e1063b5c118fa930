// SPDX-License-Identifier: GPL-2.0
/*
 * One-line error and warning messages; see pxutil.h.  glibc's err(3)
 * family does the printing ("prog: message[: strerror]", the program
 * name being program_invocation_short_name); these add what the tools
 * need around it: stdout flushed first (so a message comes after what
 * was printed before it), no ": Success" when errno is 0, exit status 0
 * taken as 1, and errno cleared after a warning (trace-cmd's warning()).
 */
#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "pxutil.h"

void px_fatal(int status, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	fflush(stdout);
	errno = saved;
	va_start(ap, fmt);
	if (saved)
		verr(status ? status : 1, fmt, ap);
	verrx(status ? status : 1, fmt, ap);	/* no errno: no ": Success" */
}

void px_fatalx(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	verrx(status ? status : 1, fmt, ap);
}

void px_warn(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	fflush(stdout);
	errno = saved;
	va_start(ap, fmt);
	if (saved)
		vwarn(fmt, ap);
	else
		vwarnx(fmt, ap);
	va_end(ap);
	errno = 0;
}

void px_warnx(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	errno = 0;
}
