/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * e2e_core - the core side of the end-to-end tests: exactly the start-up `solocore run`
 * is meant to do for control plane I (config -> db -> udm with SUCI keys and the SQN
 * writer -> ausf -> amf_start with the configured N2 backend), on one ev loop, plus what a
 * test needs to observe the AMF from outside:
 *
 *   e2e_core -c FILE [--ready FILE] [--stats FILE]
 *
 * --ready FILE   written ("ok\n") once N2 listens
 * --stats FILE   amf_get_stats() as "key value" lines, rewritten on SIGUSR1 and at exit
 * SIGTERM/SIGINT stop it (stats written, db writer flushed). Exit 0, 1 on start-up failure.
 *
 * It exists because `solocore run` does not start the modules yet (solocore.c's module
 * table is empty); once it does, the tests can run solocore itself.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "amf/amf.h"
#include "ausf/ausf.h"
#include "common/conf.h"
#include "common/crypto/crypto.h"
#include "common/ev.h"
#include "common/log.h"
#include "db/db.h"
#include "smf/smf.h"
#include <arpa/inet.h>
#include "udm/udm.h"

static struct {
	struct ev_loop *loop;
	struct amf *amf;
	struct smf *smf;
	const struct conf *conf;
	const char *stats_path;
} C;

static void write_stats(void)
{
	struct amf_stats s;
	char tmp[512];
	FILE *f;

	if (!C.stats_path || !C.amf)
		return;
	amf_get_stats(C.amf, &s);
	snprintf(tmp, sizeof(tmp), "%s.tmp", C.stats_path);
	f = fopen(tmp, "w");
	if (!f)
		return;
#define S(x) fprintf(f, #x " %llu\n", (unsigned long long)s.x)
	S(ngap_rx); S(ngap_tx); S(ngap_rx_bad); S(gnbs); S(ues); S(registered);
	S(reg_accepted); S(reg_rejected); S(auth_ok); S(auth_mac_fail); S(auth_sync_fail);
	S(auth_reject); S(smc_ok); S(smc_reject); S(nas_mac_fail); S(nas_dropped);
	S(t3550_expired); S(t3560_expired); S(t3570_expired); S(t3522_expired);
	S(implicit_dereg); S(dereg_ue); S(dereg_net); S(sm_forwarded); S(service_req); S(service_rej);
#undef S
	if (C.smf) {
		struct smf_stats m;
		unsigned i;

		smf_get_stats(C.smf, &m);
#define S(x) fprintf(f, "smf_" #x " %llu\n", (unsigned long long)m.x)
		S(sessions); S(est_accepted); S(est_rejected); S(rel_ue); S(rel_net); S(rel_local);
		S(up_deactivated); S(up_reactivated); S(n2_bad); S(n2_unexpected); S(send_failed);
#undef S
		/* addresses in use per DNN pool */
		for (i = 0; i < C.conf->n_dnns; i++) {
			uint32_t used = 0, size = 0;

			if (smf_pool_usage(C.smf, C.conf->dnns[i].name, &used, &size) == 0)
				fprintf(f, "pool_used %s %u\n", C.conf->dnns[i].name, used);
		}
	}
	fclose(f);
	rename(tmp, C.stats_path);
}

static void on_signal(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	struct signalfd_siginfo si;

	(void)events;
	(void)arg;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGUSR1) {
			write_stats();
			continue;
		}
		ev_stop(loop);
	}
}

