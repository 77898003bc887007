/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * X.691 ALIGNED PER reader. Clause numbers are X.691 (02/2021).
 * Every read is bounds-checked against the input; the first error is sticky and keeps its offset.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "common/aper/aper_int.h"

void aper_r_init(struct aper_r *r, const uint8_t *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
}

int aper_r_fail(struct aper_r *r, int err, const char *why)
{
	if (!r->err) {
		r->err = err;
		r->err_bit = r->base + r->pos;
		r->why = why;
	}
	return r->err;
}

int aper_r_take(struct aper_r *r, const struct aper_r *sub)
{
	if (sub->err && !r->err) {
		r->err = sub->err;
		r->err_bit = sub->err_bit;
		r->why = sub->why;
	}
	return r->err;
}

size_t aper_r_left(const struct aper_r *r)
{
	return r->len * 8 - r->pos;
}

/* Bits pos..pos+n-1 of buf (n 1..57, so that they span at most 8 octets; the caller checked that
 * they are in the len octets of buf): with 8 octets of input left from the field's first octet one
 * unaligned big-endian word load and two shifts, else the covering octets one by one. */
static inline uint64_t peek_bits(const uint8_t *buf, size_t len, size_t pos, unsigned n)
{
	const uint8_t *p = buf + (pos >> 3);
	unsigned off = (unsigned)(pos & 7);
	uint64_t acc = 0;

	if (len - (pos >> 3) >= 8) {
		memcpy(&acc, p, 8);
		return (__builtin_bswap64(acc) << off) >> (64 - n);
	}
	for (unsigned i = 0, nb = (off + n + 7) >> 3; i < nb; i++)
		acc |= (uint64_t)p[i] << (56 - 8 * i);
	return (acc << off) >> (64 - n);
}

/* 58..64 bits may span 9 octets: two parts (out of line: rare, and it would cost every caller registers). */
static __attribute__((noinline)) uint64_t peek_wide(const uint8_t *buf, size_t len, size_t pos, unsigned n)
{
	return (peek_bits(buf, len, pos, n - 32) << 32) | peek_bits(buf, len, pos + n - 32, 32);
}

/* aper_get_bits for the reader's own callers; always inlined into them (the hot path of every
 * constrained number, enumeration, choice index and SEQUENCE preamble). */
static inline __attribute__((always_inline)) int get_bits(struct aper_r *r, unsigned n, uint64_t *v)
{
	*v = 0;
	if (r->err)
		return r->err;
	if (n > 64)
		return aper_r_fail(r, -EINVAL, "bit-field wider than 64");
	if (n > r->len * 8 - r->pos)
		return aper_r_fail(r, -EBADMSG, "truncated");
	if (n == 0)
		return 0;
	*v = n > 57 ? peek_wide(r->buf, r->len, r->pos, n) : peek_bits(r->buf, r->len, r->pos, n);
	r->pos += n;
	return 0;
}

static inline __attribute__((always_inline)) int align_r(struct aper_r *r)
{
	if (r->err)
		return r->err;
	r->pos = (r->pos + 7) & ~(size_t)7;
	if (r->pos > r->len * 8) {
		r->pos = r->len * 8;
		return aper_r_fail(r, -EBADMSG, "truncated (padding)");
	}
	return 0;
}

int aper_get_bits(struct aper_r *r, unsigned n, uint64_t *v)
{
	return get_bits(r, n, v);
}

int aper_r_align(struct aper_r *r)
{
	return align_r(r);
}

/* 11.5.7: value lb..ub without extension bit. */
static inline __attribute__((always_inline)) int get_cint_root(struct aper_r *r, int64_t lb, int64_t ub, int64_t *v)
{
	uint64_t range = (uint64_t)(ub - lb) + 1, x = 0;
	size_t at = r->pos;

	*v = lb;
	if (ub < lb)
		return aper_r_fail(r, -EINVAL, "bad constraint");
	if (range == 1)
		return r->err;
	if (range <= 255) {
		get_bits(r, nbits(range - 1), &x);
	} else if (range == 256) {
		align_r(r);
		get_bits(r, 8, &x);
	} else if (range <= 65536) {
		align_r(r);
		get_bits(r, 16, &x);
	} else {
		/* 11.5.7.4 indefinite-length case: octet count 1..nb as a constrained number. */
		uint64_t len;
		unsigned nb = nbytes(range - 1);

		get_bits(r, nbits(nb - 1), &len);
		len += 1;
		if (!r->err && len > nb)
			return aper_r_fail(r, -EBADMSG, "integer length above its bound");
		align_r(r);
		get_bits(r, (unsigned)len * 8, &x);
	}
	if (r->err)
		return r->err;
	if (x > range - 1) {
		r->pos = at; /* report the start of the offending field */
		return aper_r_fail(r, -ERANGE, "integer above upper bound");
	}
	*v = lb + (int64_t)x;
	return 0;
}

