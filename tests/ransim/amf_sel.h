/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim: the gNB's NAS node selection function (TS 38.300 4.2: AMF selection at UE
 * attachment; TS 38.410 NNSF; TS 23.501 5.21.2 and 6.3.5): which AMF of those the gNB has NG-C
 * associations with gets a new UE-associated logical connection (an Initial UE Message).
 * Pure functions over a small table, no I/O: amf_sel.c, unit tested by test_amf_sel.c.
 */
#ifndef SOLOCORE_TESTS_RANSIM_AMF_SEL_H
#define SOLOCORE_TESTS_RANSIM_AMF_SEL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/ngap/ngap.h"

#define RS_AMF_MAX 8               /* AMFs one gNB connects to (RANSIM_MAX_AMFS) */

/* What the gNB keeps of one AMF from its NG SETUP RESPONSE (TS 38.413 9.2.6.2). */
struct rs_amf_entry {
	bool ready;                    /* NG Setup done, association up */
	uint8_t capacity;              /* Relative AMF Capacity (9.3.1.32) */
	uint8_t n_guamis;              /* Served GUAMI List (9.3.3.3 each) */
	struct ngap_guami guamis[NGAP_MAX_GUAMIS];
	int64_t credit;                /* smooth weighted round robin: current weight */
};

struct rs_amf_set {
	unsigned n;
	struct rs_amf_entry e[RS_AMF_MAX];
};

/* How an AMF was chosen. */
enum rs_amf_how {
	RS_SEL_GUAMI = 0,  /* a served GUAMI equals the UE's PLMN, region, set and pointer */
	RS_SEL_SET,        /* the pointed-to AMF is not connected: another of the same region + set
			    * (TS 23.501 5.21.2.1) */
	RS_SEL_CAPACITY,   /* no 5G-S-TMSI / GUAMI from the UE: weighted by Relative AMF Capacity
			    * (TS 23.501 6.3.5 case 1) */
	RS_SEL_ANY,        /* the UE's GUAMI names a set the gNB has no AMF of: any AMF, weighted
			    * (6.3.5 case 2) */
	RS_SEL_HOW_COUNT
};
const char *rs_amf_how_name(enum rs_amf_how h);

/* Choose the AMF for a new UE-associated logical connection. ue_guami: the GUAMI part of
 * the UE's 5G-S-TMSI / 5G-GUTI (PLMN, AMF region, set, pointer), NULL when the UE gave
 * none. Returns the entry's index, or -ENOENT when no AMF is ready; *how says why. The
 * weighted choices advance the credits of s (deterministic: smooth weighted round robin,
 * so N choices among capacities c_i give each AMF N * c_i / sum(c) within one). */
int rs_amf_select(struct rs_amf_set *s, const struct ngap_guami *ue_guami, enum rs_amf_how *how);

/* Whether two GUAMIs are equal (PLMN, region, set, pointer) / of the same AMF set. */
bool rs_guami_eq(const struct ngap_guami *a, const struct ngap_guami *b);
bool rs_guami_same_set(const struct ngap_guami *a, const struct ngap_guami *b);

#endif
