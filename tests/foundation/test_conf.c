/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Configuration: defaults, print -> load round trip, every kind of error with its exact text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"

static struct conf c1, c2;

static void test_defaults(void **state)
{
	static const uint8_t nia[] = { 2, 1, 3, 0 }, nea[] = { 2, 1, 3, 0 };

	(void)state;
	assert_int_equal(conf_defaults(&c1), 0);
	assert_int_equal(c1.log.level, 2);
	assert_string_equal(c1.log.file, "");
	assert_string_equal(c1.plmn.mcc, "001");
	assert_string_equal(c1.plmn.mnc, "01");
	assert_string_equal(c1.amf.name, "solocore");
	assert_int_equal(c1.amf.region_id, 1);
	assert_int_equal(c1.amf.set_id, 1);
	assert_int_equal(c1.amf.pointer, 0);
	assert_int_equal(c1.amf.relative_capacity, 255);
	assert_int_equal(c1.amf.security.n_integrity, 4);
	assert_memory_equal(c1.amf.security.integrity, nia, 4);
	assert_int_equal(c1.amf.security.n_ciphering, 4);
	assert_memory_equal(c1.amf.security.ciphering, nea, 4);
	assert_string_equal(c1.amf.network_name.full, "");
	assert_string_equal(c1.amf.timezone, "");
	assert_int_equal(c1.n_tac, 1);
	assert_int_equal(c1.tac[0], 1);
	assert_int_equal(c1.n_slices, 1);
	assert_int_equal(c1.slices[0].sst, 1);
	assert_true(c1.slices[0].has_sd);
	assert_int_equal(c1.slices[0].sd, 0x010203);
	assert_int_equal(c1.n_dnns, 1);
	assert_string_equal(c1.dnns[0].name, "internet");
	assert_string_equal(c1.dnns[0].pool, "10.45.0.0/16");
	assert_int_equal(c1.dnns[0].n_dns, 1);
	assert_string_equal(c1.dnns[0].dns[0], "8.8.8.8");
	assert_int_equal(c1.dnns[0].mtu, 1400);
	assert_string_equal(c1.n2.address, "0.0.0.0");
	assert_int_equal(c1.n2.port, 38412);
	assert_int_equal(c1.n2.sctp, CONF_SCTP_AUTO);
	assert_int_equal(c1.n2.usrsctp_encaps, CONF_ENCAPS_RAW);
	assert_int_equal(c1.n2.udp_port, 9899);
	assert_int_equal(c1.timers.t3512, 3240);
	assert_int_equal(c1.timers.t3502, 720);
	assert_int_equal(c1.timers.t3513, 2);
	assert_int_equal(c1.timers.t3522, 6);
	assert_int_equal(c1.timers.t3550, 6);
	assert_int_equal(c1.timers.t3555, 6);
	assert_int_equal(c1.timers.t3560, 6);
	assert_int_equal(c1.timers.t3570, 6);
	assert_int_equal(c1.timers.t3591, 16);
	assert_int_equal(c1.timers.t3592, 16);
	assert_int_equal(c1.timers.mobile_reachable, 3240 + 240);
	assert_int_equal(c1.timers.implicit_dereg, 240);
	assert_int_equal(c1.suci.n_keys, 0);
	assert_string_equal(c1.db.path, "./solocore.db");
	assert_string_equal(c1.web.listen, "0.0.0.0");
	assert_int_equal(c1.web.port, 5000);
	assert_string_equal(c1.web.tls.cert, "");
	assert_string_equal(c1.upf.n3_interface, "");
	assert_int_equal(c1.upf.xdp_mode, CONF_XDP_AUTO);
	assert_int_equal(c1.upf.max_sessions, 1048576);
	assert_int_equal(c1.upf.n_n4_peers, 0);             /* issue 31: N4 from anyone unless set */
	assert_int_equal(c1.upf.n4_release_timer, 60000);
	assert_int_equal(c1.upf.n4_sessions_per_peer, 0);
	assert_int_equal(c1.limits.max_ues, 1048576);
	assert_int_equal(c1.limits.max_gnbs, 1024);
	assert_int_equal(c1.n2.busy_poll_us, 0);   /* off unless asked for */
	assert_string_equal(conf_sctp_name(CONF_SCTP_USRSCTP), "usrsctp");
	assert_string_equal(conf_xdp_mode_name(CONF_XDP_GENERIC), "generic");
}

static void load_ok(struct conf *c, const char *text)
{
	char err[512] = "";
	int rc = conf_load_string(c, "t.yaml", text, strlen(text), err, sizeof(err));

	if (rc)
		fail_msg("unexpected error %d: %s", rc, err);
}

/* Empty files, comment-only files and an empty mapping are all defaults. */
static void test_empty_is_defaults(void **state)
{
	static const char *const texts[] = { "", "# nothing\n", "{}\n", "log:\n", "---\n" };

	(void)state;
	assert_int_equal(conf_defaults(&c1), 0);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		load_ok(&c2, texts[i]);
		assert_true(conf_equal(&c1, &c2));
	}
	/* conf_equal does look at values. */
	load_ok(&c2, "n2:\n  port: 38413\n");
	assert_false(conf_equal(&c1, &c2));
}

static const char full_text[] =
	"log:\n  level: debug\n  file: /tmp/solocore-test.log\n"
	"  modules:\n    - {name: ngap, level: debug}\n    - name: sctp\n      level: error\n"
	"plmn: {mcc: \"999\", mnc: \"070\"}\n"
	"amf:\n"
	"  name: \"core-1 (lab)\"\n  region_id: 202\n  set_id: 1023\n  pointer: 63\n  relative_capacity: 10\n"
	"  security:\n    integrity: [NIA1, NIA2]\n    ciphering: [NEA2]\n"
	"  network_name: {full: \"Solo \\\"Core\\\" Net\", short: Solo}\n"
	"  timezone: \"+05:45\"\n"
	"  registration_areas: [[1, 16777215], [2]]\n"
	"tac: [1, 2, 16777215]\n"
	"slices:\n  - {sst: 1}\n  - {sst: 1, sd: 00000a}\n  - {sst: 2, sd: FFFFFF}\n"
	"dnns:\n"
	"  - name: internet\n    pool: 10.45.0.0/16\n"
	"  - name: ims\n    pool: 10.46.0.0/24\n    dns: [\"1.1.1.1\", \"2001:4860:4860::8888\"]\n    mtu: 1280\n"
	"  - {name: iot, pool: 10.47.0.0/20, dns: []}\n"
	"n2: {address: \"127.0.0.1\", port: 38413, sctp: usrsctp, usrsctp_encaps: udp, udp_port: 9900}\n"
	"timers: {t3512: 600, t3550: 3, implicit_dereg: 60}\n"
	"suci:\n  keys:\n"
	"    - id: 1\n      scheme: A\n"
	"      private_key: c53c22208b61860b06c62e5406a7b330c2b577aa5558981510d128247d38bd1d\n"
	"    - {id: 2, scheme: B, private_key_file: KEYFILE}\n"
	"db: {path: /var/lib/solocore/x.db}\n"
	"web: {listen: \"::\", port: 8080, tls: {cert: c.pem, key: k.pem}}\n"
	"upf: {n3_interface: eth1, n6_interface: eth2, xdp_mode: generic, max_sessions: 1000}\n"
	"limits: {max_ues: 5000, max_gnbs: 4}\n";

