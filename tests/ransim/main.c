/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim - command line of the gNB/UE simulator (see ransim.h).
 *
 *   ransim --sims FILE.toml [options]
 *
 * Exit: 0 every UE finished its plan, 1 some failed (see the report), 2 usage,
 * 77 the SCTP backend is not available here.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/crypto/crypto.h"
#include "common/ev.h"
#include "common/log.h"
#include "ransim.h"

static const char usage_text[] =
	"usage: ransim --sims FILE.toml [options]\n"
	"  -c, --config FILE     solocore.yaml: PLMN, TAC, slice, N2 port and SUCI keys from it\n"
	"  --addr IP --port N    AMF address (127.0.0.1) and SCTP port (38412)\n"
	"  --local-addr IP       bind the gNBs to this address\n"
	"  --backend B           usrsctp (default) | kernel | auto\n"
	"  --encap E             raw (default) | udp   (usrsctp)\n"
	"  --udp-port N --udp-peer-port N   usrsctp UDP encapsulation ports\n"
	"  --gnbs N --ues N --concurrency N\n"
	"  --nia LIST --nea LIST offered algorithms, e.g. 0,1,2,3 (UE security capability)\n"
	"  --expect-nia N --expect-nea N    fail a UE when the AMF selects something else\n"
	"  --suci null|A|B --hn-key-id N --hn-pub HEX   SUCI scheme (key from -c when no --hn-pub)\n"
	"  --plmn MCCMNC --home-plmn MCCMNC --tac N --sst N --sd HEX|none\n"
	"  --req-sst N --req-sd HEX|none  requested S-NSSAI (default: the gNB's)\n"
	"  --unknown-guti        register first with a 5G-GUTI the AMF cannot know\n"
	"  --cuc                 expect a Configuration Update Command after registering\n"
	"  --bad-mac             send each Registration Complete once with a corrupted MAC first\n"
	"  --drop-assoc          abort gNB 0's association on the first Authentication Request,\n"
	"                        reconnect and register again\n"
	"  --dereg normal|switch-off|none\n"
	"  --timeout SECS (60)   whole run;  --ue-timeout MS (10000) per network answer\n"
	"  --pcap FILE           write every NGAP PDU (IPv4/SCTP, PPID 60)\n"
	"  -v                    debug logs\n";

static int usage(const char *why)
{
	fprintf(stderr, "ransim: %s\n%s", why, usage_text);
	return 2;
}

static int alg_list(const char *s, uint8_t *bits)
{
	*bits = 0;
	for (; *s; s++) {
		if (*s == ',' || *s == ' ')
			continue;
		if (*s < '0' || *s > '7')
			return -EINVAL;
		*bits |= (uint8_t)(0x80 >> (*s - '0'));  /* TS 24.501 9.11.3.54: bit 8 = algorithm 0 */
	}
	return 0;
}

static int unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = strlen(s), i;
	unsigned v;

	if (n % 2 || n / 2 > cap)
		return -EINVAL;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

static int split_plmn(const char *s, char mcc[4], char mnc[4])
{
	size_t n = strlen(s);

	if (n != 5 && n != 6)
		return -EINVAL;
	memcpy(mcc, s, 3);
	mcc[3] = '\0';
	memcpy(mnc, s + 3, n - 3);
	mnc[n - 3] = '\0';
	return 0;
}

static uint32_t parse_sd(const char *s)
{
	return strcmp(s, "none") ? (uint32_t)strtoul(s, NULL, 16) & 0xffffff : 0xffffff;
}

