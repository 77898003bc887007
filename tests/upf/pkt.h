/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Frame builders for the upf tests and benchmarks (Ethernet, IPv4, IPv6, UDP, GTP-U).
 * Addresses are in network byte order; every builder returns the bytes written. */
#ifndef SOLOCORE_TESTS_UPF_PKT_H
#define SOLOCORE_TESTS_UPF_PKT_H

#include <stddef.h>
#include <stdint.h>

#define PKT_ETH 14
#define PKT_IP 20
#define PKT_UDP 8
#define PKT_IP6 40

uint16_t pkt_csum(const void *p, size_t len);
/* Big-endian 32-bit field at any alignment, in host order. */
uint32_t pkt_rd32(const uint8_t *p);
/* Ethernet header, EtherType IPv4. */
size_t pkt_eth(uint8_t *b, const uint8_t dst[6], const uint8_t src[6]);
/* IPv4 header (no options, DF, TTL 64) with a correct checksum. */
size_t pkt_ipv4(uint8_t *b, uint32_t src, uint32_t dst, uint8_t proto, size_t payload_len);
size_t pkt_udp(uint8_t *b, uint16_t sport, uint16_t dport, size_t payload_len);
/* An inner IPv4/UDP packet of total length len (>= 28), payload bytes i & 0xff. */
size_t pkt_inner_udp(uint8_t *b, uint32_t src, uint32_t dst, size_t len);
/* GTP-U G-PDU around an inner packet. qfi < 0: no extension header (flags
 * 0x30); otherwise a PDU Session Container (UL if ul, else DL) with that QFI. */
size_t pkt_gpdu(uint8_t *b, uint32_t teid, int qfi, int ul, const uint8_t *inner, size_t len);
/* Eth + IPv4 + UDP(2152 -> 2152) + the GTP-U message. */
size_t pkt_gtpu_frame(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6],
		      uint32_t src, uint32_t dst, const uint8_t *gtp, size_t len);
/* Eth + an IPv4 packet. */
size_t pkt_ip_frame(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6],
		    const uint8_t *ip, size_t len);

/* ---- IPv6 (IPv6 addresses: 16 octets as on the wire) ---- */
/* Ethernet header, EtherType IPv6 (0x86DD). */
size_t pkt_eth6(uint8_t *b, const uint8_t dst[6], const uint8_t src[6]);
/* IPv6 header (RFC 8200 3): traffic class and flow label 0. */
size_t pkt_ipv6(uint8_t *b, const uint8_t src[16], const uint8_t dst[16], uint8_t next, uint8_t hop_limit,
		size_t payload_len);
/* Checksum of an upper-layer message over IPv6 (RFC 8200 8.1 pseudo-header): 0 when a message
 * carrying its checksum is correct. */
uint16_t pkt_csum6(const uint8_t src[16], const uint8_t dst[16], uint8_t next, const uint8_t *m, size_t len);
/* An inner IPv6/UDP packet of total length len (>= 48), payload bytes i & 0xff, UDP checksum set
 * (mandatory over IPv6, RFC 8200 8.1). */
size_t pkt_inner_udp6(uint8_t *b, const uint8_t src[16], const uint8_t dst[16], size_t len);
/* An ICMPv6 Router Solicitation (RFC 4861 4.1) from src to ff02::2, hop limit 255, no options:
 * 48 bytes. */
size_t pkt_rs6(uint8_t *b, const uint8_t src[16]);
/* Eth (IPv6) + an IPv6 packet. */
size_t pkt_ip6_frame(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6],
		     const uint8_t *ip, size_t len);
/* Parse "2001:db8::1" (inet_pton); 0 or -1. */
int pkt_in6(const char *s, uint8_t out[16]);
/* Eth / IPv6 src -> dst / UDP 2152 -> 2152 with its checksum (0 sent as 0xffff) / the GTP-U
 * message: a G-PDU over outer IPv6 (TS 29.281 4.4.2). */
size_t pkt_gtpu6_frame(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6], const uint8_t src[16],
		       const uint8_t dst[16], const uint8_t *gtp, size_t len);

/* ---- IPv4 transport with checksums (NAT tests) ---- */
/* Set the TCP / UDP (pseudo-header, RFC 768 / 793) or ICMP checksum of the IPv4 packet ip. */
void pkt_l4_csum4(uint8_t *ip);
/* 1 when the IPv4 header checksum and the TCP / UDP (0: none) / ICMP checksum verify. */
int pkt_csum4_ok(const uint8_t *ip, size_t len);
/* IPv4/UDP, payload bytes i * 7 + 1, checksum set if csum (else 0). */
size_t pkt_inner_udp4(uint8_t *b, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, size_t payload,
		      int csum);
/* IPv4/TCP without options (flags: 0x02 SYN, 0x12 SYN-ACK, 0x10 ACK, 0x01 FIN, 0x04 RST). */
size_t pkt_inner_tcp(uint8_t *b, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, uint8_t flags,
		     uint32_t seq, size_t payload);
/* IPv4/ICMP: type, code, identifier, sequence (for an error: 0, 0), then data. */
size_t pkt_icmp4(uint8_t *b, uint32_t src, uint32_t dst, uint8_t type, uint8_t code, uint16_t id, uint16_t seq,
		 const uint8_t *data, size_t dlen);

#endif