static char keyfile[64];

static char *full_config(void)
{
	static char text[4096];
	const char *at = strstr(full_text, "KEYFILE");
	FILE *f;

	strcpy(keyfile, "/tmp/solocore-key-XXXXXX");
	int fd = mkstemp(keyfile);
	assert_true(fd >= 0);
	close(fd);
	f = fopen(keyfile, "w");
	assert_non_null(f);
	fputs("F1F2F3F4F5F6F7F8 F9FAFBFCFDFEFF00\nF1F2F3F4F5F6F7F8F9FAFBFCFDFEFF01\n", f);
	fclose(f);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - full_text), full_text, keyfile, at + 7);
	return text;
}

static char *print_mem(const struct conf *c, bool redacted)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(redacted ? conf_print_redacted(c, m) : conf_print(c, m), 0);
	fclose(m);
	return buf;
}

static void test_full_values(void **state)
{
	(void)state;
	load_ok(&c1, full_config());
	assert_int_equal(c1.log.level, 3);
	assert_string_equal(c1.plmn.mnc, "070");
	assert_int_equal(c1.log.n_modules, 2);
	assert_string_equal(c1.log.modules[1].name, "sctp");
	assert_int_equal(c1.log.modules[1].level, 0);
	assert_string_equal(c1.amf.network_name.full, "Solo \"Core\" Net");
	assert_string_equal(c1.amf.network_name.short_name, "Solo");
	assert_int_equal(c1.amf.security.n_integrity, 2);
	assert_int_equal(c1.amf.security.integrity[0], 1);
	assert_int_equal(c1.amf.security.ciphering[0], 2);
	assert_int_equal(c1.n_tac, 3);
	assert_int_equal(c1.tac[2], 16777215);
	assert_int_equal(c1.amf.n_registration_areas, 2);
	assert_int_equal(c1.amf.registration_areas[0].n_tac, 2);
	assert_int_equal(c1.amf.registration_areas[0].tac[1], 16777215);
	assert_int_equal(c1.amf.registration_areas[1].n_tac, 1);
	assert_int_equal(c1.amf.registration_areas[1].tac[0], 2);
	assert_int_equal(c1.n_slices, 3);
	assert_false(c1.slices[0].has_sd);
	assert_int_equal(c1.slices[1].sd, 0x00000a);
	assert_int_equal(c1.slices[2].sd, 0xffffff);
	assert_int_equal(c1.n_dnns, 3);
	/* Fields not given in an entry take the entry defaults. */
	assert_int_equal(c1.dnns[0].mtu, 1400);
	assert_string_equal(c1.dnns[0].dns[0], "8.8.8.8");
	assert_int_equal(c1.dnns[1].n_dns, 2);
	assert_string_equal(c1.dnns[1].dns[1], "2001:4860:4860::8888");
	assert_int_equal(c1.dnns[2].n_dns, 0);
	assert_int_equal(c1.n2.sctp, CONF_SCTP_USRSCTP);
	assert_int_equal(c1.n2.usrsctp_encaps, CONF_ENCAPS_UDP);
	/* Not given: mobile reachable follows T3512 (TS 24.501 5.3.7). */
	assert_int_equal(c1.timers.t3512, 600);
	assert_int_equal(c1.timers.mobile_reachable, 840);
	assert_int_equal(c1.timers.t3560, 6);
	assert_int_equal(c1.suci.n_keys, 2);
	assert_true(c1.suci.keys[0].has_key);
	assert_int_equal(c1.suci.keys[0].private_key[0], 0xc5);
	assert_int_equal(c1.suci.keys[1].scheme, CONF_SUCI_B);
	assert_true(c1.suci.keys[1].has_key);
	assert_int_equal(c1.suci.keys[1].private_key[0], 0xf1);
	assert_int_equal(c1.suci.keys[1].private_key[31], 0x01);
	assert_string_equal(c1.web.listen, "::");
	assert_int_equal(c1.upf.xdp_mode, CONF_XDP_GENERIC);
	assert_int_equal(c1.limits.max_gnbs, 4);
	unlink(keyfile);
}

/* config print -> load gives an identical struct, and printing that again gives the same text. */
static void test_round_trip(void **state)
{
	char err[512];
	char *p1, *p2;

	(void)state;
	assert_int_equal(conf_defaults(&c1), 0);
	p1 = print_mem(&c1, false);
	load_ok(&c2, p1);
	assert_true(conf_equal(&c1, &c2));
	free(p1);

	load_ok(&c1, full_config());
	p1 = print_mem(&c1, false);
	assert_int_equal(conf_load_string(&c2, "p1", p1, strlen(p1), err, sizeof(err)), 0);
	assert_true(conf_equal(&c1, &c2));
	p2 = print_mem(&c2, false);
	assert_string_equal(p1, p2);
	/* A key from a file is printed as its path, a hex key as hex. */
	assert_non_null(strstr(p1, keyfile));
	assert_null(strstr(p1, "f1f2f3"));
	assert_non_null(strstr(p1, "c53c22208b61860b"));
	free(p2);
	/* Redacted: no key material, and it does not load. */
	p2 = print_mem(&c1, true);
	assert_null(strstr(p2, "c53c22208b61860b"));
	assert_non_null(strstr(p2, "private_key: \"<redacted>\""));
	assert_int_equal(conf_load_string(&c2, "r.yaml", p2, strlen(p2), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "suci.keys[0].private_key: a redacted key cannot be loaded: give the key or a key file"));
	free(p1);
	free(p2);
	conf_free(&c1);
	for (size_t i = 0; i < sizeof(c1.suci); i++)
		assert_int_equal(((uint8_t *)&c1.suci)[i], 0);
	conf_free(NULL);
	unlink(keyfile);
}

/* Strings holding YAML line breaks (U+0085, U+2028, U+2029), C1 controls, a BOM
 * and UTF-8 print as escapes that load back to the same bytes (a fuzz finding:
 * a raw U+0085 in the output was read back as a line break). */
static void test_round_trip_escapes(void **state)
{
	static const char text[] =
		"db:\n  path: \"./a\\Nb\\Lc\\Pd\\x80e\\x9ff\\uFEFFg\\th\\\\i\\\"j caf\xc3\xa9.db\"\n";
	char *p1;

	(void)state;
	load_ok(&c1, text);
	assert_string_equal(c1.db.path, "./a\xc2\x85" "b\xe2\x80\xa8" "c\xe2\x80\xa9" "d\xc2\x80" "e\xc2\x9f"
			    "f\xef\xbb\xbf" "g\th\\i\"j caf\xc3\xa9.db");
	p1 = print_mem(&c1, false);
	assert_non_null(strstr(p1, "path: \"./a\\x85b\\Lc\\Pd\\x80e\\x9ff\\uFEFFg\\x09h\\\\i\\\"j caf\xc3\xa9.db\""));
	load_ok(&c2, p1);
	assert_true(conf_equal(&c1, &c2));
	free(p1);
	conf_free(&c1);
	conf_free(&c2);
}

