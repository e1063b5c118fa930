// SPDX-License-Identifier: GPL-2.0
/*
 * proxytop's rendering (tools/observe/proxytop_render.c, built in here
 * with stand-ins for what proxytop.c and pxbpf_user.c give it): the LOCK
 * column and JSON lock_type from the pairs' PX_LOCK_* bits, the window's
 * widths at 80 columns, and the -b format, which must not change (61's
 * batch-format check compares its column titles whole).
 */
#include "../../tools/observe/proxytop_render.c"
#include "unit.h"

const char *const view_names[VIEW_NR] = { "owners", "donors", "cgroups" };
const char *const sort_names[SORT_NR] = {
	"time", "picks", "donors", "depth", "migrations",
};
struct proxytop_env env = { .rows = 20 };

const char *pxbpf_cgroup_path(__u64 id)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), id == 1 ? "/" : "/lab/g%llu", (unsigned long long)id);
	return buf;
}

#define SEC_NS	1000000000ULL

/*
 * An interval of 2 s: owner 200 got donors 101 (through a mutex) and 102
 * (an rwsem), owner 300 donor 103 (rwsem), owner 400 donor 104 (donated
 * time, never picked).
 */
static struct pxbpf_pair pairs[] = {
	{ { 101, 200, 1, 2 }, { .ns = 400000000, .picks = 10, .max_depth = 1,
	  .donor_cgid = 5, .owner_cgid = 6, .lock_types = PX_LOCK_MUTEX,
	  .donor_comm = "waiter-a", .owner_comm = "holder" } },
	{ { 102, 200, 3, 2 }, { .ns = 300000000, .picks = 6, .max_depth = 2,
	  .donor_cgid = 5, .owner_cgid = 6, .lock_types = PX_LOCK_RWSEM,
	  .donor_comm = "waiter-b", .owner_comm = "holder" } },
	{ { 103, 300, 4, 5 }, { .ns = 200000000, .picks = 4, .max_depth = 1,
	  .donor_cgid = 7, .owner_cgid = 7, .lock_types = PX_LOCK_RWSEM,
	  .donor_comm = "reader", .owner_comm = "writer-with-a-l" } },
	{ { 104, 400, 6, 7 }, { .ns = 100000000, .max_depth = 0,
	  .donor_cgid = 7, .owner_cgid = 7,
	  .donor_comm = "sleeper", .owner_comm = "idle-owner" } },
};

static void frame_init(struct frame *fr)
{
	memset(fr, 0, sizeof(*fr));
	fr->prev.ts = 10 * SEC_NS;
	fr->cur.ts = 12 * SEC_NS;
	fr->delta.v = pairs;
	fr->delta.n = PX_ARRAY_SIZE(pairs);
	fr->delta.ts = fr->cur.ts;
	fr->cnt.picks = 120;
	fr->prev_cnt.picks = 100;
	fr->cnt.picks_rwsem = 57;
	fr->prev_cnt.picks_rwsem = 50;
	fr->ncpus = 4;
}

/* render_text() of @fr into @buf; the title line's index. */
static int text(const struct frame *fr, int cols, int lines, char *buf, size_t len)
{
	const struct layout lo = { .cols = cols, .lines = lines, .max_rows = env.rows };
	FILE *f = fmemopen(buf, len, "w");
	int title;

	title = render_text(f, fr, &lo);
	fclose(f);
	return title;
}

/* render_json() of @fr in @view into @buf. */
static void json(const struct frame *fr, enum view view, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	env.view = view;
	render_json(f, fr);
	fclose(f);
}

/* Line @k (0-based) of @s into @out, "" past the end. */
static const char *line(const char *s, int k, char *out, size_t len)
{
	const char *nl = strchrnul(s, '\n');

	for (; k > 0 && *nl; k--)
		nl = strchrnul(s = nl + 1, '\n');
	snprintf(out, len, "%.*s", k ? 0 : (int)(nl - s), s);
	return out;
}

