/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * CRC32c of SCTP packets for the usrsctp backend (RFC 9260 6.8 and Appendix A).
 *
 * usrsctp computes and checks the checksum itself with a table-driven CRC, ~700 instructions per
 * packet of an NGAP message and 5 % of the core's instructions in the serial load cycle. With
 * usrsctp_enable_crc32c_offload() it leaves both to the caller (as it would to a NIC): the wire
 * side computes the checksum of every outgoing packet here and verifies every incoming one before
 * usrsctp sees it, with the SSE4.2 CRC32 instruction where the CPU has it (8 octets per
 * instruction) and usrsctp's own routine otherwise. The packets on the wire are unchanged.
 */
#include "common/sctp/sctp_usr_int.h"

#include <string.h>

#define CSUM_OFF 8 /* RFC 9260 3.1: the checksum is octets 8..11 of the common header */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_SSE42_PATH 1
#include <nmmintrin.h>

__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		crc = (uint32_t)_mm_crc32_u64(crc, v);
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}

/* The whole packet with the checksum field read as zero. */
__attribute__((target("sse4.2"))) static uint32_t pkt_sse42(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;
	uint32_t zero = 0;

	crc = crc_sse42(crc, p, CSUM_OFF);
	crc = _mm_crc32_u32(crc, zero);
	crc = crc_sse42(crc, p + CSUM_OFF + 4, len - CSUM_OFF - 4);
	return ~crc;
}
#endif

static int hw = -1; /* -1 unknown, 0 no, 1 SSE4.2 */

static bool use_hw(void)
{
#ifdef HAVE_SSE42_PATH
	if (hw < 0)
		hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	return hw == 1;
#else
	return false;
#endif
}

/* The checksum as the 4 octets of the header field (Appendix A: the CRC's least significant
 * octet first), len >= 12. */
static void pkt_crc(uint8_t *p, size_t len, uint8_t out[4])
{
#ifdef HAVE_SSE42_PATH
	if (use_hw()) {
		uint32_t c = pkt_sse42(p, len);
		out[0] = (uint8_t)c;
		out[1] = (uint8_t)(c >> 8);
		out[2] = (uint8_t)(c >> 16);
		out[3] = (uint8_t)(c >> 24);
		return;
	}
#endif
	/* usrsctp's routine covers the field as it is: zero it for the computation and put it
	 * back. usrsctp_crc32c returns the value in the order the field holds it. */
	uint8_t save[4];
	uint32_t v;

	memcpy(save, p + CSUM_OFF, 4);
	memset(p + CSUM_OFF, 0, 4);
	v = usrsctp_crc32c(p, len);
	memcpy(p + CSUM_OFF, save, 4);
	memcpy(out, &v, 4);
}

void n2sctp_usr_crc_set(uint8_t *pkt, size_t len)
{
	if (len < 12)
		return;
	pkt_crc(pkt, len, pkt + CSUM_OFF);
}

bool n2sctp_usr_crc_ok(uint8_t *pkt, size_t len)
{
	uint8_t c[4];

	if (len < 12)
		return false;
	pkt_crc(pkt, len, c);
	return !memcmp(c, pkt + CSUM_OFF, 4);
}

void n2sctp_usr_crc_force_sw(bool sw)
{
	hw = sw ? 0 : -1;
}