static void expect_err(const char *text, const char *want)
{
	char err[512] = "";
	int rc = conf_load_string(&c2, "t.yaml", text, strlen(text), err, sizeof(err));

	assert_int_equal(rc, -EINVAL);
	assert_string_equal(err, want);
}

/* n2.allowed_gnbs (issue 31): Global gNB IDs, prefixes, ID@prefix; errors with file:line. */
static void test_allowed_gnbs(void **state)
{
	static const char ok[] = "n2:\n  allowed_gnbs:\n    - \"00101:0x100/22\"\n    - 10.0.0.0/8\n"
				 "    - 2001:db8::/32\n    - \"001001:4096/32@192.0.2.7\"\n    - 192.0.2.9\n";
	struct conf_gnb_rule r;
	char err[512] = "";

	(void)state;
	assert_int_equal(conf_defaults(&c1), 0);
	assert_int_equal(c1.n2.n_allowed_gnbs, 0);   /* default: any gNB */
	assert_int_equal(conf_load_string(&c1, "t.yaml", ok, strlen(ok), err, sizeof(err)), 0);
	assert_int_equal(c1.n2.n_allowed_gnbs, 5);
	assert_int_equal(conf_gnb_rule_parse(c1.n2.allowed_gnbs[0], &r, NULL, 0), 0);
	assert_true(r.has_id && !r.has_prefix);
	assert_memory_equal(r.plmn, ((uint8_t[]){ 0x00, 0xf1, 0x10 }), 3);   /* TS 24.008 10.5.1.13 */
	assert_int_equal(r.gnb_id, 0x100);
	assert_int_equal(r.gnb_id_bits, 22);
	assert_int_equal(conf_gnb_rule_parse(c1.n2.allowed_gnbs[3], &r, NULL, 0), 0);
	assert_true(r.has_id && r.has_prefix);
	assert_memory_equal(r.plmn, ((uint8_t[]){ 0x00, 0x11, 0x00 }), 3);
	assert_int_equal(r.gnb_id, 4096);
	assert_int_equal(r.plen, 32);
	assert_int_equal(conf_gnb_rule_parse(c1.n2.allowed_gnbs[2], &r, NULL, 0), 0);
	assert_int_equal(r.plen, 32);
	assert_int_equal(conf_gnb_rule_parse(c1.n2.allowed_gnbs[4], &r, NULL, 0), 0);
	assert_int_equal(r.plen, 32);
	expect_err("n2:\n  allowed_gnbs:\n    - \"00101:0x100/21\"\n",
		   "t.yaml:3:7: n2.allowed_gnbs[0]: \"00101:0x100/21\": a gNB ID is 22..32 bits long, not 21");
	expect_err("n2:\n  allowed_gnbs:\n    - \"00101:0x400000/22\"\n",
		   "t.yaml:3:7: n2.allowed_gnbs[0]: \"00101:0x400000/22\": gNB ID 0x400000 does not fit in 22 bits");
	expect_err("n2:\n  allowed_gnbs: [10.0.0.1/8]\n",
		   "t.yaml:2:18: n2.allowed_gnbs[0]: \"10.0.0.1/8\" has bits set past /8");
	expect_err("n2:\n  allowed_gnbs: [gnb-7]\n",
		   "t.yaml:2:18: n2.allowed_gnbs[0]: \"gnb-7\" is not an address or prefix like 192.0.2.0/24 or "
		   "2001:db8::/32");
	expect_err("n2:\n  allowed_gnbs: [\"00101:0x1/22@300.1.1.1\"]\n",
		   "t.yaml:2:18: n2.allowed_gnbs[0]: \"300.1.1.1\" is not an address or prefix like 192.0.2.0/24 or "
		   "2001:db8::/32");
}

static void test_err_unknown_key(void **state)
{
	(void)state;
	expect_err("n2:\n  prot: 5\n", "t.yaml:2:3: n2.prot: unknown key");
	expect_err("amff: {}\n", "t.yaml:1:1: amff: unknown key");
	expect_err("dnns:\n  - {name: a, pool: 10.0.0.0/8, mtux: 1}\n", "t.yaml:2:33: dnns[0].mtux: unknown key");
}

static void test_err_duplicate_key(void **state)
{
	(void)state;
	expect_err("n2:\n  port: 5\n  port: 6\n", "t.yaml:3:3: n2.port: duplicate key");
	expect_err("n2: {}\nn2: {}\n", "t.yaml:2:1: n2: duplicate key");
}

static void test_err_wrong_type(void **state)
{
	(void)state;
	expect_err("n2:\n  port: abc\n", "t.yaml:2:9: n2.port: expected an integer, got \"abc\"");
	expect_err("n2:\n  port: 1.5\n", "t.yaml:2:9: n2.port: expected an integer, got \"1.5\"");
	expect_err("n2: 5\n", "t.yaml:1:5: n2: expected a mapping, got \"5\"");
	expect_err("tac: 5\n", "t.yaml:1:6: tac: expected a list, got \"5\"");
	expect_err("plmn:\n  mcc: [1]\n", "t.yaml:2:8: plmn.mcc: expected a string, got a list");
	expect_err("n2:\n  sctp: {a: 1}\n", "t.yaml:2:9: n2.sctp: expected one of auto, kernel, usrsctp, got a mapping");
	expect_err("- 1\n", "t.yaml:1:1: expected a mapping, got a list");
	expect_err("slices:\n  - sst: 1\n    sd: 12345\n", "t.yaml:3:9: slices[0].sd: expected 6 hex digits, got \"12345\"");
	/* A bad private key is not echoed. */
	expect_err("suci: {keys: [{id: 1, scheme: A, private_key: 1234secret}]}\n",
		   "t.yaml:1:47: suci.keys[0].private_key: expected 64 hex digits, got something else");
}

static void test_err_out_of_range(void **state)
{
	(void)state;
	expect_err("amf:\n  region_id: 300\n", "t.yaml:2:14: amf.region_id: 300 is out of range 0..255");
	expect_err("amf:\n  set_id: -1\n", "t.yaml:2:11: amf.set_id: -1 is out of range 0..1023");
	expect_err("n2: {port: 0}\n", "t.yaml:1:12: n2.port: 0 is out of range 1..65535");
	expect_err("tac: [1, 16777216]\n", "t.yaml:1:10: tac[1]: 16777216 is out of range 0..16777215");
	expect_err("timers: {t3512: 99999999999999999999}\n",
		   "t.yaml:1:17: timers.t3512: 99999999999999999999 is out of range 1..2678400");
	expect_err("tac: []\n", "t.yaml:1:6: tac: needs at least 1 entry");
	expect_err("amf: {security: {integrity: [NIA0, NIA1, NIA2, NIA3, NIA0]}}\n",
		   "t.yaml:1:29: amf.security.integrity: more than 4 entries");
	expect_err("amf: {name: \"" "0123456789012345678901234567890123456789012345678901234567890123456789"
		   "0123456789012345678901234567890123456789012345678901234567890123456789" "01234567890\"}\n",
		   "t.yaml:1:13: amf.name: longer than 150 characters");
}

