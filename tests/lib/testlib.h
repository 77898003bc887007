/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Test helpers shared by all test areas (not linked into solocore):
 *  - tv_*:     reader for the files in tests/vectors ("[section]" and "key = value" lines, '#' comments)
 *  - pcapw_*:  pcap writer for the tshark checks (NGAP in IPv4/SCTP DATA with PPID 60, or
 *              Wireshark "exported PDU" records naming a dissector such as "nas-5gs")
 *  - nomalloc_*: counts malloc/calloc/realloc/free/strdup calls made by code linked with
 *              nomalloc_link_args (-Wl,--wrap=...) between begin and end.
 */
#ifndef SOLOCORE_TESTS_TESTLIB_H
#define SOLOCORE_TESTS_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- test vectors ---- */
struct tv_file;
/* Path relative to tests/vectors (the build passes SOLOCORE_VECTORS_DIR). NULL on error (printed). */
struct tv_file *tv_open(const char *name);
void tv_close(struct tv_file *f);
/* Number of sections and the name of section i. */
int tv_sections(const struct tv_file *f);
const char *tv_section_name(const struct tv_file *f, int i);
/* Index of a section by name, or -1. */
int tv_find(const struct tv_file *f, const char *section);
/* Value text of key in section i (trimmed, comment removed), or NULL. */
const char *tv_get(const struct tv_file *f, int section, const char *key);
/* Hex value decoded into out; returns byte count or -1 (missing/bad hex/too long). */
int tv_hex(const struct tv_file *f, int section, const char *key, uint8_t *out, size_t outsz);
/* Decode a hex string (spaces allowed); returns byte count or -1. */
int tv_unhex(const char *hex, uint8_t *out, size_t outsz);

/* ---- pcap writer ---- */
struct pcapw;
enum pcapw_kind { PCAPW_SCTP_IPV4 = 0, PCAPW_EXPORTED_PDU = 1 };
/* NULL on error. */
struct pcapw *pcapw_open(const char *path, enum pcapw_kind kind);
/* IPv4 src->dst, SCTP ports, one DATA chunk with this PPID (60 = NGAP), correct CRC32c. */
int pcapw_sctp(struct pcapw *w, uint32_t src_ip, uint32_t dst_ip, uint16_t sport, uint16_t dport,
	       uint16_t stream, uint32_t ppid, const uint8_t *data, size_t len);
/* One exported-PDU record for the named dissector (e.g. "ngap", "nas-5gs", "gtp"). */
int pcapw_upper(struct pcapw *w, const char *dissector, const uint8_t *data, size_t len);
int pcapw_close(struct pcapw *w);

/* ---- allocation guard ---- */
void nomalloc_begin(void);
/* Returns the number of allocator calls since nomalloc_begin(). */
unsigned nomalloc_end(void);

#endif
