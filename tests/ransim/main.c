/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim - command line of the gNB/UE simulator (see ransim.h).
 *
 *   ransim --sims FILE.toml [options]
 *
 * Exit: 0 every UE finished its plan, 1 some failed (see the report), 2 usage,
 * 77 the SCTP backend is not available here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/crypto/crypto.h"
#include "common/ev.h"
#include "common/nas/nas.h"
#include "common/log.h"
#include <unistd.h>

#include "gtpu.h"
#include "ransim.h"
#ifdef RANSIM_LOAD
#include "load.h"
#define PROG "solocore-load"
#define USAGE_HEAD "usage: solocore-load cycle|register|sessions|handover --sims FILE.toml [options]\n" \
	"  cycle: the 27-message cycle per UE (registration, PDU session, AN release, service\n" \
	"  request, PDU session release, deregistration); register / sessions: hold the UEs\n" \
	"  (with a PDU session each) until --duration or SIGINT. Defaults here: --timeout 86400.\n" \
	"  handover (--gnbs 2+): as sessions, then --rate R handovers per second for --secs S,\n" \
	"  each UE in turn to the next gNB (--handover-mode); latency and, with --traffic, the\n" \
	"  user-plane interruption per handover (last G-PDU via the source -> first via the target)\n" \
	"  --rate R (100) --secs S (10)\n"
#else
#define PROG "ransim"
#define USAGE_HEAD "usage: ransim --sims FILE.toml [options]\n"
#endif