static void test_err_bad_enum(void **state)
{
	(void)state;
	expect_err("n2:\n  sctp: foo\n", "t.yaml:2:9: n2.sctp: \"foo\" is not one of auto, kernel, usrsctp");
	expect_err("amf:\n  security:\n    integrity: [NIA2, NIA9]\n",
		   "t.yaml:3:23: amf.security.integrity[1]: \"NIA9\" is not one of NIA0, NIA1, NIA2, NIA3");
	expect_err("log: {level: verbose}\n", "t.yaml:1:14: log.level: \"verbose\" is not one of error, warn, info, debug");
	expect_err("amf: {security: {ciphering: [NEA2, NEA2]}}\n",
		   "t.yaml:1:36: amf.security.ciphering[1]: duplicate value");
}

static void test_err_syntax(void **state)
{
	(void)state;
	expect_err("n2:\n  port: 5\n bad: [\n",
		   "t.yaml:3:2: syntax error: did not find expected key (while parsing a block mapping)");
	expect_err("tac: [1, 2\n", "t.yaml:2:1: syntax error: did not find expected ',' or ']' (while parsing a flow sequence)");
	expect_err("log: {}\n---\nlog: {}\n", "t.yaml:3:1: only one YAML document is allowed");
}

static void test_err_values(void **state)
{
	(void)state;
	expect_err("dnns:\n  - name: ims\n", "t.yaml:2:5: dnns[0]: missing key pool");
	/* A bare "-" is an empty entry: its required keys are still missing (fuzz finding). */
	expect_err("dnns:\n  -\n", "t.yaml:2:4: dnns[0]: missing key name");
	expect_err("dnns:\n  - {name: ims, pool: 10.46.0.1/16}\n",
		   "t.yaml:2:23: dnns[0].pool: \"10.46.0.1/16\" has host bits set (did you mean 10.46.0.0/16?)");
	expect_err("dnns:\n  - {name: ims, pool: 10.46.0.0}\n",
		   "t.yaml:2:23: dnns[0].pool: \"10.46.0.0\" is not an IPv4 prefix like 10.45.0.0/16");
	expect_err("dnns:\n  - {name: a, pool: 10.0.0.0/8}\n  - {name: A, pool: 10.1.0.0/16}\n",
		   "t.yaml:3:5: dnns[1]: duplicate DNN \"A\"");
	/* Overlapping pools would give one address to two sessions. */
	expect_err("dnns:\n  - {name: a, pool: 10.0.0.0/8}\n  - {name: b, pool: 10.1.0.0/16}\n",
		   "t.yaml:3:5: dnns[1]: pool 10.1.0.0/16 of DNN \"b\" overlaps pool 10.0.0.0/8 of DNN \"a\"");
	/* Adjacent pools do not overlap. */
	load_ok(&c2, "dnns:\n  - {name: a, pool: 10.45.0.0/16}\n  - {name: b, pool: 10.46.0.0/16}\n");
	assert_int_equal(c2.n_dnns, 2);
	expect_err("dnns: [{name: \"a b\", pool: 10.0.0.0/8}]\n",
		   "t.yaml:1:15: dnns[0].name: \"a b\" is not a DNN (letters, digits, '-' in '.'-separated labels)");
	expect_err("dnns: [{name: a, pool: 10.0.0.0/8, dns: [8.8.8.300]}]\n",
		   "t.yaml:1:42: dnns[0].dns[0]: \"8.8.8.300\" is not an IPv4 or IPv6 address");
	/* upf.n4_peers (issue 31): addresses or prefixes, IPv4 or IPv6 */
	expect_err("upf: {n4_peers: [10.0.4.1, 10.0.4.300]}\n",
		   "t.yaml:1:28: upf.n4_peers[1]: \"10.0.4.300\" is not an IPv4 / IPv6 address or prefix like 10.0.4.0/24");
	expect_err("upf: {n4_peers: [10.0.4.0/33]}\n",
		   "t.yaml:1:18: upf.n4_peers[0]: \"10.0.4.0/33\": prefix length out of range 0..32");
	expect_err("upf: {n4_peers: [\"fd00::/129\"]}\n",
		   "t.yaml:1:18: upf.n4_peers[0]: \"fd00::/129\": prefix length out of range 0..128");
	expect_err("log: {modules: [{name: ngap, level: debug}, {name: ngap, level: info}]}\n",
		   "t.yaml:1:45: log.modules[1]: duplicate module \"ngap\"");
	expect_err("log: {modules: [{name: ngap}]}\n", "t.yaml:1:17: log.modules[0]: missing key level");
	expect_err("n2: {busy_poll_us: 1001}\n", "t.yaml:1:20: n2.busy_poll_us: 1001 is out of range 0..1000");
	expect_err("plmn: {mcc: 1a1}\n", "t.yaml:1:13: plmn.mcc: must be 3 digits");
	expect_err("plmn: {mnc: \"1\"}\n", "t.yaml:1:13: plmn.mnc: must be 2 or 3 digits");
	expect_err("slices: [{sst: 1, sd: \"000001\"}, {sst: 1, sd: \"000001\"}]\n",
		   "t.yaml:1:34: slices[1]: duplicate slice");
	expect_err("n2: {address: \"\"}\n", "t.yaml:1:15: n2.address: must not be empty");
	expect_err("web:\n  tls:\n    cert: a.pem\n", "t.yaml:3:5: web.tls: give both cert and key, or neither");
	expect_err("amf: {timezone: \"+01:10\"}\n",
		   "t.yaml:1:17: amf.timezone: must be a multiple of 15 minutes between -14:00 and +14:00");
	expect_err("upf: {n3_interface: a-very-long-ifname}\n",
		   "t.yaml:1:21: upf.n3_interface: an interface name has at most 15 characters");
	expect_err("timers: {mobile_reachable: 100}\n",
		   "t.yaml:1:28: timers.mobile_reachable: 100 must be greater than timers.t3512 (3240)");
	expect_err("suci: {keys: [{id: 1, scheme: A}]}\n",
		   "t.yaml:1:15: suci.keys[0]: missing key private_key or private_key_file");
	expect_err("suci: {keys: [{id: 1, scheme: A, private_key_file: /nonexistent/k}]}\n",
		   "t.yaml:1:15: suci.keys[0]: private_key_file \"/nonexistent/k\": No such file or directory");
	expect_err("suci: {keys: [{id: 1, scheme: C}]}\n",
		   "t.yaml:1:31: suci.keys[0].scheme: \"C\" is not one of A, B");
	expect_err("suci: {keys: [{id: 0, scheme: A}]}\n", "t.yaml:1:20: suci.keys[0].id: 0 is out of range 1..255");
}

