/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * crypto - every cryptographic function the core needs (issue 4).
 *
 *  - Milenage f1, f1*, f2, f3, f4, f5, f5* and OPc (TS 35.206)
 *  - the TS 33.220 B.2 KDF and the TS 33.501 Annex A derivations, CK'/IK' (TS 33.402 A.2)
 *  - NAS integrity and ciphering NIA0..3 / NEA0..3 (TS 33.501 D.4, TS 33.401 Annex B)
 *  - SIDF: SUCI conceal / deconceal, null scheme, ECIES profiles A and B (TS 33.501 Annex C)
 *  - 5G AKA helpers: HE AV generation, RES* check, resynchronisation, USIM-side AUTN check
 *
 * Conventions
 *  - Every function returns 0 (or a length) on success and a negative errno on failure:
 *      -EINVAL   bad argument, unknown algorithm, malformed key or point not on the curve
 *      -EBADMSG  a MAC does not verify (SUCI MAC tag, AUTN MAC-A, AUTS MAC-S) or input is truncated
 *      -EACCES   RES* / HXRES* mismatch (authentication failure)
 *      -ESTALE   USIM SQN freshness check failed (synchronisation failure, AUTS produced)
 *      -ENOENT   no home-network key with that identifier in the keyring
 *      -ENOSPC   output buffer too small
 *      -ENOMEM / -EIO  allocation or OpenSSL failure
 *  - Byte strings are big-endian / MSB-first as printed in the 3GPP specs.
 *  - Bit lengths (NIA/NEA) may be any number of bits; bits after the last significant bit of the
 *    input are ignored, and NEA clears them in the output.
 *  - Threads: OpenSSL contexts are kept per thread and created on first use (the hot paths
 *    Milenage, KDF, NIA/NEA do not allocate after that). A thread that used this module calls
 *    crypto_thread_cleanup() before it exits. Every function may be called from any thread.
 *  - Secrets never reach logs; stack copies of keys are wiped (OPENSSL_cleanse) before return.
 */
#ifndef SOLOCORE_COMMON_CRYPTO_H
#define SOLOCORE_COMMON_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Free this thread's OpenSSL contexts (wiping cached key material). Safe to call twice. */
void crypto_thread_cleanup(void);

/* ---------------------------------------------------------------------------------------------
 * Milenage (TS 35.206). K and OPc are 16 octets; the AES key schedule of K is computed once per call.
 */
int crypto_milenage_opc(const uint8_t k[16], const uint8_t op[16], uint8_t opc[16]);

/* f1 (MAC-A) and f1* (MAC-S); either output may be NULL. */
int crypto_milenage_f1(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
		       const uint8_t sqn[6], const uint8_t amf[2], uint8_t mac_a[8], uint8_t mac_s[8]);
/* f2 (RES), f3 (CK), f4 (IK), f5 (AK); any output may be NULL. */
int crypto_milenage_f2345(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
			  uint8_t res[8], uint8_t ck[16], uint8_t ik[16], uint8_t ak[6]);
/* f5* (AK used in resynchronisation). */
int crypto_milenage_f5star(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
			   uint8_t ak_s[6]);

/* All functions with one key schedule (what AV generation and the UE check use). */
struct crypto_milenage_out {
	uint8_t mac_a[8], mac_s[8], res[8], ck[16], ik[16], ak[6], ak_s[6];
};
int crypto_milenage_all(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
			const uint8_t sqn[6], const uint8_t amf[2], struct crypto_milenage_out *out);

/* ---------------------------------------------------------------------------------------------
 * KDF, TS 33.220 B.2: out = HMAC-SHA-256(key, FC || P0 || L0 || ... || Pn-1 || Ln-1).
 * n <= CRYPTO_KDF_MAX_PARAMS; each len[i] < 65536.
 */
#define CRYPTO_KDF_MAX_PARAMS 8
int crypto_kdf(const uint8_t *key, size_t keylen, uint8_t fc, const uint8_t *const p[],
	       const uint16_t len[], unsigned n, uint8_t out[32]);

/* TS 33.501 Annex A. snn = serving network name, "5G:mnc<MNC>.mcc<MCC>.3gppnetwork.org" (A.1 /
 * TS 24.501 9.12.1), passed as a C string. */
/* A.2 K_AUSF (FC 0x6A, key CK||IK, P0 = SN name, P1 = SQN xor AK). */
int crypto_kdf_kausf(const uint8_t ck[16], const uint8_t ik[16], const char *snn,
		     const uint8_t sqn_xor_ak[6], uint8_t kausf[32]);
