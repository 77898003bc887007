/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Fixture shared by the smf tests: a conf with two DNNs, a UDM with two
 * subscribers, an ev loop, an smf, and the AMF side (UL NAS Transport in,
 * decoded N1/N2 out, a recording ops.send). */
#ifndef SOLOCORE_TESTS_SMF_FX_H
#define SOLOCORE_TESTS_SMF_FX_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/ev.h"
#include "common/nas/nas.h"
#include "common/ngap/ngap.h"
#include "smf/smf.h"
#include "udm/udm.h"

#define SUPI1 "imsi-001010000000001"   /* internet + ims, slice 1/010203, AMBR 100M/200M, 5QI 7 ARP 3 */
#define SUPI2 "imsi-001010000000002"   /* internet only, slices 1/010203 */
#define N3_ADDR "192.0.2.1"
#define GNB_ADDR "192.0.2.2"

struct fx {
	struct conf conf;
	struct ev_loop *loop;
	struct udm *udm;
	struct smf *smf;
	struct upf *upf;
	struct smf_ue *ue1, *ue2;
	int cookie1, cookie2;
	/* last output */
	uint8_t n1[SMF_N1_MAX], n2[SMF_N2_MAX];
	struct smf_out out;
	/* ops.send record */
	int sends;
	int send_rc;          /* what send returns */
	uint8_t s_n1[SMF_N1_MAX], s_n2[SMF_N2_MAX];
	size_t s_n1_len, s_n2_len;
	uint8_t s_proc, s_psi;
	void *s_cookie;
	int dl_data;
	uint8_t dl_psi;
	void *dl_cookie;
};

/* Options for the establishment request. */
struct est_opt {
	uint8_t psi, pti;
	bool no_dnn;
	const char *dnn;           /* default "internet" */
	bool no_snssai;
	uint8_t sst;               /* default 1 */
	uint32_t sd;               /* default 0x010203; UDM_SD_NONE: none */
	bool no_type;
	uint8_t type;              /* default IPv4 */
	uint8_t ssc;               /* 0: absent */
	bool no_epco;
	uint8_t req_type;          /* 0: initial */
	bool wrong_ul_psi;
	bool always_on;
	bool dns6;                 /* ePCO also asks for IPv6 DNS servers (0003H) */
};

struct fx *fx_new(uint32_t max_sessions, uint8_t max_per_ue);
/* Called on the fixture's conf (two DNNs, two slices) before the smf is made, when set. */
extern void (*fx_conf_edit)(struct conf *c);
/* smf_params.n3_addr6 of the smfs made from now on (textual IPv6); NULL: none. */
extern const char *fx_n3_addr6;
/* The same with smf_params.ho_fwd_guard_ms (0: the SMF's default). */
struct fx *fx_new_ho(uint32_t max_sessions, uint8_t max_per_ue, uint32_t ho_fwd_guard_ms);
void fx_free(struct fx *f);
uint32_t fx_ip(const char *s);
/* Send a 5GSM message already encoded in buf through smf_n1_rx; returns its rc. */
int fx_n1(struct fx *f, struct smf_ue *ue, uint8_t psi, const uint8_t *buf, size_t len);
/* Encode and send a 5GSM message (type, psi, pti; body zeroed except cause). */
int fx_gsm(struct fx *f, struct smf_ue *ue, uint8_t type, uint8_t psi, uint8_t pti, uint8_t cause);
int fx_est(struct fx *f, struct smf_ue *ue, const struct est_opt *o);
/* Decode f->out.n1 into m (asserting success) and check the type. */
void fx_dec_n1(struct fx *f, struct nas_msg *m, uint8_t type);
/* gNB side: Setup Response Transfer with GNB_ADDR and teid. */
int fx_setup_rsp(struct fx *f, struct smf_ue *ue, uint8_t psi, uint32_t teid);
int fx_n2(struct fx *f, struct smf_ue *ue, uint8_t psi, enum smf_n2_msg kind);
/* Full establishment + setup response; returns the session info. */
void fx_establish(struct fx *f, struct smf_ue *ue, uint8_t psi, const char *dnn, struct smf_sess_info *info);
/* Replace supi's subscription in the UDM: internet only, slice 1/010203 (and 2 when two_slices),
 * 5QI qi5, ARP 3, session-AMBR ambr / 2 * ambr. */
void fx_resubscribe(struct fx *f, const char *supi, uint8_t qi5, uint64_t ambr, bool two_slices);
/* The real UPF for the smf tests: XDP program and maps loaded, attached nowhere (UPF_XDP_NONE),
 * N3 on n3 (bound with IP_FREEBIND, no traffic), UE pool 10.45.0.0/16, 64 sessions. NULL and *rc
 * = -errno when it cannot be opened (not root, no BPF): the caller skips. */
struct upf;
struct upf *fx_upf_open(const char *n3, int *rc);
/* Run the loop until cond(f); false if it still does not hold after max_ms (a
 * generous bound against hanging, not a timing check). */
bool fx_run_until(struct fx *f, bool (*cond)(struct fx *f), unsigned max_ms);

#endif