static const char usage_text[] =
	USAGE_HEAD
	"  -c, --config FILE     solocore.yaml: PLMN, TAC, slice, N2 port and SUCI keys from it\n"
	"  --addr IP --port N    AMF address (127.0.0.1) and SCTP port (38412)\n"
	"  --amf IP[:PORT[:UDP]][,..]  an AMF set instead (repeatable, up to 8; PORT: --port, UDP:\n"
	"                        --udp-peer-port): each gNB\n"
	"                        connects to every AMF (NG Setup each) and sends each UE to the\n"
	"                        AMF of its 5G-GUTI, else one of its set, else by capacity; a\n"
	"                        lost AMF's UEs register again via another (amf_* / failover_*)\n"
	"  --sctp-hb-ms MS --sctp-rto-ms MIN,MAX --sctp-max-retrans N   SCTP failure detection\n"
	"  --local-addr IP       bind the gNBs to this address\n"
	"  --backend B           usrsctp (default) | kernel | auto\n"
	"  --encap E             raw (default) | udp   (usrsctp)\n"
	"  --udp-port N --udp-peer-port N   usrsctp UDP encapsulation ports\n"
	"  --gnbs N --ues N --concurrency N\n"
	"  --nia LIST --nea LIST offered algorithms, e.g. 0,1,2,3 (UE security capability)\n"
	"  --expect-nia N --expect-nea N    fail a UE when the AMF selects something else\n"
	"  --suci null|A|B --hn-key-id N --hn-pub HEX   SUCI scheme (key from -c when no --hn-pub)\n"
	"  --plmn MCCMNC --home-plmn MCCMNC --tac N --sst N --sd HEX|none\n"
	"  --gnb-tacs T0,T1,..   TAC of gNB 0, 1, ... in NG Setup and ULI (the others: --tac); a\n"
	"                        handover into a TAC outside the UE's TAI list is followed by a\n"
	"                        mobility registration (mob_reg_* report lines)\n"
	"  --req-sst N --req-sd HEX|none  requested S-NSSAI (default: the gNB's)\n"
	"  --unknown-guti        register first with a 5G-GUTI the AMF cannot know\n"
	"  --cuc                 expect a Configuration Update Command after registering\n"
	"  --bad-mac             send each Registration Complete once with a corrupted MAC first\n"
	"  --drop-assoc          abort gNB 0's association on the first Authentication Request,\n"
	"                        reconnect and register again\n"
	"  --reregister          after registering: gNB release to CM-IDLE, then a periodic\n"
	"                        registration update with the 5G-GUTI (integrity protected)\n"
	"  --dereg normal|switch-off|none  --hold-ms MS (stay registered MS before deregistering)\n"
	"  --gnb-id-base N       gNB i has gNB ID N + i (22 bits; default 0x100)\n"
	"  --amf-ids FILE        write \"SUPI AMF-UE-NGAP-ID\" for each N2 connection as the AMF names it\n"
	"  --ps-guess            with --hold-ms: UE 0's gNB sends PATH SWITCH REQUESTs naming AMF UE\n"
	"                        NGAP IDs around UE 0's own (an attack, issue 31; ps_guess_* counted)\n"
	"  --sim-offset K        UE i uses SIM K+i of the file\n"
	"  --session             establish a PDU session after registering (then deregister)\n"
	"  --cycle               the 27-message cycle: registration, PDU session, AN release,\n"
	"                        service request, PDU session release, deregistration\n"
	"  --dnn NAME --pdu-snssai --psi N   DNN / S-NSSAI (--req-sst/--req-sd) / PSI (1) asked for\n"
	"  --pdu-type ipv4|ipv6|ipv4v6      PDU session type asked for (ipv4v6, as phones ask)\n"
	"  --radio-cap           UE Radio Capability Info Indication after each ICS Response\n"
	"  --unknown-service     send only a Service Request with an unknown 5G-S-TMSI\n"
	"  --restart-after MS    (sessions) once every UE holds its session and MS ms after the\n"
	"                        start: ABORT each gNB's association, NG Setup again, each UE\n"
	"                        back with a SERVICE REQUEST (report: restart_svc_ok)\n"
	"  --handover-after MS  (sessions, --gnbs 2+) once every UE holds its session and MS ms\n"
	"                        after the start (and every MS after): an Xn handover of each UE to\n"
	"                        the next gNB, PATH SWITCH REQUEST from the target (TS 38.413 8.4.4)\n"
	"  --handovers N         that many rounds (1)\n"
	"  --handover-mode M     xn (PATH SWITCH REQUEST), n2 (HANDOVER REQUIRED with direct\n"
	"                        forwarding over Xn) or n2-indirect (forwarding through the UPF)\n"
	"  --handover-fail F     n2: target (the target answers HANDOVER FAILURE) or cancel (the\n"
	"                        source sends HANDOVER CANCEL after the command); the UE stays\n"
	"  --svc-ies-clear       Service Request: uplink data / PDU session status in the clear\n"
	"                        (default: inside the ciphered NAS message container, TS 24.501 4.4.6)\n"
	"  --abort               at the end ABORT the associations instead of SHUTDOWN (gNB lost)\n"
	"  --passes N            run every UE's plan N times (a UE reruns once its run ended)\n"
	"  --duration SECS       stop starting UE runs after SECS (register/sessions: hold until then)\n"
	"  --json                (solocore-load) the final report as one JSON object\n"
	"  --no-progress         (solocore-load) no progress line on a terminal\n"
	"  --busy-poll US        spin up to US microseconds before sleeping (off by default;\n"
	"                        trades a busy CPU for latency: say so with any figure)\n"
	"  --timeout SECS (60)   whole run;  --ue-timeout MS (10000) per network answer\n"
	"  --pcap FILE           write every NGAP PDU (IPv4/SCTP, PPID 60)\n"
	"  --gnb-n3 IP           the gNBs' N3 address, IPv4 or IPv6: GTP-U socket on IP:2152\n"
	"                        (IPv6: [IP]:2152, IPv6 only), the DL tunnel address of Setup\n"
	"                        Response Transfers and handovers, 32 bits IPv4 / 128 bits IPv6\n"
	"                        (TS 38.413 9.3.2.4, TS 38.414 5.1; default --local-addr). The\n"
	"                        core's UL tunnel (32, 128 or 160 bits) must hold an address of\n"
	"                        that family, else the UE fails (setup_transfer_n3_family)\n"
	"  --traffic PPS         uplink G-PDUs per second over all UEs with a session (TS 29.281,\n"
	"                        PDU Session Container with the QFI); downlink G-PDUs counted\n"
	"  --traffic-size BYTES  inner IPv4/UDP packet size (100)\n"
	"  --traffic-dst IP      inner destination (default: the UPF's N3 address; needed for\n"
	"                        IPv4 traffic over an IPv6 N3)\n"
	"  --traffic-dst6 IP6    IPv6 traffic to IP6 from the UEs whose session has IPv6 (address from the RA)\n"
	"  --traffic-port N      inner UDP destination port (7, echo)\n"
	"  --traffic-secs SECS   stop the uplink SECS after its first packet (default: with the run)\n"
	"  --no-err-ind          no Error Indication (TS 29.281 7.3.1) for a downlink G-PDU on a TEID\n"
	"                        no UE holds here (sent by default, as a compliant gNB does)\n"
	"  --attack NAME         adversary (issue 13): UE 0 is the victim (register, PDU session,\n"
	"                        hold); a forger that knows its identities but not its K attacks on\n"
	"                        its own RAN-UE-NGAP-IDs, once per gNB; the victim must be untouched\n"
	"                        (adv_* report lines; exit 1 when it was harmed). Attacks:\n"
	"%s"
	"  --attack-events FILE  append the phases ready / attack_end / check; each waits for\n"
	"                        FILE.<phase>.ack (20 s at most)\n"
	"  --attack-quiet MS     a forger step ends after MS without a message for it (3000)\n"
	"  --attack-window MS    traffic windows before and after the attack (2000)\n"
	"  -v                    debug logs\n";

/* The usage text with the attack list in its place. */
static void print_usage(FILE *out)
{
	const char *at = strstr(usage_text, "%s");

	fwrite(usage_text, 1, (size_t)(at - usage_text), out);
	ransim_attack_list(out);
	fputs(at + 2, out);
}

