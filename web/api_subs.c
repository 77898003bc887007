/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * /api/v1/subscribers: list (paging, IMSI prefix search), get, create,
 * update, delete, TOML import (all-or-nothing, db_import_toml) and export.
 * Every change goes to the database first, then to the UDM's memory, so the
 * AMF sees exactly what is stored. A subscriber may name a policy profile
 * (api_policy.c); its JSON carries "effective", what the UDM resolves.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "common/ev.h"
#include "common/log.h"
#include "udm/udm.h"
#include "web/sub_int.h"
#include "web/web_int.h"

#define LIST_LIMIT_DEFAULT 50
#define LIST_LIMIT_MAX 1000

/* 400 when ?name= is present but not an integer in [min, max]. */
static int query_uint(const struct web_req *req, struct web_resp *resp, const char *name,
		      unsigned long min, unsigned long max, unsigned long *out)
{
	char buf[32], *end;
	unsigned long v;
	int n = web_req_query(req, name, buf, sizeof(buf));

	if (n == -ENOENT)
		return 0;
	if (n <= 0 || buf[0] < '0' || buf[0] > '9')
		goto bad;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	web_resp_error(resp, 400, name, "%s must be an integer %lu..%lu", name, min, max);
	return -EINVAL;
}

/* ?secrets=1: admin only (web.h). 1 yes, 0 no, -EPERM (resp filled). */
static int want_secrets(const struct web_req *req, struct web_resp *resp)
{
	char v[4];

	if (web_req_query(req, "secrets", v, sizeof(v)) < 0 || strcmp(v, "1") != 0)
		return 0;
	if (web_req_role(req) < WEB_ROLE_ADMIN) {
		web_resp_error(resp, 403, "secrets", "secrets=1 needs an admin token");
		return -EPERM;
	}
	return 1;
}

/* The list in bounded steps (web_steps_submit): with 10^6 subscribers an
 * OFFSET walk, a prefix count or a page of 1000 rows is 20-150 ms of the
 * control thread, which also serves NGAP and NAS. One step does one of:
 * skip up to LIST_SEEK_STEP index entries of the offset, build up to
 * LIST_PAGE_STEP rows of the page, count up to LIST_SEEK_STEP entries of the
 * total (each about half a millisecond here); the total without a prefix is
 * db's kept count (O(1)). A first page of up to 50 is one step, answered at
 * once. */
#define LIST_SEEK_STEP 4096
#define LIST_PAGE_STEP 50

struct list_task {
	struct web *w;
	struct web_metrics_out *o;   /* the answer's text, rows as they are built */
	struct web_pol_cache pc;
	char prefix[DB_IMSI_MAX_DIGITS + 8];
	char pos[DB_SUPI_MAX];       /* the page walks after this SUPI ("" = from the first) */
	char cpos[DB_SUPI_MAX];      /* the count walks after this one */
	uint64_t offset, skip;       /* asked; still to skip */
	uint32_t limit, got, rows;   /* rows: those list_one wrote so far */
	bool cursor;                 /* ?after= (the offset walked is not the count's) */
	bool page_end;               /* the range ended inside the page */
	int64_t total;               /* -1 until known */
	int64_t counted;
};

/* Each row is written out as text when it is read, so that a large page's
 * JSON is made in the steps too, not all at the answer. */
static int list_one(const struct db_subscriber *s, void *arg)
{
	struct list_task *l = arg;
	json_t *j = web_sub_to_json_eff(l->w->udm, l->w->db, &l->pc, s, false);
	char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	if (!t)
		return -ENOMEM;
	memcpy(l->pos, s->supi, sizeof(l->pos));
	web_metrics_printf(l->o, "%s%s", l->rows ? "," : "", t);
	l->rows++;
	free(t);
	return 0;
}

static void list_task_free(struct list_task *l)
{
	web_textbuf_free(l->o);
	free(l);
}

