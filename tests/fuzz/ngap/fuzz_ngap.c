/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target: ngap_decode on arbitrary input (built with ASan+UBSan, so any read past the input
 * or undefined behaviour is a finding). Whatever decodes must also encode, and the encoding must
 * decode again to the same encoding (encode(decode(x)) is a fixed point). A message decoded with
 * IEs ignored or missing (criticality ignore / notify, TS 38.413 10.3) may lack mandatory data, so
 * the encode property is checked only when everything was understood. Decoded with a scratch buffer
 * (ngap_decode_scratch), so fragmented open types and the raw lists kept with them are covered too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ngap/ngap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ngap_msg m, m2;
	static uint8_t a[1 << 17], b[1 << 17], s1[1 << 17], s2[1 << 18];
	struct ngap_dec_info info;
	int la, lb;

	if (size > sizeof(s1) / 2)
		return 0;
	if (ngap_decode_scratch(data, size, &m, &info, s1, sizeof(s1)) != 0) {
		if (!info.why)
			abort(); /* every failure carries a reason */
		return 0;
	}
	if (info.action != NGAP_ACT_NONE)
		return 0;
	la = ngap_encode(&m, a, sizeof(a));
	if (la <= 0)
		abort();
	if (ngap_decode_scratch(a, (size_t)la, &m2, &info, s2, sizeof(s2)) != 0)
		abort();
	lb = ngap_encode(&m2, b, sizeof(b));
	if (lb != la || memcmp(a, b, (size_t)la))
		abort();
	return 0;
}
