/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include "testlib.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#ifndef SOLOCORE_VECTORS_DIR
#error "SOLOCORE_VECTORS_DIR must be defined by the build"
#endif

struct tv_kv { int section; char *key; char *val; };
struct tv_file {
	char **sections; int nsec;
	struct tv_kv *kv; int nkv;
};

static char *trim(char *s)
{
	while (isspace((unsigned char)*s)) s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
	return s;
}

struct tv_file *tv_open(const char *name)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", SOLOCORE_VECTORS_DIR, name);
	FILE *fp = fopen(path, "r");
	if (!fp) { perror(path); return NULL; }
	struct tv_file *f = calloc(1, sizeof(*f));
	char line[16384];
	int cur = -1;
	while (f && fgets(line, sizeof(line), fp)) {
		char *h = strchr(line, '#');
		if (h) *h = 0;
		char *s = trim(line);
		if (!*s) continue;
		if (*s == '[') {
			char *e = strchr(s, ']');
			if (!e) continue;
			*e = 0;
			f->sections = realloc(f->sections, sizeof(char *) * (f->nsec + 1));
			f->sections[f->nsec] = strdup(s + 1);
			cur = f->nsec++;
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq) continue;
		*eq = 0;
		f->kv = realloc(f->kv, sizeof(*f->kv) * (f->nkv + 1));
		f->kv[f->nkv].section = cur;
		f->kv[f->nkv].key = strdup(trim(s));
		f->kv[f->nkv].val = strdup(trim(eq + 1));
		f->nkv++;
	}
	fclose(fp);
	return f;
}

void tv_close(struct tv_file *f)
{
	if (!f) return;
	for (int i = 0; i < f->nsec; i++) free(f->sections[i]);
	for (int i = 0; i < f->nkv; i++) { free(f->kv[i].key); free(f->kv[i].val); }
	free(f->sections); free(f->kv); free(f);
}

int tv_sections(const struct tv_file *f) { return f->nsec; }
const char *tv_section_name(const struct tv_file *f, int i) { return (i >= 0 && i < f->nsec) ? f->sections[i] : NULL; }

int tv_find(const struct tv_file *f, const char *section)
{
	for (int i = 0; i < f->nsec; i++)
		if (!strcmp(f->sections[i], section)) return i;
	return -1;
}

const char *tv_get(const struct tv_file *f, int section, const char *key)
{
	for (int i = 0; i < f->nkv; i++)
		if (f->kv[i].section == section && !strcmp(f->kv[i].key, key)) return f->kv[i].val;
	return NULL;
}

int tv_unhex(const char *hex, uint8_t *out, size_t outsz)
{
	size_t n = 0;
	int hi = -1;
	for (const char *p = hex; *p; p++) {
		if (isspace((unsigned char)*p)) continue;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hi < 0) { p++; continue; }
		int v;
		if (*p >= '0' && *p <= '9') v = *p - '0';
		else if (*p >= 'a' && *p <= 'f') v = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F') v = *p - 'A' + 10;
		else return -1;
		if (hi < 0) { hi = v; continue; }
		if (n >= outsz) return -1;
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	return hi < 0 ? (int)n : -1;
}

int tv_hex(const struct tv_file *f, int section, const char *key, uint8_t *out, size_t outsz)
{
	const char *v = tv_get(f, section, key);
	return v ? tv_unhex(v, out, outsz) : -1;
}
