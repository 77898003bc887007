/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* common/aper internals shared by the reader (aper_r.c) and the writer (aper_w.c). */
#ifndef SOLOCORE_COMMON_APER_APER_INT_H
#define SOLOCORE_COMMON_APER_APER_INT_H

#include <string.h>

#include "common/aper/aper.h"

/* Number of bits needed to write x (0 for x == 0). */
static inline unsigned nbits(uint64_t x)
{
	return x ? 64u - (unsigned)__builtin_clzll(x) : 0; /* one instruction, not a loop per bit */
}

/* x with its 32 bits in reverse order: SEQUENCE preamble bits (first optional field first on the
 * wire) to and from the mask (optional field i = bit i) without a loop per field. */
static inline uint32_t rev32(uint32_t x)
{
	x = __builtin_bswap32(x);
	x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
	x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
	return ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
}

static inline unsigned nbytes(uint64_t x)
{
	unsigned n = (nbits(x) + 7) / 8;

	return n ? n : 1;
}

static inline bool str_char_ok(enum aper_str kind, uint8_t c)
{
	switch (kind) {
	case APER_PRINTABLE: /* X.680 41.4 Table 10 */
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		       (c && strchr(" '()+,-./:=?", c) != NULL); /* not the terminator */
	case APER_VISIBLE:
		return c >= 0x20 && c <= 0x7e;
	case APER_IA5:
		return c <= 0x7f;
	}
	return false;
}

#endif
