/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target: security protected NAS (nas_sec_decode) as the AMF sees
 * it, then the inner message as if ciphered with NEA0. Checks the exposed
 * MAC-covered range and inner message stay inside the input.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/nas/nas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nas_sec_hdr h;
	struct nas_msg m;
	struct nas_err e;
	uint8_t epd, sht;
	static uint8_t out[70000];
	static char str[16384];

	nas_peek(data, size, &epd, &sht);
	if (nas_sec_decode(data, size, &h, &e) < 0) {
		if (!e.reason || e.off > size)
			abort();
		return 0;
	}
	if (h.mac_input.p < data || h.mac_input.p + h.mac_input.len != data + size ||
	    h.msg.p != h.mac_input.p + 1 || h.msg.len == 0)
		abort();
	if (nas_decode(h.msg.p, h.msg.len, &m, &e) == 0) {
		nas_msg_to_str(&m, str, sizeof(str));
		if (nas_encode(&m, out, sizeof(out), &e) < 0)
			abort();
	}
	return 0;
}
