/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * hex - the one hex reader and writer of the tree, header-only (common/toml and db/ use
 * it without linking the runtime). Digits are read in either case; written in lower case
 * unless asked for upper (SIM files and the CLI print keys as "00112233...FF").
 * Callers that want exactly n bytes from exactly 2n digits use hex_decode_exact().
 */
#ifndef SOLOCORE_COMMON_HEX_H
#define SOLOCORE_COMMON_HEX_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value 0..15 of one hex digit ('0'-'9', 'a'-'f', 'A'-'F'), -1 for anything else. */
static inline int hex_digit(int c)
{
	if ((unsigned)(c - '0') < 10u)
		return c - '0';
	c |= 0x20;   /* 'A'..'F' -> 'a'..'f'; nothing else lands in 'a'..'f' */
	return (unsigned)(c - 'a') < 6u ? c - 'a' + 10 : -1;
}

/* The digit for v & 15. */
static inline char hex_char(unsigned v, bool upper)
{
	return (upper ? "0123456789ABCDEF" : "0123456789abcdef")[v & 15];
}

/*
 * hexlen digits at hex (no prefix, no separators) into out, which has room for outsz
 * bytes. Returns the number of bytes written (hexlen / 2); -EINVAL for an odd hexlen or a
 * character that is not a hex digit, -ENOSPC when the bytes do not fit. out is
 * unspecified on error.
 */
static inline int hex_decode(uint8_t *out, size_t outsz, const char *hex, size_t hexlen)
{
	if (hexlen & 1)
		return -EINVAL;
	if (hexlen / 2 > outsz)
		return -ENOSPC;
	for (size_t i = 0; i < hexlen / 2; i++) {
		int hi = hex_digit((unsigned char)hex[2 * i]), lo = hex_digit((unsigned char)hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(hexlen / 2);
}

/* Exactly n bytes from exactly 2 * n digits (keys, SQN, SD): 0, or -EINVAL for anything else. */
static inline int hex_decode_exact(uint8_t *out, size_t n, const char *hex, size_t hexlen)
{
	return hexlen == 2 * n && hex_decode(out, n, hex, hexlen) == (int)n ? 0 : -EINVAL;
}

/*
 * The 2 * n digits of b[0..n) and a NUL into out (outsz bytes). Returns 2 * n, or
 * -ENOSPC (out untouched) when outsz < 2 * n + 1.
 */
static inline int hex_encode(char *out, size_t outsz, const uint8_t *b, size_t n, bool upper)
{
	if (!outsz || n > (outsz - 1) / 2)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex_char(b[i] >> 4, upper);
		out[2 * i + 1] = hex_char(b[i], upper);
	}
	out[2 * n] = 0;
	return (int)(2 * n);
}

#endif