int aper_get_cint(struct aper_r *r, int64_t lb, int64_t ub, bool ext, int64_t *v)
{
	if (ext) {
		uint64_t e;

		*v = lb;
		if (get_bits(r, 1, &e))
			return r->err;
		if (e) /* 12.1: a value outside the root is encoded unconstrained */
			return aper_get_unconstr(r, v);
	}
	return get_cint_root(r, lb, ub, v);
}

/* Unbounded length form (11.9.3.6-8), aligned. */
static int get_len_unbounded(struct aper_r *r, size_t *n, bool *more)
{
	uint64_t b, b2;

	*n = 0;
	*more = false;
	if (align_r(r) || get_bits(r, 8, &b))
		return r->err;
	if (!(b & 0x80)) {
		*n = b;
	} else if ((b & 0xc0) == 0x80) {
		if (get_bits(r, 8, &b2))
			return r->err;
		*n = ((b & 0x3f) << 8) | b2;
	} else {
		unsigned m = b & 0x3f;

		if (m < 1 || m > 4) {
			r->pos -= 8;
			return aper_r_fail(r, -EBADMSG, "bad fragment size");
		}
		*n = m * APER_FRAG;
		*more = true;
	}
	return 0;
}

int aper_get_len(struct aper_r *r, int64_t lb, int64_t ub, size_t *n, bool *more)
{
	*more = false;
	*n = 0;
	if (r->err)
		return r->err;
	if (ub >= 0 && ub < 65536) { /* 11.9.4.1: a constrained whole number */
		int64_t v;

		if (get_cint_root(r, lb, ub, &v))
			return r->err;
		*n = (size_t)v;
		return 0;
	}
	if (get_len_unbounded(r, n, more))
		return r->err;
	if (!*more && (*n < (size_t)lb || (ub >= 0 && *n > (size_t)ub)))
		return aper_r_fail(r, -ERANGE, "length outside its size constraint");
	return 0;
}

int aper_get_count(struct aper_r *r, int64_t lb, int64_t ub, size_t *n)
{
	bool more;

	if (aper_get_len(r, lb, ub, n, &more))
		return r->err;
	if (more)
		return aper_r_fail(r, -ENOTSUP, "fragmented SEQUENCE OF count");
	return 0;
}

/* 11.7 / 11.8: an unbounded octet count (1..8 here), then that many value octets. */
static int get_int_octets(struct aper_r *r, uint64_t *x, size_t *n, const char *what)
{
	bool more;

	*x = 0;
	if (get_len_unbounded(r, n, &more))
		return r->err;
	if (more || *n == 0 || *n > 8)
		return aper_r_fail(r, *n == 0 ? -EBADMSG : -ENOTSUP, what);
	return get_bits(r, (unsigned)*n * 8, x);
}

int aper_get_semi(struct aper_r *r, int64_t lb, int64_t *v)
{
	size_t n;
	uint64_t x;

	*v = lb;
	if (get_int_octets(r, &x, &n, "semi-constrained integer length"))
		return r->err;
	if (x > (uint64_t)INT64_MAX || (lb > 0 && x > (uint64_t)(INT64_MAX - lb)))
		return aper_r_fail(r, -ERANGE, "integer too large");
	*v = lb + (int64_t)x;
	return 0;
}

int aper_get_unconstr(struct aper_r *r, int64_t *v)
{
	size_t n;
	uint64_t x;

	*v = 0;
	if (get_int_octets(r, &x, &n, "unconstrained integer length"))
		return r->err;
	if (n < 8 && (x >> (n * 8 - 1)) & 1) /* two's complement sign extension */
		x |= ~(uint64_t)0 << (n * 8);
	*v = (int64_t)x;
	return 0;
}

