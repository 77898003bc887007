/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target: the 5GS mobile identity parser (SUCI null scheme /
 * profile A / B / NAI, 5G-GUTI, 5G-S-TMSI, IMEI, IMEISV, MAC, EUI-64, none)
 * and the SUCI helpers the UDM's SIDF uses. Decoded identities must
 * re-encode to a value that decodes to the same to_str.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/nas/nas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nas_mobile_id id, id2;
	struct nas_buf eph, ct, mac;
	struct nas_err e;
	static uint8_t out[70000];
	static char s1[4096], s2[4096];
	int n;

	if (nas_mobile_id_dec(data, size, &id, &e) < 0) {
		if (!e.reason || e.off > size)
			abort();
		return 0;
	}
	nas_mobile_id_to_str(&id, s1, sizeof(s1));
	if (id.type == NAS_MOBID_SUCI) {
		nas_suci_null_supi(&id.suci, s2, sizeof(s2));
		if (nas_suci_ecies_parts(&id.suci, &eph, &ct, &mac) == 0 &&
		    eph.len + ct.len + mac.len != id.suci.output.len)
			abort();
	}
	n = nas_mobile_id_enc(&id, out, sizeof(out));
	if (n < 0)
		return 0;       /* e.g. an IMEI with no digits: decodable, not encodable */
	if (nas_mobile_id_dec(out, (size_t)n, &id2, &e) < 0)
		abort();
	nas_mobile_id_to_str(&id2, s2, sizeof(s2));
	if (strcmp(s1, s2))
		abort();
	return 0;
}
