/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include <arpa/inet.h>
#include <string.h>

#include "pkt.h"

uint16_t pkt_csum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

uint32_t pkt_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

size_t pkt_eth(uint8_t *b, const uint8_t dst[6], const uint8_t src[6])
{
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	b[12] = 0x08;
	b[13] = 0x00;
	return PKT_ETH;
}

size_t pkt_ipv4(uint8_t *b, uint32_t src, uint32_t dst, uint8_t proto, size_t payload_len)
{
	uint16_t tot = (uint16_t)(PKT_IP + payload_len), c;

	memset(b, 0, PKT_IP);
	b[0] = 0x45;
	b[2] = (uint8_t)(tot >> 8);
	b[3] = (uint8_t)tot;
	b[6] = 0x40;
	b[8] = 64;
	b[9] = proto;
	memcpy(b + 12, &src, 4);
	memcpy(b + 16, &dst, 4);
	c = pkt_csum(b, PKT_IP);
	b[10] = (uint8_t)(c >> 8);
	b[11] = (uint8_t)c;
	return PKT_IP;
}

size_t pkt_udp(uint8_t *b, uint16_t sport, uint16_t dport, size_t payload_len)
{
	uint16_t l = (uint16_t)(PKT_UDP + payload_len);

	b[0] = (uint8_t)(sport >> 8);
	b[1] = (uint8_t)sport;
	b[2] = (uint8_t)(dport >> 8);
	b[3] = (uint8_t)dport;
	b[4] = (uint8_t)(l >> 8);
	b[5] = (uint8_t)l;
	b[6] = b[7] = 0;
	return PKT_UDP;
}

size_t pkt_inner_udp(uint8_t *b, uint32_t src, uint32_t dst, size_t len)
{
	size_t pl = len - PKT_IP - PKT_UDP;

	pkt_ipv4(b, src, dst, 17, PKT_UDP + pl);
	pkt_udp(b + PKT_IP, 40000, 9, pl);
	for (size_t i = 0; i < pl; i++)
		b[PKT_IP + PKT_UDP + i] = (uint8_t)i;
	return len;
}

size_t pkt_gpdu(uint8_t *b, uint32_t teid, int qfi, int ul, const uint8_t *inner, size_t len)
{
	size_t h = qfi < 0 ? 8 : 16;
	size_t gl = h - 8 + len;

	b[0] = qfi < 0 ? 0x30 : 0x34;
	b[1] = 0xff;
	b[2] = (uint8_t)(gl >> 8);
	b[3] = (uint8_t)gl;
	teid = htonl(teid);
	memcpy(b + 4, &teid, 4);
	if (qfi >= 0) {
		/* TS 38.415 5.5.2: container length 1, PDU type, QFI, no next header. */
		const uint8_t ext[8] = { 0, 0, 0, 0x85, 1, ul ? 0x10 : 0x00, (uint8_t)qfi, 0 };

		memcpy(b + 8, ext, 8);
	}
	memcpy(b + h, inner, len);
	return h + len;
}

size_t pkt_gtpu_frame(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6],
		      uint32_t src, uint32_t dst, const uint8_t *gtp, size_t len)
{
	size_t o = pkt_eth(b, dmac, smac);

	o += pkt_ipv4(b + o, src, dst, 17, PKT_UDP + len);
	o += pkt_udp(b + o, 2152, 2152, len);
	memcpy(b + o, gtp, len);
	return o + len;
}

size_t pkt_ip_frame(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6],
		    const uint8_t *ip, size_t len)
{
	size_t o = pkt_eth(b, dmac, smac);

	memcpy(b + o, ip, len);
	return o + len;
}

size_t pkt_eth6(uint8_t *b, const uint8_t dst[6], const uint8_t src[6])
{
	pkt_eth(b, dst, src);
	b[12] = 0x86;
	b[13] = 0xdd;
	return PKT_ETH;
}

