/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* SNOW 3G (ETSI/SAGE UEA2 & UIA2 Document 2, TS 35.216), written here from the specification,
 * and the 128-NEA1 / 128-NIA1 constructions on top of it (TS 33.401 B.1.2 / B.2.2: UEA2 and UIA2
 * with COUNT, BEARER, DIRECTION; NIA1 uses FRESH = BEARER || 0^27).
 *
 * The S-boxes are not typed in as tables: SR is the Rijndael S-box and SQ the Dickson polynomial
 * S-box of Document 2 section 3.4, both computed from their definitions once per process, and
 * folded into 32-bit tables together with the MixColumn-like step of S1 / S2 (section 3.4.1/2). */
#include "common/crypto/crypto.h"
#include "common/crypto/crypto_int.h"

#include <pthread.h>
#include <string.h>

#include <openssl/crypto.h>

static uint32_t s1_t[4][256], s2_t[4][256], mul_a[256], div_a[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* MULx (Document 2, 3.1.1): multiply by x in GF(2^8) with reduction byte c. */
static uint8_t mulx(uint8_t v, uint8_t c)
{
	return (uint8_t)(v << 1) ^ (v & 0x80 ? c : 0);
}

static uint8_t mulxpow(uint8_t v, unsigned i, uint8_t c)
{
	while (i--)
		v = mulx(v, c);
	return v;
}

/* Generic GF(2^8) multiply modulo the 9-bit polynomial poly. */
static uint8_t gf_mul(uint8_t a, uint8_t b, unsigned poly)
{
	unsigned r = 0, x = a;

	for (; b; b >>= 1) {
		if (b & 1)
			r ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= poly;
	}
	return (uint8_t)r;
}

static uint8_t gf_pow(uint8_t a, unsigned e, unsigned poly)
{
	uint8_t r = 1;

	while (e) {
		if (e & 1)
			r = gf_mul(r, a, poly);
		a = gf_mul(a, a, poly);
		e >>= 1;
	}
	return r;
}

/* SR: the Rijndael S-box (FIPS 197 5.1.1): affine map of the inverse in GF(2^8)/0x11B. */
static uint8_t sbox_r(uint8_t x)
{
	uint8_t b = x ? gf_pow(x, 254, 0x11b) : 0, r = b;

	for (int i = 1; i <= 4; i++)
		r ^= (uint8_t)(b << i | b >> (8 - i));
	return r ^ 0x63;
}

/* SQ (Document 2, 3.4.2): y = x + x^9 + x^13 + x^15 + x^33 + x^41 + x^45 + x^47 + x^49 + 0x25
 * in GF(2^8) defined by x^8 + x^6 + x^5 + x^3 + 1. */
static uint8_t sbox_q(uint8_t x)
{
	static const unsigned e[] = { 1, 9, 13, 15, 33, 41, 45, 47, 49 };
	uint8_t y = 0x25;

	for (unsigned i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		y ^= gf_pow(x, e[i], 0x169);
	return y;
}

/* S1 / S2 output of one input octet at position pos (0 = most significant), the
 * r0..r3 equations of Document 2 3.4.1 (c = 0x1B) and 3.4.2 (c = 0x69). */
static uint32_t s_col(uint8_t a, unsigned pos, uint8_t c)
{
	uint8_t a2 = mulx(a, c), a3 = a2 ^ a;
	uint8_t r[4];

	switch (pos) {
	case 0: r[0] = a2; r[1] = a3; r[2] = a; r[3] = a; break;
	case 1: r[0] = a; r[1] = a2; r[2] = a3; r[3] = a; break;
	case 2: r[0] = a; r[1] = a; r[2] = a2; r[3] = a3; break;
	default: r[0] = a3; r[1] = a; r[2] = a; r[3] = a2; break;
	}
	return crypto_get_be32(r);
}

static void tables_init(void)
{
	for (unsigned x = 0; x < 256; x++) {
		uint8_t sr = sbox_r((uint8_t)x), sq = sbox_q((uint8_t)x), b = (uint8_t)x;

		for (unsigned p = 0; p < 4; p++) {
			s1_t[p][x] = s_col(sr, p, 0x1b);
			s2_t[p][x] = s_col(sq, p, 0x69);
		}
		/* MUL_alpha and DIV_alpha (Document 2, 3.4.5 / 3.4.6) */
		mul_a[x] = (uint32_t)mulxpow(b, 23, 0xa9) << 24 | (uint32_t)mulxpow(b, 245, 0xa9) << 16 |
			   (uint32_t)mulxpow(b, 48, 0xa9) << 8 | mulxpow(b, 239, 0xa9);
		div_a[x] = (uint32_t)mulxpow(b, 16, 0xa9) << 24 | (uint32_t)mulxpow(b, 39, 0xa9) << 16 |
			   (uint32_t)mulxpow(b, 6, 0xa9) << 8 | mulxpow(b, 64, 0xa9);
	}
}

/* The LFSR is a ring: s_i is ring[(p + i) % 16], so a clock writes one word. */
struct snow3g {
	uint32_t ring[16];
	unsigned p;
	uint32_t r1, r2, r3;
};

#define S(g, i) ((g)->ring[((g)->p + (i)) & 15])

CRYPTO_ALWAYS_INLINE uint32_t s1(uint32_t w)
{
	return s1_t[0][w >> 24] ^ s1_t[1][(w >> 16) & 0xff] ^ s1_t[2][(w >> 8) & 0xff] ^
	       s1_t[3][w & 0xff];
}

CRYPTO_ALWAYS_INLINE uint32_t s2(uint32_t w)
{
	return s2_t[0][w >> 24] ^ s2_t[1][(w >> 16) & 0xff] ^ s2_t[2][(w >> 8) & 0xff] ^
	       s2_t[3][w & 0xff];
}

/* FSM clock (3.4.6): returns F. */
CRYPTO_ALWAYS_INLINE uint32_t clock_fsm(struct snow3g *g)
{
	uint32_t f = (S(g, 15) + g->r1) ^ g->r2;
	uint32_t r = g->r2 + (g->r3 ^ S(g, 5));

	g->r3 = s2(g->r2);
	g->r2 = s1(g->r1);
	g->r1 = r;
	return f;
}

/* LFSR clock (3.4.4 initialisation mode with f, 3.4.5 keystream mode with f = 0). */
CRYPTO_ALWAYS_INLINE void clock_lfsr(struct snow3g *g, uint32_t f)
{
	uint32_t s0 = S(g, 0), s11 = S(g, 11);

	S(g, 0) = (s0 << 8) ^ mul_a[s0 >> 24] ^ S(g, 2) ^ (s11 >> 8) ^ div_a[s11 & 0xff] ^ f;
	g->p = (g->p + 1) & 15; /* the new word is s15 */
}

/* Initialisation (4.1): key words k0..k3 with k3 = the first four key octets (UEA2 4.3). */
static void snow3g_init(struct snow3g *g, const uint8_t key[16], const uint32_t iv[4])
{
	uint32_t k[4], one = 0xffffffffu;

	pthread_once(&tables_once, tables_init);
	for (int i = 0; i < 4; i++)
		k[3 - i] = crypto_get_be32(key + 4 * i);
	g->p = 0;
	g->ring[15] = k[3] ^ iv[0];
	g->ring[14] = k[2];
	g->ring[13] = k[1];
	g->ring[12] = k[0] ^ iv[1];
	g->ring[11] = k[3] ^ one;
	g->ring[10] = k[2] ^ one ^ iv[2];
	g->ring[9] = k[1] ^ one ^ iv[3];
	g->ring[8] = k[0] ^ one;
	for (int i = 0; i < 4; i++) {
		g->ring[4 + i] = k[i];
		g->ring[i] = k[i] ^ one;
	}
	g->r1 = g->r2 = g->r3 = 0;
	for (int i = 0; i < 32; i++)
		clock_lfsr(g, clock_fsm(g));
	/* keystream mode: the first FSM output is discarded (4.2) */
	clock_fsm(g);
	clock_lfsr(g, 0);
	OPENSSL_cleanse(k, sizeof(k));
}

CRYPTO_ALWAYS_INLINE uint32_t snow3g_word(struct snow3g *g)
{
	uint32_t z = clock_fsm(g) ^ S(g, 0);

	clock_lfsr(g, 0);
	return z;
}

void crypto_nea1(const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t dir,
		 const uint8_t *in, uint8_t *out, size_t bitlen)
{
	/* UEA2 (Document 1, 3.4): IV3 = IV1 = COUNT, IV2 = IV0 = BEARER || DIRECTION || 0^26 */
	uint32_t bd = (uint32_t)(bearer & 0x1f) << 27 | (uint32_t)(dir & 1) << 26;
	uint32_t iv[4] = { bd, count, bd, count };
	size_t n = (bitlen + 7) / 8;
	struct snow3g g;

	snow3g_init(&g, key, iv);
	for (size_t i = 0; i < n; i += 4)
		crypto_xor_ks32(out + i, in + i, n - i, snow3g_word(&g));
	OPENSSL_cleanse(&g, sizeof(g));
}

/* MUL64 (Document 1, 4.3): V * P in GF(2^64) modulo x^64 + x^4 + x^3 + x + 1. */
static uint64_t mul64(uint64_t v, uint64_t p)
{
	uint64_t r = 0;

	for (int i = 63; i >= 0; i--) {
		r = (r << 1) ^ (0x1bULL & (0 - (r >> 63)));
		r ^= v & (0 - ((p >> i) & 1));
	}
	return r;
}

/* V * P with P fixed for a whole message: t[j][n] = (n * x^(4j)) * P, so one product is 16
 * lookups instead of 64 shift-and-add steps. */
struct mul64_tab {
	uint64_t t[16][16];
};

static void mul64_tab_init(struct mul64_tab *m, uint64_t p)
{
	uint64_t b = p; /* P * x^i */

	for (int j = 0; j < 16; j++) {
		uint64_t base[4];

		for (int i = 0; i < 4; i++) {
			base[i] = b;
			b = (b << 1) ^ (0x1bULL & (0 - (b >> 63)));
		}
		m->t[j][0] = 0;
		for (unsigned n = 1; n < 16; n++)
			m->t[j][n] = m->t[j][n & (n - 1)] ^ base[__builtin_ctz(n)];
	}
}

CRYPTO_ALWAYS_INLINE uint64_t mul64_t(const struct mul64_tab *m, uint64_t v)
{
	uint64_t r = 0;

	for (int j = 0; j < 16; j++, v >>= 4)
		r ^= m->t[j][v & 15];
	return r;
}

static uint64_t get_be64_part(const uint8_t *p, size_t avail)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 8; i++)
		v = v << 8 | (i < avail ? p[i] : 0);
	return v;
}

