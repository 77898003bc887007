/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim gtpu: the simulated gNBs' N3 side (solocore-load sessions --traffic).
 *
 * One UDP socket bound to <gnb_n3>:2152 serves every simulated gNB: AF_INET for an IPv4
 * gnb_n3, AF_INET6 (IPV6_V6ONLY) for an IPv6 one; the outer family is independent of the
 * inner traffic's (TS 38.414 5.1: N3 over IPv4 or IPv6). Uplink: each UE with a
 * PDU session up sends G-PDUs (TS 29.281 5.1, message type 255) to the UPF's N3 address and
 * TEID of its PDU Session Resource Setup Request Transfer, with a PDU Session Container
 * (TS 38.415 5.5.2.2, UL PDU SESSION INFORMATION, the QFI of the transfer) around an
 * IPv4/UDP packet from the UE's address to `dst`. `pps` packets per second in total, spread
 * round robin over the UEs with a session, paced by a 1 ms timer on ransim's loop and sent
 * in sendmmsg() batches from buffers allocated once. Downlink: G-PDUs received on the
 * socket are counted against the gNB DL TEIDs given in the Setup Response Transfers
 * (RS_GNB_DL_TEID); anything else is counted apart. Nothing is allocated per packet.
 */
#ifndef SOLOCORE_TESTS_RANSIM_GTPU_H
#define SOLOCORE_TESTS_RANSIM_GTPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ransim;
struct rs_gtpu;

#define RS_GTPU_PORT 2152          /* TS 29.281 4.4.2.3 */
#define RS_GTPU_MIN_SIZE 28        /* inner IPv4 + UDP headers */
#define RS_GTPU_MAX_SIZE 1400      /* inner packet: 64 octets of IPv6 N3 encapsulation stay under 1500 */

/* An N3 transport address (TS 38.414 5.1): IPv4 in a[0..3] (network order), or IPv6. */
struct rs_n3_addr {
	int family;            /* AF_INET, AF_INET6; 0: none */
	uint8_t a[16];
};

/* "192.0.2.1" or "2001:db8::1" into *out: 0 or -EINVAL. */
int rs_n3_addr_parse(const char *s, struct rs_n3_addr *out);
/* Printable form of a ("-" for none) into buf (at least 46 octets, INET6_ADDRSTRLEN); buf. */
const char *rs_n3_addr_str(const struct rs_n3_addr *a, char *buf, size_t cap);

struct rs_gtpu_cfg {
	struct rs_n3_addr gnb_n3; /* gNB N3 IPv4 or IPv6: the socket's address and the DL tunnel's */
	uint32_t dst;          /* inner destination, network order; 0: the UPF's N3 address of the UE
				* (IPv4 N3 only: over IPv6 N3 an IPv4 inner packet needs dst) */
	uint16_t dst_port;     /* inner UDP destination port */
	uint16_t size;         /* inner IPv4 packet size, RS_GTPU_MIN_SIZE..RS_GTPU_MAX_SIZE */
	uint32_t pps;          /* uplink packets per second over all UEs; 0: downlink counting only */
	uint32_t secs;         /* stop the uplink this long after the first G-PDU; 0: until rs_gtpu_stop() */
	/* IPv6 (TS 23.501 5.8.2.2): traffic to dst6 from the UEs whose session has IPv6, from the
	 * address each forms in the /64 of the Router Advertisement its Router Solicitation got
	 * (RFC 4861 6.3.7; TS 23.501 5.8.2.2.2) and the interface identifier of its PDU address
	 * (TS 24.501 9.11.4.10). has_dst6 false: IPv4 traffic only. */
	bool has_dst6;
	uint8_t dst6[16];
	/* A G-PDU on a TEID no UE holds here is answered with an Error Indication (TS 29.281
	 * 7.3.1), as a compliant gNB does; true: only counted (dl_unknown_teid). */
	bool no_err_ind;
};

struct rs_gtpu_stats {
	uint64_t ul_packets, ul_bytes;   /* G-PDUs sent; bytes: inner IPv4 packets (the UPF's measure) */
	uint64_t ul_send_errors;         /* sendmmsg() failures other than a full socket buffer */
	uint64_t ul_no_buffer;           /* packets held back by a full socket buffer (sent later) */
	uint64_t dl_packets, dl_bytes;   /* G-PDUs on a TEID of a UE with a session; inner bytes */
	uint64_t dl_unknown_teid;        /* G-PDUs on any other TEID */
	uint64_t dl_bad_inner;           /* on a known TEID, but the inner IPv4 is not for that UE */
	uint64_t dl_err_ind;             /* Error Indications from the UPF (TS 29.281 7.3.1) */
	uint64_t err_ind_sent;           /* Error Indications we sent for unknown TEIDs (7.3.1) */
	uint64_t dl_other;               /* other or malformed GTP-U messages */
	uint64_t rs_sent, ra_received;   /* IPv6: Router Solicitations sent, Advertisements taken */
	uint64_t ra_bad;                 /* an RA without a usable /64 prefix, or a bad checksum */
	uint64_t ul6_packets, dl6_packets; /* of ul_packets / dl_packets, the IPv6 ones */
	double ul_seconds;               /* first G-PDU sent -> rs_gtpu_stop() (or now) */
};

/* Bind the socket, register it and the pacing timer on rs's loop; rs gives the gNB DL
 * tunnel address gnb_n3 from now on. NULL with *err = -errno on failure. */
struct rs_gtpu *rs_gtpu_new(struct ransim *rs, const struct rs_gtpu_cfg *cfg, int *err);
/* No more uplink; downlink still counted until rs_gtpu_free(). */
void rs_gtpu_stop(struct rs_gtpu *g);
/* Stop, then run rs's loop until every uplink G-PDU was answered (as many downlink as uplink
 * G-PDUs) or no downlink G-PDU came for quiet_ms (at most max_ms): the answers to the last
 * uplink are counted while the sessions still exist. Accepts NULL. */
void rs_gtpu_drain(struct rs_gtpu *g, uint32_t quiet_ms, uint32_t max_ms);
void rs_gtpu_get_stats(const struct rs_gtpu *g, struct rs_gtpu_stats *out);
/* Before ransim_free(). Accepts NULL. */
void rs_gtpu_free(struct rs_gtpu *g);

#endif
