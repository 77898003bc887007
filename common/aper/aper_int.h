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
