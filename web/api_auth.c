/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web: browser sessions and login. POST /api/v1/login checks a user's
 * password (db/ PBKDF2) and answers with a session cookie (HttpOnly,
 * SameSite=Strict, Secure under TLS) and a CSRF token the page sends back
 * in X-CSRF-Token on every unsafe request (router.c). Failed logins are
 * rate-limited per user name and in total; every attempt is audited.
 * Also the first admin on first start.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "common/hex.h"
#include "common/log.h"
#include "db/db.h"
#include "web/web_int.h"

uint64_t web_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

static int sha256(const char *s, uint8_t out[32])
{
	unsigned len = 32;

	return EVP_Digest(s, strlen(s), out, &len, EVP_sha256(), NULL) == 1 ? 0 : -EIO;
}

enum web_role web_session_find(struct web *w, const char *sid, char *csrf_out, char *user_out)
{
	uint8_t h[32];
	uint64_t now = web_mono_s();
	enum web_role role = WEB_ROLE_NONE;

	if (sha256(sid, h) < 0)
		return WEB_ROLE_NONE;
	for (unsigned i = 0; i < WEB_MAX_SESSIONS; i++) {
		struct web_session *s = &w->sessions[i];

		if (!s->expires)
			continue;
		if (s->expires <= now) {
			explicit_bzero(s, sizeof(*s));
			continue;
		}
		if (CRYPTO_memcmp(h, s->id_hash, 32) == 0) {
			memcpy(csrf_out, s->csrf, sizeof(s->csrf));
			memcpy(user_out, s->user, sizeof(s->user));
			role = s->role;
		}
	}
	return role;
}

/* New session: the cookie value (65 bytes) and the CSRF token. */
static struct web_session *session_new(struct web *w, const char *user, enum web_role role, char sid[65])
{
	uint8_t raw[32], c[32];
	struct web_session *s = NULL, *mine = NULL;
	uint64_t now = web_mono_s();
	unsigned n_mine = 0;

	for (unsigned i = 0; i < WEB_MAX_SESSIONS; i++) {
		struct web_session *t = &w->sessions[i];

		if (t->expires > now && !strcmp(t->user, user)) {
			n_mine++;
			if (!mine || t->expires < mine->expires)
				mine = t;
		}
	}
	/* A user's own logins replace its own oldest session beyond
	 * WEB_SESSIONS_PER_USER: one user cannot push the others out. */
	if (n_mine >= WEB_SESSIONS_PER_USER)
		s = mine;
	for (unsigned i = 0; !s && i < WEB_MAX_SESSIONS; i++)
		if (!w->sessions[i].expires || w->sessions[i].expires <= now)
			s = &w->sessions[i];
	if (!s) {   /* all taken: the one closest to expiry goes */
		s = &w->sessions[0];
		for (unsigned i = 1; i < WEB_MAX_SESSIONS; i++)
			if (w->sessions[i].expires < s->expires)
				s = &w->sessions[i];
	}
	if (RAND_bytes(raw, 32) != 1 || RAND_bytes(c, 32) != 1)
		return NULL;
	hex_encode(sid, 65, raw, 32, false);
	explicit_bzero(s, sizeof(*s));
	if (sha256(sid, s->id_hash) < 0)
		return NULL;
	hex_encode(s->csrf, sizeof(s->csrf), c, 32, false);
	snprintf(s->user, sizeof(s->user), "%s", user);
	s->role = role;
	s->expires = now + WEB_SESSION_TTL_S;
	explicit_bzero(raw, sizeof(raw));
	return s;
}

static struct web_login_slot *login_slot(struct web *w, const char *name, uint64_t now)
{
	struct web_login_slot *free_slot = NULL, *oldest = &w->logins[0];

	for (unsigned i = 0; i < WEB_LOGIN_SLOTS; i++) {
		struct web_login_slot *l = &w->logins[i];

		if (l->name[0] && !strcmp(l->name, name))
			return l;
		if (!l->name[0] || (l->locked_until <= now && l->window_start + w->lim.login_lock_s <= now)) {
			if (!free_slot)
				free_slot = l;
		} else if (l->window_start < oldest->window_start) {
			oldest = l;
		}
	}
	if (!free_slot)
		free_slot = oldest;
	memset(free_slot, 0, sizeof(*free_slot));
	snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
	free_slot->window_start = now;
	return free_slot;
}

