/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * A PFCP peer that behaves like Open5GS's UPF (v2.8.0) toward an SMF, for tests (issue 32,
 * "What to build" item 4: our client against a peer that needs PDN Type and interface types,
 * advertises FTUP, sends heartbeats and reports from an ephemeral port). Written from reading
 * Open5GS's src/upf/context.c, n4-handler.c, pfcp-path.c and lib/pfcp/handler.c; its own TLV
 * reader and writer (nothing of common/pfcp), so it judges our codec from outside.
 *
 * What it does as Open5GS does:
 *   - Association Setup Response with UP Function Features FTUP, EMPU, FRRT, MNOP, VTIME
 *     (4 octets, TS 29.244 8.2.25; Open5GS upf_context_init) and its Recovery Time Stamp;
 *   - its own requests (Heartbeat, Session Report) from a second socket on an ephemeral port,
 *     to the SMF's port 8805; the answers must come back to that port (TS 29.244 4.2.2);
 *   - a request with an Apply Action other than 2 octets or Reporting Triggers other than 3
 *     (the Release 15 sizes; 8.2.26, 8.2.19) is dropped unanswered, as v2.8.0's fixed-size
 *     TLV descriptors make it drop a message that does not parse;
 *   - a Session Establishment without PDN Type (7.5.2.1) is accepted but the UE address is
 *     never bound (upf_sess_set_ue_ip only with it): no downlink; without Source Interface
 *     Type N3 on the Access PDR or Destination Interface Type N6 on its FAR (8.2.118) the
 *     uplink is never forwarded (Open5GS >= 2.7.7's checks in gtp-path.c);
 *     (lax_sizes: as v2.7.7, which took them, reading past the IE's end: counted, answered);
 *   - CHOOSE (CH, CHID) with FTUP: it allocates the F-TEID, one per CHOOSE ID, and returns it
 *     in a Created PDR (7.5.3.2); a CP-chosen F-TEID is taken as given;
 *   - a retransmitted request (same address, port, sequence number) gets the same answer again
 *     (6.4; Open5GS's transaction layer), never a second session;
 *   - modifications: Update FAR (Apply Action, Update Forwarding Parameters' OHC) applied,
 *     answered with Cause 1; deletion answered with a Usage Report per URR (TERMR, 7.5.7.2).
 * Every finding that Open5GS would act on is counted (enum o5p_finding), so a test can say what
 * a real Open5GS would have done with each request.
 */
#ifndef TESTS_UPF_O5GS_UPF_PEER_H
#define TESTS_UPF_O5GS_UPF_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum o5p_finding {
	O5P_BAD_SIZE,        /* Apply Action != 2 or Reporting Triggers != 3 octets: dropped */
	O5P_NO_PDN_TYPE,     /* accepted, UE address never bound */
	O5P_NO_UL_IFT_N3,    /* Access PDR without Source Interface Type N3 3GPP Access */
	O5P_NO_UL_IFT_N6,    /* its FAR (Destination Core) without Destination Interface Type N6 */
	O5P_NO_DL_IFT_N6,    /* Core PDR without Source Interface Type N6 */
	O5P_NO_DL_IFT_N3,    /* a FORW FAR to Access without Destination Interface Type N3 */
	O5P_NO_NI,           /* a PDR without Network Instance (Open5GS picks its DNN by it) */
	O5P_NO_CHOOSE,       /* FTUP advertised, yet a CP-chosen F-TEID */
	O5P_NO_CHID,         /* CH without CHID (Open5GS's own SMF always sends one) */
	O5P__MAX
};
const char *o5p_finding_name(unsigned f);

#define O5P_SESS_MAX 64

struct o5p_sess {
	bool used;
	uint64_t cp_seid, up_seid;
	uint32_t ue_addr;          /* network order, from the UE IP Address of a PDR */
	bool ue_bound;             /* PDN Type present: downlink reaches the UE */
	bool ul_fwd;               /* the interface types present: uplink forwarded */
	uint32_t ul_teid;          /* host order: the F-TEID it allocated (CHOOSE) or was given */
	bool chose;                /* ... allocated by it */
	uint8_t dl_apply;          /* Apply Action of the downlink FAR (its first octet) */
	uint32_t dl_teid, dl_gnb;  /* its OHC (host order TEID, network order address) */
	unsigned n_urr, n_mod;
};

struct o5p {
	int fd;                    /* addr:8805, the SMF's requests and our answers */
	int efd;                   /* addr:ephemeral, our requests and their answers */
	uint16_t eport;            /* host order */
	uint32_t addr, n3, recovery;
	uint32_t seq;
	bool lax_sizes;            /* v2.7.7: a Release 15 size counted (O5P_BAD_SIZE), not dropped */
	bool assoc;
	uint32_t smf_addr;         /* the associated SMF (network order) */
	uint32_t next_teid;
	uint64_t next_seid;
	unsigned rx[64];           /* requests received by message type (not counting duplicates) ... */
	unsigned dropped[64];      /* ... dropped unanswered */
	unsigned findings[O5P__MAX];
	unsigned hb_sent, hb_answered, rep_sent, rep_answered;
	uint8_t rep_cause;         /* the Cause of the last Session Report Response */
	unsigned answers_wrong_port;   /* an answer to our request that came to 8805 */
	unsigned dups;             /* retransmitted requests, answered again from the cache (6.4) */
	struct o5p_sess s[O5P_SESS_MAX];
	struct o5p_txn {           /* the answers sent, for the SMF's retransmissions (6.4) */
		uint32_t addr, seq;
		uint16_t port, len;
		uint8_t type;
		uint8_t b[2048];
	} txn[32];
	unsigned txn_next;
	/* every datagram both ways (addresses network order, ports host order) */
	void (*record)(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, const uint8_t *b, size_t n);
};

/* Bind addr:8805 and addr:0. 0 or -errno. */
int o5p_open(struct o5p *p, uint32_t addr, uint32_t n3, uint32_t recovery);
void o5p_close(struct o5p *p);
/* Everything waiting on both sockets: requests answered (or dropped), answers counted. */
void o5p_poll(struct o5p *p);
/* Our Heartbeat Request to the associated SMF (from the ephemeral port). 0 or -errno. */
int o5p_heartbeat(struct o5p *p);
/* A Session Report Request, Downlink Data Report for PDR pdr_id (7.5.8.2). 0 or -errno. */
int o5p_report_dldr(struct o5p *p, const struct o5p_sess *s, uint16_t pdr_id);
struct o5p_sess *o5p_find_ue(struct o5p *p, uint32_t ue_addr);
unsigned o5p_sessions(const struct o5p *p);

#endif
