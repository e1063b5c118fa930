// SPDX-License-Identifier: GPL-2.0
/* The workload result file: header, params/checks, latency, hist, samples. */
#include <stdlib.h>
#include <unistd.h>

#include "pxutil.h"
#include "unit.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	if (f && buf)
		buf[fread(buf, 1, (1 << 16) - 1, f)] = '\0';
	if (f)
		fclose(f);
	return buf;
}

int main(void)
{
	char *argv[] = { "inversion", "rt", "-n", "3", NULL };
	char path[] = "/tmp/pxunit-result.XXXXXX";
	struct px_result r;
	struct px_summary s;
	struct px_json *j;
	char *text;
	int fd, ret;

	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	CHECK("result-init", !px_result_init(&r, "inversion", "lock_wait", 4, argv), "init failed");
	px_result_add(&r, 3000);
	px_result_add(&r, 1000);
	px_result_add(&r, 2000);
	px_result_summary(&r, &s);
	CHECK_U64("result-count", s.count, 3);
	CHECK_U64("result-p50", s.p50, 2000);

	j = px_result_json_begin(&r, path, "rt");
	CHECK("result-open", j != NULL, "cannot open %s", path);
	if (!j)
		return unit_exit();
	px_json_u64(j, "iterations", 3);
	px_result_json_checks(&r, j);
	px_json_bool(j, "consistent", true);
	ret = px_result_json_end(&r, j, true);
	CHECK("result-write", ret == 0, "px_result_json_end %d", ret);

	text = slurp(path);
	CHECK("result-format", strstr(text, "\"format\": \"proxyexec-latency\",\n  \"version\": 1,") != NULL,
	      "no format/version header");
	CHECK("result-cmdline", strstr(text, "\"cmdline\": \"inversion rt -n 3\"") != NULL, "cmdline");
	CHECK("result-params", strstr(text, "\"params\": {\n    \"iterations\": 3\n  }") != NULL,
	      "params object");
	CHECK("result-checks", strstr(text, "\"checks\": {\n    \"consistent\": true\n  },\n  \"ok\": true")
	      != NULL, "checks object and ok");
	CHECK("result-latency", strstr(text, "\"count\": 3,\n    \"min\": 1000,\n    \"p50\": 2000,") != NULL,
	      "latency object");
	/* Samples in the order taken, although the summary sorted its copy. */
	CHECK("result-samples-order", strstr(text, "\"samples\": [\n    3000,\n    1000,\n    2000\n  ]")
	      != NULL, "samples not in order");
	CHECK("result-hist", strstr(text, "\"lo\": 992,\n      \"hi\": 1008,\n      \"count\": 1") != NULL,
	      "hist bucket of 1000");
	free(text);
	unlink(path);
	px_result_free(&r);
	return unit_exit();
}
