// SPDX-License-Identifier: GPL-2.0
/* One-line error and warning messages; see pxutil.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxutil.h"

static void vmsg(bool with_errno, int saved, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	if (with_errno && saved)
		fprintf(stderr, ": %s", strerror(saved));
	fputc('\n', stderr);
}

void px_fatal(int status, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(true, saved, fmt, ap);
	va_end(ap);
	exit(status ? status : 1);
}

void px_fatalx(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(false, 0, fmt, ap);
	va_end(ap);
	exit(status ? status : 1);
}

void px_warn(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(true, saved, fmt, ap);
	va_end(ap);
	errno = 0;
}

void px_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(false, 0, fmt, ap);
	va_end(ap);
	errno = 0;
}
