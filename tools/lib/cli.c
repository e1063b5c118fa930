// SPDX-License-Identifier: GPL-2.0
/*
 * The command-line conventions of every tool (tools/README.md,
 * "Conventions"); see pxutil.h.
 *
 * argp does most of it: the tool's argp becomes the child of one that
 * adds -h/--help (on stdout, exit 0) and -V/--version.  While argp
 * parses, stderr is a filter stream that keeps a usage error to the GNU
 * two lines: the "prog: message" line (argp_error(), getopt's own, a
 * tool's, which gets the "prog: " it lacks), and "Try 'prog --help' for
 * more information." for argp's
 * "Try `prog --help' or `prog --usage'..."; argp_usage()'s "Usage: prog
 * [OPTION...]" lines, which repeat what --help says, are dropped.  (stderr
 * is a variable in glibc, and argp_usage() and getopt write to whatever
 * it points to.)
 */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxutil.h"

#ifndef PX_VERSION
#error "PX_VERSION: tools/Makefile passes tools/VERSION"
#endif

const char px_version[] = PX_VERSION;

enum { OPT_USAGE = 0x1000 };

static const struct argp_option std_options[] = {
	{ "help", 'h', NULL, 0, "Print this help and exit", -1 },
	{ "version", 'V', NULL, 0, "Print the version and exit", -1 },
	{ "usage", OPT_USAGE, NULL, OPTION_HIDDEN, "Print a short usage message", -1 },
	{},
};

void px_print_version(FILE *f)
{
	fprintf(f, "%s (proxyexec) %s\n", program_invocation_short_name, px_version);
}

void px_usage_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n",
		program_invocation_short_name);
	exit(PX_EXIT_USAGE);
}

/* ------------------------------------------------ argp's error messages */

struct err_filter {
	char	line[1024];
	size_t	n;
	bool	in_usage;	/* in argp_usage()'s "Usage:" lines */
	FILE	*out;		/* the real stderr */
};

static void filter_line(struct err_filter *f)
{
	const char *l = f->line, *name = program_invocation_short_name;
	size_t len = strlen(name);

	if (!strncmp(l, "Usage:", 6) ||
	    (f->in_usage && (l[0] == ' ' || !strncmp(l, "  or:", 5)))) {
		f->in_usage = true;
		return;
	}
	f->in_usage = false;
	if (!strncmp(l, "Try `", 5)) {
		fprintf(f->out, "Try '%s --help' for more information.\n", name);
		return;
	}
	/* a tool's own complaint: named like every other */
	if (strncmp(l, name, len) || l[len] != ':')
		fprintf(f->out, "%s: ", name);
	fwrite(l, 1, f->n, f->out);
}

static ssize_t filter_write(void *cookie, const char *buf, size_t size)
{
	struct err_filter *f = cookie;
	size_t i;

	for (i = 0; i < size; i++) {
		f->line[f->n++] = buf[i];
		if (buf[i] == '\n' || f->n == sizeof(f->line) - 1) {
			f->line[f->n] = '\0';
			filter_line(f);
			f->n = 0;
		}
	}
	return (ssize_t)size;
}

static int filter_close(void *cookie)
{
	struct err_filter *f = cookie;

	if (f->n) {
		f->line[f->n] = '\0';
		filter_line(f);
		f->n = 0;
	}
	fflush(f->out);
	return 0;
}

static FILE *err_stream(void)
{
	static struct err_filter filter;
	static FILE *f;
	cookie_io_functions_t io = { .write = filter_write, .close = filter_close };

	if (!f) {
		filter.out = stderr;
		f = fopencookie(&filter, "w", io);
		if (!f)
			return stderr;
		setvbuf(f, NULL, _IONBF, 0);
	}
	return f;
}

static error_t std_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = state->input;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case 'V':
		px_print_version(stdout);
		exit(fflush(stdout) ? 1 : 0);
	case OPT_USAGE:
		argp_state_help(state, stdout, ARGP_HELP_USAGE | ARGP_HELP_EXIT_OK);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int px_argp_parse_flags(const struct argp *argp, int argc, char **argv,
			unsigned int flags, void *input)
{
	const struct argp_child children[] = {
		{ argp, 0, NULL, 0 },
		{},
	};
	const struct argp top = {
		.options = std_options,
		.parser = std_parse,
		.children = children,
	};

	FILE *saved = stderr;
	int ret;

	argp_err_exit_status = PX_EXIT_USAGE;
	/* getopt names the program by argv[0]: the same name as every message */
	if (argc > 0)
		argv[0] = program_invocation_short_name;
	stderr = err_stream();
	ret = argp_parse(&top, argc, argv, flags | ARGP_NO_HELP, NULL, input);
	stderr = saved;
	return ret;
}

int px_argp_parse(const struct argp *argp, int argc, char **argv, void *input)
{
	return px_argp_parse_flags(argp, argc, argv, 0, input);
}