/* dnns[].pool6 (TS 23.501 5.8.2.2.1: one /64 per session) */
static void test_pool6(void **state)
{
	static const char ok[] = "dnns:\n  - {name: internet, pool: 10.45.0.0/16, pool6: \"2001:db8:45::/48\"}\n"
				 "  - {name: ims, pool: 10.46.0.0/16}\n";
	uint8_t net[16], plen;
	char err[512] = "";

	(void)state;
	assert_int_equal(conf_load_string(&c2, "t.yaml", ok, strlen(ok), err, sizeof(err)), 0);
	assert_string_equal(c2.dnns[0].pool6, "2001:db8:45::/48");
	assert_string_equal(c2.dnns[1].pool6, "");
	assert_int_equal(conf_ue_supernet6(&c2, net, &plen), 0);
	assert_int_equal(plen, 48);
	assert_memory_equal(net, "\x20\x01\x0d\xb8\x00\x45", 6);
	conf_free(&c2);
	expect_err("dnns: [{name: a, pool: 10.0.0.0/16, pool6: \"2001:db8::/40\"}]\n",
		   "t.yaml:1:44: dnns[0].pool6: prefix length /40 is out of range 44..64 (one /64 per session)");
	expect_err("dnns: [{name: a, pool: 10.0.0.0/16, pool6: \"2001:db8::1/64\"}]\n",
		   "t.yaml:1:44: dnns[0].pool6: \"2001:db8::1/64\" has bits set past /64 (did you mean 2001:db8::/64?)");
	expect_err("dnns: [{name: a, pool: 10.0.0.0/16, pool6: \"10.0.0.0/64\"}]\n",
		   "t.yaml:1:44: dnns[0].pool6: \"10.0.0.0/64\" is not an IPv6 prefix like 2001:db8:45::/48");
	/* dnns[].nat and the NAT keys */
	{
		static const char nat[] = "dnns: [{name: a, pool: 10.0.0.0/16, nat: true}]\n"
					  "upf: {nat_address: 192.0.2.9, nat_port_lo: 2000, nat_port_hi: 3000, nat_table_size: 4096,\n"
					  "      nat_conns_per_session: 512}\n";

		assert_int_equal(conf_load_string(&c2, "t.yaml", nat, strlen(nat), err, sizeof(err)), 0);
		assert_true(c2.dnns[0].nat);
		assert_string_equal(c2.upf.nat_address, "192.0.2.9");
		assert_int_equal(c2.upf.nat_port_lo, 2000);
		assert_int_equal(c2.upf.nat_table_size, 4096);
		assert_int_equal(c2.upf.nat_conns_per_session, 512);
		conf_free(&c2);
	}
	expect_err("upf: {nat_conns_per_session: -1}\n", "t.yaml:1:30: upf.nat_conns_per_session: -1 is out of range 0..16777216");
	/* Issue 31 point 5: limits by default; 0 (no limit) only when written. */
	{
		struct conf d;

		assert_int_equal(conf_defaults(&d), 0);
		assert_int_equal(d.upf.nat_conns_per_session, 1024);
		assert_int_equal(d.upf.nat_conns_per_remote, 256);
		conf_free(&d);
	}
	expect_err("upf: {nat_conns_per_remote: 65536}\n", "t.yaml:1:29: upf.nat_conns_per_remote: 65536 is out of range 0..65535");
	expect_err("upf: {nat_port_lo: 5000, nat_port_hi: 4000}\n",
		   "t.yaml:1:20: upf.nat_port_lo: 5000 is above upf.nat_port_hi (4000)");
	expect_err("dnns: [{name: a, pool: 10.0.0.0/16, nat: true}]\n"
		   "upf: {mode: pfcp, peers: [{name: u, address: 10.0.0.2, n3_address: 10.0.1.2}]}\n",
		   "t.yaml:1:42: dnns[0].nat: with upf.mode pfcp NAT is the UPF's: set nat: true on this DNN "
		   "(and upf.nat_address) in the UPF's own configuration (solocore upf -c FILE)");
	/* IPv6 sessions over N4 (TS 29.244 8.2.62): pool6 with pfcp is accepted */
	{
		static const char v6p[] = "dnns: [{name: a, pool: 10.0.0.0/16, pool6: \"2001:db8::/48\"}]\n"
					  "upf: {mode: pfcp, peers: [{name: u, address: 10.0.0.2, n3_address: 10.0.1.2}]}\n";

		assert_int_equal(conf_load_string(&c2, "t.yaml", v6p, strlen(v6p), err, sizeof(err)), 0);
		assert_string_equal(c2.dnns[0].pool6, "2001:db8::/48");
		assert_int_equal(c2.upf.mode, CONF_UPF_PFCP);
		conf_free(&c2);
	}
	/* IPv6 on N3 (TS 38.414 5.1): a unicast address a gNB can reach, the builtin UPF's */
	{
		static const char v6[] = "upf: {n3_address6: \"2001:db8:3::1\"}\n";

		assert_int_equal(conf_load_string(&c2, "t.yaml", v6, strlen(v6), err, sizeof(err)), 0);
		assert_string_equal(c2.upf.n3_address6, "2001:db8:3::1");
		conf_free(&c2);
	}
	expect_err("upf: {n3_address6: \"fe80::1\"}\n",
		   "t.yaml:1:20: upf.n3_address6: \"fe80::1\" is link-local (fe80::/10): gNBs need a global or unique-local address");
	expect_err("upf: {n3_address6: \"ff05::2\"}\n", "t.yaml:1:20: upf.n3_address6: \"ff05::2\" is multicast");
	expect_err("upf: {n3_address6: \"::\"}\n", "t.yaml:1:20: upf.n3_address6: \"::\" is the unspecified address");
	expect_err("upf: {n3_address6: \"::1\"}\n", "t.yaml:1:20: upf.n3_address6: \"::1\" is the loopback address");
	expect_err("upf: {n3_address6: \"::ffff:192.0.2.1\"}\n",
		   "t.yaml:1:20: upf.n3_address6: \"::ffff:192.0.2.1\" is IPv4-mapped: set the IPv4 in upf.n3_address");
	expect_err("upf: {n3_address6: 192.0.2.1}\n", "t.yaml:1:20: upf.n3_address6: \"192.0.2.1\" is not an IPv6 address");
	expect_err("upf: {n3_address6: \"2001:db8::1\", mode: pfcp, peers: [{name: u, address: 10.0.0.2, n3_address: 10.0.1.2}]}\n",
		   "t.yaml:1:20: upf.n3_address6: with upf.mode pfcp N3 is the UPF's: set upf.n3_address6 in the "
		   "UPF's own configuration (solocore upf -c FILE)");
	expect_err("dnns: [{name: a, pool: 10.0.0.0/16, nat: maybe}]\n",
		   "t.yaml:1:42: dnns[0].nat: expected true or false, got \"maybe\"");
	expect_err("dnns:\n  - {name: a, pool: 10.0.0.0/16, pool6: \"2001:db8::/48\"}\n"
		   "  - {name: b, pool: 10.1.0.0/16, pool6: \"2001:db8:0:5::/64\"}\n",
		   "t.yaml:3:5: dnns[1]: pool6 2001:db8:0:5::/64 of DNN \"b\" overlaps pool6 2001:db8::/48 of DNN \"a\"");
}

