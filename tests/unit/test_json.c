// SPDX-License-Identifier: GPL-2.0
/* The JSON writer: escaping, nesting, JSON lines, misuse detection. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

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
	return unit_exit();
}
