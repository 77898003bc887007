/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * hash - the one string hash of the tree (FNV-1a) and the one integer finaliser
 * (murmur3 fmix32), header-only. Keys that differ only in their last characters (SUPIs,
 * TOML keys) go into power-of-two tables indexed by the low bits: hash_str() finalises
 * for that; hash_fnv1a() is the raw FNV-1a for tables that probe on it as it is.
 */
#ifndef SOLOCORE_COMMON_HASH_H
#define SOLOCORE_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

/* murmur3's fmix32: every input bit reaches every output bit. */
static inline uint32_t hash_mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static inline uint32_t hash_fnv1a(const void *p, size_t len)
{
	const uint8_t *s = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/* FNV-1a of a NUL-terminated string, finalised. */
static inline uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return hash_mix32(h);
}

#endif