static int usage(const char *why)
{
	fprintf(stderr, "%s: %s\n", PROG, why);
	print_usage(stderr);
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

/* The network (PLMN, first TAC and slice, N2 port) of a solocore configuration file. */
static int conf_network(struct ransim_cfg *cfg, const struct conf *c)
{
	snprintf(cfg->mcc, sizeof(cfg->mcc), "%s", c->plmn.mcc);
	snprintf(cfg->mnc, sizeof(cfg->mnc), "%s", c->plmn.mnc);
	if (c->n_tac)
		cfg->tac = c->tac[0];
	if (c->n_slices) {
		cfg->sst = c->slices[0].sst;
		cfg->sd = c->slices[0].has_sd ? c->slices[0].sd : 0xffffff;
	}
	cfg->port = c->n2.port;
	return 0;
}

/* The home network public key (TS 33.501 C.3) of the configuration's private key for the
 * chosen scheme (and key id when want_id >= 0), as a USIM would have it provisioned. */
static int conf_hn_key(struct ransim_cfg *cfg, const struct conf *c, int want_id)
{
	enum crypto_suci_scheme want = cfg->suci == RANSIM_SUCI_A ? CRYPTO_SUCI_PROFILE_A : CRYPTO_SUCI_PROFILE_B;
	struct crypto_hn_key *key;
	char hex[65];
	unsigned i, j;
	int rc;

	for (i = 0; i < c->suci.n_keys; i++) {
		const struct conf_suci_key *k = &c->suci.keys[i];
		enum crypto_suci_scheme sch = k->scheme == CONF_SUCI_A ? CRYPTO_SUCI_PROFILE_A : CRYPTO_SUCI_PROFILE_B;

		if (!k->has_key || sch != want || (want_id >= 0 && k->id != want_id))
			continue;
		for (j = 0; j < 32; j++)
			snprintf(hex + 2 * j, 3, "%02x", k->private_key[j]);
		rc = crypto_hn_key_from_hex(&key, sch, k->id, hex);
		memset(hex, 0, sizeof(hex));
		if (rc < 0)
			return rc;
		rc = crypto_hn_key_public(key, cfg->hn_pub, sizeof(cfg->hn_pub));
		crypto_hn_key_free(key);
		if (rc < 0)
			return rc;
		cfg->hn_pub_len = (size_t)rc;
		cfg->hn_key_id = k->id;
		return 0;
	}
	return -ENOENT;
}

enum {
	O_ADDR = 256, O_PORT, O_LOCAL, O_BACKEND, O_ENCAP, O_UDP, O_UDPPEER, O_GNBS, O_UES, O_CONC, O_NIA,
	O_NEA, O_XNIA, O_XNEA, O_SUCI, O_KEYID, O_HNPUB, O_PLMN, O_HPLMN, O_TAC, O_GNBTACS, O_SST, O_SD, O_RSST, O_RSD,
	O_GUTI, O_CUC, O_BADMAC, O_DROP, O_DEREG, O_TIMEOUT, O_UETO, O_PCAP, O_SIMS, O_REREG, O_HOLD, O_SIMOFF, O_PSGUESS, O_GNBIDB, O_AMFIDS,
	O_SESSION, O_CYCLE, O_DNN, O_PDUSN, O_PSI, O_RADIOCAP, O_UNKSVC, O_SVCCLEAR, O_RESTART, O_HOAFTER, O_HOS, O_HOMODE, O_HOFAIL, O_ABORT, O_PASSES, O_DURATION,
	O_JSON, O_NOPROG, O_BUSYPOLL, O_GNBN3, O_TRAFFIC, O_TSIZE, O_TDST, O_TPORT, O_TSECS, O_NOERRIND,
	O_ATTACK, O_AEVENTS, O_AQUIET, O_AWINDOW,
	O_HORATE, O_HOSECS, O_PDUTYPE, O_TDST6, O_AMF, O_SCTPHB, O_SCTPRTO, O_SCTPRETR,
};

static const struct option opts[] = {
	{ "config", 1, NULL, 'c' }, { "sims", 1, NULL, O_SIMS }, { "addr", 1, NULL, O_ADDR },
	{ "port", 1, NULL, O_PORT }, { "local-addr", 1, NULL, O_LOCAL }, { "backend", 1, NULL, O_BACKEND },
	{ "encap", 1, NULL, O_ENCAP }, { "udp-port", 1, NULL, O_UDP }, { "udp-peer-port", 1, NULL, O_UDPPEER },
	{ "gnbs", 1, NULL, O_GNBS }, { "ues", 1, NULL, O_UES }, { "concurrency", 1, NULL, O_CONC },
	{ "nia", 1, NULL, O_NIA }, { "nea", 1, NULL, O_NEA }, { "expect-nia", 1, NULL, O_XNIA },
	{ "expect-nea", 1, NULL, O_XNEA }, { "suci", 1, NULL, O_SUCI }, { "hn-key-id", 1, NULL, O_KEYID },
	{ "hn-pub", 1, NULL, O_HNPUB }, { "plmn", 1, NULL, O_PLMN }, { "home-plmn", 1, NULL, O_HPLMN },
	{ "tac", 1, NULL, O_TAC }, { "gnb-tacs", 1, NULL, O_GNBTACS }, { "sst", 1, NULL, O_SST }, { "sd", 1, NULL, O_SD },
	{ "req-sst", 1, NULL, O_RSST }, { "req-sd", 1, NULL, O_RSD }, { "unknown-guti", 0, NULL, O_GUTI },
	{ "cuc", 0, NULL, O_CUC }, { "bad-mac", 0, NULL, O_BADMAC }, { "drop-assoc", 0, NULL, O_DROP },
	{ "dereg", 1, NULL, O_DEREG }, { "timeout", 1, NULL, O_TIMEOUT }, { "ue-timeout", 1, NULL, O_UETO },
	{ "pcap", 1, NULL, O_PCAP }, { "reregister", 0, NULL, O_REREG }, { "help", 0, NULL, 'h' },
	{ "hold-ms", 1, NULL, O_HOLD }, { "sim-offset", 1, NULL, O_SIMOFF }, { "ps-guess", 0, NULL, O_PSGUESS },
	{ "gnb-id-base", 1, NULL, O_GNBIDB }, { "amf-ids", 1, NULL, O_AMFIDS },
	{ "session", 0, NULL, O_SESSION }, { "cycle", 0, NULL, O_CYCLE }, { "dnn", 1, NULL, O_DNN },
	{ "pdu-snssai", 0, NULL, O_PDUSN }, { "psi", 1, NULL, O_PSI }, { "radio-cap", 0, NULL, O_RADIOCAP },
	{ "unknown-service", 0, NULL, O_UNKSVC }, { "abort", 0, NULL, O_ABORT },
	{ "svc-ies-clear", 0, NULL, O_SVCCLEAR }, { "restart-after", 1, NULL, O_RESTART },
	{ "handover-after", 1, NULL, O_HOAFTER }, { "handovers", 1, NULL, O_HOS },
	{ "handover-mode", 1, NULL, O_HOMODE }, { "handover-fail", 1, NULL, O_HOFAIL },
	{ "passes", 1, NULL, O_PASSES }, { "duration", 1, NULL, O_DURATION }, { "json", 0, NULL, O_JSON },
	{ "no-progress", 0, NULL, O_NOPROG }, { "busy-poll", 1, NULL, O_BUSYPOLL },
	{ "gnb-n3", 1, NULL, O_GNBN3 }, { "traffic", 1, NULL, O_TRAFFIC }, { "traffic-size", 1, NULL, O_TSIZE },
	{ "traffic-dst", 1, NULL, O_TDST }, { "traffic-port", 1, NULL, O_TPORT }, { "traffic-secs", 1, NULL, O_TSECS },
	{ "no-err-ind", 0, NULL, O_NOERRIND },
	{ "attack", 1, NULL, O_ATTACK }, { "attack-events", 1, NULL, O_AEVENTS },
	{ "attack-quiet", 1, NULL, O_AQUIET }, { "attack-window", 1, NULL, O_AWINDOW },
	{ "rate", 1, NULL, O_HORATE }, { "secs", 1, NULL, O_HOSECS }, { "pdu-type", 1, NULL, O_PDUTYPE },
	{ "traffic-dst6", 1, NULL, O_TDST6 }, { "amf", 1, NULL, O_AMF }, { "sctp-hb-ms", 1, NULL, O_SCTPHB },
	{ "sctp-rto-ms", 1, NULL, O_SCTPRTO }, { "sctp-max-retrans", 1, NULL, O_SCTPRETR },
	{ NULL, 0, NULL, 0 },
};

struct args {
	struct ransim_cfg cfg;
	const char *conf_path, *sims_path;
	unsigned timeout_s;
	int key_id;
	bool req_sst_set, req_sd_set;
	bool abort, json, no_progress;
	unsigned duration_s;
	unsigned busy_poll_us;
	struct rs_gtpu_cfg gtpu;     /* N3 traffic (gtpu.h) when gtpu_on */
	bool gtpu_on;
#ifdef RANSIM_LOAD
	enum load_mode mode;
	unsigned ho_rate, ho_secs;   /* handover mode: --rate, --secs */
	struct load_ho *ho;          /* ... its driver (load_ho.c) */
#endif
};

/* --gnb-tacs 1,3: TAC i for gNB i (24 bits each). 0 or -1. */
static int gnb_tacs_parse(const char *v, struct ransim_cfg *c)
{
	char *end;

	c->n_gnb_tacs = 0;
	while (*v && c->n_gnb_tacs < RANSIM_MAX_GNBS) {
		unsigned long t = strtoul(v, &end, 0);

		if (end == v || t > 0xffffff || (*end && *end != ','))
			return -1;
		c->gnb_tacs[c->n_gnb_tacs++] = (uint32_t)t;
		v = *end ? end + 1 : end;
	}
	return *v || !c->n_gnb_tacs ? -1 : 0;
}

/* --handover-mode / --handover-fail */
static int ho_mode_parse(const char *v, struct ransim_cfg *c)
{
	if (!strcmp(v, "xn"))
		c->handover_mode = RANSIM_HO_XN;
	else if (!strcmp(v, "n2"))
		c->handover_mode = RANSIM_HO_N2;
	else if (!strcmp(v, "n2-indirect"))
		c->handover_mode = RANSIM_HO_N2_INDIRECT;
	else
		return -1;
	return 0;
}

static int ho_fail_parse(const char *v, struct ransim_cfg *c)
{
	if (!strcmp(v, "none"))
		c->handover_fail = RANSIM_HO_FAIL_NONE;
	else if (!strcmp(v, "target"))
		c->handover_fail = RANSIM_HO_FAIL_TARGET;
	else if (!strcmp(v, "cancel"))
		c->handover_fail = RANSIM_HO_FAIL_CANCEL;
	else
		return -1;
	return 0;
}

/* --amf IP[:PORT[:UDPPORT]][,...]: appended to the AMF set (issue 20 item 4). 0 or -EINVAL. */
static int amf_list(struct ransim_cfg *c, const char *v)
{
	char buf[512], *save = NULL, *tok, *colon;
	struct in_addr ia;

	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long port = 0, udp = 0;
		char *colon2;

		if (c->n_amfs >= RANSIM_MAX_AMFS)
			return -EINVAL;
		colon = strchr(tok, ':');
		if (colon) {
			*colon = '\0';
			colon2 = strchr(colon + 1, ':');
			if (colon2) {
				*colon2 = '\0';
				udp = strtoul(colon2 + 1, NULL, 10);
				if (!udp || udp > 65535)
					return -EINVAL;
			}
			port = strtoul(colon + 1, NULL, 10);
			if (!port || port > 65535)
				return -EINVAL;
		}
		if (inet_pton(AF_INET, tok, &ia) != 1)
			return -EINVAL;
		snprintf(c->amfs[c->n_amfs].addr, sizeof(c->amfs[c->n_amfs].addr), "%s", tok);
		c->amfs[c->n_amfs].port = (uint16_t)port;
		c->amfs[c->n_amfs].udp_peer_port = (uint16_t)udp;
		c->n_amfs++;
	}
	return 0;
}

