/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * tshark as an independent decoder of what the tests wrote with pcapw_*: one runner shared by
 * the NAS, NGAP, SMF and AMF checks (see testlib.h). Problems are printed on stderr and counted;
 * a test fails on any count other than 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/* Fields every tshark_fields() run adds around the test's own: frame.number first, then these. */
static const char *const tail_fields[] = { "_ws.malformed", "_ws.expert.severity", "_ws.expert.message" };
#define N_TAIL ((int)(sizeof(tail_fields) / sizeof(tail_fields[0])))
/* PI_ERROR in Wireshark's expert severities (epan/proto.h); Warn is 0x00600000. */
#define EXPERT_ERROR 0x00800000L

int tshark_require(const char *tshark, const char *what)
{
	if (tshark && access(tshark, X_OK) == 0)
		return 0;
	printf("SKIP: tshark not found (%s); install Debian package tshark to %s\n", tshark ? tshark : "no path",
	       what);
	return 77;
}

/* tshark prints this on stderr (merged into the pipe) when run as root; it is not a frame. */
static int is_root_notice(const char *line)
{
	return !strncmp(line, "Running as user", 15);
}

static const char *frame_name(const struct tshark_fields *q, int frame)
{
	const char *n = q->name ? q->name(q->ctx, frame) : NULL;

	return n ? n : "";
}

/* One "-T fields" line split at tabs into f[]; returns the number of fields. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	for (char *s = line; s && n < max;) {
		f[n++] = s;
		s = strchr(s, '\t');
		if (s)
			*s++ = 0;
	}
	return n;
}

/* The tail fields of one frame: malformed, then any error-level expert item. */
static int check_tail(const struct tshark_fields *q, int fr, char **t)
{
	char *save = NULL;
	int bad = 0;

	if (t[0][0]) {
		fprintf(stderr, "frame %d (%s): Malformed\n", fr, frame_name(q, fr));
		bad++;
	}
	for (char *s = strtok_r(t[1], ",", &save); s; s = strtok_r(NULL, ",", &save))
		if (strtol(s, NULL, 0) >= EXPERT_ERROR) {
			fprintf(stderr, "frame %d (%s): error expert info: %s\n", fr, frame_name(q, fr), t[2]);
			bad++;
			break;
		}
	return bad;
}

int tshark_fields(const char *tshark, const char *pcap, const struct tshark_fields *q)
{
	static char line[65536];  /* one frame's fields; NAS frames with every IE are long */
	char cmd[4096], *f[TSHARK_MAX_FIELDS + 1 + N_TAIL];
	int want = 1 + q->nfields + N_TAIL, bad = 0, seen = 0;
	size_t n;
	FILE *p;

	if (q->nfields < 0 || q->nfields > TSHARK_MAX_FIELDS)
		return -1;
	n = (size_t)snprintf(cmd, sizeof(cmd),
			     "'%s' -r '%s' %s -T fields -E separator=/t -E occurrence=a -E aggregator=, -e frame.number",
			     tshark, pcap, q->opts ? q->opts : "");
	for (int i = 0; i < q->nfields + N_TAIL && n < sizeof(cmd); i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " -e %s",
				      i < q->nfields ? q->fields[i] : tail_fields[i - q->nfields]);
	if (n + sizeof(" 2>&1") > sizeof(cmd))
		return -1;
	strcat(cmd, " 2>&1");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		int fr, nf;

		line[strcspn(line, "\n")] = 0;
		if (is_root_notice(line))
			continue;
		nf = split(line, f, want);
		fr = atoi(f[0]);
		if (nf < want || fr < 1 || fr > q->nframes) {
			for (int i = 1; i < nf; i++)
				f[i][-1] = '\t';  /* the whole line, as tshark printed it */
			fprintf(stderr, "tshark: %s\n", line);
			bad++;
			continue;
		}
		seen++;
		bad += q->row(q->ctx, fr, f + 1);
		bad += check_tail(q, fr, f + 1 + q->nfields);
	}
	if (pclose(p) != 0) {
		fprintf(stderr, "tshark failed\n");
		bad++;
	}
	if (seen != q->nframes) {
		fprintf(stderr, "tshark decoded %d of %d frames\n", seen, q->nframes);
		bad++;
	}
	return bad;
}

int tshark_expert(const char *tshark, const char *pcap, const char *opts)
{
	char cmd[2048], line[4096];
	int bad = 0, in_errors = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' -r '%s' %s -q -z expert 2>&1", tshark, pcap, opts ? opts : "");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	/* "-z expert" prints sections "Errors (n)", "Warns (n)", "Notes (n)", "Chats (n)" */
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "Errors (") || strstr(line, "Malformed")) {
			in_errors = strstr(line, "Errors (") != NULL;
			fprintf(stderr, "tshark -z expert: %s", line);
			bad++;
		} else if (!strncmp(line, "Warns (", 7) || !strncmp(line, "Notes (", 7) ||
			   !strncmp(line, "Chats (", 7)) {
			in_errors = 0;
			fprintf(stderr, "tshark -z expert (not an error): %s", line);
		} else if (in_errors && line[0] != '\n') {
			fprintf(stderr, "  %s", line);
		}
	}
	if (pclose(p) != 0) {
		fprintf(stderr, "tshark -z expert exited with an error\n");
		bad++;
	}
	return bad;
}

int tshark_lines(const char *tshark, const char *pcap, const char *args, const char *pipe)
{
	char cmd[2048], line[512];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' -n -r '%s' %s 2>/dev/null%s%s", tshark, pcap, args ? args : "",
		 pipe ? " | " : "", pipe ? pipe : "");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "tshark: %s", line);
		n++;
	}
	pclose(p);
	return n;
}