int aper_get_nsnn(struct aper_r *r, uint64_t *v)
{
	uint64_t b;
	int64_t s;

	*v = 0;
	if (get_bits(r, 1, &b))
		return r->err;
	if (!b)
		return get_bits(r, 6, v);
	if (aper_get_semi(r, 0, &s))
		return r->err;
	*v = (uint64_t)s;
	return 0;
}

int aper_get_bool(struct aper_r *r, bool *b)
{
	uint64_t x;

	get_bits(r, 1, &x);
	*b = x;
	return r->err;
}

int aper_get_enum(struct aper_r *r, unsigned nroot, bool ext, unsigned *v)
{
	uint64_t e = 0, x;
	int64_t c;

	*v = 0;
	if (ext && get_bits(r, 1, &e))
		return r->err;
	if (e) {
		if (aper_get_nsnn(r, &x))
			return r->err;
		if (x > 255)
			return aper_r_fail(r, -ERANGE, "enumerated extension value too large");
		*v = nroot + (unsigned)x;
		return 0;
	}
	if (get_cint_root(r, 0, (int64_t)nroot - 1, &c))
		return r->err;
	*v = (unsigned)c;
	return 0;
}

int aper_get_choice(struct aper_r *r, unsigned nroot, bool ext, unsigned *idx)
{
	return aper_get_enum(r, nroot, ext, idx); /* 23.6-23.8: same shape as ENUMERATED */
}

/* Decide size and alignment of a BIT/OCTET STRING or character string (16.8-16.11, 17.6-17.8). */
static int get_size(struct aper_r *r, int64_t lb, int64_t ub, bool ext, unsigned short_max, size_t *n,
		    bool *more)
{
	uint64_t e = 0;

	*more = false;
	*n = 0;
	if (ext && get_bits(r, 1, &e))
		return r->err;
	if (e)
		return aper_get_len(r, 0, APER_UNBOUNDED, n, more) ? r->err : (*n ? align_r(r) : 0);
	if (ub == 0)
		return r->err;
	if (lb == ub && ub <= (int64_t)short_max) {
		*n = (size_t)lb; /* short fixed size: no length, not aligned */
		return r->err;
	}
	if (lb == ub && ub <= 65536) {
		*n = (size_t)lb;
		return align_r(r);
	}
	if (aper_get_len(r, lb, ub, n, more))
		return r->err;
	return *n ? align_r(r) : 0;
}

int aper_get_bitstr(struct aper_r *r, int64_t lb, int64_t ub, bool ext, uint8_t *out, size_t outcap,
		    size_t *nbits_out)
{
	size_t n, i;
	bool more;
	uint64_t x;

	*nbits_out = 0;
	if (get_size(r, lb, ub, ext, 16, &n, &more))
		return r->err;
	if (more)
		return aper_r_fail(r, -ENOTSUP, "fragmented BIT STRING");
	if (n > outcap * 8)
		return aper_r_fail(r, -E2BIG, "BIT STRING longer than its buffer");
	if (n > aper_r_left(r))
		return aper_r_fail(r, -EBADMSG, "truncated BIT STRING");
	memset(out, 0, (n + 7) / 8);
	if (!(r->pos & 7)) { /* aligned: copy whole octets, then the last partial one */
		memcpy(out, r->buf + r->pos / 8, n / 8);
		r->pos += n / 8 * 8;
		i = n / 8 * 8;
	} else {
		i = 0;
	}
	for (; i < n; i += 8) {
		unsigned take = n - i < 8 ? (unsigned)(n - i) : 8;

		get_bits(r, take, &x);
		out[i / 8] = (uint8_t)(x << (8 - take));
	}
	*nbits_out = n;
	return r->err;
}