/* A.4 RES* / XRES* (FC 0x6B, key CK||IK, P0 = SN name, P1 = RAND, P2 = RES); 128 LSBs. res_len 4..16. */
int crypto_kdf_res_star(const uint8_t ck[16], const uint8_t ik[16], const char *snn,
			const uint8_t rand[16], const uint8_t *res, size_t res_len,
			uint8_t res_star[16]);
/* A.5 HRES* / HXRES* = 128 LSBs of SHA-256(RAND || (X)RES*). */
int crypto_hxres_star(const uint8_t rand[16], const uint8_t xres_star[16], uint8_t hxres_star[16]);
/* A.6 K_SEAF (FC 0x6C, key K_AUSF, P0 = SN name). */
int crypto_kdf_kseaf(const uint8_t kausf[32], const char *snn, uint8_t kseaf[32]);
/* A.7 K_AMF (FC 0x6D, key K_SEAF, P0 = SUPI, P1 = ABBA). supi is "imsi-<digits>", "nai-<nai>"
 * or already the bare value; the type prefix is dropped (A.7.0: P0 is the IMSI digits or the NAI). */
int crypto_kdf_kamf(const uint8_t kseaf[32], const char *supi, const uint8_t *abba, size_t abba_len,
		    uint8_t kamf[32]);
/* A.8 algorithm key (FC 0x69, P0 = distinguisher, P1 = algorithm identity); 128 LSBs. */
enum crypto_alg_dist {
	CRYPTO_N_NAS_ENC = 0x01, CRYPTO_N_NAS_INT = 0x02,
	CRYPTO_N_RRC_ENC = 0x03, CRYPTO_N_RRC_INT = 0x04,
	CRYPTO_N_UP_ENC = 0x05, CRYPTO_N_UP_INT = 0x06,
};
int crypto_kdf_alg_key(const uint8_t key[32], enum crypto_alg_dist dist, uint8_t alg_id,
		       uint8_t out[16]);
/* A.9 K_gNB (FC 0x6E, key K_AMF, P0 = uplink NAS COUNT, P1 = access type distinguisher). */
enum crypto_access_type { CRYPTO_ACCESS_3GPP = 0x01, CRYPTO_ACCESS_NON_3GPP = 0x02 };
int crypto_kdf_kgnb(const uint8_t kamf[32], uint32_t ul_nas_count, enum crypto_access_type at,
		    uint8_t kgnb[32]);
/* A.10 NH (FC 0x6F, key K_AMF, P0 = SYNC-input: K_gNB for NH_1, then the previous NH). */
int crypto_kdf_nh(const uint8_t kamf[32], const uint8_t sync_input[32], uint8_t nh[32]);
/* A.13 K_AMF' (FC 0x72, key K_AMF, P0 = DIRECTION, P1 = COUNT). */
enum crypto_kamf_dir { CRYPTO_KAMF_IDLE_MOBILITY = 0x00, CRYPTO_KAMF_HANDOVER = 0x01 };
int crypto_kdf_kamf_prime(const uint8_t kamf[32], enum crypto_kamf_dir dir, uint32_t count,
			  uint8_t kamf_prime[32]);
/* CK'/IK' (TS 33.402 A.2, RFC 5448 3.3; TS 33.501 A.3 with the SN name as network name):
 * FC 0x20, key CK||IK, P0 = network name, P1 = SQN xor AK. */
int crypto_kdf_ck_ik_prime(const uint8_t ck[16], const uint8_t ik[16], const char *net_name,
			   const uint8_t sqn_xor_ak[6], uint8_t ck_prime[16], uint8_t ik_prime[16]);

/* ---------------------------------------------------------------------------------------------
 * NAS integrity and ciphering (TS 33.501 D.4; TS 33.401 Annex B). alg 0..3 = NIA0/NEA0, 128-NIA1/
 * NEA1 (SNOW 3G), 128-NIA2/NEA2 (AES), 128-NIA3/NEA3 (ZUC). bearer is 5 bits (NAS: TS 33.501 6.4.3.1
 * = the NAS connection identifier: 1 for 3GPP access, as UEs and other cores use), direction 0 = uplink, 1 = downlink.
 * msg/in hold ceil(bitlen/8) octets.
 */
enum crypto_dir { CRYPTO_DIR_UPLINK = 0, CRYPTO_DIR_DOWNLINK = 1 };
/* mac = 32-bit MAC-I / NAS-MAC, MSB first. NIA0 gives 00000000 (TS 33.501 D.1). */
int crypto_nia(int alg, const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t direction,
	       const uint8_t *msg, size_t bitlen, uint8_t mac[4]);