/* Network and SUCI key from a solocore configuration file. */
static int apply_conf(struct ransim_cfg *cfg, const char *path, int want_key_id)
{
	struct conf *c = calloc(1, sizeof(*c));
	char err[512], hex[65];
	struct crypto_hn_key *key;
	unsigned i, j;
	int rc;

	if (!c)
		return -ENOMEM;
	if (conf_load(c, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "ransim: %s\n", err);
		free(c);
		return -EINVAL;
	}
	snprintf(cfg->mcc, sizeof(cfg->mcc), "%s", c->plmn.mcc);
	snprintf(cfg->mnc, sizeof(cfg->mnc), "%s", c->plmn.mnc);
	if (c->n_tac)
		cfg->tac = c->tac[0];
	if (c->n_slices) {
		cfg->sst = cfg->req_sst = c->slices[0].sst;
		cfg->sd = cfg->req_sd = c->slices[0].has_sd ? c->slices[0].sd : 0xffffff;
	}
	cfg->port = c->n2.port;
	for (i = 0; i < c->suci.n_keys; i++) {
		const struct conf_suci_key *k = &c->suci.keys[i];
		enum crypto_suci_scheme sch = k->scheme == CONF_SUCI_A ? CRYPTO_SUCI_PROFILE_A : CRYPTO_SUCI_PROFILE_B;

		if (!k->has_key || (want_key_id >= 0 && k->id != want_key_id) ||
		    (cfg->suci == RANSIM_SUCI_A && sch != CRYPTO_SUCI_PROFILE_A) ||
		    (cfg->suci == RANSIM_SUCI_B && sch != CRYPTO_SUCI_PROFILE_B) || cfg->hn_pub_len)
			continue;
		for (j = 0; j < 32; j++)
			snprintf(hex + 2 * j, 3, "%02x", k->private_key[j]);
		rc = crypto_hn_key_from_hex(&key, sch, k->id, hex);
		memset(hex, 0, sizeof(hex));
		if (rc < 0)
			continue;
		rc = crypto_hn_key_public(key, cfg->hn_pub, sizeof(cfg->hn_pub));
		crypto_hn_key_free(key);
		if (rc > 0) {
			cfg->hn_pub_len = (size_t)rc;
			cfg->hn_key_id = k->id;
		}
	}
	conf_free(c);
	free(c);
	return 0;
}

enum {
	O_ADDR = 256, O_PORT, O_LOCAL, O_BACKEND, O_ENCAP, O_UDP, O_UDPPEER, O_GNBS, O_UES, O_CONC, O_NIA,
	O_NEA, O_XNIA, O_XNEA, O_SUCI, O_KEYID, O_HNPUB, O_PLMN, O_HPLMN, O_TAC, O_SST, O_SD, O_RSST, O_RSD,
	O_GUTI, O_CUC, O_BADMAC, O_DROP, O_DEREG, O_TIMEOUT, O_UETO, O_PCAP, O_SIMS,
};