/* One bounded piece of work: 1 more to do, 0 done (resp filled), or -errno. */
static int list_work(struct web *w, struct list_task *l)
{
	const char *pre = l->prefix[0] ? l->prefix : NULL;
	int rc;

	if (l->skip) {
		uint32_t k = l->skip < LIST_SEEK_STEP ? (uint32_t)l->skip : LIST_SEEK_STEP;

		rc = db_subscriber_seek(w->db, pre, l->pos, k, l->pos);
		if (rc < 0)
			return rc;
		l->counted += rc;
		l->skip = (uint32_t)rc < k ? 0 : l->skip - k;
		l->page_end = (uint32_t)rc < k;
		return 1;
	}
	if (l->got < l->limit && !l->page_end) {
		uint32_t m = l->limit - l->got < LIST_PAGE_STEP ? l->limit - l->got : LIST_PAGE_STEP;

		rc = db_subscriber_list_after(w->db, pre, l->pos, m, list_one, l);
		if (rc < 0)
			return rc;
		l->got += (uint32_t)rc;
		l->counted += rc;
		l->page_end = (uint32_t)rc < m;
		/* Without a cursor the walk began at the first row: if the range
		 * ended, what it walked is the total. */
		if (l->page_end && !l->cursor)
			l->total = l->counted;
		if (l->got < l->limit && !l->page_end)
			return 1;
	}
	if (l->total < 0 && !pre) {
		l->total = db_subscriber_count(w->db);
		if (l->total < 0)
			return (int)l->total;
	}
	if (l->total < 0) {
		if (l->counted && !l->cursor && !l->cpos[0]) {   /* go on from the page's end */
			memcpy(l->cpos, l->pos, sizeof(l->cpos));
		} else if (!l->cpos[0]) {
			l->counted = 0;
		}
		rc = db_subscriber_seek(w->db, pre, l->cpos, LIST_SEEK_STEP, l->cpos);
		if (rc < 0)
			return rc;
		l->counted += rc;
		if (rc == LIST_SEEK_STEP)
			return 1;
		l->total = l->counted;
	}
	return 0;
}

/* Consumes l->o. */
static void list_answer(struct list_task *l, struct web_resp *resp)
{
	web_metrics_printf(l->o, "],\"total\":%lld,\"offset\":%llu,\"limit\":%u",
			   (long long)l->total, (unsigned long long)l->offset, l->limit);
	/* A full page: the cursor for the next one (?after=); IMSI digits need no escaping. */
	if (l->got == l->limit)
		web_metrics_printf(l->o, ",\"next\":\"%s\"", l->pos + 5);
	web_metrics_printf(l->o, "}");
	if (web_textbuf_to_resp(l->o, resp, "application/json") < 0)
		web_resp_error(resp, 500, NULL, "out of memory");
	l->o = NULL;
}

static int list_step(struct web *w, void *arg, struct web_resp *resp)
{
	struct list_task *l = arg;
	int rc = list_work(w, l);

	if (rc == 1)
		return 1;
	if (rc < 0)
		web_resp_error(resp, 500, NULL, "listing failed");
	else
		list_answer(l, resp);
	list_task_free(l);
	return 0;
}

/* The query: 0, or 400 in resp (1), or -errno. */
static int list_query(const struct web_req *req, struct web_resp *resp, struct list_task *l)
{
	unsigned long offset = 0, limit = LIST_LIMIT_DEFAULT;
	char after[32], tmp[24];
	int rc;

	if (query_uint(req, resp, "offset", 0, INT32_MAX, &offset) < 0 ||
	    query_uint(req, resp, "limit", 1, LIST_LIMIT_MAX, &limit) < 0)
		return 1;
	rc = web_req_query(req, "imsi", l->prefix, sizeof(l->prefix));
	if (rc >= 0) {
		if (strncmp(l->prefix, "imsi-", 5) == 0)
			memmove(l->prefix, l->prefix + 5, strlen(l->prefix + 5) + 1);
		if (!web_imsi_digits(l->prefix, 0, DB_IMSI_MAX_DIGITS))
			goto bad_imsi;
	} else if (rc != -ENOENT) {
		goto bad_imsi;
	}
	rc = web_req_query(req, "after", after, sizeof(after));
	if (rc >= 0 && (web_req_query(req, "offset", tmp, sizeof(tmp)) != -ENOENT ||
			web_supi_from_param(after, l->pos) < 0)) {
		web_resp_error(resp, 400, "after", "after is the IMSI the previous page ended with (\"next\"), "
			       "and goes without offset");
		return 1;
	} else if (rc < 0 && rc != -ENOENT) {
		web_resp_error(resp, 400, "after", "after is an IMSI");
		return 1;
	}
	l->cursor = rc >= 0;
	l->offset = l->skip = offset;
	l->limit = (uint32_t)limit;
	return 0;
bad_imsi:
	l->prefix[0] = 0;
	web_resp_error(resp, 400, "imsi", "imsi must be a prefix of up to 15 digits");
	return 1;
}