/* out may equal in. The bits of the last output octet after bitlen are set to 0. */
int crypto_nea(int alg, const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t direction,
	       const uint8_t *in, uint8_t *out, size_t bitlen);

/* ---------------------------------------------------------------------------------------------
 * SIDF / SUCI (TS 33.501 6.12.2, Annex C; TS 23.003 2.2B). Scheme output layout:
 *   profile A: eph pub (32) || ciphertext || MAC tag (8)
 *   profile B: eph pub compressed (33) || ciphertext || MAC tag (8)
 *   null:      the scheme input itself
 * Deconcealment allocates (one EVP_PKEY for the peer key per call); it is once per registration.
 */
enum crypto_suci_scheme {
	CRYPTO_SUCI_NULL = 0, CRYPTO_SUCI_PROFILE_A = 1, CRYPTO_SUCI_PROFILE_B = 2,
};
#define CRYPTO_SUCI_MAC_LEN 8
#define CRYPTO_SUCI_MAX_PUB 33 /* bytes of a public key as crypto_hn_key_public() gives it */

/* A home-network key pair (private key for the SIDF). Opaque; never logged. */
struct crypto_hn_key;
/* hex: 64 hex digits = the raw private key (X25519 scalar for A, P-256 scalar for B). */
int crypto_hn_key_from_hex(struct crypto_hn_key **out, enum crypto_suci_scheme scheme,
			   uint8_t key_id, const char *hex);
/* PEM file with a PKCS#8 (or for P-256 "EC PRIVATE KEY") private key of the scheme's curve. */
int crypto_hn_key_from_pem(struct crypto_hn_key **out, enum crypto_suci_scheme scheme,
			   uint8_t key_id, const char *path);
/* A config value (TS 33.501 keys in solocore.yaml): 64 hex digits are a raw private key, anything
 * else is the path of a PEM file. */
int crypto_hn_key_load(struct crypto_hn_key **out, enum crypto_suci_scheme scheme, uint8_t key_id,
		       const char *value);
/* Accepts NULL. */
void crypto_hn_key_free(struct crypto_hn_key *key);
uint8_t crypto_hn_key_id(const struct crypto_hn_key *key);
enum crypto_suci_scheme crypto_hn_key_scheme(const struct crypto_hn_key *key);
/* Public key as provisioned on the USIM: 32 octets (A) or 33 octets compressed (B). */
int crypto_hn_key_public(const struct crypto_hn_key *key, uint8_t *pub, size_t cap);

/* Keys of several home-network public key identifiers (TS 24.501 9.11.3.4), found by
 * (scheme, key id). */
struct crypto_keyring;
struct crypto_keyring *crypto_keyring_new(void);
/* Accepts NULL. Frees the keys it holds. */
void crypto_keyring_free(struct crypto_keyring *ring);
/* Takes ownership of key on success; -EEXIST if (scheme, id) is already there. */
int crypto_keyring_add(struct crypto_keyring *ring, struct crypto_hn_key *key);
const struct crypto_hn_key *crypto_keyring_find(const struct crypto_keyring *ring,
						enum crypto_suci_scheme scheme, uint8_t key_id);

/* HN side: scheme output -> scheme input (MSIN BCD octets or NAI username). Returns the plaintext
 * length. -EBADMSG truncated input or MAC mismatch, -EINVAL point not on the curve. */
int crypto_suci_deconceal(const struct crypto_hn_key *key, const uint8_t *scheme_out,
			  size_t len, uint8_t *plain, size_t cap);
/* Same with a lookup; null scheme copies. -ENOENT unknown key id. */
int crypto_suci_deconceal_ring(const struct crypto_keyring *ring, enum crypto_suci_scheme scheme,
			       uint8_t key_id, const uint8_t *scheme_out, size_t len,
			       uint8_t *plain, size_t cap);
/* UE side: scheme input -> scheme output. hn_pub is 32 octets (A) or 33/65 octets (B).
 * eph_priv (32 octets) may be NULL: a fresh ephemeral key is generated (tests pass the Annex C.4
 * one). Returns the output length. */
int crypto_suci_conceal(enum crypto_suci_scheme scheme, const uint8_t *hn_pub, size_t hn_pub_len,
			const uint8_t *eph_priv, const uint8_t *plain, size_t plain_len,
			uint8_t *out, size_t cap);