/* upf.mode pfcp and upf.peers: each error names the entry at its place in the file */
static void test_upf_peers(void **state)
{
	static const char ok[] =
		"slices: [{sst: 1, sd: \"010203\"}, {sst: 2}]\n"
		"dnns: [{name: internet, pool: 10.45.0.0/16}, {name: ims, pool: 10.46.0.0/16}]\n"
		"upf:\n  mode: pfcp\n  n4_address: 10.0.0.1\n  heartbeat_interval: 500\n  pfcp_t1: 300\n  pfcp_n1: 2\n"
		"  peers:\n"
		"    - {name: upf1, address: 10.0.0.2, n3_address: 10.0.1.2, dnns: [internet]}\n"
		"    - {name: upf2, address: 10.0.0.3, n3_address: 10.0.1.3, dnns: [IMS], slices: [{sst: 2}]}\n";
	char err[512] = "";

	(void)state;
	assert_int_equal(conf_load_string(&c2, "t.yaml", ok, strlen(ok), err, sizeof(err)), 0);
	assert_int_equal(c2.upf.mode, CONF_UPF_PFCP);
	assert_int_equal(c2.upf.heartbeat_interval, 500);
	assert_int_equal(c2.upf.pfcp_t1, 300);
	assert_int_equal(c2.upf.pfcp_n1, 2);
	assert_int_equal(c2.upf.n_peers, 2);
	assert_string_equal(c2.upf.peers[1].name, "upf2");
	assert_string_equal(c2.upf.peers[1].n3_address, "10.0.1.3");
	assert_int_equal(c2.upf.peers[0].n_dnns, 1);
	assert_int_equal(c2.upf.peers[1].n_slices, 1);
	assert_int_equal(c2.upf.peers[1].slices[0].sst, 2);
	conf_free(&c2);
	/* the defaults: builtin, no peers, TS 29.244 6.4 usual T1 / N1 */
	assert_int_equal(conf_load_string(&c2, "t.yaml", "", 0, err, sizeof(err)), 0);
	assert_int_equal(c2.upf.mode, CONF_UPF_BUILTIN);
	assert_int_equal(c2.upf.n_peers, 0);
	assert_int_equal(c2.upf.pfcp_t1, 3000);
	assert_int_equal(c2.upf.pfcp_n1, 3);
	/* issue 32: an unreachable UPF's sessions kept 60 s (TS 23.007 19A), T3396 30 s with #26 */
	assert_int_equal(c2.upf.n4_path_release_timer, 60000);
	assert_int_equal(c2.upf.no_upf_backoff, 30);
	conf_free(&c2);
	assert_int_equal(conf_load_string(&c2, "t.yaml", "upf: {n4_path_release_timer: 1500, no_upf_backoff: 0}\n",
					  strlen("upf: {n4_path_release_timer: 1500, no_upf_backoff: 0}\n"), err, sizeof(err)), 0);
	assert_int_equal(c2.upf.n4_path_release_timer, 1500);
	assert_int_equal(c2.upf.no_upf_backoff, 0);
	conf_free(&c2);

	expect_err("upf: {mode: pfcp}\n", "t.yaml:1:13: upf.mode: pfcp needs at least one entry in upf.peers");
	expect_err("upf: {mode: remote}\n", "t.yaml:1:13: upf.mode: \"remote\" is not one of builtin, pfcp");
	expect_err("upf:\n  peers:\n    - {name: a, address: 10.0.0.2, n3_address: 10.0.1.2, dnns: [web]}\n",
		   "t.yaml:3:65: upf.peers[0].dnns[0]: DNN \"web\" is not in dnns");
	expect_err("upf:\n  peers:\n    - {name: a, address: 10.0.0.2, n3_address: 10.0.1.2, slices: [{sst: 9}]}\n",
		   "t.yaml:3:67: upf.peers[0].slices[0]: slice is not in slices");
	expect_err("upf:\n  peers:\n    - {name: a, address: 10.0.0.2, n3_address: 10.0.1.2}\n"
		   "    - {name: b, address: 10.0.0.2, n3_address: 10.0.1.3}\n",
		   "t.yaml:4:7: upf.peers[1]: peer \"b\" (10.0.0.2) repeats peers[0]");
	expect_err("upf:\n  peers:\n    - {name: a, address: 10.0.0.300, n3_address: 10.0.1.2}\n",
		   "t.yaml:3:26: upf.peers[0].address: \"10.0.0.300\" is not an IPv4 address");
	expect_err("upf:\n  peers:\n    - {name: a, address: 10.0.0.2}\n",
		   "t.yaml:3:7: upf.peers[0]: missing key n3_address");
	expect_err("upf: {pfcp_t1: 10}\n", "t.yaml:1:16: upf.pfcp_t1: 10 is out of range 50..60000");
	expect_err("upf: {n4_path_release_timer: 0}\n",
		   "t.yaml:1:30: upf.n4_path_release_timer: 0 is out of range 1..86400000");
	expect_err("upf: {no_upf_backoff: 10000}\n", "t.yaml:1:23: upf.no_upf_backoff: 10000 is out of range 0..9920");
}

/* amf.registration_areas (TS 23.501 5.3.2.3, TS 24.501 5.3.4 / 9.11.3.9): each error names
 * the entry at its place in the file. */