/* ---- the KDF thread ----
 * PBKDF2 with 600,000 iterations takes most of a second: the control
 * thread must not wait for it (it also runs NGAP and NAS). A login reads
 * the stored hash, hands (password, hash) to this thread and answers when
 * the result comes back through an eventfd on the loop. */
enum job_kind { JOB_LOGIN, JOB_USER_CREATE, JOB_USER_UPDATE, JOB_TASK };

struct web_job {
	enum job_kind kind;
	struct web *w;
	uint64_t conn_id;
	int32_t stream;
	char user[72];
	char pw[DB_PASSWORD_MAX + 1];
	char stored[DB_PW_STR_MAX];
	int role;             /* login: 0 = unknown user (a dummy hash was checked);
			       * user jobs: the role to set (0 keep) */
	int result;           /* db_pw_check / db_pw_make */
	char who[160];        /* user jobs: the caller, for the audit log */
	/* JOB_TASK (web_task_submit) */
	web_task_run run;
	web_task_step step;
	void *arg;
	bool writes;
	bool local;           /* web_steps_submit: stepped on the control thread only */
	char act[160];        /* "METHOD path" for the audit log */
	struct web_job *next;
};

struct web_auth_worker {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct web_job *q, *q_tail, *done;   /* q: FIFO */
	unsigned inflight;
	int efd;
	bool stop;
	struct db *db;        /* the task thread's own connection (NULL for the KDF thread) */
};

static void job_free(struct web_job *j)
{
	explicit_bzero(j, sizeof(*j));
	free(j);
}

static void *worker_main(void *arg)
{
	struct web_auth_worker *a = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct web_job *j;

		while (!a->q && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop)
			break;
		j = a->q;
		a->q = j->next;
		if (!a->q)
			a->q_tail = NULL;
		pthread_mutex_unlock(&a->mu);
		if (j->kind == JOB_TASK) {
			j->run(j->arg, a->db);
		} else if (j->kind == JOB_LOGIN) {
			j->result = db_pw_check(j->pw, j->stored);
			explicit_bzero(j->stored, sizeof(j->stored));
		} else {
			j->result = db_pw_make(j->pw, j->stored);
		}
		explicit_bzero(j->pw, sizeof(j->pw));
		pthread_mutex_lock(&a->mu);
		j->next = a->done;
		a->done = j;
		if (write(a->efd, &one, sizeof(one)) < 0)
			log_error("web", "auth worker: eventfd write failed");
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

static void finish_login(struct web *w, struct web_job *j);
static void finish_user(struct web *w, struct web_job *j);
static void task_step(void *arg);

static void worker_ready_on(struct web *w, struct web_auth_worker *a, int fd)
{
	struct web_job *list, *j;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_error("web", "auth worker: eventfd read failed");
	pthread_mutex_lock(&a->mu);
	list = a->done;
	a->done = NULL;
	pthread_mutex_unlock(&a->mu);
	while ((j = list)) {
		list = j->next;
		a->inflight--;
		if (j->kind == JOB_TASK) {
			task_step(j);   /* frees j when the last step is done */
			continue;
		}
		if (j->kind == JOB_LOGIN)
			finish_login(w, j);
		else
			finish_user(w, j);
		job_free(j);
	}
}

static void worker_ready(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)events;
	worker_ready_on(arg, ((struct web *)arg)->aw, fd);
}

static void task_ready(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)events;
	worker_ready_on(arg, ((struct web *)arg)->tw, fd);
}

static int worker_start_on(struct web *w, struct web_auth_worker **out, bool tasks)
{
	struct web_auth_worker *a = calloc(1, sizeof(*a));
	int rc;

	if (!a)
		return -ENOMEM;
	if (tasks && (rc = db_open_peer(w->db, &a->db)) < 0) {
		free(a);
		return rc;
	}
	a->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->efd < 0) {
		rc = -errno;
		free(a);
		return rc;
	}
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	rc = ev_fd_add(w->loop, a->efd, EV_READ, tasks ? task_ready : worker_ready, w);
	if (rc == 0 && (rc = -pthread_create(&a->th, NULL, worker_main, a)) != 0)
		ev_fd_del(w->loop, a->efd);
	if (rc == 0)
		pthread_setname_np(a->th, tasks ? "web-task" : "web-kdf");
	if (rc < 0) {
		close(a->efd);
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->cv);
		db_close(a->db);
		free(a);
		return rc;
	}
	*out = a;
	return 0;
}

static int worker_start(struct web *w)
{
	return worker_start_on(w, &w->aw, false);
}

