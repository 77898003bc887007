/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Test helpers shared by all test areas (not linked into solocore):
 *  - tv_*:     reader for the files in tests/vectors ("[section]" and "key = value" lines, '#' comments)
 *  - pcapw_*:  pcap writer for the tshark checks (NGAP in IPv4/SCTP DATA with PPID 60, or
 *              Wireshark "exported PDU" records naming a dissector such as "nas-5gs")
 *  - tshark_*: runs tshark on such a pcap: compares fields per frame, counts malformed frames and
 *              error-level expert items, or counts the lines a display filter leaves
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

/* ---- tshark checks (the meson find_program result reaches the test as argv or -DTSHARK) ---- */
/* 0 when the tshark at path can run; otherwise prints "SKIP: tshark not found (path); install
 * Debian package tshark to <what>" and returns 77, meson's SKIP, for main() to return. */
int tshark_require(const char *tshark, const char *what);

/* NEA0 NAS stays readable to the nas-5gs dissector only with this option. */
#define TSHARK_NULL_DECIPHER "-o nas-5gs.null_decipher:TRUE"
#define TSHARK_MAX_FIELDS 32
/* One "tshark -T fields" run: -e frame.number, the test's fields, then _ws.malformed,
 * _ws.expert.severity and _ws.expert.message, which tshark_fields() checks itself. */
struct tshark_fields {
	const char *opts;           /* extra options, e.g. "-o nas-5gs.null_decipher:TRUE"; may be NULL */
	const char *const *fields;  /* the test's fields, at most TSHARK_MAX_FIELDS */
	int nfields;
	int nframes;                /* frames written: each must be shown exactly once */
	/* Compares frame (1..nframes); f[i] holds fields[i] (occurrences joined by ','; "" when
	 * absent). Returns the number of problems found, each printed. */
	int (*row)(void *ctx, int frame, char **f);
	/* Names a frame in the messages; may be NULL. */
	const char *(*name)(void *ctx, int frame);
	void *ctx;
};
/* Number of problems (each printed on stderr): what row() found, a line that is no frame of
 * 1..nframes, a malformed frame, an error-level expert item, a frame not shown, tshark failing.
 * 0 = all clean; -1 when tshark cannot be started. */
int tshark_fields(const char *tshark, const char *pcap, const struct tshark_fields *q);
/* "tshark -q -z expert": number of Errors sections and Malformed lines (printed), plus one when
 * tshark fails; -1 when it cannot be started. */
int tshark_expert(const char *tshark, const char *pcap, const char *opts);
/* Number of lines "tshark -n -r PCAP ARGS 2>/dev/null [| PIPE]" prints (each echoed on stderr),
 * e.g. args "-Y _ws.malformed" or pipe "grep -c 'slice-not-supported'"; -1 when it cannot run. */
int tshark_lines(const char *tshark, const char *pcap, const char *args, const char *pipe);

/* ---- allocation guard ---- */
void nomalloc_begin(void);
/* Returns the number of allocator calls since nomalloc_begin(). */
unsigned nomalloc_end(void);

/* netutil.c: a TCP port on 127.0.0.1 nobody listens on right now (bind :0, read it back,
 * close; aborts on failure), and a plain sleep. */
int tl_free_port(void);
void tl_sleep_ms(long ms);

#endif
