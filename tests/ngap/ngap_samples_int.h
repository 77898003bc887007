/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Between ngap_samples.c and ngap_samples_ho.c only. */
#ifndef SOLOCORE_TESTS_NGAP_SAMPLES_INT_H
#define SOLOCORE_TESTS_NGAP_SAMPLES_INT_H

#include "ngap_samples.h"

/* transfer kind k (full or not), encoded once and cached */
struct ngap_bytes ngap_sample_xfer_bytes(int kind, bool full);
void ngap_sample_diag(struct ngap_crit_diag *d);
void ngap_sample_fill_ho(struct ngap_msg *m, bool full);
int ngap_sample_xfer_ho(int kind, bool full, uint8_t *buf, size_t cap);
int ngap_sample_xfer_ho_decode(int kind, const uint8_t *buf, size_t len, void *scratch, struct ngap_dec_info *info);

#endif