size_t pkt_ipv6(uint8_t *b, const uint8_t src[16], const uint8_t dst[16], uint8_t next, uint8_t hop_limit,
		size_t payload_len)
{
	memset(b, 0, PKT_IP6);
	b[0] = 0x60;
	b[4] = (uint8_t)(payload_len >> 8);
	b[5] = (uint8_t)payload_len;
	b[6] = next;
	b[7] = hop_limit;
	memcpy(b + 8, src, 16);
	memcpy(b + 24, dst, 16);
	return PKT_IP6;
}

uint16_t pkt_csum6(const uint8_t src[16], const uint8_t dst[16], uint8_t next, const uint8_t *m, size_t len)
{
	uint32_t s = (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff) + next;

	for (int i = 0; i < 16; i += 2)
		s += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(m[i] << 8 | m[i + 1]);
	if (len & 1)
		s += (uint32_t)m[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

size_t pkt_inner_udp6(uint8_t *b, const uint8_t src[16], const uint8_t dst[16], size_t len)
{
	size_t pl = len - PKT_IP6 - PKT_UDP;
	uint16_t c;

	pkt_ipv6(b, src, dst, 17, 64, PKT_UDP + pl);
	pkt_udp(b + PKT_IP6, 40000, 9, pl);
	for (size_t i = 0; i < pl; i++)
		b[PKT_IP6 + PKT_UDP + i] = (uint8_t)i;
	c = pkt_csum6(src, dst, 17, b + PKT_IP6, PKT_UDP + pl);
	if (!c)
		c = 0xffff;   /* RFC 768: a computed 0 is sent as all ones */
	b[PKT_IP6 + 6] = (uint8_t)(c >> 8);
	b[PKT_IP6 + 7] = (uint8_t)c;
	return len;
}

size_t pkt_rs6(uint8_t *b, const uint8_t src[16])
{
	static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 2 };
	uint8_t *m = b + PKT_IP6;
	uint16_t c;

	pkt_ipv6(b, src, all_routers, 58, 255, 8);
	memset(m, 0, 8);
	m[0] = 133;
	c = pkt_csum6(src, all_routers, 58, m, 8);
	m[2] = (uint8_t)(c >> 8);
	m[3] = (uint8_t)c;
	return PKT_IP6 + 8;
}

size_t pkt_ip6_frame(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6],
		     const uint8_t *ip, size_t len)
{
	size_t o = pkt_eth6(b, dmac, smac);

	memcpy(b + o, ip, len);
	return o + len;
}

int pkt_in6(const char *s, uint8_t out[16])
{
	return inet_pton(AF_INET6, s, out) == 1 ? 0 : -1;
}

/* ---- IPv4 transport headers with checksums (the NAT tests) ---- */