static int h_list(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct list_task *l = calloc(1, sizeof(*l));
	int rc;

	(void)arg;
	if (!l)
		return -ENOMEM;
	l->w = w;
	l->total = -1;
	l->o = web_textbuf_new();
	if (l->o)
		web_metrics_printf(l->o, "{\"items\":[");
	rc = l->o ? list_query(req, resp, l) : -ENOMEM;
	/* The first step here: a small page is answered at once. */
	if (rc == 0)
		rc = list_work(w, l);
	if (rc == 0)
		list_answer(l, resp);
	if (rc == 1 && !resp->status) {
		rc = web_steps_submit(w, req, resp, list_step, l);
		if (rc == 0)
			return 0;
		rc = rc == -EBUSY ? 0 : rc;
	}
	list_task_free(l);
	return rc < 0 ? rc : 0;
}

/* The {imsi} of the path as a SUPI; 400 if malformed. */
static int path_supi(const struct web_req *req, struct web_resp *resp, char supi[DB_SUPI_MAX])
{
	if (web_supi_from_param(web_req_param(req, 0), supi) < 0) {
		web_resp_error(resp, 400, "imsi", "imsi must be 5 to 15 digits");
		return -EINVAL;
	}
	return 0;
}

/* The subscriber named by the path, with the UDM's current SQN. 0 found,
 * 1 resp filled (400 or 404), or -errno. */
static int load_sub(struct web *w, const struct web_req *req, struct web_resp *resp,
		    struct db_subscriber *s)
{
	char supi[DB_SUPI_MAX];
	int rc;

	if (path_supi(req, resp, supi) < 0)
		return 1;
	rc = db_subscriber_get(w->db, supi, s);
	if (rc == -ENOENT) {
		web_resp_error(resp, 404, "imsi", "no subscriber %s", supi);
		return 1;
	}
	if (rc < 0)
		return rc;
	if (w->udm)   /* the UDM's SQN is ahead of the write-behind copy */
		udm_get_sqn(w->udm, supi, &s->sqn);
	return 0;
}

static int h_get(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct db_subscriber s;
	struct web_pol_cache pc = { .have = false };
	int sec, rc;

	(void)arg;
	if ((sec = want_secrets(req, resp)) < 0)
		return 0;
	rc = load_sub(w, req, resp, &s);
	if (rc)
		return rc < 0 ? rc : 0;
	web_resp_json(resp, 200, web_sub_to_json_eff(w->udm, w->db, &pc, &s, sec == 1));
	explicit_bzero(&s, sizeof(s));
	return 0;
}

/* Store s in the database, then in the UDM; on a UDM failure the database
 * change is undone (old: the previous row for an update, NULL for a create).
 * A policy that does not exist is a 400 on "policy". */
static int store(struct web *w, const struct db_subscriber *s, const struct db_subscriber *old,
		 struct web_resp *resp)
{
	struct db_policy pol;
	char why[128];
	int rc;

	if (db_subscriber_check(s, why, sizeof(why)) < 0) {
		web_resp_error(resp, 400, NULL, "%s", why);
		return -EINVAL;
	}
	if (s->policy[0]) {
		rc = db_policy_get(w->db, s->policy, &pol);
		if (rc == -ENOENT) {
			web_resp_error(resp, 400, "policy", "no policy %s (create it under "
				       "/api/v1/policies first)", s->policy);
			return -EINVAL;
		}
		if (rc < 0)
			return rc;
	}
	rc = db_subscriber_put(w->db, s);
	if (rc == -ENOENT) {   /* the policy went between the check and the write */
		web_resp_error(resp, 400, "policy", "no policy %s", s->policy);
		return -EINVAL;
	}
	if (rc < 0)
		return rc;
	if (w->udm) {
		rc = udm_add_db_policy(w->udm, s, s->policy[0] ? &pol : NULL);
		if (rc < 0) {
			if (old)
				db_subscriber_put(w->db, old);
			else
				db_subscriber_delete(w->db, s->supi);
			web_resp_error(resp, 503, NULL, "subscriber store in memory refused it (%s)",
				       rc == -ENOSPC ? "full: restart to resize" : strerror(-rc));
			return -ENOSPC;
		}
	}
	web_changed_subscriber(w, s->supi);   /* an attached UE's AMBRs follow (core.c) */
	return 0;
}