/* One option (pass 2). 0, or an exit status. */
static int one_opt(struct args *a, int ch, const char *v)
{
	struct ransim_cfg *c = &a->cfg;
	int rc;

	switch (ch) {
	case 'c': break;   /* pass 1 */
	case 'v': c->verbose = true; break;
	case O_SIMS: a->sims_path = v; break;
	case O_ADDR: snprintf(c->addr, sizeof(c->addr), "%s", v); break;
	case O_PORT: c->port = (uint16_t)atoi(v); break;
	case O_LOCAL: snprintf(c->local_addr, sizeof(c->local_addr), "%s", v); break;
	case O_BACKEND: return n2sctp_backend_parse(v, &c->sctp.backend) < 0 ? usage("bad --backend") : 0;
	case O_ENCAP: return n2sctp_encap_parse(v, &c->sctp.encap) < 0 ? usage("bad --encap") : 0;
	case O_UDP: c->sctp.udp_port = (uint16_t)atoi(v); break;
	case O_UDPPEER: c->sctp.udp_peer_port = (uint16_t)atoi(v); break;
	case O_BUSYPOLL: a->busy_poll_us = (unsigned)atoi(v); break;
	case O_GNBS: c->n_gnbs = (unsigned)atoi(v); break;
	case O_UES: c->n_ues = (unsigned)atoi(v); break;
	case O_CONC: c->concurrency = (unsigned)atoi(v); break;
	case O_NIA: return alg_list(v, &c->ue_ia) < 0 ? usage("bad --nia") : 0;
	case O_NEA: return alg_list(v, &c->ue_ea) < 0 ? usage("bad --nea") : 0;
	case O_XNIA: c->expect_nia = atoi(v); break;
	case O_XNEA: c->expect_nea = atoi(v); break;
	case O_SUCI:
		if (!strcmp(v, "null"))
			c->suci = RANSIM_SUCI_NULL;
		else if (!strcmp(v, "A"))
			c->suci = RANSIM_SUCI_A;
		else if (!strcmp(v, "B"))
			c->suci = RANSIM_SUCI_B;
		else
			return usage("bad --suci");
		break;
	case O_KEYID: a->key_id = atoi(v); c->hn_key_id = (uint8_t)a->key_id; break;
	case O_HNPUB:
		rc = unhex(v, c->hn_pub, sizeof(c->hn_pub));
		if (rc <= 0)
			return usage("bad --hn-pub");
		c->hn_pub_len = (size_t)rc;
		break;
	case O_PLMN: return split_plmn(v, c->mcc, c->mnc) < 0 ? usage("bad --plmn") : 0;
	case O_HPLMN: return split_plmn(v, c->home_mcc, c->home_mnc) < 0 ? usage("bad --home-plmn") : 0;
	case O_TAC: c->tac = (uint32_t)strtoul(v, NULL, 0) & 0xffffff; break;
	case O_GNBTACS: return gnb_tacs_parse(v, c) < 0 ? usage("bad --gnb-tacs") : 0;
	case O_SST: c->sst = (uint8_t)atoi(v); break;
	case O_SD: c->sd = parse_sd(v); break;
	case O_RSST: c->req_sst = (uint8_t)atoi(v); a->req_sst_set = true; break;
	case O_RSD: c->req_sd = parse_sd(v); a->req_sd_set = true; break;
	case O_GUTI: c->unknown_guti = true; break;
	case O_CUC: c->expect_cuc = true; break;
	case O_BADMAC: c->bad_mac = true; break;
	case O_DROP: c->drop_assoc = true; break;
	case O_REREG: c->reregister = true; break;
	case O_HOLD: c->hold_ms = (uint32_t)atoi(v); break;
	case O_PSGUESS: c->ps_guess = true; break;
	case O_GNBIDB: c->gnb_id_base = (uint32_t)strtoul(v, NULL, 0) & 0x3fffff; break;
	case O_SIMOFF: c->sim_offset = (unsigned)atoi(v); break;
	case O_SESSION: c->session = true; break;
	case O_CYCLE: c->cycle = true; break;
	case O_DNN: snprintf(c->dnn, sizeof(c->dnn), "%s", v); break;
	case O_PDUSN: c->pdu_snssai = true; break;
	case O_PSI: c->psi = (uint8_t)atoi(v); break;
	case O_PDUTYPE:
		c->pdu_type = !strcmp(v, "ipv4") ? NAS_PDU_IPV4 : !strcmp(v, "ipv6") ? NAS_PDU_IPV6 :
			      !strcmp(v, "ipv4v6") ? NAS_PDU_IPV4V6 : 0;
		if (!c->pdu_type)
			return usage("bad --pdu-type (ipv4, ipv6, ipv4v6)");
		break;
	case O_RADIOCAP: c->radio_cap = true; break;
	case O_UNKSVC: c->unknown_service = true; break;
	case O_SVCCLEAR: c->svc_ies_clear = true; break;
	case O_RESTART: c->restart_after_ms = (unsigned)atoi(v); break;
	case O_HOAFTER: c->handover_after_ms = (unsigned)atoi(v); break;
	case O_HOS: c->handovers = (unsigned)atoi(v); break;
	case O_HOMODE: return ho_mode_parse(v, c) < 0 ? usage("bad --handover-mode") : 0;
	case O_HOFAIL: return ho_fail_parse(v, c) < 0 ? usage("bad --handover-fail") : 0;
	case O_ABORT: a->abort = true; break;
	case O_PASSES: c->passes = (unsigned)atoi(v); break;
	case O_DURATION: a->duration_s = (unsigned)atoi(v); break;
	case O_JSON: a->json = true; break;
	case O_NOPROG: a->no_progress = true; break;
	case O_DEREG:
		if (!strcmp(v, "normal"))
			c->dereg = RANSIM_DEREG_NORMAL;
		else if (!strcmp(v, "switch-off"))
			c->dereg = RANSIM_DEREG_SWITCH_OFF;
		else if (!strcmp(v, "none"))
			c->dereg = RANSIM_DEREG_NONE;
		else
			return usage("bad --dereg");
		break;
	case O_TIMEOUT: a->timeout_s = (unsigned)atoi(v); break;
	case O_UETO: c->ue_timeout_ms = (uint32_t)atoi(v); break;
	case O_PCAP: c->pcap = v; break;
	case O_AMFIDS: c->amf_ids = v; break;
	case O_GNBN3:
		a->gtpu_on = true;
		return rs_n3_addr_parse(v, &a->gtpu.gnb_n3) == 0 ? 0 : usage("bad --gnb-n3");
	case O_TRAFFIC: a->gtpu.pps = (uint32_t)atoi(v); a->gtpu_on = true; break;
	case O_TSIZE: a->gtpu.size = (uint16_t)atoi(v); break;
	case O_TDST: return inet_pton(AF_INET, v, &a->gtpu.dst) == 1 ? 0 : usage("bad --traffic-dst");
	case O_TDST6:
		a->gtpu.has_dst6 = true;
		return inet_pton(AF_INET6, v, a->gtpu.dst6) == 1 ? 0 : usage("bad --traffic-dst6");
	case O_TPORT: a->gtpu.dst_port = (uint16_t)atoi(v); break;
	case O_TSECS: a->gtpu.secs = (uint32_t)atoi(v); break;
	case O_NOERRIND: a->gtpu.no_err_ind = true; break;
	case O_ATTACK:
		rc = ransim_attack_suci(v);
		if (rc < 0)
			return usage("unknown --attack");
		c->attack = v;
		if (rc != 3)
			c->suci = (enum ransim_suci)rc;   /* the attack needs this SUCI scheme */
		break;
	case O_AEVENTS: c->attack_events = v; break;
	case O_AQUIET: c->attack_quiet_ms = (uint32_t)atoi(v); break;
	case O_AWINDOW: c->attack_window_ms = (uint32_t)atoi(v); break;
#ifdef RANSIM_LOAD
	case O_HORATE: a->ho_rate = (unsigned)atoi(v); break;
	case O_HOSECS: a->ho_secs = (unsigned)atoi(v); break;
#endif
	case O_AMF: return amf_list(c, v) < 0 ? usage("bad --amf (IP[:PORT[:UDPPORT]][,...], at most 8)") : 0;
	case O_SCTPHB: c->sctp.hb_interval_ms = (uint32_t)atoi(v); break;
	case O_SCTPRTO:
		if (sscanf(v, "%u,%u", &c->sctp.rto_min_ms, &c->sctp.rto_max_ms) != 2)
			return usage("bad --sctp-rto-ms (MIN,MAX)");
		c->sctp.rto_initial_ms = c->sctp.rto_min_ms;
		break;
	case O_SCTPRETR: c->sctp.max_retrans = (uint16_t)atoi(v); break;
	default: return usage("unknown option");
	}
	return 0;
}