int aper_get_bits_fixed(struct aper_r *r, unsigned n, bool ext, uint64_t *v)
{
	uint8_t b[8];
	size_t got, i;

	*v = 0;
	if (n > 64)
		return aper_r_fail(r, -EINVAL, "fixed BIT STRING over 64 bits");
	if (!ext && n && !r->err) { /* 16.9/16.10: no length; octet-aligned above 16 bits */
		if (n > 16 && align_r(r))
			return r->err;
		if (n > r->len * 8 - r->pos)
			return aper_r_fail(r, -EBADMSG, "truncated BIT STRING");
		return get_bits(r, n, v);
	}
	if (aper_get_bitstr(r, n, n, ext, b, sizeof(b), &got))
		return r->err;
	if (got != n)
		return aper_r_fail(r, -ERANGE, "BIT STRING size outside the root");
	for (i = 0; i < (got + 7) / 8; i++)
		*v = (*v << 8) | b[i];
	if (got % 8)
		*v >>= 8 - got % 8;
	return 0;
}

static int get_bytes_ref(struct aper_r *r, size_t n, const uint8_t **p)
{
	if (r->err)
		return r->err;
	if (r->pos & 7)
		return aper_r_fail(r, -ENOTSUP, "unaligned octets by reference");
	if (n > aper_r_left(r) / 8)
		return aper_r_fail(r, -EBADMSG, "truncated octets");
	*p = r->buf + r->pos / 8;
	r->pos += n * 8;
	return 0;
}

int aper_get_octets(struct aper_r *r, int64_t lb, int64_t ub, bool ext, const uint8_t **p, size_t *n)
{
	bool more;

	*p = NULL;
	if (get_size(r, lb, ub, ext, 2, n, &more))
		return r->err;
	if (more)
		return aper_r_fail(r, -ENOTSUP, "fragmented OCTET STRING by reference");
	if (*n == 0) {
		*p = r->buf; /* non-NULL so callers can tell "present, empty" */
		return 0;
	}
	return get_bytes_ref(r, *n, p);
}

int aper_get_octets_copy(struct aper_r *r, int64_t lb, int64_t ub, bool ext, uint8_t *out, size_t outcap,
			 size_t *n)
{
	size_t got = 0, chunk, i;
	bool more;
	uint64_t x;

	*n = 0;
	if (!ext && lb == ub && lb > 2 && lb <= 65536 && !r->err) { /* 17.7: fixed size, aligned, no length */
		const uint8_t *p;

		chunk = (size_t)lb;
		if (align_r(r))
			return r->err;
		if (chunk > outcap)
			return aper_r_fail(r, -E2BIG, "OCTET STRING longer than its buffer");
		if (chunk > (r->len * 8 - r->pos) / 8)
			return aper_r_fail(r, -EBADMSG, "truncated octets");
		p = r->buf + r->pos / 8;
		for (i = 0; i < chunk; i++) /* mostly 3..8 octets (PLMN, TAC, ...): no memcpy call */
			out[i] = p[i];
		r->pos += chunk * 8;
		*n = chunk;
		return 0;
	}
	if (get_size(r, lb, ub, ext, 2, &chunk, &more))
		return r->err;
	for (;;) {
		if (chunk > outcap - got)
			return aper_r_fail(r, -E2BIG, "OCTET STRING longer than its buffer");
		if (chunk > aper_r_left(r) / 8)
			return aper_r_fail(r, -EBADMSG, "truncated octets");
		if (!(r->pos & 7)) {
			memcpy(out + got, r->buf + r->pos / 8, chunk);
			r->pos += chunk * 8;
		} else {
			for (i = 0; i < chunk; i++) {
				get_bits(r, 8, &x);
				out[got + i] = (uint8_t)x;
			}
		}
		got += chunk;
		if (!more)
			break;
		if (get_len_unbounded(r, &chunk, &more)) /* 11.9.3.8.4: next fragment or the rest */
			return r->err;
	}
	if (got < (size_t)lb && !ext)
		return aper_r_fail(r, -ERANGE, "OCTET STRING shorter than its size constraint");
	*n = got;
	return r->err;
}