static int h_create(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct web_pol_cache pc = { .have = false };
	struct db_subscriber s, old;
	struct web_field_err e;
	json_t *j = web_body_json(req, resp);
	int rc;

	(void)arg;
	if (!j)
		return 0;
	memset(&s, 0, sizeof(s));
	s.op_is_opc = true;
	s.amf = DB_DEFAULT_AMF;
	rc = web_sub_from_json(j, &s, true, &e);
	json_decref(j);
	if (rc < 0) {
		web_resp_error(resp, 400, e.field, "%s", e.msg);
		goto out;
	}
	rc = db_subscriber_get(w->db, s.supi, &old);
	explicit_bzero(&old, sizeof(old));
	if (rc == 0) {
		web_resp_error(resp, 409, "imsi", "subscriber %s already exists", s.supi);
		goto out;
	}
	if (rc != -ENOENT)
		goto fail;
	rc = store(w, &s, NULL, resp);
	if (rc == -EINVAL || rc == -ENOSPC)
		goto out;
	if (rc < 0)
		goto fail;
	db_subscriber_get(w->db, s.supi, &s);   /* created/updated as stored */
	log_info("web", "subscriber %s created", s.supi);
	web_resp_json(resp, 201, web_sub_to_json_eff(w->udm, w->db, &pc, &s, false));
out:
	explicit_bzero(&s, sizeof(s));
	return 0;
fail:
	explicit_bzero(&s, sizeof(s));
	return rc;
}

/* PUT and PATCH: the fields given replace the stored ones; absent fields
 * (K and OPc included) are kept. */
static int h_update(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct web_pol_cache pc = { .have = false };
	struct db_subscriber s, old;
	struct web_field_err e;
	json_t *j;
	int rc;

	(void)arg;
	rc = load_sub(w, req, resp, &old);
	if (rc)
		return rc < 0 ? rc : 0;
	s = old;
	j = web_body_json(req, resp);
	rc = j ? web_sub_from_json(j, &s, false, &e) : -EINVAL;
	json_decref(j);
	if (j && rc < 0)
		web_resp_error(resp, 400, e.field, "%s", e.msg);
	if (rc == 0)
		rc = store(w, &s, &old, resp);
	if (rc == 0) {
		db_subscriber_get(w->db, old.supi, &s);
		if (w->udm)
			udm_get_sqn(w->udm, old.supi, &s.sqn);
		log_info("web", "subscriber %s updated", old.supi);
		web_resp_json(resp, 200, web_sub_to_json_eff(w->udm, w->db, &pc, &s, false));
	}
	explicit_bzero(&s, sizeof(s));
	explicit_bzero(&old, sizeof(old));
	return rc == -EINVAL || rc == -ENOSPC ? 0 : rc;
}

static int h_delete(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	char supi[DB_SUPI_MAX];
	int rc;

	(void)arg;
	if (path_supi(req, resp, supi) < 0)
		return 0;
	rc = db_subscriber_delete(w->db, supi);
	if (rc == -ENOENT) {
		web_resp_error(resp, 404, "imsi", "no subscriber %s", supi);
		return 0;
	}
	if (rc < 0)
		return rc;
	if (w->udm)
		udm_remove(w->udm, supi);
	log_info("web", "subscriber %s deleted", supi);
	web_resp_text(resp, 204, NULL, NULL, 0);
	return 0;
}

/* ---- import and export: on the task thread (web_task_submit) ----
 *
 * Import: the task thread parses the body and inserts it in one transaction
 * on its own connection (all or nothing, db_import_toml_cb), refusing more
 * rows than the UDM store has room for, and notes the SUPIs; then the
 * control thread puts the new rows into the UDM IMPORT_STEP at a time, one
 * step per loop pass, so NGAP and NAS go on between steps. A row costs
 * about 7 us here idle (its read back from SQLite and the UDM insert), more
 * on a loaded CPU: a step also ends once it has taken IMPORT_STEP_NS, so it
 * stays under about a millisecond (256 rows were 1.7 ms idle). */