/* Pass 1 reads -c (the network of the configuration file is the base), pass 2 every
 * option (explicit options win); then the SUCI key from the file if none was given. */
static int parse_args(struct args *a, int argc, char **argv)
{
	struct conf *c = NULL;
	char err[512];
	int ch, rc = 0;

	memset(a, 0, sizeof(*a));
	ransim_cfg_init(&a->cfg);
#ifdef RANSIM_LOAD
	a->timeout_s = 86400;
	a->cfg.expect_cuc = true;   /* the AMF sends a CUC after every initial registration */
#else
	a->timeout_s = 60;
#endif
	a->key_id = -1;
	a->gtpu.size = 100;
	a->gtpu.dst_port = 7;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "c:vh", opts, NULL)) != -1) {
		if (ch == 'h') {
			print_usage(stdout);
			return -1;
		}
		if (ch == 'c')
			a->conf_path = optarg;
	}
	if (a->conf_path) {
		c = calloc(1, sizeof(*c));
		if (!c || conf_load(c, a->conf_path, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s: %s\n", PROG, c ? err : "out of memory");
			free(c);
			return 1;
		}
		conf_network(&a->cfg, c);
	}
	optind = 1;
	while (!rc && (ch = getopt_long(argc, argv, "c:vh", opts, NULL)) != -1)
		rc = one_opt(a, ch, optarg);
	if (!rc && !a->req_sst_set)
		a->cfg.req_sst = a->cfg.sst;
	if (!rc && !a->req_sd_set)
		a->cfg.req_sd = a->cfg.sd;
	if (!rc && a->cfg.suci != RANSIM_SUCI_NULL && !a->cfg.hn_pub_len && c &&
	    conf_hn_key(&a->cfg, c, a->key_id) < 0)
		rc = usage("no SUCI key of that scheme (and id) in the -c file");
	if (!rc && a->cfg.suci != RANSIM_SUCI_NULL && !a->cfg.hn_pub_len)
		rc = usage("SUCI profile A/B needs --hn-pub or a key in the -c file");
	if (!rc && !a->sims_path)
		rc = usage("--sims FILE is required");
	if (!rc && a->gtpu_on && !a->gtpu.gnb_n3.family && rs_n3_addr_parse(a->cfg.local_addr, &a->gtpu.gnb_n3) < 0)
		rc = usage("--traffic needs --gnb-n3 (or --local-addr)");
	/* the inner IPv4 destination defaults to the UPF's IPv4 N3 address, which IPv6 N3 lacks */
	if (!rc && a->gtpu_on && a->gtpu.pps && a->gtpu.gnb_n3.family == AF_INET6 && !a->gtpu.dst && !a->gtpu.has_dst6)
		rc = usage("--traffic over an IPv6 --gnb-n3 needs --traffic-dst or --traffic-dst6");
	if (!rc && a->gtpu_on && (a->gtpu.size < RS_GTPU_MIN_SIZE || a->gtpu.size > RS_GTPU_MAX_SIZE))
		rc = usage("--traffic-size: 28..1400");
#ifdef RANSIM_LOAD
	/* the mode: the one non-option argument (getopt moved it to the end) */
	if (!rc && (optind != argc - 1 || load_mode_apply(argv[optind], &a->mode, &a->cfg) < 0))
		rc = usage("one mode is required: cycle, register, sessions or handover");
	if (!rc && a->mode == LOAD_HANDOVER && a->cfg.n_gnbs < 2)
		rc = usage("handover needs --gnbs 2 or more");
	if (!rc && a->mode == LOAD_HANDOVER && a->cfg.handover_after_ms)
		rc = usage("handover paces its own handovers: no --handover-after");
	if (!a->ho_rate)
		a->ho_rate = 100;
	if (!a->ho_secs)
		a->ho_secs = 10;
#endif
	if (c) {
		conf_free(c);
		free(c);
	}
	return rc;
}

