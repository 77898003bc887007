/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Frame builders for the upf tests and benchmarks (Ethernet, IPv4, UDP, GTP-U).
 * Addresses are in network byte order; every builder returns the bytes written. */
#ifndef SOLOCORE_TESTS_UPF_PKT_H
#define SOLOCORE_TESTS_UPF_PKT_H

#include <stddef.h>
#include <stdint.h>

#define PKT_ETH 14
#define PKT_IP 20
#define PKT_UDP 8

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

#endif