#define IMPORT_STEP 256
#define IMPORT_STEP_NS 500000u
#define IMPORT_CLOCK_EVERY 8

struct import_task {
	uint8_t *body;
	size_t len;
	size_t room;                 /* UDM slots free when the import began */
	int n;                       /* rows imported, or -errno */
	char err[512], path[64];
	char (*supi)[DB_SUPI_MAX];
	size_t nsupi, cap, next, missed;
	struct web_pol_cache pc;
	bool held;                   /* db_subscriber_count_hold */
};

static int import_note(const struct db_subscriber *s, void *arg)
{
	struct import_task *x = arg;

	if (x->nsupi == x->room)
		return -ENOSPC;   /* the UDM could not hold them: nothing imported */
	if (x->nsupi == x->cap) {
		size_t c = x->cap ? 2 * x->cap : 1024;
		void *p = realloc(x->supi, c * sizeof(*x->supi));

		if (!p)
			return -ENOMEM;
		x->supi = p;
		x->cap = c;
	}
	memcpy(x->supi[x->nsupi++], s->supi, DB_SUPI_MAX);
	return 0;
}

static void import_run(void *arg, struct db *db)
{
	struct import_task *x = arg;
	int fd;

	/* db_import_toml() reads a file: an anonymous memory file, so the keys
	 * in the body never touch a disk. */
	fd = memfd_create("solocore-import", MFD_CLOEXEC);
	if (fd < 0 || (x->len && write(fd, x->body, x->len) != (ssize_t)x->len)) {
		x->n = -EIO;
		snprintf(x->err, sizeof(x->err), "cannot stage the body");
	} else {
		snprintf(x->path, sizeof(x->path), "/proc/self/fd/%d", fd);
		x->n = db_import_toml_cb(db, x->path, x->err, sizeof(x->err), import_note, x);
	}
	if (fd >= 0)
		close(fd);
	if (x->body) {
		explicit_bzero(x->body, x->len);
		free(x->body);
		x->body = NULL;
	}
}

static void import_free(struct import_task *x)
{
	if (x->body) {
		explicit_bzero(x->body, x->len);
		free(x->body);
	}
	free(x->supi);
	free(x);
}

static int import_step(struct web *w, void *arg, struct web_resp *resp)
{
	struct import_task *x = arg;
	struct db_subscriber s;

	if (x->held) {   /* the import is over: its rows join db's kept count */
		db_subscriber_count_release(w->db, x->n < 0 ? 0 : x->n);
		x->held = false;
	}
	if (x->n < 0) {
		const char *why = strncmp(x->err, x->path, strlen(x->path)) == 0 && x->path[0]
				  ? x->err + strlen(x->path) : x->err;

		if (x->n == -ENOSPC)
			web_resp_error(resp, 503, NULL, "subscriber store in memory is full: restart to "
				       "resize it; nothing imported");
		else
			/* "path:line: reason" -> "body:line: reason" */
			web_resp_error(resp, strstr(x->err, "already in the database") ? 409 : 400, "body",
				       "body%s%s; nothing imported", why[0] == ':' ? "" : ": ", why);
		import_free(x);
		return 0;
	}
	uint64_t t0 = ev_update_now(w->loop);

	for (size_t end = x->next + IMPORT_STEP; w->udm && x->next < x->nsupi && x->next < end; x->next++) {
		if (x->next % IMPORT_CLOCK_EVERY == 0 && x->next != end - IMPORT_STEP &&
		    ev_update_now(w->loop) - t0 > IMPORT_STEP_NS)
			break;
		if (db_subscriber_get(w->db, x->supi[x->next], &s) < 0 ||
		    udm_add_db_policy(w->udm, &s, web_pol_cache_get(&x->pc, w->db, s.policy)) < 0)
			x->missed++;
		explicit_bzero(&s, sizeof(s));
	}
	if (w->udm && x->next < x->nsupi)
		return 1;
	if (x->missed)
		log_error("web", "import: %zu of %d subscribers are in the database but not in memory "
			  "(store full): restart to load them", x->missed, x->n);
	log_info("web", "imported %d subscribers", x->n);
	web_resp_json(resp, 200, json_pack("{s:i}", "imported", x->n));
	import_free(x);
	return 0;
}