static volatile sig_atomic_t stop_req;
static void on_sig(int s)
{
	(void)s;
	stop_req = 1;
}

/* Run to completion (or timeout / signal / --duration), then a graceful SHUTDOWN (or ABORT);
 * prints the report. */
static int run(struct ev_loop *loop, struct ransim *rs, struct rs_gtpu *gt, const struct args *a)
{
	struct ransim_stats st;
	uint64_t t0, t_end, t_done = 0, until, t_stop = 0, next_progress = 0, now;
	bool progress = false, restarted = false, ho_busy = false;
	unsigned ho_rounds = 0, ho_want = a->cfg.handovers ? a->cfg.handovers : 1;
	char why[320];

	t0 = ev_update_now(loop);
	if (ransim_start(rs) < 0) {
		fprintf(stderr, "%s: cannot connect to the AMF\n", PROG);
		return 1;
	}
	t_end = t0 + (uint64_t)a->timeout_s * 1000000000ull;
	if (a->duration_s)
		t_stop = t0 + (uint64_t)a->duration_s * 1000000000ull;
#ifdef RANSIM_LOAD
	progress = !a->no_progress && isatty(STDERR_FILENO);
#endif
	for (;;) {
		now = ev_update_now(loop);
		if (!t_done && ransim_done(rs))
			t_done = now;
		/* a duration stops new UE runs (cycle) or ends the hold (register, sessions) */
		if (t_stop && now >= t_stop)
			ransim_stop(rs);
		if (a->cfg.restart_after_ms && !restarted && t_done &&
		    now >= t0 + (uint64_t)a->cfg.restart_after_ms * 1000000ull) {
			restarted = true;
			ransim_restart(rs);
		}
		/* round k of the Xn handover at (k + 1) * MS, every UE holding its session */
		if (a->cfg.handover_after_ms && ho_rounds < ho_want && t_done &&
		    now >= t0 + (uint64_t)(ho_rounds + 1) * a->cfg.handover_after_ms * 1000000ull) {
			ho_rounds++;
			ransim_handover(rs);
		}
#ifdef RANSIM_LOAD
		/* handover mode: paced handovers once every UE holds its session (load_ho.c) */
		ho_busy = a->ho && load_ho_step(a->ho, t_done != 0);
#endif
		if (stop_req || now >= t_end || (t_done && !ho_busy && (!t_stop || now >= t_stop)))
			break;
		if (progress && now >= next_progress) {
#ifdef RANSIM_LOAD
			load_progress(rs, (double)(now - t0) / 1e9, stderr);
#endif
			next_progress = now + 1000000000ull;
		}
		ev_run_once(loop, 50);
	}
	if (progress)
		fputc('\n', stderr);
	t_end = t_done ? t_done : ev_update_now(loop);
	if (!ransim_done(rs))
		fprintf(stderr, "%s: %s before every UE finished\n", PROG, stop_req ? "stopped" : "timed out");
	/* No more uplink; the answers in flight are counted while the sessions still exist. A
	 * second of quiet: on a loaded CI host (sanitizer builds, two e2e tests at once) a DN echo
	 * server stalled for 300 ms left its answers uncounted (the nat test's in-flight bound
	 * failed while the UPF had forwarded every answer); an echoed run ends as soon as all
	 * are back, so only runs with real losses wait the whole second. */
	rs_gtpu_drain(gt, 1000, 4000);
	/* So that the AMF sees a normal end of the associations; bounded wait. */
	if (a->abort)
		ransim_abort(rs);
	else
		ransim_shutdown(rs);
	until = ev_update_now(loop) + 500000000ull;
	while (ev_update_now(loop) < until)
		ev_run_once(loop, 20);
	ransim_get_stats(rs, &st);
#ifdef RANSIM_LOAD
	load_report(rs, a->mode, a->ho, (double)(t_end - t0) / 1e9, a->json, stdout);
#else
	printf("elapsed_ms %llu\n", (unsigned long long)((t_end - t0) / 1000000));
	ransim_report(rs, stdout);
	if (gt) {
		struct rs_gtpu_stats g;

		rs_gtpu_get_stats(gt, &g);
		printf("ul_packets %llu\nul_bytes %llu\ndl_packets %llu\ndl_bytes %llu\ndl_unknown_teid %llu\n"
		       "err_ind_sent %llu\n",
		       (unsigned long long)g.ul_packets, (unsigned long long)g.ul_bytes,
		       (unsigned long long)g.dl_packets, (unsigned long long)g.dl_bytes,
		       (unsigned long long)g.dl_unknown_teid, (unsigned long long)g.err_ind_sent);
	}
#endif
	if (a->cfg.restart_after_ms && (!st.gnb_restarts || st.restart_svc_ok != st.restart_ues ||
					 !st.restart_ues)) {
		fprintf(stderr, "%s: gNB restart: %llu restarts, %llu of %llu UEs back\n", PROG,
			(unsigned long long)st.gnb_restarts, (unsigned long long)st.restart_svc_ok,
			(unsigned long long)st.restart_ues);
		return 1;
	}
	if (a->cfg.handover_after_ms && ransim_handover_check(rs, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: %s\n", PROG, why);
		return 1;
	}
#ifdef RANSIM_LOAD
	if (a->ho) {
		char ho_why[320];

		if (load_ho_status(a->ho, ho_why, sizeof(ho_why)) < 0) {
			fprintf(stderr, "%s: %s\n", PROG, ho_why);
			return 1;
		}
	}
#endif
	return (ransim_done(rs) && st.ues_failed == 0) ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct args a;
	struct ransim_sim *sims = NULL;
	struct ransim *rs;
	struct rs_gtpu *gt = NULL;
	struct ev_loop *loop;
	enum n2sctp_backend got;
	char err[512];
	unsigned n_sims = 0;
	int rc, status;

	rc = parse_args(&a, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	log_set_level(a.cfg.verbose ? LOGL_DEBUG : LOGL_WARN);
	if (n2sctp_backend_resolve(a.cfg.sctp.backend, &got, err, sizeof(err)) < 0) {
		printf("SKIP: %s\n", err);
		return 77;
	}
	rc = ransim_sims_load(a.sims_path, &sims, &n_sims, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return 1;
	}
	loop = ev_loop_new(&rc);
	if (!loop)
		return 1;
	if (a.busy_poll_us)
		ev_set_busy_poll(loop, a.busy_poll_us);
	rs = ransim_new(loop, &a.cfg, sims, n_sims, &rc);
	memset(sims, 0, n_sims * sizeof(*sims));   /* keys */
	free(sims);
	if (!rs) {
		fprintf(stderr, "%s: setup failed: %s\n", PROG, strerror(-rc));
		ev_loop_free(loop);
		return 1;
	}
	if (a.gtpu_on) {
		gt = rs_gtpu_new(rs, &a.gtpu, &rc);
		if (!gt) {
			fprintf(stderr, "%s: N3 socket on port %d: %s\n", PROG, RS_GTPU_PORT, strerror(-rc));
			ransim_free(rs);
			ev_loop_free(loop);
			return 1;
		}
	}
#ifdef RANSIM_LOAD
	if (a.mode == LOAD_HANDOVER && !(a.ho = load_ho_new(rs, a.ho_rate, a.ho_secs, &rc))) {
		fprintf(stderr, "%s: handover: %s\n", PROG, strerror(-rc));
		rs_gtpu_free(gt);
		ransim_free(rs);
		ev_loop_free(loop);
		return 1;
	}
#endif
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	signal(SIGPIPE, SIG_IGN);
	status = run(loop, rs, gt, &a);
#ifdef RANSIM_LOAD
	load_ho_free(a.ho);
#endif
	rs_gtpu_free(gt);
	ransim_free(rs);
	ev_loop_free(loop);
	crypto_thread_cleanup();
	return status;
}