static void worker_stop(struct web *w, struct web_auth_worker *a);

void web_auth_stop(struct web *w)
{
	worker_stop(w, w->aw);
	w->aw = NULL;
	worker_stop(w, w->tw);
	w->tw = NULL;
}

static void worker_stop(struct web *w, struct web_auth_worker *a)
{
	struct web_job *j;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	ev_fd_del(w->loop, a->efd);
	close(a->efd);
	while ((j = a->q)) {
		a->q = j->next;
		job_free(j);
	}
	while ((j = a->done)) {
		a->done = j->next;
		job_free(j);
	}
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	db_close(a->db);
	free(a);
}

void web_job_bind(struct web_job *j, struct web_conn *c, int32_t stream)
{
	j->conn_id = c->id;
	j->stream = stream;
}

static int job_submit_on(struct web *w, struct web_auth_worker *a, struct web_job *j);

/* Hand j to the KDF thread. 0, or -EBUSY (too many in flight), -errno. */
static int job_submit(struct web *w, struct web_job *j)
{
	int rc;

	if (!w->aw && (rc = worker_start(w)) < 0)
		return rc;
	return job_submit_on(w, w->aw, j);
}

static int job_submit_on(struct web *w, struct web_auth_worker *a, struct web_job *j)
{
	if (a->inflight >= WEB_MAX_AUTH_JOBS)
		return -EBUSY;
	j->w = w;
	pthread_mutex_lock(&a->mu);
	if (a->q_tail)
		a->q_tail->next = j;
	else
		a->q = j;
	a->q_tail = j;
	a->inflight++;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return 0;
}

/* Deliver resp (consumed) to where job j's request came from. */
static void job_answer(struct web *w, struct web_job *j, struct web_resp *resp)
{
	struct web_conn *c;

	web_count_status(w, resp->status);
	c = web_conn_find(w, j->conn_id);
	if (!c) {   /* the client went away meanwhile */
		web_resp_free(resp);
		return;
	}
	if ((c->state == CONN_H2 ? web_h2_deliver(c, j->stream, resp) : web_h1_deliver(c, resp)) < 0) {
		web_resp_free(resp);
		web_conn_close(c);
		return;
	}
	web_conn_kick(c);
}

int web_task_submit(struct web *w, const struct web_req *req, struct web_resp *resp, web_task_run run,
		    web_task_step step, void *arg, bool writes)
{
	struct web_job *j;
	int rc;

	if (w->task_busy) {
		web_resp_error(resp, 503, NULL, "an import, export, backup or restore is running; try again");
		resp->retry_after = 1;
		return -EBUSY;
	}
	if (!w->tw && (rc = worker_start_on(w, &w->tw, true)) < 0)
		return rc;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->kind = JOB_TASK;
	j->run = run;
	j->step = step;
	j->arg = arg;
	j->writes = writes;
	snprintf(j->who, sizeof(j->who), "%s", req->who[0] ? req->who : "?");
	snprintf(j->act, sizeof(j->act), "%s %.140s", req->method == WEB_POST ? "POST" : "GET", req->path);
	rc = job_submit_on(w, w->tw, j);
	if (rc < 0) {
		free(j);
		return rc;
	}
	w->task_busy = true;
	w->task_writing = writes;
	resp->status = WEB_STATUS_DEFERRED;
	resp->job = j;
	return 0;
}