/* The longest line of @s. */
static int longest(const char *s)
{
	int max = 0, n;

	for (; *s; s += n + !!s[n]) {
		n = strchrnul(s, '\n') - s;
		if (n > max)
			max = n;
	}
	return max;
}

/* The row of pid @pid in @s into @out ("" if none). */
static const char *row_of(const char *s, unsigned int pid, char *out, size_t len)
{
	const char *nl;
	char want[16];

	snprintf(want, sizeof(want), "%7u ", pid);
	for (; *s; s = nl + !!*nl) {
		nl = strchrnul(s, '\n');
		if (!strncmp(s, want, strlen(want))) {
			snprintf(out, len, "%.*s", (int)(nl - s), s);
			return out;
		}
	}
	*out = '\0';
	return out;
}

static void test_names(void)
{
	CHECK("lock-name/none", lock_type_name(0) == NULL, "got '%s'", lock_type_name(0));
	CHECK_STR("lock-name/mutex", lock_type_name(PX_LOCK_MUTEX), "mutex");
	CHECK_STR("lock-name/rwsem", lock_type_name(PX_LOCK_RWSEM), "rwsem");
	CHECK_STR("lock-name/both", lock_type_name(PX_LOCK_MUTEX | PX_LOCK_RWSEM), "both");
}

/* -b: byte for byte the historic format, no LOCK. */
static void test_plain(void)
{
	static const char picks[] = "proxy picks/s: 10.0  migrations/s: 0.0  returns/s: 0.0  "
				    "sleeping-owner enqueues/s: 0.0  donated CPU: ";
	char buf[8192], l[256];
	struct frame fr;

	frame_init(&fr);
	env.view = VIEW_OWNER;
	text(&fr, 0, 0, buf, sizeof(buf));
	CHECK("plain/picks-line", !strncmp(line(buf, 1, l, sizeof(l)), picks, strlen(picks)),
	      "'%s'", l);
	CHECK_STR("plain/titles", line(buf, 4, l, sizeof(l)),
		  "    PID COMM             CGROUP                 DON_ms/s DONORS  PICKS/s MAXD   MIGR  TOP-DONOR");
	CHECK_STR("plain/row", row_of(buf, 200, l, sizeof(l)),
		  "    200 holder           /lab/g6                  350.00      2      8.0    2      0  101 waiter-a");
	CHECK("plain/no-lock", !strstr(buf, "LOCK") && !strstr(buf, "rwsem") &&
	      !strstr(buf, "mutex"), "%s", buf);
}