int aper_get_string(struct aper_r *r, enum aper_str kind, int64_t lb, int64_t ub, bool ext, const uint8_t **p,
		    size_t *n)
{
	bool more;
	size_t i;

	*p = NULL;
	/* 30.5.7: with 8 bits a character the short unaligned form ends at 2 characters. */
	if (get_size(r, lb, ub, ext, 2, n, &more))
		return r->err;
	if (more)
		return aper_r_fail(r, -ENOTSUP, "fragmented character string");
	if (*n == 0) {
		*p = r->buf;
		return 0;
	}
	if (get_bytes_ref(r, *n, p))
		return r->err;
	for (i = 0; i < *n; i++)
		if (!str_char_ok(kind, (*p)[i])) {
			r->pos -= (*n - i) * 8;
			return aper_r_fail(r, -EBADMSG, "character outside the string's alphabet");
		}
	return 0;
}

int aper_get_utf8(struct aper_r *r, const uint8_t **p, size_t *n)
{
	return aper_get_octets(r, 0, APER_UNBOUNDED, false, p, n);
}

int aper_get_seq(struct aper_r *r, bool ext, unsigned nopt, bool *extp, uint32_t *mask)
{
	uint64_t e = 0, b;
	unsigned i;

	*mask = 0;
	if (nopt > 32)
		return aper_r_fail(r, -EINVAL, "more than 32 optional fields");
	if (!r->err && ext + nopt <= r->len * 8 - r->pos) { /* the whole preamble in one read */
		get_bits(r, ext + nopt, &b);
		if (nopt)
			*mask = rev32((uint32_t)(b << (32 - nopt))); /* first optional field = most significant bit */
		if (extp)
			*extp = ext && b >> nopt;
		return 0;
	}
	if (ext) /* truncated: field by field, so that the error is at the same bit as ever */
		get_bits(r, 1, &e);
	if (nopt && !get_bits(r, nopt, &b)) /* first optional field = most significant bit */
		for (i = 0; i < nopt; i++)
			*mask |= (uint32_t)((b >> (nopt - 1 - i)) & 1) << i;
	if (extp)
		*extp = e;
	return r->err;
}

int aper_skip_seq_ext(struct aper_r *r)
{
	uint64_t cnt, b;
	uint64_t present = 0;
	unsigned i;
	struct aper_r sub;

	/* 19.8: normally small length (count - 1), then the presence bitmap, then open types. */
	if (aper_get_nsnn(r, &cnt))
		return r->err;
	cnt += 1;
	if (cnt > 64)
		return aper_r_fail(r, -ENOTSUP, "more than 64 extension additions");
	for (i = 0; i < cnt; i++) {
		get_bits(r, 1, &b);
		present += b;
	}
	while (present-- && !r->err)
		aper_get_open(r, &sub);
	return r->err;
}

int aper_get_open(struct aper_r *r, struct aper_r *sub)
{
	size_t n;
	bool more;
	size_t at;

	if (!r->err) {
		/* Fast path for the usual 1- or 2-octet length (11.9.3.6/7) of a value that is all in the
		 * input; fragments and every error go the general way below, which reports them. */
		size_t o = (r->pos + 7) >> 3, left = r->len - (o < r->len ? o : r->len), hdr = 1;

		if (left) {
			uint8_t b = r->buf[o];

			n = b;
			if (b & 0x80) {
				hdr = 2;
				n = (b & 0xc0) == 0x80 && left >= 2 ? ((size_t)(b & 0x3f) << 8) | r->buf[o + 1] : SIZE_MAX;
			}
			if (left >= hdr && n <= left - hdr) {
				sub->buf = r->buf + o + hdr;
				sub->len = n;
				sub->pos = 0;
				sub->base = r->base + (o + hdr) * 8;
				sub->err = 0;
				sub->err_bit = 0;
				sub->why = NULL;
				sub->user = r->user;
				r->pos = (o + hdr + n) * 8;
				return 0;
			}
		}
	}
	aper_r_init(sub, r->buf, 0);
	if (align_r(r))
		return r->err;
	at = r->pos; /* errors below are reported at the length determinant */
	if (get_len_unbounded(r, &n, &more))
		return r->err;
	if (more) {
		r->pos = at;
		return aper_r_fail(r, -ENOTSUP, "fragmented open type");
	}
	if (n > aper_r_left(r) / 8) {
		r->pos = at;
		return aper_r_fail(r, -EBADMSG, "open type longer than the input");
	}
	aper_r_init(sub, r->buf + r->pos / 8, n);
	sub->base = r->base + r->pos;
	sub->user = r->user;
	r->pos += n * 8;
	return 0;
}