/* One's complement sum of the IPv4 pseudo-header (RFC 768 / RFC 793 3.1) and the segment. */
static uint16_t l4_csum4(const uint8_t *ip, const uint8_t *l4, size_t len)
{
	uint32_t s = (uint32_t)ip[9] + (uint32_t)len;

	for (int i = 12; i < 20; i += 2)
		s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(l4[i] << 8 | l4[i + 1]);
	if (len & 1)
		s += (uint32_t)l4[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

void pkt_l4_csum4(uint8_t *ip)
{
	size_t hl = (size_t)(ip[0] & 0x0f) * 4, tot = (size_t)(ip[2] << 8 | ip[3]);
	uint8_t *l4 = ip + hl;
	size_t co = ip[9] == 6 ? 16 : ip[9] == 17 ? 6 : 2;
	uint16_t c;

	l4[co] = l4[co + 1] = 0;
	c = ip[9] == 1 ? pkt_csum(l4, tot - hl) : l4_csum4(ip, l4, tot - hl);
	if (ip[9] == 17 && !c)
		c = 0xffff;   /* RFC 768 */
	l4[co] = (uint8_t)(c >> 8);
	l4[co + 1] = (uint8_t)c;
}

int pkt_csum4_ok(const uint8_t *ip, size_t len)
{
	size_t hl = (size_t)(ip[0] & 0x0f) * 4, tot = (size_t)(ip[2] << 8 | ip[3]);
	const uint8_t *l4 = ip + hl;

	if (len < 20 || tot > len || hl < 20 || pkt_csum(ip, hl) != 0)
		return 0;
	if (ip[6] & 0x3f || ip[7])   /* a fragment: its transport checksum is not checkable alone */
		return 1;
	switch (ip[9]) {
	case 1:
		return pkt_csum(l4, tot - hl) == 0;
	case 6:
		return l4_csum4(ip, l4, tot - hl) == 0;
	case 17:
		return (l4[6] == 0 && l4[7] == 0) || l4_csum4(ip, l4, tot - hl) == 0;
	default:
		return 1;
	}
}

size_t pkt_inner_udp4(uint8_t *b, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, size_t payload,
		      int csum)
{
	pkt_ipv4(b, src, dst, 17, PKT_UDP + payload);
	pkt_udp(b + PKT_IP, sport, dport, payload);
	for (size_t i = 0; i < payload; i++)
		b[PKT_IP + PKT_UDP + i] = (uint8_t)(i * 7 + 1);
	if (csum)
		pkt_l4_csum4(b);
	return PKT_IP + PKT_UDP + payload;
}

size_t pkt_inner_tcp(uint8_t *b, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, uint8_t flags,
		     uint32_t seq, size_t payload)
{
	uint8_t *t = b + PKT_IP;

	pkt_ipv4(b, src, dst, 6, 20 + payload);
	memset(t, 0, 20);
	t[0] = (uint8_t)(sport >> 8);
	t[1] = (uint8_t)sport;
	t[2] = (uint8_t)(dport >> 8);
	t[3] = (uint8_t)dport;
	t[4] = (uint8_t)(seq >> 24);
	t[5] = (uint8_t)(seq >> 16);
	t[6] = (uint8_t)(seq >> 8);
	t[7] = (uint8_t)seq;
	t[12] = 5 << 4;
	t[13] = flags;
	t[14] = 0xfa;   /* window 64240 */
	t[15] = 0xf0;
	for (size_t i = 0; i < payload; i++)
		t[20 + i] = (uint8_t)(i + 0x41);
	pkt_l4_csum4(b);
	return PKT_IP + 20 + payload;
}

size_t pkt_icmp4(uint8_t *b, uint32_t src, uint32_t dst, uint8_t type, uint8_t code, uint16_t id, uint16_t seq,
		 const uint8_t *data, size_t dlen)
{
	uint8_t *m = b + PKT_IP;

	pkt_ipv4(b, src, dst, 1, 8 + dlen);
	m[0] = type;
	m[1] = code;
	m[4] = (uint8_t)(id >> 8);
	m[5] = (uint8_t)id;
	m[6] = (uint8_t)(seq >> 8);
	m[7] = (uint8_t)seq;
	memcpy(m + 8, data, dlen);
	pkt_l4_csum4(b);
	return PKT_IP + 8 + dlen;
}

size_t pkt_gtpu6_frame(uint8_t *b, const uint8_t dmac[6], const uint8_t smac[6], const uint8_t src[16],
		       const uint8_t dst[16], const uint8_t *gtp, size_t len)
{
	size_t o = pkt_eth6(b, dmac, smac);
	uint16_t c;

	o += pkt_ipv6(b + o, src, dst, 17, 64, PKT_UDP + len);
	o += pkt_udp(b + o, 2152, 2152, len);
	memcpy(b + o, gtp, len);
	c = pkt_csum6(src, dst, 17, b + o - PKT_UDP, PKT_UDP + len);
	if (!c)
		c = 0xffff;
	b[o - 2] = (uint8_t)(c >> 8);
	b[o - 1] = (uint8_t)c;
	return o + len;
}