static volatile sig_atomic_t stop_req;
static void on_sig(int s)
{
	(void)s;
	stop_req = 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", 1, NULL, 'c' }, { "sims", 1, NULL, O_SIMS }, { "addr", 1, NULL, O_ADDR },
		{ "port", 1, NULL, O_PORT }, { "local-addr", 1, NULL, O_LOCAL }, { "backend", 1, NULL, O_BACKEND },
		{ "encap", 1, NULL, O_ENCAP }, { "udp-port", 1, NULL, O_UDP }, { "udp-peer-port", 1, NULL, O_UDPPEER },
		{ "gnbs", 1, NULL, O_GNBS }, { "ues", 1, NULL, O_UES }, { "concurrency", 1, NULL, O_CONC },
		{ "nia", 1, NULL, O_NIA }, { "nea", 1, NULL, O_NEA }, { "expect-nia", 1, NULL, O_XNIA },
		{ "expect-nea", 1, NULL, O_XNEA }, { "suci", 1, NULL, O_SUCI }, { "hn-key-id", 1, NULL, O_KEYID },
		{ "hn-pub", 1, NULL, O_HNPUB }, { "plmn", 1, NULL, O_PLMN }, { "home-plmn", 1, NULL, O_HPLMN },
		{ "tac", 1, NULL, O_TAC }, { "sst", 1, NULL, O_SST }, { "sd", 1, NULL, O_SD },
		{ "req-sst", 1, NULL, O_RSST }, { "req-sd", 1, NULL, O_RSD }, { "unknown-guti", 0, NULL, O_GUTI },
		{ "cuc", 0, NULL, O_CUC }, { "bad-mac", 0, NULL, O_BADMAC }, { "drop-assoc", 0, NULL, O_DROP },
		{ "dereg", 1, NULL, O_DEREG }, { "timeout", 1, NULL, O_TIMEOUT }, { "ue-timeout", 1, NULL, O_UETO },
		{ "pcap", 1, NULL, O_PCAP }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct ransim_cfg cfg;
	struct ransim_sim *sims = NULL;
	struct ransim *rs = NULL;
	struct ev_loop *loop;
	struct ransim_stats st;
	enum n2sctp_backend got;
	const char *conf_path = NULL, *sims_path = NULL;
	char err[512];
	unsigned n_sims = 0, timeout_s = 60;
	int ch, rc, key_id = -1, status = 1;
	bool req_sst_set = false, req_sd_set = false;
	uint64_t t0, t_end;

	ransim_cfg_init(&cfg);
	log_set_level(LOGL_WARN);
	while ((ch = getopt_long(argc, argv, "c:vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': conf_path = optarg; break;
		case 'v': cfg.verbose = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		case O_SIMS: sims_path = optarg; break;
		case O_ADDR: snprintf(cfg.addr, sizeof(cfg.addr), "%s", optarg); break;
		case O_PORT: cfg.port = (uint16_t)atoi(optarg); break;
		case O_LOCAL: snprintf(cfg.local_addr, sizeof(cfg.local_addr), "%s", optarg); break;
		case O_BACKEND:
			if (n2sctp_backend_parse(optarg, &cfg.sctp.backend) < 0)
				return usage("bad --backend");
			break;
		case O_ENCAP:
			if (n2sctp_encap_parse(optarg, &cfg.sctp.encap) < 0)
				return usage("bad --encap");
			break;
		case O_UDP: cfg.sctp.udp_port = (uint16_t)atoi(optarg); break;
		case O_UDPPEER: cfg.sctp.udp_peer_port = (uint16_t)atoi(optarg); break;
		case O_GNBS: cfg.n_gnbs = (unsigned)atoi(optarg); break;
		case O_UES: cfg.n_ues = (unsigned)atoi(optarg); break;
		case O_CONC: cfg.concurrency = (unsigned)atoi(optarg); break;
		case O_NIA:
			if (alg_list(optarg, &cfg.ue_ia) < 0)
				return usage("bad --nia");
			break;
		case O_NEA:
			if (alg_list(optarg, &cfg.ue_ea) < 0)
				return usage("bad --nea");
			break;
		case O_XNIA: cfg.expect_nia = atoi(optarg); break;
		case O_XNEA: cfg.expect_nea = atoi(optarg); break;
		case O_SUCI:
			if (!strcmp(optarg, "null"))
				cfg.suci = RANSIM_SUCI_NULL;
			else if (!strcmp(optarg, "A"))
				cfg.suci = RANSIM_SUCI_A;
			else if (!strcmp(optarg, "B"))
				cfg.suci = RANSIM_SUCI_B;
			else
				return usage("bad --suci");
			break;
		case O_KEYID: key_id = atoi(optarg); cfg.hn_key_id = (uint8_t)key_id; break;
		case O_HNPUB:
			rc = unhex(optarg, cfg.hn_pub, sizeof(cfg.hn_pub));
			if (rc <= 0)
				return usage("bad --hn-pub");
			cfg.hn_pub_len = (size_t)rc;
			break;
		case O_PLMN:
			if (split_plmn(optarg, cfg.mcc, cfg.mnc) < 0)
				return usage("bad --plmn");
			break;
		case O_HPLMN:
			if (split_plmn(optarg, cfg.home_mcc, cfg.home_mnc) < 0)
				return usage("bad --home-plmn");
			break;
		case O_TAC: cfg.tac = (uint32_t)strtoul(optarg, NULL, 0) & 0xffffff; break;
		case O_SST: cfg.sst = (uint8_t)atoi(optarg); break;
		case O_SD: cfg.sd = parse_sd(optarg); break;
		case O_RSST: cfg.req_sst = (uint8_t)atoi(optarg); req_sst_set = true; break;
		case O_RSD: cfg.req_sd = parse_sd(optarg); req_sd_set = true; break;
		case O_GUTI: cfg.unknown_guti = true; break;
		case O_CUC: cfg.expect_cuc = true; break;
		case O_BADMAC: cfg.bad_mac = true; break;
		case O_DROP: cfg.drop_assoc = true; break;
		case O_DEREG:
			if (!strcmp(optarg, "normal"))
				cfg.dereg = RANSIM_DEREG_NORMAL;
			else if (!strcmp(optarg, "switch-off"))
				cfg.dereg = RANSIM_DEREG_SWITCH_OFF;
			else if (!strcmp(optarg, "none"))
				cfg.dereg = RANSIM_DEREG_NONE;
			else
				return usage("bad --dereg");
			break;
		case O_TIMEOUT: timeout_s = (unsigned)atoi(optarg); break;
		case O_UETO: cfg.ue_timeout_ms = (uint32_t)atoi(optarg); break;
		case O_PCAP: cfg.pcap = optarg; break;
		default: return usage("unknown option");
		}
	}
	if (!sims_path)
		return usage("--sims FILE is required");
	if (cfg.verbose)
		log_set_level(LOGL_DEBUG);
	if (conf_path) {
		/* The file gives the defaults; explicit options given after still win for the slice. */
		uint8_t sst = cfg.sst, rsst = cfg.req_sst;
		uint32_t sd = cfg.sd, rsd = cfg.req_sd;

		if (apply_conf(&cfg, conf_path, key_id) < 0)
			return 1;
		if (req_sst_set)
			cfg.req_sst = rsst;
		if (req_sd_set)
			cfg.req_sd = rsd;
		(void)sst;
		(void)sd;
	} else {
		if (!req_sst_set)
			cfg.req_sst = cfg.sst;
		if (!req_sd_set)
			cfg.req_sd = cfg.sd;
	}
	if (cfg.suci != RANSIM_SUCI_NULL && !cfg.hn_pub_len)
		return usage("SUCI profile A/B needs --hn-pub or a key in the -c file");
	if (n2sctp_backend_resolve(cfg.sctp.backend, &got, err, sizeof(err)) < 0) {
		printf("SKIP: %s\n", err);
		return 77;
	}
	rc = ransim_sims_load(sims_path, &sims, &n_sims, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ransim: %s\n", err);
		return 1;
	}
	loop = ev_loop_new(&rc);
	if (!loop)
		return 1;
	rs = ransim_new(loop, &cfg, sims, n_sims, &rc);
	memset(sims, 0, n_sims * sizeof(*sims));
	free(sims);
	if (!rs) {
		fprintf(stderr, "ransim: setup failed: %s\n", strerror(-rc));
		ev_loop_free(loop);
		return 1;
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	signal(SIGPIPE, SIG_IGN);
	t0 = ev_update_now(loop);
	if (ransim_start(rs) < 0) {
		fprintf(stderr, "ransim: cannot connect to %s:%u\n", cfg.addr, cfg.port);
		goto out;
	}
	t_end = t0 + (uint64_t)timeout_s * 1000000000ull;
	while (!ransim_done(rs) && !stop_req && ev_update_now(loop) < t_end)
		ev_run_once(loop, 50);
	t_end = ev_update_now(loop);
	if (!ransim_done(rs))
		fprintf(stderr, "ransim: %s before every UE finished\n", stop_req ? "stopped" : "timed out");
	/* Graceful SHUTDOWN so the AMF sees a normal association end; bounded wait. */
	ransim_shutdown(rs);
	{
		uint64_t until = ev_update_now(loop) + 500000000ull;

		while (ev_update_now(loop) < until)
			ev_run_once(loop, 20);
	}
	ransim_get_stats(rs, &st);
	printf("elapsed_ms %llu\n", (unsigned long long)((t_end - t0) / 1000000));
	ransim_report(rs, stdout);
	status = (ransim_done(rs) && st.ues_failed == 0) ? 0 : 1;
out:
	ransim_free(rs);
	ev_loop_free(loop);
	crypto_thread_cleanup();
	return status;
}
