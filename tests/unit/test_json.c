// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer: escaping, nesting, JSON lines, misuse detection; and
 * what jq (the parser every script here uses) reads back: every control
 * character, quotes, backslash, DEL, valid UTF-8 of 1 to 4 bytes and
 * invalid UTF-8 (each bad byte is U+FFFD), and 3000 strings of random
 * bytes, each a JSON line jq must parse.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "pxutil.h"
#include "unit.h"

typedef void (*emit_fn)(struct px_json *j);

/* Run @emit on a memory stream; return the text and the finish result. */
static char *capture(emit_fn emit, unsigned int flags, int *ret)
{
	struct px_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	px_json_init(&j, f, flags);
	emit(&j);
	*ret = px_json_finish(&j);
	fclose(f);
	return buf;
}

static void emit_escapes(struct px_json *j)
{
	px_json_object_begin(j, NULL);
	px_json_string(j, "q", "a\"b\\c/d");
	px_json_string(j, "ctl", "\n\t\r\b\f\x01\x1f\x7f");
	px_json_string(j, "utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	px_json_string(j, "bad", "\xff\xc3(\xed\xa0\x80\xc0\xaf");
	px_json_string_len(j, "nul", "a\0b", 3);
	px_json_string(j, "k\"ey", NULL);
	px_json_object_end(j);
}

static void emit_nested(struct px_json *j)
{
	struct px_summary s = { 3, 1, 2, 3, 3, 3, 3, 6, 2.0 };
	unsigned int slots[4] = { 1, 0, 2, 0 };

	px_json_object_begin(j, NULL);
	px_json_u64(j, "u", UINT64_MAX);
	px_json_i64(j, "i", INT64_MIN);
	px_json_double(j, "nan", NAN);
	px_json_double(j, "half", 0.5);
	px_json_bool(j, "t", true);
	px_json_array_begin(j, "empty");
	px_json_array_end(j);
	px_json_object_begin(j, "eo");
	px_json_object_end(j);
	px_json_summary(j, "sum", &s);
	px_json_log2_hist(j, "hist", slots, 4);
	px_json_object_end(j);
}

static void emit_lines(struct px_json *j)
{
	int i;

	for (i = 0; i < 2; i++) {
		px_json_object_begin(j, NULL);
		px_json_i64(j, "n", i);
		px_json_object_end(j);
	}
}

static void emit_pretty(struct px_json *j)
{
	px_json_object_begin(j, NULL);
	px_json_u64(j, "a", 1);
	px_json_array_begin(j, "b");
	px_json_u64(j, NULL, 2);
	px_json_array_end(j);
	px_json_object_end(j);
}

static void emit_key_in_array(struct px_json *j)
{
	px_json_array_begin(j, NULL);
	px_json_u64(j, "oops", 1);
	px_json_array_end(j);
}

static void emit_no_key_in_object(struct px_json *j)
{
	px_json_object_begin(j, NULL);
	px_json_u64(j, NULL, 1);
	px_json_object_end(j);
}

static void emit_mismatch(struct px_json *j)
{
	px_json_object_begin(j, NULL);
	px_json_array_end(j);
}

static void emit_unclosed(struct px_json *j)
{
	px_json_array_begin(j, NULL);
}

static void emit_too_deep(struct px_json *j)
{
	int i;

	for (i = 0; i <= PX_JSON_MAX_DEPTH; i++)
		px_json_array_begin(j, NULL);
	for (i = 0; i <= PX_JSON_MAX_DEPTH; i++)
		px_json_array_end(j);
}

/* @len bytes of @s as one JSON line {"s": ...} into @f. */
static void put_line(FILE *f, const char *s, size_t len)
{
	struct px_json j;

	px_json_init(&j, f, PX_JSON_LINES);
	px_json_object_begin(&j, NULL);
	px_json_string_len(&j, "s", s, len);
	px_json_object_end(&j);
	px_json_finish(&j);
}

/* jq's raw output of the file's .s members (one a line, -j: no newline
 * of its own) into @out; jq's exit status, -1 if it cannot run. */
static int jq_strings(const char *path, const char *filter, char *out, size_t len,
		      size_t *got)
{
	char cmd[512];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "jq -j '%s' %s 2>&1", filter, path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	*got = fread(out, 1, len, p);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool utf8_valid_at(const unsigned char *s, size_t len, size_t *n);

/*
 * What RFC 8259 asks and jq 1.6 does not check (it takes a raw control
 * character in a string): no byte below 0x20 but the newline ending each
 * JSON line, and valid UTF-8 throughout.
 */
static bool strict_file(const char *path)
{
	static unsigned char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t len, i, n;

	if (!f)
		return false;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (i = 0; i < len; i += n) {
		if (buf[i] == '\n' && (i + 1 == len || buf[i + 1] == '{'))
			n = 1;
		else if (buf[i] < 0x20 || !utf8_valid_at(buf + i, len - i, &n))
			return false;
	}
	return len > 0;
}

/*
 * What jq reads back: a string holding every control character (NUL
 * too), quote, backslash, slash, DEL, valid UTF-8 and invalid sequences
 * must come back byte for byte, each invalid byte as U+FFFD (EF BF BD).
 */
static void test_jq(void)
{
	static const char tail[] = "\"\\/\x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 "
		"\xff|\xc3|\xed\xa0\x80|\xc0\xaf|\xf4\x90\x80\x80|\xf8\x88\x80\x80\x80|\xe2\x82";
	char path[] = "/tmp/test_json.XXXXXX", in[256], want[512], got[65536];
	unsigned int seed = 33;
	size_t n = 0, w = 0, k, len, i;
	int fd, rc, bad = 0;
	FILE *f;

	if (system("command -v jq > /dev/null 2>&1")) {
		printf("skip json-jq-control-chars - no jq (make deps)\n");
		printf("skip json-jq-random-bytes - no jq (make deps)\n");
		return;
	}
	for (i = 0; i < 0x20; i++)
		in[n++] = (char)i;
	memcpy(in + n, tail, sizeof(tail) - 1);
	n += sizeof(tail) - 1;
	/* what jq should give back: invalid bytes as U+FFFD */
	for (i = 0; i < n;) {
		if (utf8_valid_at((unsigned char *)in + i, n - i, &k)) {
			memcpy(want + w, in + i, k);
			w += k;
			i += k;
		} else {
			memcpy(want + w, "\xef\xbf\xbd", 3);
			w += 3;
			i++;
		}
	}
	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		printf("not ok json-jq-control-chars - cannot write %s\n", path);
		unit_failed = 1;
		return;
	}
	put_line(f, in, n);
	fclose(f);
	CHECK("json-strict-control-chars", strict_file(path), "raw control byte or bad UTF-8 in %s",
	      path);
	rc = jq_strings(path, ".s", got, sizeof(got), &len);
	CHECK("json-jq-control-chars", rc == 0 && len == w && !memcmp(got, want, w),
	      "jq exit %d, %zu bytes back, want %zu", rc, len, w);

	/* 3000 random byte strings, 0..40 bytes of 0..255: every line parses,
	 * and the valid UTF-8 ones come back as they were */
	f = fopen(path, "w");
	if (!f)
		return;
	for (i = 0; i < 3000; i++) {
		len = (size_t)rand_r(&seed) % 41;
		for (k = 0; k < len; k++)
			in[k] = (char)(rand_r(&seed) % 256);
		put_line(f, in, len);
	}
	fclose(f);
	CHECK("json-strict-random-bytes", strict_file(path), "raw control byte or bad UTF-8 in %s",
	      path);
	rc = jq_strings(path, "1", got, sizeof(got), &len);
	for (i = 0; i < len; i++)
		bad += got[i] != '1';
	CHECK("json-jq-random-bytes", rc == 0 && len == 3000 && !bad,
	      "jq exit %d, %zu of 3000 lines parsed: %.200s", rc, len, got);
	unlink(path);
}

/* Is a valid UTF-8 sequence at @s (RFC 3629: no overlong, no surrogate,
 * at most U+10FFFF)?  Its length in @n.  A test oracle, written from the
 * RFC's table, not from json.c. */
static bool utf8_valid_at(const unsigned char *s, size_t len, size_t *n)
{
	unsigned char c = s[0];
	unsigned int lo = 0x80, hi = 0xbf;
	size_t k, need;

	if (c < 0x80) {
		*n = 1;
		return true;
	}
	if (c >= 0xc2 && c <= 0xdf)
		need = 2;
	else if (c >= 0xe0 && c <= 0xef)
		need = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 4;
	else
		return false;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (len < need || s[1] < lo || s[1] > hi)
		return false;
	for (k = 2; k < need; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return false;
	*n = need;
	return true;
}

int main(void)
{
	char *out;
	int ret;

	out = capture(emit_escapes, 0, &ret);
	CHECK("json-escapes-ret", ret == 0, "finish %d", ret);
	CHECK_STR("json-escapes", out,
		  "{\"q\":\"a\\\"b\\\\c/d\","
		  "\"ctl\":\"\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\","
		  "\"utf8\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
		  "\"bad\":\"\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\","
		  "\"nul\":\"a\\u0000b\","
		  "\"k\\\"ey\":null}");
	free(out);

	out = capture(emit_nested, 0, &ret);
	CHECK("json-nested-ret", ret == 0, "finish %d", ret);
	CHECK_STR("json-nested", out,
		  "{\"u\":18446744073709551615,\"i\":-9223372036854775808,"
		  "\"nan\":null,\"half\":0.5,\"t\":true,\"empty\":[],\"eo\":{},"
		  "\"sum\":{\"count\":3,\"min\":1,\"p50\":2,\"p90\":3,\"p99\":3,"
		  "\"p99_9\":3,\"max\":3,\"sum\":6,\"mean\":2},"
		  "\"hist\":[{\"lo\":0,\"hi\":1,\"count\":1},{\"lo\":4,\"hi\":7,\"count\":2}]}");
	free(out);

	out = capture(emit_lines, PX_JSON_LINES, &ret);
	CHECK_STR("json-lines", out, "{\"n\":0}\n{\"n\":1}\n");
	free(out);

	out = capture(emit_pretty, PX_JSON_PRETTY, &ret);
	CHECK_STR("json-pretty", out, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\n");
	free(out);

	free(capture(emit_key_in_array, 0, &ret));
	CHECK("json-misuse-key-in-array", ret == -EINVAL, "finish %d", ret);
	free(capture(emit_no_key_in_object, 0, &ret));
	CHECK("json-misuse-no-key", ret == -EINVAL, "finish %d", ret);
	free(capture(emit_mismatch, 0, &ret));
	CHECK("json-misuse-mismatch", ret == -EINVAL, "finish %d", ret);
	free(capture(emit_unclosed, 0, &ret));
	CHECK("json-misuse-unclosed", ret == -EINVAL, "finish %d", ret);
	free(capture(emit_too_deep, 0, &ret));
	CHECK("json-misuse-too-deep", ret == -EINVAL, "finish %d", ret);
	test_jq();
	return unit_exit();
}
