// SPDX-License-Identifier: GPL-2.0
/* A tiny streaming JSON writer; see pxutil.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "pxutil.h"

void px_json_init(struct px_json *j, FILE *f, unsigned int flags)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->flags = flags;
	j->first[0] = true;
}

static void newline_indent(struct px_json *j)
{
	int i;

	if (!(j->flags & PX_JSON_PRETTY) || (j->flags & PX_JSON_LINES))
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void put_escaped(FILE *f, const char *s, size_t len);

/*
 * Start a value: the separator, the indentation and the key.  Keys belong
 * inside objects only; a top-level value after another one is separated
 * by a newline (JSON lines) or nothing.
 */
static bool begin_value(struct px_json *j, const char *key)
{
	bool in_obj = j->depth > 0 && j->is_obj[j->depth];

	if (j->error || !!key != in_obj) {
		j->error = true;
		return false;
	}
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		newline_indent(j);
	}
	j->first[j->depth] = false;
	if (key) {
		put_escaped(j->f, key, strlen(key));
		fputs((j->flags & PX_JSON_PRETTY) && !(j->flags & PX_JSON_LINES) ?
		      ": " : ":", j->f);
	}
	return true;
}

static void end_value(struct px_json *j)
{
	if (j->depth == 0 && ((j->flags & PX_JSON_LINES) || (j->flags & PX_JSON_PRETTY)))
		fputc('\n', j->f);
}

static void container_begin(struct px_json *j, const char *key, bool obj)
{
	if (j->depth >= PX_JSON_MAX_DEPTH) {
		j->error = true;
		return;
	}
	if (!begin_value(j, key))
		return;
	fputc(obj ? '{' : '[', j->f);
	j->depth++;
	j->first[j->depth] = true;
	j->is_obj[j->depth] = obj;
}

static void container_end(struct px_json *j, bool obj)
{
	bool empty;

	if (j->error || j->depth == 0 || j->is_obj[j->depth] != obj) {
		j->error = true;
		return;
	}
	empty = j->first[j->depth];
	j->depth--;
	if (!empty)
		newline_indent(j);
	fputc(obj ? '}' : ']', j->f);
	end_value(j);
}

void px_json_object_begin(struct px_json *j, const char *key)
{
	container_begin(j, key, true);
}

void px_json_object_end(struct px_json *j)
{
	container_end(j, true);
}

void px_json_array_begin(struct px_json *j, const char *key)
{
	container_begin(j, key, false);
}

void px_json_array_end(struct px_json *j)
{
	container_end(j, false);
}

/* Length of the valid UTF-8 sequence at @s (at most @len bytes), or 0. */
static size_t utf8_seq_len(const unsigned char *s, size_t len)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates, beyond U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

static void put_escaped(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	fputc('"', f);
	while (i < len) {
		unsigned char c = s[i];

		switch (c) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, f);
			} else {
				n = utf8_seq_len(s + i, len - i);
				if (!n) {
					fputs("\\ufffd", f);
				} else {
					fwrite(s + i, 1, n, f);
					i += n - 1;
				}
			}
		}
		i++;
	}
	fputc('"', f);
}

void px_json_string_len(struct px_json *j, const char *key, const char *val,
			size_t len)
{
	if (!val) {
		px_json_null(j, key);
		return;
	}
	if (!begin_value(j, key))
		return;
	put_escaped(j->f, val, len);
	end_value(j);
}

void px_json_string(struct px_json *j, const char *key, const char *val)
{
	px_json_string_len(j, key, val, val ? strlen(val) : 0);
}

void px_json_i64(struct px_json *j, const char *key, int64_t val)
{
	if (!begin_value(j, key))
		return;
	fprintf(j->f, "%" PRId64, val);
	end_value(j);
}

void px_json_u64(struct px_json *j, const char *key, uint64_t val)
{
	if (!begin_value(j, key))
		return;
	fprintf(j->f, "%" PRIu64, val);
	end_value(j);
}

void px_json_double(struct px_json *j, const char *key, double val)
{
	if (!isfinite(val)) {
		px_json_null(j, key);
		return;
	}
	if (!begin_value(j, key))
		return;
	/* Enough digits to read back the same double. */
	fprintf(j->f, "%.17g", val);
	end_value(j);
}

void px_json_bool(struct px_json *j, const char *key, bool val)
{
	if (!begin_value(j, key))
		return;
	fputs(val ? "true" : "false", j->f);
	end_value(j);
}

void px_json_null(struct px_json *j, const char *key)
{
	if (!begin_value(j, key))
		return;
	fputs("null", j->f);
	end_value(j);
}

void px_json_summary(struct px_json *j, const char *key, const struct px_summary *s)
{
	px_json_object_begin(j, key);
	px_json_u64(j, "count", s->count);
	px_json_u64(j, "min", s->min);
	px_json_u64(j, "p50", s->p50);
	px_json_u64(j, "p90", s->p90);
	px_json_u64(j, "p99", s->p99);
	px_json_u64(j, "p99_9", s->p999);
	px_json_u64(j, "max", s->max);
	px_json_u64(j, "sum", s->sum);
	px_json_double(j, "mean", s->mean);
	px_json_object_end(j);
}

void px_json_log2_hist(struct px_json *j, const char *key,
		       const unsigned int *vals, int vals_size)
{
	int i;

	px_json_array_begin(j, key);
	for (i = 0; i < vals_size && i < 64; i++) {
		if (!vals[i])
			continue;
		px_json_object_begin(j, NULL);
		px_json_u64(j, "lo", i ? 1ULL << i : 0);
		px_json_u64(j, "hi", i == 63 ? UINT64_MAX : (1ULL << (i + 1)) - 1);
		px_json_u64(j, "count", vals[i]);
		px_json_object_end(j);
	}
	px_json_array_end(j);
}

int px_json_finish(struct px_json *j)
{
	if (j->error || j->depth)
		return -EINVAL;
	if (fflush(j->f) || ferror(j->f))
		return -EIO;
	return 0;
}
