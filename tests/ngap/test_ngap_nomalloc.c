/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * No allocation in any NGAP / APER encode or decode (issue 3, item 4): every sample message and SM
 * transfer is encoded and decoded, and every captured PDU decoded and re-encoded, between
 * nomalloc_begin() and nomalloc_end(); bad input paths too. Linked with nomalloc_dep, which wraps
 * malloc/calloc/realloc/strdup/strndup for every object in this executable (incl. libaper, libngap).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/ngap/ngap.h"
#include "ngap_samples.h"
#include "testlib.h"

static struct ngap_msg m, m2;
static uint8_t buf[4096], buf2[4096], vecs[32][1024];
static int vlen[32], nvec;
static union ngap_sample_xfer_any scratch;

static void test_guard_works(void **state)
{
	(void)state;
	/* the guard itself must see an allocation, or the test below proves nothing */
	void *(*volatile alloc)(size_t) = malloc; /* not elided by the optimiser */

	nomalloc_begin();
	void *p = alloc(16);
	unsigned n = nomalloc_end();
	free(p);
	assert_int_equal(n, 1);
}

static void test_no_allocation(void **state)
{
	struct ngap_dec_info info;
	unsigned calls;
	int ops = 0;
	struct tv_file *f = tv_open("ngap_messages.txt");

	(void)state;
	/* load the vectors before arming the guard (the vector reader allocates) */
	assert_non_null(f);
	for (nvec = 0; nvec < tv_sections(f) && nvec < 32; nvec++)
		vlen[nvec] = tv_hex(f, nvec, "hex", vecs[nvec], sizeof(vecs[nvec]));
	tv_close(f);
	for (int k = 0; k < NGAP_SAMPLE_XFERS; k++) /* warm the samples' cached transfers */
		ngap_sample(0, true, &m);
	for (int i = 0; i < ngap_sample_count(); i++)
		ngap_sample(i, true, &m);

	nomalloc_begin();
	for (int i = 0; i < ngap_sample_count(); i++)
		for (int full = 0; full < 2; full++) {
			ngap_sample(i, full, &m);
			int l = ngap_encode(&m, buf, sizeof(buf));

			ops += l > 0 && ngap_decode(buf, (size_t)l, &m2, &info) == 0;
			ops += ngap_encode(&m2, buf2, sizeof(buf2)) == l;
			ops += ngap_encode(&m, buf2, (size_t)l - 1) == -ENOSPC; /* error path */
			ops += ngap_decode(buf, (size_t)l / 2, &m2, &info) < 0; /* truncated path */
		}
	for (int k = 0; k < NGAP_SAMPLE_XFERS; k++)
		for (int full = 0; full < 2; full++) {
			int l = ngap_sample_xfer(k, full, buf, sizeof(buf));

			ops += ngap_sample_xfer_decode(k, buf, (size_t)l, &scratch, &info) == 0;
		}
	for (int i = 0; i < nvec; i++) {
		ops += ngap_decode(vecs[i], (size_t)vlen[i], &m, &info) == 0;
		ops += ngap_encode(&m, buf, sizeof(buf)) == vlen[i];
	}
	calls = nomalloc_end();

	assert_int_equal(calls, 0);
	assert_int_equal(ops, ngap_sample_count() * 2 * 4 + NGAP_SAMPLE_XFERS * 2 + nvec * 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_works),
		cmocka_unit_test(test_no_allocation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
