/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Milenage against all 20 TS 35.208 test sets, every field (tests/vectors/milenage_ts35208.txt). */
#include "crypto_test.h"

#include "common/crypto/crypto.h"

static void test_all_sets(void **state)
{
	struct tv_file *f = ct_open("milenage_ts35208.txt");
	int checked = 0;

	(void)state;
	for (int s = 0; s < tv_sections(f); s++) {
		uint8_t k[16], rand[16], sqn[6], amf[2], op[16], opc_v[16], opc[16];
		uint8_t mac_a[8], mac_s[8], res[8], ck[16], ik[16], ak[6], ak_s[6];
		uint8_t o_mac_a[8], o_mac_s[8], o_res[8], o_ck[16], o_ik[16], o_ak[6], o_ak_s[6];
		struct crypto_milenage_out all;

		ct_hex(f, s, "K", k, sizeof(k), 16);
		ct_hex(f, s, "RAND", rand, sizeof(rand), 16);
		ct_hex(f, s, "SQN", sqn, sizeof(sqn), 6);
		ct_hex(f, s, "AMF", amf, sizeof(amf), 2);
		ct_hex(f, s, "OP", op, sizeof(op), 16);
		ct_hex(f, s, "OPc", opc_v, sizeof(opc_v), 16);
		ct_hex(f, s, "MAC_A", mac_a, sizeof(mac_a), 8);
		ct_hex(f, s, "MAC_S", mac_s, sizeof(mac_s), 8);
		ct_hex(f, s, "RES", res, sizeof(res), 8);
		ct_hex(f, s, "CK", ck, sizeof(ck), 16);
		ct_hex(f, s, "IK", ik, sizeof(ik), 16);
		ct_hex(f, s, "AK", ak, sizeof(ak), 6);
		ct_hex(f, s, "AK_S", ak_s, sizeof(ak_s), 6);

		assert_int_equal(crypto_milenage_opc(k, op, opc), 0);
		CT_MEM(opc, opc_v, 16, tv_section_name(f, s));
		/* the separate functions */
		assert_int_equal(crypto_milenage_f1(k, opc, rand, sqn, amf, o_mac_a, o_mac_s), 0);
		assert_int_equal(crypto_milenage_f2345(k, opc, rand, o_res, o_ck, o_ik, o_ak), 0);
		assert_int_equal(crypto_milenage_f5star(k, opc, rand, o_ak_s), 0);
		assert_memory_equal(o_mac_a, mac_a, 8);
		assert_memory_equal(o_mac_s, mac_s, 8);
		assert_memory_equal(o_res, res, 8);
		assert_memory_equal(o_ck, ck, 16);
		assert_memory_equal(o_ik, ik, 16);
		assert_memory_equal(o_ak, ak, 6);
		assert_memory_equal(o_ak_s, ak_s, 6);
		/* the one-key-schedule variant */
		assert_int_equal(crypto_milenage_all(k, opc, rand, sqn, amf, &all), 0);
		assert_memory_equal(all.mac_a, mac_a, 8);
		assert_memory_equal(all.mac_s, mac_s, 8);
		assert_memory_equal(all.res, res, 8);
		assert_memory_equal(all.ck, ck, 16);
		assert_memory_equal(all.ik, ik, 16);
		assert_memory_equal(all.ak, ak, 6);
		assert_memory_equal(all.ak_s, ak_s, 6);
		checked++;
	}
	assert_int_equal(checked, 20);
	tv_close(f);
}

/* NULL outputs are allowed and do not disturb the others. */
static void test_null_outputs(void **state)
{
	struct tv_file *f = ct_open("milenage_ts35208.txt");
	int s = ct_sec(f, "test_set_1");
	uint8_t k[16], rand[16], opc[16], ck[16], want[16];

	(void)state;
	ct_hex(f, s, "K", k, sizeof(k), 16);
	ct_hex(f, s, "RAND", rand, sizeof(rand), 16);
	ct_hex(f, s, "OPc", opc, sizeof(opc), 16);
	ct_hex(f, s, "CK", want, sizeof(want), 16);
	assert_int_equal(crypto_milenage_f2345(k, opc, rand, NULL, ck, NULL, NULL), 0);
	assert_memory_equal(ck, want, 16);
	assert_int_equal(crypto_milenage_f1(k, opc, rand, NULL, NULL, NULL, NULL), -EINVAL);
	tv_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_sets),
		cmocka_unit_test(test_null_outputs),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	crypto_thread_cleanup();
	return rc;
}
