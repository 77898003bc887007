/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Sample NGAP messages for the round-trip, tshark, no-allocation tests and the benchmark. */
#ifndef SOLOCORE_TESTS_NGAP_SAMPLES_H
#define SOLOCORE_TESTS_NGAP_SAMPLES_H

#include <stdbool.h>

#include "common/ngap/ngap.h"

/* Number of message kinds; sample i filled into m with every optional IE present (full) or none. */
int ngap_sample_count(void);
void ngap_sample(int i, bool full, struct ngap_msg *m);

/* SM transfers: kind 0..6 = setup request, setup response, setup unsuccessful, release command,
 * release response, modify request, modify response; 7..11 = notify, notify released, modify
 * indication, modify confirm, modify indication unsuccessful. Encodes into buf; returns the length. */
#define NGAP_SAMPLE_XFERS 12
int ngap_sample_xfer(int kind, bool full, uint8_t *buf, size_t cap);
const char *ngap_sample_xfer_name(int kind);
/* Decode with the matching decoder into scratch (big enough for any transfer struct). */
int ngap_sample_xfer_decode(int kind, const uint8_t *buf, size_t len, void *scratch, struct ngap_dec_info *info);

#endif
