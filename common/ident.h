/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ident - the one check for the operator-chosen names of the tree (user and token names,
 * settings keys, policy profile names): 1..max characters of [A-Za-z0-9] and the given
 * punctuation. Header-only, like common/hex.h. Such names end up in URLs, log lines and
 * SQL parameters: keeping them to this set means none of those needs escaping.
 */
#ifndef SOLOCORE_COMMON_IDENT_H
#define SOLOCORE_COMMON_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* true when s (NULL is not valid) has 1..max characters, each a letter, a digit or one of
 * punct ("._-" for example). Reads at most max + 1 bytes of s. */
static inline bool ident_valid(const char *s, size_t max, const char *punct)
{
	size_t len = s ? strnlen(s, max + 1) : 0;

	if (!len || len > max)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(punct, c)))
			return false;
	}
	return true;
}

#endif
