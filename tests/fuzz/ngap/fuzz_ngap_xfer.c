/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target for one SM transfer decoder, chosen at build time by NGAP_XFER_KIND (0..20, see
 * tests/ngap/ngap_samples.h). Same properties as fuzz_ngap.c: no crash, no read past the input, and
 * encode(decode(x)) is a fixed point.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ngap/ngap.h"

#ifndef NGAP_XFER_KIND
#error "NGAP_XFER_KIND not set"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

union xfer {
	struct ngap_setup_request_transfer srq;
	struct ngap_setup_response_transfer srs;
	struct ngap_setup_unsuccessful_transfer su;
	struct ngap_release_command_transfer rc;
	struct ngap_release_response_transfer rr;
	struct ngap_modify_request_transfer mrq;
	struct ngap_modify_response_transfer mrs;
	struct ngap_notify_transfer nt;
	struct ngap_notify_released_transfer nr;
	struct ngap_modify_indication_transfer mi;
	struct ngap_modify_confirm_transfer mc;
	struct ngap_modify_indication_unsuccessful_transfer mu;
	struct ngap_ho_required_transfer hrq;
	struct ngap_ho_command_transfer hc;
	struct ngap_ho_request_ack_transfer ha;
	struct ngap_ho_resource_alloc_unsuccessful_transfer hu;
	struct ngap_path_switch_request_transfer ps;
	struct ngap_path_switch_request_ack_transfer pa;
	struct ngap_cause_transfer c;
};

static int dec(const uint8_t *p, size_t n, union xfer *x, struct ngap_dec_info *i)
{
	switch (NGAP_XFER_KIND) {
	case 0: return ngap_dec_setup_request_transfer(p, n, &x->srq, i);
	case 1: return ngap_dec_setup_response_transfer(p, n, &x->srs, i);
	case 2: return ngap_dec_setup_unsuccessful_transfer(p, n, &x->su, i);
	case 3: return ngap_dec_release_command_transfer(p, n, &x->rc, i);
	case 4: return ngap_dec_release_response_transfer(p, n, &x->rr, i);
	case 5: return ngap_dec_modify_request_transfer(p, n, &x->mrq, i);
	case 6: return ngap_dec_modify_response_transfer(p, n, &x->mrs, i);
	case 7: return ngap_dec_notify_transfer(p, n, &x->nt, i);
	case 8: return ngap_dec_notify_released_transfer(p, n, &x->nr, i);
	case 9: return ngap_dec_modify_indication_transfer(p, n, &x->mi, i);
	case 10: return ngap_dec_modify_confirm_transfer(p, n, &x->mc, i);
	case 11: return ngap_dec_modify_indication_unsuccessful_transfer(p, n, &x->mu, i);
	case 12: return ngap_dec_ho_required_transfer(p, n, &x->hrq, i);
	case 13: return ngap_dec_ho_command_transfer(p, n, &x->hc, i);
	case 14: return ngap_dec_ho_request_ack_transfer(p, n, &x->ha, i);
	case 15: return ngap_dec_ho_resource_alloc_unsuccessful_transfer(p, n, &x->hu, i);
	case 16: return ngap_dec_path_switch_request_transfer(p, n, &x->ps, i);
	case 17: return ngap_dec_path_switch_request_ack_transfer(p, n, &x->pa, i);
	default: return ngap_dec_cause_transfer(p, n, &x->c, i); /* 18..20 */
	}
}

static int enc(const union xfer *x, uint8_t *p, size_t cap)
{
	switch (NGAP_XFER_KIND) {
	case 0: return ngap_enc_setup_request_transfer(&x->srq, p, cap);
	case 1: return ngap_enc_setup_response_transfer(&x->srs, p, cap);
	case 2: return ngap_enc_setup_unsuccessful_transfer(&x->su, p, cap);
	case 3: return ngap_enc_release_command_transfer(&x->rc, p, cap);
	case 4: return ngap_enc_release_response_transfer(&x->rr, p, cap);
	case 5: return ngap_enc_modify_request_transfer(&x->mrq, p, cap);
	case 6: return ngap_enc_modify_response_transfer(&x->mrs, p, cap);
	case 7: return ngap_enc_notify_transfer(&x->nt, p, cap);
	case 8: return ngap_enc_notify_released_transfer(&x->nr, p, cap);
	case 9: return ngap_enc_modify_indication_transfer(&x->mi, p, cap);
	case 10: return ngap_enc_modify_confirm_transfer(&x->mc, p, cap);
	case 11: return ngap_enc_modify_indication_unsuccessful_transfer(&x->mu, p, cap);
	case 12: return ngap_enc_ho_required_transfer(&x->hrq, p, cap);
	case 13: return ngap_enc_ho_command_transfer(&x->hc, p, cap);
	case 14: return ngap_enc_ho_request_ack_transfer(&x->ha, p, cap);
	case 15: return ngap_enc_ho_resource_alloc_unsuccessful_transfer(&x->hu, p, cap);
	case 16: return ngap_enc_path_switch_request_transfer(&x->ps, p, cap);
	case 17: return ngap_enc_path_switch_request_ack_transfer(&x->pa, p, cap);
	default: return ngap_enc_cause_transfer(&x->c, p, cap);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static union xfer x, y;
	static uint8_t a[16384], b[16384];
	struct ngap_dec_info info;
	int la, lb;

	if (dec(data, size, &x, &info) != 0) {
		if (!info.why)
			abort();
		return 0;
	}
	if (info.action != NGAP_ACT_NONE)
		return 0;
	la = enc(&x, a, sizeof(a));
	if (la <= 0 || dec(a, (size_t)la, &y, &info) != 0)
		abort();
	lb = enc(&y, b, sizeof(b));
	if (lb != la || memcmp(a, b, (size_t)la))
		abort();
	return 0;
}
