/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Linked with -Wl,--wrap=malloc,... so every allocator call made from our own
 * object files lands here; libc-internal calls are not counted (they are not
 * ours). */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
char *__real_strdup(const char *);
char *__real_strndup(const char *, size_t);
void *__wrap_malloc(size_t);
void *__wrap_calloc(size_t, size_t);
void *__wrap_realloc(void *, size_t);
char *__wrap_strdup(const char *);
char *__wrap_strndup(const char *, size_t);

static int armed;
static unsigned calls;

void *__wrap_malloc(size_t n) { if (armed) calls++; return __real_malloc(n); }
void *__wrap_calloc(size_t a, size_t b) { if (armed) calls++; return __real_calloc(a, b); }
void *__wrap_realloc(void *p, size_t n) { if (armed) calls++; return __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { if (armed) calls++; return __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { if (armed) calls++; return __real_strndup(s, n); }

void nomalloc_begin(void) { calls = 0; armed = 1; }
unsigned nomalloc_end(void) { armed = 0; return calls; }