/* The window at @cols: the titles fit whole, LOCK where it fits. */
static void test_window(enum view view, int cols, bool want_lock)
{
	char buf[8192], l[256], name[64], *lock;
	struct frame fr;
	int title, width;

	frame_init(&fr);
	env.view = view;
	title = text(&fr, cols, 24, buf, sizeof(buf));
	line(buf, title, l, sizeof(l));
	lock = strstr(l, " LOCK ");
	snprintf(name, sizeof(name), "window/%s-%d/title-fits", view_names[view], cols);
	CHECK(name, (int)strlen(l) <= cols, "%zu columns: '%s'", strlen(l), l);
	snprintf(name, sizeof(name), "window/%s-%d/lock-column", view_names[view], cols);
	CHECK(name, !lock == !want_lock, "'%s'", l);
	width = longest(buf);
	printf("# %s at %d columns: title %zu, longest line %d (TOP-* cut past %d)\n",
	       view_names[view], cols, strlen(l), width, cols);
	if (view == VIEW_CGROUP) {
		snprintf(name, sizeof(name), "window/%s-%d/all-lines-fit", view_names[view], cols);
		CHECK(name, width <= cols, "longest line %d", width);
	}
	if (!want_lock)
		return;
	/* Every row's LOCK sits under the title, before TOP-*. */
	{
		static const struct { enum view view; unsigned int pid; const char *want; } w[] = {
			{ VIEW_OWNER, 200, "both " }, { VIEW_OWNER, 300, "rwsem" },
			{ VIEW_OWNER, 400, "-    " }, { VIEW_DONOR, 101, "mutex" },
			{ VIEW_DONOR, 102, "rwsem" }, { VIEW_DONOR, 104, "-    " },
		};
		int at = lock - l + 1;
		size_t i;

		for (i = 0; i < PX_ARRAY_SIZE(w); i++) {
			if (w[i].view != view)
				continue;
			row_of(buf, w[i].pid, l, sizeof(l));
			snprintf(name, sizeof(name), "window/%s-%d/lock-%u", view_names[view],
				 cols, w[i].pid);
			CHECK(name, (int)strlen(l) > at + 6 && !strncmp(l + at, w[i].want, 5) &&
			      l[at - 1] == ' ' && l[at + 5] == ' ' && l[at + 6] == ' ',
			      "want '%s' at column %d: '%s'", w[i].want, at, l);
			/* Everything up to TOP-* fits: only that column is cut. */
			snprintf(name, sizeof(name), "window/%s-%d/row-%u-fits", view_names[view],
				 cols, w[i].pid);
			CHECK(name, at + 7 <= cols, "TOP-* starts at column %d", at + 7);
		}
	}
}

static bool json_has(const char *buf, const char *s)
{
	return strstr(buf, s) != NULL;
}

static void test_json(void)
{
	char buf[8192];
	struct frame fr;

	frame_init(&fr);
	json(&fr, VIEW_OWNER, buf, sizeof(buf));
	CHECK("json/rwsem-picks-per-s", json_has(buf, "\"rwsem_picks_per_s\":3.5"), "%s", buf);
	CHECK("json/picks-per-s-kept", json_has(buf, "\"picks_per_s\":10,"), "%s", buf);
	CHECK("json/key-order", strstr(buf, "\"evicted_pairs_total\"") <
	      strstr(buf, "\"rwsem_picks_per_s\"") &&
	      strstr(buf, "\"rwsem_picks_per_s\"") < strstr(buf, "\"rows\""), "%s", buf);
	CHECK("json/owner-both", json_has(buf, "\"pid\":200,") &&
	      json_has(buf, "\"migrations\":0,\"lock_type\":\"both\"}"), "%s", buf);
	CHECK("json/owner-rwsem", json_has(buf, "\"lock_type\":\"rwsem\"}"), "%s", buf);
	CHECK("json/owner-none", json_has(buf, "\"lock_type\":null}"), "%s", buf);
	CHECK("json/no-mutex-owner", !json_has(buf, "\"lock_type\":\"mutex\""), "%s", buf);

	json(&fr, VIEW_DONOR, buf, sizeof(buf));
	CHECK("json/donor-mutex", json_has(buf, "\"lock_type\":\"mutex\"}"), "%s", buf);
	CHECK("json/donor-no-both", !json_has(buf, "\"lock_type\":\"both\""), "%s", buf);

	/* Cgroup 5 holds donors 101 (mutex) and 102 (rwsem). */
	json(&fr, VIEW_CGROUP, buf, sizeof(buf));
	CHECK("json/cgroup-both", json_has(buf, "\"cgroup\":\"/lab/g5\"") &&
	      json_has(buf, "\"lock_type\":\"both\"}"), "%s", buf);
}

int main(void)
{
	test_names();
	test_plain();
	test_window(VIEW_OWNER, 80, true);
	test_window(VIEW_DONOR, 80, true);
	test_window(VIEW_CGROUP, 80, false);
	test_window(VIEW_OWNER, 79, false);
	test_window(VIEW_OWNER, 96, true);
	test_window(VIEW_DONOR, 120, true);
	test_window(VIEW_CGROUP, 120, false);
	test_json();
	return unit_exit();
}
