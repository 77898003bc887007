/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * libFuzzer target for the configuration loader: any input either loads or
 * fails with a "name:line:column: key: reason" message; whatever loads prints
 * as YAML that loads again into an identical struct.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf c, again;
	char err[512];
	char *buf = NULL;
	size_t blen = 0;

	if (size > 65536)
		return 0;
	err[0] = 0;
	if (conf_load_string(&c, "fuzz.yaml", (const char *)data, size, err, sizeof(err)) < 0) {
		/* The message must name the input and a position. */
		if (strncmp(err, "fuzz.yaml:", 10) != 0)
			abort();
		conf_free(&c);
		return 0;
	}
	FILE *m = open_memstream(&buf, &blen);
	if (!m)
		abort();
	if (conf_print(&c, m) < 0)
		abort();
	fclose(m);
	if (conf_load_string(&again, "printed.yaml", buf, blen, err, sizeof(err)) < 0) {
		fprintf(stderr, "printed config does not load: %s\n%s\n", err, buf);
		abort();
	}
	if (!conf_equal(&c, &again)) {
		fprintf(stderr, "printed config loads differently:\n%s\n", buf);
		abort();
	}
	free(buf);
	conf_free(&again);
	conf_free(&c);
	return 0;
}