static void test_err_registration_areas(void **state)
{
	char *p1;

	(void)state;
	/* a TAC that is not served: the area would send UEs to a TA this AMF has no gNB for */
	expect_err("tac: [1, 2, 3]\namf:\n  registration_areas: [[1, 2], [3, 7]]\n",
		   "t.yaml:3:36: amf.registration_areas[1][1]: TAC 7 is not served (not in tac)");
	/* a TAC in two areas: which TAI list it gets would be undefined */
	expect_err("tac: [1, 2, 3]\namf: {registration_areas: [[1, 2], [3, 2]]}\n",
		   "t.yaml:2:36: amf.registration_areas[1]: TAC 2 is already in registration_areas[0]");
	/* an empty area: a TAI list holds at least one TAI (9.11.3.9) */
	expect_err("tac: [1, 2]\namf: {registration_areas: [[1, 2], []]}\n",
		   "t.yaml:2:36: amf.registration_areas[1]: needs at least 1 entry");
	/* a TAC twice in one area, more than 16 in one (9.11.3.9), a TAC out of range */
	expect_err("amf: {registration_areas: [[1, 1]]}\n", "t.yaml:1:32: amf.registration_areas[0][1]: duplicate value");
	expect_err("amf: {registration_areas: [[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]]}\n",
		   "t.yaml:1:28: amf.registration_areas[0]: more than 16 entries");
	expect_err("amf: {registration_areas: [1]}\n",
		   "t.yaml:1:28: amf.registration_areas[0]: expected a list, got \"1\"");
	/* TAC 3 served but in no area: an area of its own (accepted); printed and loaded back */
	load_ok(&c1, "tac: [1, 2, 3]\namf:\n  registration_areas: [[1, 2]]\n");
	assert_int_equal(c1.amf.n_registration_areas, 1);
	p1 = print_mem(&c1, false);
	assert_non_null(strstr(p1, "  registration_areas: [[1, 2]]\n"));
	load_ok(&c2, p1);
	assert_true(conf_equal(&c1, &c2));
	free(p1);
	/* the areas are compared by value */
	load_ok(&c2, "tac: [1, 2, 3]\namf:\n  registration_areas: [[1, 3]]\n");
	assert_false(conf_equal(&c1, &c2));
	/* an overlay that drops a TAC an area holds fails as a whole (web PATCH tac) */
	assert_int_equal(conf_overlay_string(&c1, NULL, "{\"tac\": [1, 3]}", 13, NULL, 0), -EINVAL);
	assert_int_equal(c1.n_tac, 3);
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/solocore-conf-XXXXXX";
	char err[512], want[600];
	int fd;

	(void)state;
	assert_int_equal(conf_load(&c1, "/nonexistent/solocore.yaml", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/solocore.yaml: No such file or directory");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "n2:\n  port: 1\n  prot: 2\n", 24), 24);
	close(fd);
	assert_int_equal(conf_load(&c1, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:3:3: n2.prot: unknown key", path);
	assert_string_equal(err, want);
	unlink(path);
	assert_int_equal(conf_load(&c1, "/tmp", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/tmp: not a regular file");
}

/* Key files in PEM as written by openssl genpkey / ecparam (keys made for this test only). */
static const char pem_x25519[] =
	"-----BEGIN PRIVATE KEY-----\n"
	"MC4CAQAwBQYDK2VuBCIEIJDtERBi0JozRu/SYmV/YOaRXf/zmJkI+bykYAX2o2Rx\n"
	"-----END PRIVATE KEY-----\n";
static const char pem_p256_pkcs8[] =
	"-----BEGIN PRIVATE KEY-----\n"
	"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIjis86EyyLg4P6NI\n"
	"QdtVzdAWUjtrDzl/U5bSEb7CkD+hRANCAATpWZaDmlFpiFYMr5ba+WxnUNTsq2FX\n"
	"OyN2BPKCr5m2DK4+52GaSROmakaFUY85y4McrFASFXu2x5oTLXGAlf/S\n"
	"-----END PRIVATE KEY-----\n";
static const char pem_p256_sec1[] =
	"-----BEGIN EC PRIVATE KEY-----\n"
	"MHcCAQEEIPGScztb5ajwpP08IujQDuRYFWcupkvmzbtf4hfQb/63oAoGCCqGSM49\n"
	"AwEHoUQDQgAEodXsK4tbrr3ee75irbKT4GneUQdLpiSDZ37F2yiA4p8WWjjymVua\n"
	"sb5zeOd4AquI7O9hz06AKnKX+OiYP+dTXA==\n"
	"-----END EC PRIVATE KEY-----\n";

static const char *key_file(const char *content)
{
	static char path[64];
	FILE *f;

	strcpy(path, "/tmp/solocore-pem-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	return path;
}

static void load_key(const char *scheme, const char *content, char *err, size_t errsz, int want_rc)
{
	char text[256];
	const char *path = key_file(content);

	snprintf(text, sizeof(text), "suci: {keys: [{id: 7, scheme: %s, private_key_file: %s}]}\n", scheme, path);
	assert_int_equal(conf_load_string(&c1, "k.yaml", text, strlen(text), err, errsz), want_rc);
	unlink(path);
}

static void test_pem_keys(void **state)
{
	static const uint8_t x[4] = { 0x90, 0xed, 0x11, 0x10 }, x_end = 0x71;
	static const uint8_t p8[4] = { 0x22, 0x38, 0xac, 0xf3 }, p8_end = 0x3f;
	static const uint8_t s1[4] = { 0xf1, 0x92, 0x73, 0x3b }, s1_end = 0xb7;
	char err[512];

	(void)state;
	load_key("A", pem_x25519, err, sizeof(err), 0);
	assert_memory_equal(c1.suci.keys[0].private_key, x, 4);
	assert_int_equal(c1.suci.keys[0].private_key[31], x_end);
	load_key("B", pem_p256_pkcs8, err, sizeof(err), 0);
	assert_memory_equal(c1.suci.keys[0].private_key, p8, 4);
	assert_int_equal(c1.suci.keys[0].private_key[31], p8_end);
	load_key("B", pem_p256_sec1, err, sizeof(err), 0);
	assert_memory_equal(c1.suci.keys[0].private_key, s1, 4);
	assert_int_equal(c1.suci.keys[0].private_key[31], s1_end);
	load_key("B", pem_x25519, err, sizeof(err), -EINVAL);
	assert_non_null(strstr(err, "k.yaml:1:15: suci.keys[0]: private_key_file \""));
	assert_non_null(strstr(err, "\": scheme B needs a P-256 (prime256v1) key"));
	load_key("A", pem_p256_sec1, err, sizeof(err), -EINVAL);
	assert_non_null(strstr(err, "\": scheme A needs an X25519 key"));
	load_key("A", "-----BEGIN PRIVATE KEY-----\nnonsense\n-----END PRIVATE KEY-----\n", err, sizeof(err), -EINVAL);
	assert_non_null(strstr(err, "\": not a PEM private key"));
	load_key("A", "0123", err, sizeof(err), -EINVAL);
	assert_non_null(strstr(err, "\": expected a PEM key, 64 hex digits or 32 raw bytes"));
}

/* Mutated configs (deterministic): every outcome is success or an error
 * with a position; under ASan this also shows no out-of-bounds access. */
static void test_mutations(void **state)
{
	const char *base = full_config();
	size_t len = strlen(base);
	char *buf = malloc(len + 64), err[512];
	static const char alphabet[] = ":-[]{},#&*!|>'\"%@` \n\t0aZ\\";
	uint64_t rng = 12345;
	unsigned ok = 0, bad = 0;

	(void)state;
	assert_non_null(buf);
	for (int round = 0; round < 5000; round++) {
		size_t n = len;

		memcpy(buf, base, len);
		for (int m = 0; m < 1 + round % 4; m++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			if (n < 2)
				break;
			size_t at = rng % n;

			switch ((rng >> 32) % 3) {
			case 0: buf[at] = alphabet[(rng >> 40) % (sizeof(alphabet) - 1)]; break;
			case 1: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;
			default: n = at + 1; break;   /* truncate */
			}
		}
		int rc = conf_load_string(&c2, "t.yaml", buf, n, err, sizeof(err));

		if (rc == 0) {
			ok++;
		} else {
			assert_int_equal(rc, -EINVAL);
			assert_memory_equal(err, "t.yaml:", 7);
			bad++;
		}
	}
	assert_true(ok > 0 && bad > 0);
	free(buf);
	unlink(keyfile);
}

/* cluster: (issue 20): off by default; a member's id, IPv4:port address, peers, and the dir
 * derived from db.path; each bad value with file:line:column. */
static void test_cluster(void **state)
{
	static const char ok[] =
		"db: {path: /var/lib/solocore/s.db}\n"
		"cluster:\n  node_id: 2\n  address: 10.0.0.2:9001\n  peers: [10.0.0.1:9001, \"10.0.0.3:9001\"]\n";
	char err[512] = "", *p1;
	char longpath[300];

	(void)state;
	assert_int_equal(conf_defaults(&c1), 0);
	assert_int_equal(c1.cluster.node_id, 0);
	assert_string_equal(c1.cluster.address, "");
	assert_int_equal(c1.cluster.n_peers, 0);
	assert_string_equal(c1.cluster.dir, "");

	load_ok(&c1, ok);
	assert_int_equal(c1.cluster.node_id, 2);
	assert_string_equal(c1.cluster.address, "10.0.0.2:9001");
	assert_int_equal(c1.cluster.n_peers, 2);
	assert_string_equal(c1.cluster.peers[1], "10.0.0.3:9001");
	assert_string_equal(c1.cluster.dir, "/var/lib/solocore/s.db.dqlite");
	p1 = print_mem(&c1, false);
	load_ok(&c2, p1);
	assert_true(conf_equal(&c1, &c2));
	free(p1);
	/* Node 1 alone bootstraps; the largest id; an explicit dir is kept. */
	load_ok(&c1, "cluster: {node_id: 1, address: 127.0.0.1:9001, dir: /d}\n");
	assert_string_equal(c1.cluster.dir, "/d");
	load_ok(&c1, "cluster: {node_id: 32, address: 127.0.0.1:9001, peers: [127.0.0.1:9002]}\n");
	assert_true(c1.cluster.node_id == 32);
	assert_string_equal(c1.cluster.dir, "./solocore.db.dqlite");

	/* 33 nodes would need a 33rd IND slot of SQN (TS 33.102 C.1.2) */
	expect_err("cluster: {node_id: 33}\n", "t.yaml:1:20: cluster.node_id: 33 is out of range 0..32");
	expect_err("cluster: {node_id: -1}\n", "t.yaml:1:20: cluster.node_id: -1 is out of range 0..32");
	expect_err("cluster:\n  node_id: 1\n  address: 10.0.0.1\n",
		   "t.yaml:3:12: cluster.address: \"10.0.0.1\" is not IPv4:port like 10.0.0.1:9001");
	expect_err("cluster: {node_id: 1, address: \"[::1]:9001\"}\n",
		   "t.yaml:1:32: cluster.address: \"[::1]:9001\" is not IPv4:port like 10.0.0.1:9001");
	expect_err("cluster: {node_id: 1, address: \"node1:9001\"}\n",
		   "t.yaml:1:32: cluster.address: \"node1:9001\" is not IPv4:port like 10.0.0.1:9001");
	expect_err("cluster: {node_id: 1, address: \"10.0.0.1:70000\"}\n",
		   "t.yaml:1:32: cluster.address: \"10.0.0.1:70000\" is not IPv4:port like 10.0.0.1:9001");
	expect_err("cluster: {node_id: 1, address: \"10.0.0.1:0\"}\n",
		   "t.yaml:1:32: cluster.address: \"10.0.0.1:0\" is not IPv4:port like 10.0.0.1:9001");
	expect_err("cluster: {node_id: 1, address: \"10.0.0.1:9x\"}\n",
		   "t.yaml:1:32: cluster.address: \"10.0.0.1:9x\" is not IPv4:port like 10.0.0.1:9001");
	expect_err("cluster: {node_id: 1, address: 0.0.0.0:9001}\n",
		   "t.yaml:1:32: cluster.address: \"0.0.0.0:9001\": the other nodes connect to this address: give "
		   "this node's own IPv4, not 0.0.0.0");
	expect_err("cluster:\n  node_id: 2\n  address: 10.0.0.2:9001\n  peers: [10.0.0.1:9001, 10.0.0.3]\n",
		   "t.yaml:4:26: cluster.peers[1]: \"10.0.0.3\" is not IPv4:port like 10.0.0.1:9001");
	expect_err("cluster:\n  node_id: 2\n  address: 10.0.0.2:9001\n  peers: [10.0.0.1:9001, 10.0.0.1:9001]\n",
		   "t.yaml:4:26: cluster.peers[1]: duplicate value");
	expect_err("cluster:\n  node_id: 2\n  address: 10.0.0.2:9001\n  peers: [10.0.0.1:9001, 10.0.0.2:9001]\n",
		   "t.yaml:4:26: cluster.peers[1]: 10.0.0.2:9001 is this node's own address");
	expect_err("cluster:\n  node_id: 3\n  address: 10.0.0.3:9001\n",
		   "t.yaml:2:12: cluster.node_id: node 3 needs cluster.peers to join through (only node 1 "
		   "bootstraps a cluster)");
	expect_err("cluster:\n  node_id: 1\n  peers: [10.0.0.2:9001]\n",
		   "t.yaml:2:12: cluster.node_id: needs cluster.address (this node's IPv4:port)");
	expect_err("cluster:\n  node_id: 0\n  address: 10.0.0.3:9001\n",
		   "t.yaml:2:12: cluster.node_id: needed (1..32) with cluster.address, peers or dir");
	expect_err("cluster:\n  dir: /x\n",
		   "t.yaml:1:1: cluster.node_id: needed (1..32) with cluster.address, peers or dir");
	expect_err("cluster: {node_id: 1, address: 10.0.0.1:9001, nodes: 3}\n",
		   "t.yaml:1:47: cluster.nodes: unknown key");
	/* cluster.join_token (issue 31 point 1): a malformed one is refused without echoing it;
	 * a good one loads and is never printed, redacted or not (a secret, spent once used). */
	expect_err("cluster: {node_id: 2, address: 10.0.0.2:9001, peers: [10.0.0.1:9001], join_token: scj1.s3cr3t}\n",
		   "t.yaml:1:83: cluster.join_token: not a join token (\"scj1.\" and 95 characters, from "
		   "`solocore cluster token`)");
	{
		char tok[101], *doc2 = NULL, *out;

		memcpy(tok, "scj1.", 5);
		memset(tok + 5, 'Q', 95);
		tok[100] = 0;
		assert_true(asprintf(&doc2, "cluster: {node_id: 2, address: 10.0.0.2:9001, peers: [10.0.0.1:9001], "
				     "join_token: %s}\n", tok) > 0);
		assert_int_equal(conf_load_string(&c2, "t.yaml", doc2, strlen(doc2), err, sizeof(err)), 0);
		assert_string_equal(c2.cluster.join_token, tok);
		for (int r = 0; r < 2; r++) {
			out = print_mem(&c2, r);
			assert_null(strstr(out, "QQQQ"));
			assert_null(strstr(out, "join_token"));
			free(out);
		}
		free(doc2);
		conf_free(&c2);
	}
	/* db.path + ".dqlite" past CONF_STR: the dir must be given. */
	memset(longpath, 'a', 250);
	longpath[250] = 0;
	char *doc = NULL;
	assert_true(asprintf(&doc, "db: {path: /%s}\ncluster: {node_id: 1, address: 10.0.0.1:9001}\n", longpath) > 0);
	assert_int_equal(conf_load_string(&c2, "t.yaml", doc, strlen(doc), err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.yaml:1:1: cluster.dir: db.path + \".dqlite\" is too long: give cluster.dir");
	free(doc);
	conf_free(&c1);
	conf_free(&c2);
}

/* dist/solocore.yaml documents every default: it must load into exactly the defaults. */
static const char *dist_yaml;
static void test_dist_file(void **state)
{
	char err[512] = "";

	(void)state;
	assert_non_null(dist_yaml);
	assert_int_equal(conf_defaults(&c1), 0);
	if (conf_load(&c2, dist_yaml, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(conf_equal(&c1, &c2));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_empty_is_defaults),
		cmocka_unit_test(test_full_values),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_escapes),
		cmocka_unit_test(test_err_unknown_key),
		cmocka_unit_test(test_allowed_gnbs),
		cmocka_unit_test(test_err_duplicate_key),
		cmocka_unit_test(test_err_wrong_type),
		cmocka_unit_test(test_err_out_of_range),
		cmocka_unit_test(test_err_registration_areas),
		cmocka_unit_test(test_upf_peers),
		cmocka_unit_test(test_pool6),
		cmocka_unit_test(test_err_bad_enum),
		cmocka_unit_test(test_err_syntax),
		cmocka_unit_test(test_err_values),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_pem_keys),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_cluster),
		cmocka_unit_test(test_dist_file),
	};

	dist_yaml = argc > 1 ? argv[1] : NULL;
	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