void crypto_nia1(const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t dir,
		 const uint8_t *msg, size_t bitlen, uint8_t mac[4])
{
	/* UIA2 (Document 1, 4.4) with FRESH = BEARER || 0^27 (TS 33.401 B.2.2):
	 * IV3 = COUNT, IV2 = FRESH, IV1 = DIRECTION<<31 xor COUNT, IV0 = FRESH xor DIRECTION<<15 */
	uint32_t fresh = (uint32_t)(bearer & 0x1f) << 27;
	uint32_t iv[4] = { fresh ^ (uint32_t)(dir & 1) << 15, count ^ (uint32_t)(dir & 1) << 31,
			   fresh, count };
	size_t nbytes = (bitlen + 7) / 8, nblk = (bitlen + 63) / 64;
	uint64_t p, q, eval = 0;
	uint32_t z5;
	struct snow3g g;
	struct mul64_tab tab;

	snow3g_init(&g, key, iv);
	p = (uint64_t)snow3g_word(&g) << 32;
	p |= snow3g_word(&g);
	q = (uint64_t)snow3g_word(&g) << 32;
	q |= snow3g_word(&g);
	z5 = snow3g_word(&g);
	mul64_tab_init(&tab, p);
	for (size_t i = 0; i < nblk; i++) {
		uint64_t m = get_be64_part(msg + 8 * i, nbytes - 8 * i);

		if (i == nblk - 1 && bitlen % 64) /* bits past LENGTH are zero padding */
			m &= ~0ULL << (64 - bitlen % 64);
		eval = mul64_t(&tab, eval ^ m);
	}
	eval = mul64(eval ^ (uint64_t)bitlen, q); /* M_(D-1) = LENGTH */
	crypto_put_be32(mac, (uint32_t)(eval >> 32) ^ z5);
	OPENSSL_cleanse(&g, sizeof(g));
	OPENSSL_cleanse(&tab, sizeof(tab));
	p = q = 0;
}
