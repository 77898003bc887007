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
 * indication, modify confirm, modify indication unsuccessful; 12..20 the handover and path switch ones
 * below. Encodes into buf; returns the length. */
enum {
	NGAP_SX_HO_REQUIRED = 12, NGAP_SX_HO_COMMAND, NGAP_SX_HO_REQUEST_ACK, NGAP_SX_HO_RES_ALLOC_UNSUCCESSFUL,
	NGAP_SX_PS_REQUEST, NGAP_SX_PS_ACK, NGAP_SX_PS_SETUP_FAILED, NGAP_SX_PS_UNSUCCESSFUL,
	NGAP_SX_HO_PREP_UNSUCCESSFUL,
};
#define NGAP_SAMPLE_XFERS 21
int ngap_sample_xfer(int kind, bool full, uint8_t *buf, size_t cap);
const char *ngap_sample_xfer_name(int kind);
/* Decode with the matching decoder into scratch (big enough for any transfer struct). */
int ngap_sample_xfer_decode(int kind, const uint8_t *buf, size_t len, void *scratch, struct ngap_dec_info *info);
/* Encode a decoded transfer of kind 12..20 again (the earlier kinds: their ngap_enc_* directly). */
int ngap_sample_xfer_ho_encode(int kind, const void *t, uint8_t *buf, size_t cap);
/* Big enough for any decoded transfer struct. */
union ngap_sample_xfer_any {
	struct ngap_setup_request_transfer a;
	struct ngap_setup_response_transfer b;
	struct ngap_modify_request_transfer c;
	struct ngap_ho_command_transfer d;
	struct ngap_ho_request_ack_transfer e;
	struct ngap_path_switch_request_transfer f;
	struct ngap_ho_resource_alloc_unsuccessful_transfer g;
};

#endif
