/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define LINKTYPE_RAW 101
#define LINKTYPE_WIRESHARK_UPPER_PDU 252
#define EXP_PDU_TAG_DISSECTOR_NAME 12

struct pcapw { FILE *fp; enum pcapw_kind kind; uint32_t tsn; uint16_t ipid; };

static void put32le(FILE *fp, uint32_t v) { uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 }; fwrite(b, 1, 4, fp); }
static void put16le(FILE *fp, uint16_t v) { uint8_t b[2] = { v, v >> 8 }; fwrite(b, 1, 2, fp); }

struct pcapw *pcapw_open(const char *path, enum pcapw_kind kind)
{
	struct pcapw *w = calloc(1, sizeof(*w));
	if (!w) return NULL;
	w->fp = fopen(path, "wb");
	if (!w->fp) { free(w); return NULL; }
	w->kind = kind;
	w->tsn = 1;
	put32le(w->fp, 0xa1b2c3d4);
	put16le(w->fp, 2); put16le(w->fp, 4);
	put32le(w->fp, 0); put32le(w->fp, 0);
	put32le(w->fp, 262144);
	put32le(w->fp, kind == PCAPW_SCTP_IPV4 ? LINKTYPE_RAW : LINKTYPE_WIRESHARK_UPPER_PDU);
	return w;
}

static void record(struct pcapw *w, const uint8_t *buf, size_t len)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	put32le(w->fp, (uint32_t)tv.tv_sec); put32le(w->fp, (uint32_t)tv.tv_usec);
	put32le(w->fp, (uint32_t)len); put32le(w->fp, (uint32_t)len);
	fwrite(buf, 1, len, w->fp);
}

static uint32_t crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
	}
	return ~c;
}

static void be16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
static void be32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }

int pcapw_sctp(struct pcapw *w, uint32_t src_ip, uint32_t dst_ip, uint16_t sport, uint16_t dport,
	       uint16_t stream, uint32_t ppid, const uint8_t *data, size_t len)
{
	if (!w || w->kind != PCAPW_SCTP_IPV4 || len > 65000) return -1;
	size_t chunk = 16 + len, pad = (4 - chunk % 4) % 4;
	size_t total = 20 + 12 + chunk + pad;
	uint8_t *b = calloc(1, total);
	if (!b) return -1;
	/* IPv4 */
	b[0] = 0x45; be16(b + 2, (uint16_t)total); be16(b + 4, w->ipid++);
	b[6] = 0x40; b[8] = 64; b[9] = 132;
	be32(b + 12, src_ip); be32(b + 16, dst_ip);
	uint32_t s = 0;
	for (int i = 0; i < 20; i += 2) s += (uint32_t)(b[i] << 8 | b[i + 1]);
	while (s >> 16) s = (s & 0xffff) + (s >> 16);
	be16(b + 10, (uint16_t)~s);
	/* SCTP common header */
	uint8_t *sc = b + 20;
	be16(sc, sport); be16(sc + 2, dport); be32(sc + 4, 0x01020304);
	/* DATA chunk: unfragmented (B|E) */
	uint8_t *d = sc + 12;
	d[0] = 0; d[1] = 0x03; be16(d + 2, (uint16_t)chunk);
	be32(d + 4, w->tsn++); be16(d + 8, stream); be16(d + 10, 0); be32(d + 12, ppid);
	memcpy(d + 16, data, len);
	uint32_t crc = crc32c(sc, 12 + chunk + pad);
	/* CRC32c goes on the wire little-endian (RFC 4960 appendix B) */
	sc[8] = crc; sc[9] = crc >> 8; sc[10] = crc >> 16; sc[11] = crc >> 24;
	record(w, b, total);
	free(b);
	return 0;
}

int pcapw_upper(struct pcapw *w, const char *dissector, const uint8_t *data, size_t len)
{
	if (!w || w->kind != PCAPW_EXPORTED_PDU) return -1;
	size_t nl = strlen(dissector), npad = (4 - nl % 4) % 4;
	size_t total = 4 + nl + npad + 4 + len;
	uint8_t *b = calloc(1, total);
	if (!b) return -1;
	be16(b, EXP_PDU_TAG_DISSECTOR_NAME); be16(b + 2, (uint16_t)(nl + npad));
	memcpy(b + 4, dissector, nl);
	/* end-of-options tag (0, length 0) is already zero */
	memcpy(b + 4 + nl + npad + 4, data, len);
	record(w, b, total);
	free(b);
	return 0;
}

int pcapw_close(struct pcapw *w)
{
	if (!w) return 0;
	int rc = fclose(w->fp);
	free(w);
	return rc ? -1 : 0;
}