static int h_import(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct import_task *x = calloc(1, sizeof(*x));
	int rc;

	(void)arg;
	if (!x)
		return -ENOMEM;
	x->len = req->body_len;
	x->body = web_req_take_body(req);
	x->room = w->udm ? udm_capacity(w->udm) - udm_count(w->udm) : SIZE_MAX;
	x->pc.have = false;
	/* The count stays O(1) while the task thread imports (nothing else
	 * changes rows meanwhile: the router refuses changes, 503). */
	x->held = !w->task_busy && db_subscriber_count_hold(w->db) >= 0;
	rc = web_task_submit(w, req, resp, import_run, import_step, x, true);
	if (rc < 0) {
		if (x->held)
			db_subscriber_count_release(w->db, 0);
		import_free(x);
	}
	return rc == -EBUSY ? 0 : rc;
}

/* Export: the rows are read and written as TOML on the task thread (SQN as
 * the db writer last stored it: at most its batch window behind). */
struct export_task {
	struct web_metrics_out *o;
	bool secrets;
	int rc;
};

static int export_one(const struct db_subscriber *s, void *arg)
{
	struct export_task *x = arg;
	char buf[2048];
	int n = web_sub_to_toml(s, x->secrets, buf, sizeof(buf));

	if (n > 0)
		web_metrics_printf(x->o, "%s", buf);
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

static void export_run(void *arg, struct db *db)
{
	struct export_task *x = arg;

	web_metrics_printf(x->o, "# solocore subscribers (db/SIMS.md format)\n%s\n",
			   x->secrets ? "" : "# ki/opc omitted: export with ?secrets=1 and an admin token "
					     "for a file that imports\n");
	x->rc = db_load_subscribers(db, export_one, x);
}

static int export_step(struct web *w, void *arg, struct web_resp *resp)
{
	struct export_task *x = arg;

	(void)w;
	if (x->rc < 0) {
		web_textbuf_free(x->o);
		web_resp_error(resp, 500, NULL, "export failed");
	} else if (web_textbuf_to_resp(x->o, resp, "application/toml") < 0) {   /* frees o */
		web_resp_error(resp, 500, NULL, "export failed");
	}
	free(x);
	return 0;
}

static int h_export(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct export_task *x;
	int sec, rc;

	(void)arg;
	if ((sec = want_secrets(req, resp)) < 0)
		return 0;
	x = calloc(1, sizeof(*x));
	if (!x || !(x->o = web_textbuf_new())) {
		free(x);
		return -ENOMEM;
	}
	x->secrets = sec == 1;
	rc = web_task_submit(w, req, resp, export_run, export_step, x, false);
	if (rc < 0) {
		web_textbuf_free(x->o);
		free(x);
	}
	return rc == -EBUSY ? 0 : rc;
}

int web_api_subs_routes(struct web *w)
{
	static const struct web_route_def r[] = {
		{ WEB_GET, "/api/v1/subscribers", WEB_ROLE_READ, h_list },
		{ WEB_POST, "/api/v1/subscribers", WEB_ROLE_OPERATOR, h_create },
		{ WEB_POST, "/api/v1/subscribers/import", WEB_ROLE_OPERATOR, h_import },
		{ WEB_GET, "/api/v1/subscribers/export", WEB_ROLE_READ, h_export },
		{ WEB_GET, "/api/v1/subscribers/{imsi}", WEB_ROLE_READ, h_get },
		{ WEB_PUT, "/api/v1/subscribers/{imsi}", WEB_ROLE_OPERATOR, h_update },
		{ WEB_PATCH, "/api/v1/subscribers/{imsi}", WEB_ROLE_OPERATOR, h_update },
		{ WEB_DELETE, "/api/v1/subscribers/{imsi}", WEB_ROLE_OPERATOR, h_delete },
	};

	return web_routes_add(w, r, sizeof(r) / sizeof(r[0]), NULL);
}