int web_steps_submit(struct web *w, const struct web_req *req, struct web_resp *resp,
		     web_task_step step, void *arg)
{
	struct web_job *j;

	if (w->steps_inflight >= WEB_MAX_STEPPED) {
		web_resp_error(resp, 503, NULL, "too many large listings in progress; try again");
		resp->retry_after = 1;
		return -EBUSY;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->kind = JOB_TASK;
	j->step = step;
	j->arg = arg;
	j->local = true;
	j->w = w;
	snprintf(j->act, sizeof(j->act), "GET %.140s", req->path);   /* GETs are not audited */
	if (ev_defer(w->loop, task_step, j) < 0) {
		free(j);
		return -ENOMEM;
	}
	w->steps_inflight++;
	resp->status = WEB_STATUS_DEFERRED;
	resp->job = j;
	return 0;
}

/* On the control thread: one bounded step of a task's finish; the next one
 * after the loop has run the other events. */
static void task_step(void *arg)
{
	struct web_job *j = arg;
	struct web *w = j->w;
	struct web_resp resp;
	char det[16];

	memset(&resp, 0, sizeof(resp));
	if (j->step(w, j->arg, &resp) == 1) {
		web_resp_free(&resp);
		if (ev_defer(w->loop, task_step, j) == 0)
			return;
		log_error("web", "cannot defer a task step: the task ends here");
		web_resp_error(&resp, 500, NULL, "internal error");
	}
	if (j->local)
		w->steps_inflight--;
	else
		w->task_busy = w->task_writing = false;
	if (!resp.status)
		web_resp_error(&resp, 500, NULL, "internal error");
	if (resp.status < 400 && strncmp(j->act, "GET ", 4) != 0) {
		snprintf(det, sizeof(det), "%d", resp.status);
		if (db_audit_add(w->db, j->who, j->act, det) < 0)
			log_error("web", "audit log write failed for %s", j->act);
	}
	job_answer(w, j, &resp);
	job_free(j);
}

int web_user_write_deferred(struct web *w, const struct web_req *req, struct web_resp *resp,
			    const char *name, int role, const char *password, bool create)
{
	struct web_job *j = calloc(1, sizeof(*j));
	int rc;

	if (!j)
		return -ENOMEM;
	j->kind = create ? JOB_USER_CREATE : JOB_USER_UPDATE;
	j->role = role;
	snprintf(j->user, sizeof(j->user), "%s", name);
	snprintf(j->pw, sizeof(j->pw), "%s", password);
	snprintf(j->who, sizeof(j->who), "%s", req->who[0] ? req->who : "?");
	rc = job_submit(w, j);
	if (rc == -EBUSY) {
		job_free(j);
		web_resp_error(resp, 503, NULL, "too many password operations in progress; try again");
		resp->retry_after = 1;
		return 0;
	}
	if (rc < 0) {
		job_free(j);
		return rc;
	}
	resp->status = WEB_STATUS_DEFERRED;
	resp->job = j;
	return 0;
}

/* On the loop thread: store the new hash, audit, answer. */
static void finish_user(struct web *w, struct web_job *j)
{
	struct web_resp resp;
	char act[160], det[16];
	struct db_user u;
	int rc = j->result;

	memset(&resp, 0, sizeof(resp));
	if (rc == 0 && j->kind == JOB_USER_CREATE)
		rc = db_user_create_hashed(w->db, j->user, j->role, j->stored);
	else if (rc == 0) {
		/* Checked again now: the last admin may have changed meanwhile. */
		if (db_user_get(w->db, j->user, &u) < 0)
			rc = -ENOENT;
		else if (u.role == DB_ROLE_ADMIN && j->role && j->role != DB_ROLE_ADMIN &&
			 db_user_count_role(w->db, DB_ROLE_ADMIN) == 1)
			rc = -EPERM;
		else
			rc = db_user_update_hashed(w->db, j->user, j->role, j->stored);
		if (rc == 0 && !j->role)
			j->role = u.role;
		/* A new password ends the sessions made with the old one. */
		if (rc == 0)
			web_sessions_end_user(w, j->user);
	}
	explicit_bzero(j->stored, sizeof(j->stored));
	if (rc == -EEXIST)
		web_resp_error(&resp, 409, "name", "user %s exists", j->user);
	else if (rc == -ENOENT)
		web_resp_error(&resp, 404, "name", "no user %s", j->user);
	else if (rc == -EPERM)
		web_resp_error(&resp, 409, "role", "%s is the last admin", j->user);
	else if (rc < 0)
		web_resp_error(&resp, 500, NULL, "cannot store the user");
	else
		web_resp_json(&resp, j->kind == JOB_USER_CREATE ? 201 : 200,
			      json_pack("{s:s, s:s}", "name", j->user, "role", db_role_name(j->role)));
	if (resp.status < 400) {
		snprintf(act, sizeof(act), "%s /api/v1/users%s%s", j->kind == JOB_USER_CREATE ? "POST" : "PUT",
			 j->kind == JOB_USER_CREATE ? "" : "/", j->kind == JOB_USER_CREATE ? "" : j->user);
		snprintf(det, sizeof(det), "%d", resp.status);
		db_audit_add(w->db, j->who, act, det);
	}
	job_answer(w, j, &resp);
}

/* A login body the route refuses before anything is looked up: 1 with the
 * answer in resp, 0 if user and pw may go on. */
static int login_req_refused(const struct web_req *req, const json_t *j, const char *user,
			     const char *pw, struct web_resp *resp)
{
	/* Login CSRF: a cross-site form (or a no-cors fetch) posts text/plain,
	 * urlencoded or multipart, never application/json without a CORS
	 * preflight we do not grant; and a browser names the page's origin,
	 * which must be this server. (No Content-Type at all: a script, not a
	 * browser form.) */
	if (req->form_body) {
		web_resp_error(resp, 415, "Content-Type", "login needs Content-Type: application/json");
		return 1;
	}
	if (req->cross_origin) {
		web_resp_error(resp, 403, "Origin", "login from another origin is refused");
		return 1;
	}
	if (!json_is_object(j) || !user || !db_name_valid(user)) {
		web_resp_error(resp, 400, "user", "a JSON object with \"user\" and \"password\" is needed");
		return 1;
	}
	if (!pw || strlen(pw) > DB_PASSWORD_MAX) {
		web_resp_error(resp, 400, "password", "password is required (at most %d characters)",
			       DB_PASSWORD_MAX);
		return 1;
	}
	return 0;
}

/* Rate limit before the KDF: a locked name costs nothing to refuse.
 * Attempts still running count as failures until they succeed. The
 * name's slot, or NULL with a 429 (audited) in resp. */
static struct web_login_slot *login_throttle(struct web *w, const char *user, uint64_t now,
					     struct web_resp *resp)
{
	struct web_login_slot *l;

	if (w->login_global_start + w->lim.login_lock_s <= now) {
		w->login_global_start = now;
		w->login_global_fails = 0;
	}
	l = login_slot(w, user, now);
	if (l->window_start + w->lim.login_lock_s <= now && l->locked_until <= now) {
		l->window_start = now;
		l->fails = 0;
	}
	if (l->locked_until > now || l->fails >= w->lim.login_max_fails ||
	    w->login_global_fails >= 10 * w->lim.login_max_fails) {
		uint64_t until = l->locked_until > now ? l->locked_until : w->login_global_start + w->lim.login_lock_s;

		w->logins_limited++;
		db_audit_add(w->db, user, "login refused", "rate limited");
		web_resp_error(resp, 429, "user", "too many failed logins; try again later");
		resp->retry_after = (unsigned)(until > now ? until - now : 1);
		return NULL;
	}
	return l;
}

static int h_login(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	json_error_t jerr;
	json_t *j = json_loadb((const char *)req->body, req->body_len, 0, &jerr);
	const char *user = json_string_value(json_object_get(j, "user"));
	const char *pw = json_string_value(json_object_get(j, "password"));
	uint64_t now = web_mono_s();
	struct web_login_slot *l;
	struct web_job *job = NULL;
	int rc;

	(void)arg;
	if (login_req_refused(req, j, user, pw, resp))
		goto out;
	l = login_throttle(w, user, now, resp);
	if (!l)
		goto out;
	job = calloc(1, sizeof(*job));
	if (!job || db_user_pw_get(w->db, user, job->stored, &job->role) < 0)
		goto fail;
	job->kind = JOB_LOGIN;
	snprintf(job->user, sizeof(job->user), "%s", user);
	snprintf(job->pw, sizeof(job->pw), "%s", pw);
	rc = job_submit(w, job);
	if (rc == -EBUSY) {
		job_free(job);
		web_resp_error(resp, 503, NULL, "too many logins in progress; try again");
		resp->retry_after = 1;
		goto out;
	}
	if (rc < 0)
		goto fail;
	/* A running attempt counts as a failure until it succeeds. */
	l->fails++;
	w->login_global_fails++;
	resp->status = WEB_STATUS_DEFERRED;
	resp->job = job;
	goto out;
fail:
	if (job)
		job_free(job);
	web_resp_error(resp, 500, NULL, "login failed");
out:
	/* The password was in the body and in jansson's copy (wiped on free). */
	json_decref(j);
	return 0;
}

/* On the loop thread: the KDF's verdict becomes the answer. */
static void finish_login(struct web *w, struct web_job *j)
{
	struct web_resp resp;
	struct web_login_slot *l;
	uint64_t now = web_mono_s();
	char sid[65];

	memset(&resp, 0, sizeof(resp));
	l = login_slot(w, j->user, now);
	if (j->result < 0 || !j->role) {
		w->logins_failed++;
		if (l->fails >= w->lim.login_max_fails)
			l->locked_until = now + w->lim.login_lock_s;
		db_audit_add(w->db, j->user, "login failed", "bad user or password");
		web_resp_error(&resp, 401, "password", "wrong user name or password");
	} else {
		struct web_session *s = session_new(w, j->user, (enum web_role)j->role, sid);

		if (w->login_global_fails)
			w->login_global_fails--;
		l->fails = 0;
		l->locked_until = 0;
		if (!s) {
			web_resp_error(&resp, 500, NULL, "login failed");
		} else {
			w->logins_ok++;
			snprintf(resp.set_cookie, sizeof(resp.set_cookie),
				 WEB_SESSION_COOKIE "=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Strict%s", sid,
				 WEB_SESSION_TTL_S, w->tls ? "; Secure" : "");
			explicit_bzero(sid, sizeof(sid));
			db_audit_add(w->db, j->user, "login", db_role_name(j->role));
			web_resp_json(&resp, 200, json_pack("{s:s, s:s, s:s}", "user", j->user, "role",
							    db_role_name(j->role), "csrf", s->csrf));
		}
	}
	job_answer(w, j, &resp);
}

static int h_logout(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	(void)arg;
	/* The caller's own session only: a token holder (read-only included)
	 * cannot end its owner's browser sessions. */
	for (unsigned i = 0; req->by_cookie && i < WEB_MAX_SESSIONS; i++)
		if (w->sessions[i].expires && CRYPTO_memcmp(w->sessions[i].id_hash, req->sess_hash, 32) == 0)
			explicit_bzero(&w->sessions[i], sizeof(w->sessions[i]));
	snprintf(resp->set_cookie, sizeof(resp->set_cookie),
		 WEB_SESSION_COOKIE "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict%s", w->tls ? "; Secure" : "");
	web_resp_text(resp, 204, NULL, NULL, 0);
	return 0;
}

void web_sessions_end_user(struct web *w, const char *user)
{
	for (unsigned i = 0; i < WEB_MAX_SESSIONS; i++)
		if (w->sessions[i].expires && !strcmp(w->sessions[i].user, user))
			explicit_bzero(&w->sessions[i], sizeof(w->sessions[i]));
}

static int h_session(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	(void)w;
	(void)arg;
	web_resp_json(resp, 200, json_pack("{s:s, s:s}", "user", req->user[0] ? req->user : req->who,
					   "role", db_role_name((int)req->role)));
	return 0;
}

int web_first_admin(struct web *w)
{
	static const char a[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
	uint8_t b[20];
	char pw[21];
	int64_t n = db_user_count(w->db);
	int rc;

	if (n != 0)
		return n < 0 ? (int)n : 0;
	if (RAND_bytes(b, sizeof(b)) != 1)
		return -EIO;
	for (unsigned i = 0; i < sizeof(b); i++)
		pw[i] = a[b[i] % (sizeof(a) - 1)];
	pw[20] = 0;
	rc = db_user_create(w->db, "admin", DB_ROLE_ADMIN, pw);
	if (rc == 0) {
		db_audit_add(w->db, "solocore", "users create", "admin (first start)");
		/* stdout, not the log: the log may be shipped elsewhere. */
		printf("solocore: first start: web user \"admin\" created with password %s\n"
		       "solocore: it is shown only this once; change it (PUT /api/v1/users/admin)\n", pw);
		fflush(stdout);
		log_info("web", "first start: web user admin created (password printed on stdout)");
	}
	explicit_bzero(pw, sizeof(pw));
	explicit_bzero(b, sizeof(b));
	return rc;
}

static void login_metrics(struct web_metrics_out *o, void *arg)
{
	struct web *w = arg;

	web_metrics_printf(o, "# HELP solocore_web_logins_total web UI logins by result\n"
			   "# TYPE solocore_web_logins_total counter\n"
			   "solocore_web_logins_total{result=\"ok\"} %llu\n"
			   "solocore_web_logins_total{result=\"failed\"} %llu\n"
			   "solocore_web_logins_total{result=\"rate_limited\"} %llu\n",
			   (unsigned long long)w->logins_ok, (unsigned long long)w->logins_failed,
			   (unsigned long long)w->logins_limited);
}

int web_api_auth_routes(struct web *w)
{
	int rc = web_route_add(w, WEB_POST, "/api/v1/login", WEB_ROLE_NONE, h_login, NULL);

	if (rc == 0)
		rc = web_metrics_register(w, login_metrics, w);
	if (rc == 0)
		rc = web_route_add(w, WEB_POST, "/api/v1/logout", WEB_ROLE_READ, h_logout, NULL);
	if (rc == 0)
		rc = web_route_add(w, WEB_GET, "/api/v1/session", WEB_ROLE_READ, h_session, NULL);
	return rc;
}