/* ---------------------------------------------------------------------------------------------
 * 5G AKA (TS 33.501 6.1.3.2, TS 33.102 6.3). SQN values are 48-bit integers here (SQN octets
 * big-endian = the low 48 bits). SQN scheme: TS 33.102 Annex C.1.1 / C.3.2 (SEQ || IND, IND 5 bits),
 * see crypto_sqn_next() and struct crypto_usim_sqn.
 */
#define CRYPTO_SQN_IND_BITS 5
#define CRYPTO_SQN_IND_COUNT (1u << CRYPTO_SQN_IND_BITS)
#define CRYPTO_SQN_MASK 0xffffffffffffULL
/* Annex C.2.1 Delta: the USIM rejects an SEQ more than this ahead of its highest SEQ_MS. */
#define CRYPTO_SQN_DELTA (1ULL << 28)

/* 5G HE AV (TS 33.501 6.1.3.2.0 step 2): what UDM/ARPF returns to the AUSF. */
struct crypto_he_av {
	uint8_t rand[16];
	uint8_t autn[16];
	uint8_t xres_star[16];
	uint8_t hxres_star[16]; /* computed by the AUSF from XRES*; filled here for convenience */
	uint8_t kausf[32];
};
/* amf: the 2 AMF octets as provisioned; the separation bit (bit 0, TS 33.102 Annex H,
 * TS 33.501 6.1.3.2.0) is set here. rand: NULL = fresh from the CSPRNG (RAND_bytes, drawn
 * 1 KiB at a time into a per-thread buffer; reset in a forked child). */
int crypto_aka_generate(const uint8_t k[16], const uint8_t opc[16], uint64_t sqn,
			const uint8_t amf[2], const char *snn, const uint8_t *rand,
			struct crypto_he_av *av);
/* AUSF: RES* against XRES* (constant time). 0 or -EACCES. */
int crypto_aka_check_res_star(const uint8_t res_star[16], const uint8_t xres_star[16]);
/* SEAF/AMF: HRES* from RES* against HXRES*. 0 or -EACCES. */
int crypto_aka_check_hres_star(const uint8_t rand[16], const uint8_t res_star[16],
			       const uint8_t hxres_star[16]);
/* ARPF resynchronisation (TS 33.102 6.3.5): AUTS = (SQN_MS xor AK*) || MAC-S, AK* = f5*(RAND),
 * MAC-S = f1*(SQN_MS, RAND, AMF = 0000). On success *sqn_ms is the USIM's SQN; the next SQN to use
 * is crypto_sqn_next(*sqn_ms). -EBADMSG on MAC-S mismatch. */
int crypto_aka_resync(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
		      const uint8_t auts[14], uint64_t *sqn_ms);

/* Network side (ARPF): the SQN for the next vector after sqn_he (SEQ + 1, IND + 1 mod 32). */
uint64_t crypto_sqn_next(uint64_t sqn_he);

/* USIM side SQN state, Annex C.2.2: one SEQ_MS per IND value. Zero-initialise. */
struct crypto_usim_sqn {
	uint64_t seq_ms[CRYPTO_SQN_IND_COUNT];
};
/* 0 if sqn is fresh (SEQ > SEQ_MS(IND) and SEQ - max SEQ_MS <= Delta), else -ESTALE. */
int crypto_usim_sqn_check(const struct crypto_usim_sqn *st, uint64_t sqn);
/* Record an accepted sqn. */
void crypto_usim_sqn_accept(struct crypto_usim_sqn *st, uint64_t sqn);
/* SQN_MS sent in AUTS: highest accepted SEQ with its IND (Annex C.2.2). */
uint64_t crypto_usim_sqn_ms(const struct crypto_usim_sqn *st);

/* UE / USIM side of 5G AKA (TS 33.501 6.1.3.2.0 step 6, TS 33.102 6.3.3): checks AUTN.
 * 0: authentic and fresh; res_star, kausf (and ck/ik if not NULL) are filled, the SQN is accepted.
 * -EBADMSG: MAC failure. -ESTALE: synchronisation failure, auts (14 octets) is filled.
 * -EINVAL: AMF separation bit not set (TS 33.501 6.1.3.2.0). */
struct crypto_ue_aka_out {
	uint8_t res_star[16];
	uint8_t kausf[32];
	uint8_t ck[16], ik[16];
	uint8_t auts[14];
	uint64_t sqn;
};
int crypto_aka_ue_check(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
			const uint8_t autn[16], const char *snn, struct crypto_usim_sqn *st,
			struct crypto_ue_aka_out *out);

#endif