static int load_keys(const struct conf *c, struct crypto_keyring *kr)
{
	char hex[65];
	unsigned i, j;
	int rc;

	for (i = 0; i < c->suci.n_keys; i++) {
		const struct conf_suci_key *k = &c->suci.keys[i];
		struct crypto_hn_key *key;

		if (!k->has_key)
			continue;
		for (j = 0; j < 32; j++)
			snprintf(hex + 2 * j, 3, "%02x", k->private_key[j]);
		rc = crypto_hn_key_from_hex(&key, k->scheme == CONF_SUCI_A ? CRYPTO_SUCI_PROFILE_A
									 : CRYPTO_SUCI_PROFILE_B, k->id, hex);
		memset(hex, 0, sizeof(hex));
		if (rc < 0)
			return rc;
		rc = crypto_keyring_add(kr, key);
		if (rc < 0) {
			crypto_hn_key_free(key);
			return rc;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", 1, NULL, 'c' }, { "ready", 1, NULL, 'r' }, { "stats", 1, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct conf *c = calloc(1, sizeof(*c));
	struct udm_sub_data defs;
	struct crypto_keyring *kr = NULL;
	struct db *db = NULL;
	struct db_writer *w = NULL;
	struct udm *udm = NULL;
	struct ausf *ausf = NULL;
	const char *path = NULL, *ready = NULL;
	char err[512];
	sigset_t mask;
	int64_t nsubs;
	int ch, rc, sfd = -1, status = 1;
	unsigned i;

	while ((ch = getopt_long(argc, argv, "c:", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': path = optarg; break;
		case 'r': ready = optarg; break;
		case 's': C.stats_path = optarg; break;
		default: fprintf(stderr, "usage: e2e_core -c FILE [--ready FILE] [--stats FILE]\n"); return 2;
		}
	}
	if (!c || !path)
		return 2;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (conf_load(c, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "e2e_core: %s\n", err);
		return 1;
	}
	log_set_level((enum log_level)c->log.level);
	for (i = 0; i < c->log.n_modules; i++)
		log_set_module_level(c->log.modules[i].name, (enum log_level)c->log.modules[i].level);
	C.loop = ev_loop_new(&rc);
	if (!C.loop)
		goto out;
	if ((rc = db_open(c->db.path, &db)) < 0) {
		log_error("e2e", "db %s: %s", c->db.path, strerror(-rc));
		goto out;
	}
	nsubs = db_subscriber_count(db);
	udm = udm_new((uint32_t)(nsubs > 0 ? nsubs : 0) + 64, &rc);
	kr = crypto_keyring_new();
	if (!udm || !kr || load_keys(c, kr) < 0) {
		log_error("e2e", "udm / SUCI keys failed");
		goto out;
	}
	udm_set_keyring(udm, kr);
	memset(&defs, 0, sizeof(defs));
	for (i = 0; i < c->n_slices && i < UDM_MAX_SLICES; i++) {
		defs.slices[i].sst = c->slices[i].sst;
		defs.slices[i].sd = c->slices[i].has_sd ? c->slices[i].sd : UDM_SD_NONE;
	}
	defs.n_slices = (uint8_t)i;
	for (i = 0; i < c->n_dnns && i < UDM_MAX_DNNS; i++)
		defs.dnns[i] = c->dnns[i].name;
	defs.n_dnns = (uint8_t)i;
	defs.ambr_ul_bps = defs.ambr_dl_bps = 1000000000ull;
	defs.qi5 = 9;
	defs.arp = 8;
	udm_set_defaults(udm, &defs);
	rc = udm_load_db(udm, db);
	if (rc < 0) {
		log_error("e2e", "loading subscribers: %s", strerror(-rc));
		goto out;
	}
	log_info("e2e", "%d subscribers loaded", rc);
	/* E2E_NO_SQN_WRITER=1: SQNs stay in memory (diagnostics: isolates the writer's cost). */
	if (!getenv("E2E_NO_SQN_WRITER")) {
		if (db_writer_start(db, NULL, &w) < 0)
			goto out;
		udm_use_db_writer(udm, w);
	}
	ausf = ausf_new(udm, &rc);
	if (!ausf)
		goto out;
	C.amf = amf_start(C.loop, c, ausf, udm, &rc);
	if (!C.amf) {
		log_error("e2e", "amf_start: %s", strerror(-rc));
		goto out;
	}
	/* The SMF (no user plane: addresses and TEIDs, upf.n3_address given to the gNBs),
	 * wired as amf.h says. */
	{
		struct smf_params p;
		struct in_addr n3 = { 0 };

		memset(&p, 0, sizeof(p));
		p.conf = c;
		p.loop = C.loop;
		p.udm = udm;
		p.upf = NULL;
		if (c->upf.n3_address[0])
			inet_pton(AF_INET, c->upf.n3_address, &n3);
		p.n3_addr = n3.s_addr;
		p.max_sessions = 4096;
		p.max_ues = 4096;
		amf_smf_ops(C.amf, &p.ops);
		C.smf = smf_new(&p, &rc);
		if (!C.smf) {
			log_error("e2e", "smf_new: %s", strerror(-rc));
			goto out;
		}
		amf_set_smf(C.amf, C.smf);
		C.conf = c;
	}
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0 || ev_fd_add(C.loop, sfd, EV_READ, on_signal, NULL) < 0)
		goto out;
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f) {
			fputs("ok\n", f);
			fclose(f);
		}
	}
	log_info("e2e", "running, N2 port %u", amf_n2_port(C.amf));
	ev_run(C.loop);
	write_stats();
	status = 0;
out:
	amf_stop(C.amf);
	C.amf = NULL;
	smf_free(C.smf);   /* right after the AMF, no loop iteration in between (amf.h) */
	C.smf = NULL;
	ausf_free(ausf);
	if (udm)
		udm_use_db_writer(udm, NULL);
	db_writer_stop(w);
	udm_free(udm);
	crypto_keyring_free(kr);
	db_close(db);
	if (sfd >= 0)
		close(sfd);
	ev_loop_free(C.loop);
	conf_free(c);
	free(c);
	crypto_thread_cleanup();
	return status;
}
