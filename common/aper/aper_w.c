/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * X.691 ALIGNED PER writer. Clause numbers are X.691 (02/2021).
 * Every write is bounds-checked against the caller buffer; the first error is sticky.
 */
#include <errno.h>
#include <string.h>

#include "common/aper/aper_int.h"

void aper_w_init(struct aper_w *w, uint8_t *buf, size_t cap)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->cap = cap;
}

int aper_w_fail(struct aper_w *w, int err, const char *why)
{
	if (!w->err) {
		w->err = err;
		w->why = why;
	}
	return w->err;
}

int aper_w_len(const struct aper_w *w)
{
	if (w->err)
		return w->err;
	return (int)((w->pos + 7) / 8);
}

/* Writes the low n bits of v (n 1..57, room checked by the caller) at bit pos: one shift into a word
 * covering at most 8 octets, then octet stores. The first octet is OR-ed into when pos is inside it
 * (its earlier bits are written, its later ones zero); every octet entered afresh is stored whole,
 * so its trailing bits are zero like the rest of the writer's output. */
static inline void poke_bits(uint8_t *buf, size_t pos, uint64_t v, unsigned n)
{
	uint8_t *p = buf + (pos >> 3);
	unsigned off = (unsigned)(pos & 7), span = off + n, nb = (span + 7) >> 3;
	uint64_t x = (v & ((UINT64_C(1) << n) - 1)) << (nb * 8 - span);

	for (unsigned i = nb; i-- > 1; x >>= 8)
		p[i] = (uint8_t)x;
	p[0] = off ? (uint8_t)(p[0] | x) : (uint8_t)x;
}

/* 58..64 bits may span 9 octets: two parts (out of line: rare, and it would cost every caller registers). */
static __attribute__((noinline)) void poke_wide(uint8_t *buf, size_t pos, uint64_t v, unsigned n)
{
	poke_bits(buf, pos, v >> 32, n - 32);
	poke_bits(buf, pos + n - 32, v, 32);
}

static inline __attribute__((always_inline)) int put_bits(struct aper_w *w, uint64_t v, unsigned n)
{
	if (w->err)
		return w->err;
	if (n > 64)
		return aper_w_fail(w, -EINVAL, "bit-field wider than 64");
	if (n > w->cap * 8 - w->pos)
		return aper_w_fail(w, -ENOSPC, "buffer full");
	if (n == 0)
		return 0;
	if (n > 57)
		poke_wide(w->buf, w->pos, v, n);
	else
		poke_bits(w->buf, w->pos, v, n);
	w->pos += n;
	return 0;
}

static inline __attribute__((always_inline)) int align_w(struct aper_w *w)
{
	if (w->err)
		return w->err;
	w->pos = (w->pos + 7) & ~(size_t)7; /* padding bits are already zero */
	return 0;
}

int aper_put_bits(struct aper_w *w, uint64_t v, unsigned n)
{
	return put_bits(w, v, n);
}

int aper_w_align(struct aper_w *w)
{
	return align_w(w);
}

static int put_bytes(struct aper_w *w, const uint8_t *p, size_t n)
{
	size_t i;

	if (w->err)
		return w->err;
	if (!(w->pos & 7)) {
		if (n > w->cap - w->pos / 8)
			return aper_w_fail(w, -ENOSPC, "buffer full");
		if (n)
			memcpy(w->buf + w->pos / 8, p, n);
		w->pos += n * 8;
		return 0;
	}
	for (i = 0; i < n; i++)
		put_bits(w, p[i], 8);
	return w->err;
}

static inline __attribute__((always_inline)) int put_cint_root(struct aper_w *w, int64_t lb, int64_t ub, int64_t v)
{
	uint64_t range = (uint64_t)(ub - lb) + 1, x = (uint64_t)(v - lb);

	if (v < lb || v > ub)
		return aper_w_fail(w, -EINVAL, "integer outside its constraint");
	if (range == 1)
		return w->err;
	if (range <= 255)
		return put_bits(w, x, nbits(range - 1));
	if (range == 256)
		return align_w(w) ? w->err : put_bits(w, x, 8);
	if (range <= 65536)
		return align_w(w) ? w->err : put_bits(w, x, 16);
	{
		unsigned nb = nbytes(range - 1), len = nbytes(x);

		put_bits(w, len - 1, nbits(nb - 1));
		align_w(w);
		return put_bits(w, x, len * 8);
	}
}

int aper_put_cint(struct aper_w *w, int64_t lb, int64_t ub, bool ext, int64_t v)
{
	if (ext) {
		bool out = v < lb || v > ub;

		put_bits(w, out, 1);
		if (out)
			return aper_put_unconstr(w, v);
	}
	return put_cint_root(w, lb, ub, v);
}

static int put_len_unbounded(struct aper_w *w, size_t n)
{
	align_w(w);
	if (n < 128)
		return put_bits(w, n, 8);
	if (n < APER_FRAG)
		return put_bits(w, 0x8000 | n, 16);
	return aper_w_fail(w, -EINVAL, "length needs fragmentation");
}

int aper_put_len(struct aper_w *w, int64_t lb, int64_t ub, size_t n)
{
	if (n < (size_t)lb || (ub >= 0 && n > (size_t)ub))
		return aper_w_fail(w, -EINVAL, "length outside its size constraint");
	if (ub >= 0 && ub < 65536)
		return put_cint_root(w, lb, ub, (int64_t)n);
	return put_len_unbounded(w, n);
}

int aper_put_count(struct aper_w *w, int64_t lb, int64_t ub, size_t n)
{
	return aper_put_len(w, lb, ub, n);
}

int aper_put_semi(struct aper_w *w, int64_t lb, int64_t v)
{
	uint64_t x = (uint64_t)(v - lb);
	unsigned len = nbytes(x);

	if (v < lb)
		return aper_w_fail(w, -EINVAL, "integer below its lower bound");
	put_len_unbounded(w, len);
	return put_bits(w, x, len * 8);
}

int aper_put_unconstr(struct aper_w *w, int64_t v)
{
	unsigned len = 1;

	/* 11.3/11.4: minimal two's complement octets */
	while (len < 8 && !(v >= -(INT64_C(1) << (len * 8 - 1)) && v < (INT64_C(1) << (len * 8 - 1))))
		len++;
	put_len_unbounded(w, len);
	return put_bits(w, len == 8 ? (uint64_t)v : (uint64_t)v & ((UINT64_C(1) << (len * 8)) - 1), len * 8);
}

int aper_put_nsnn(struct aper_w *w, uint64_t v)
{
	if (v <= 63)
		return put_bits(w, v, 7);
	put_bits(w, 1, 1);
	return aper_put_semi(w, 0, (int64_t)v);
}

int aper_put_bool(struct aper_w *w, bool b)
{
	return put_bits(w, b, 1);
}

int aper_put_enum(struct aper_w *w, unsigned nroot, bool ext, unsigned v)
{
	if (v >= nroot) {
		if (!ext)
			return aper_w_fail(w, -EINVAL, "enumerated value outside the root");
		put_bits(w, 1, 1);
		return aper_put_nsnn(w, v - nroot);
	}
	if (ext)
		put_bits(w, 0, 1);
	return put_cint_root(w, 0, (int64_t)nroot - 1, v);
}

int aper_put_choice(struct aper_w *w, unsigned nroot, bool ext, unsigned idx)
{
	return aper_put_enum(w, nroot, ext, idx);
}

/* Size part of strings; returns 1 when the unbounded (fragmentable) form is to be used. */
static int put_size(struct aper_w *w, int64_t lb, int64_t ub, bool ext, unsigned short_max, size_t n)
{
	bool inroot = n >= (size_t)lb && (ub < 0 || n <= (size_t)ub);

	if (ext)
		put_bits(w, !inroot, 1);
	else if (!inroot)
		return aper_w_fail(w, -EINVAL, "size outside its constraint");
	if (w->err)
		return w->err;
	if (!inroot)
		return 1;
	if (ub == 0)
		return 0;
	if (lb == ub && ub <= (int64_t)short_max)
		return 0;
	if (lb == ub && ub <= 65536)
		return align_w(w);
	if (ub >= 0 && ub < 65536) {
		aper_put_len(w, lb, ub, n);
		return n ? align_w(w) : w->err;
	}
	return 1;
}

int aper_put_bitstr(struct aper_w *w, int64_t lb, int64_t ub, bool ext, const uint8_t *p, size_t nb)
{
	int rc = put_size(w, lb, ub, ext, 16, nb);
	size_t i;

	if (rc < 0)
		return rc;
	if (rc == 1 && put_len_unbounded(w, nb))
		return w->err;
	if (rc == 1 && nb)
		align_w(w);
	if (!(w->pos & 7) && put_bytes(w, p, nb / 8) == 0) /* aligned: whole octets at once */
		i = nb / 8 * 8;
	else
		i = 0;
	for (; i < nb; i += 8) {
		unsigned take = nb - i < 8 ? (unsigned)(nb - i) : 8;

		put_bits(w, p[i / 8] >> (8 - take), take);
	}
	return w->err;
}

int aper_put_bits_fixed(struct aper_w *w, unsigned n, bool ext, uint64_t v)
{
	uint8_t b[8];
	uint64_t x;
	unsigned i;

	if (n > 64 || (n < 64 && v >> n))
		return aper_w_fail(w, -EINVAL, "value wider than its BIT STRING");
	if (!ext && n) { /* 16.9/16.10: no length; octet-aligned above 16 bits */
		if (n > 16 && align_w(w))
			return w->err;
		return put_bits(w, v, n);
	}
	x = n ? v << (64 - n) : 0;
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(x >> (56 - 8 * i));
	return aper_put_bitstr(w, n, n, ext, b, n);
}

/* 11.9.3.8: unbounded octets, in fragments of 64K/48K/32K/16K and a final length. */
static int put_octets_frag(struct aper_w *w, const uint8_t *p, size_t n)
{
	while (n >= APER_FRAG && !w->err) {
		size_t m = n / APER_FRAG > 4 ? 4 : n / APER_FRAG;

		align_w(w);
		put_bits(w, 0xc0 | m, 8);
		put_bytes(w, p, m * APER_FRAG);
		p += m * APER_FRAG;
		n -= m * APER_FRAG;
	}
	put_len_unbounded(w, n); /* may be 0: the closing determinant of a fragmented value */
	return put_bytes(w, p, n);
}

int aper_put_octets(struct aper_w *w, int64_t lb, int64_t ub, bool ext, const uint8_t *p, size_t n)
{
	int rc;

	if (!ext && lb == ub && n == (size_t)lb && n > 2 && n <= 65536) { /* 17.7: fixed size, aligned */
		if (align_w(w))
			return w->err;
		if (n > w->cap - w->pos / 8)
			return aper_w_fail(w, -ENOSPC, "buffer full");
		for (size_t i = 0; i < n; i++) /* mostly 3..8 octets: no memcpy call */
			w->buf[w->pos / 8 + i] = p[i];
		w->pos += n * 8;
		return 0;
	}
	rc = put_size(w, lb, ub, ext, 2, n);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return put_octets_frag(w, p, n);
	return put_bytes(w, p, n);
}

int aper_put_string(struct aper_w *w, enum aper_str kind, int64_t lb, int64_t ub, bool ext, const uint8_t *p,
		    size_t n)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if (!str_char_ok(kind, p[i]))
			return aper_w_fail(w, -EINVAL, "character outside the string's alphabet");
	rc = put_size(w, lb, ub, ext, 2, n);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return put_octets_frag(w, p, n);
	return put_bytes(w, p, n);
}

int aper_put_utf8(struct aper_w *w, const uint8_t *p, size_t n)
{
	return put_octets_frag(w, p, n);
}

int aper_put_seq(struct aper_w *w, bool ext, unsigned nopt, uint32_t mask)
{
	uint64_t bits = nopt ? rev32(mask) >> (32 - nopt) : 0; /* optional i as bit nopt-1-i */

	if (nopt > 32)
		return aper_w_fail(w, -EINVAL, "more than 32 optional fields");
	/* the extension bit (we never send extension additions), then optional i as bit nopt-1-i */
	return put_bits(w, bits, nopt + (ext ? 1 : 0));
}

/* The length octet(s) of an open type are only known at its end. One octet is reserved: most values
 * (every NGAP IE but the large containers) are under 128 octets and need no move at all; a longer
 * value is moved up by one octet (or re-packed with fragment headers) in aper_open_end. */
int aper_open_begin(struct aper_w *w, size_t *mark)
{
	align_w(w);
	*mark = w->pos / 8;
	return put_bits(w, 0, 8);
}

int aper_open_end(struct aper_w *w, size_t mark)
{
	size_t start = mark + 1, len, seg[64], nseg = 0, rem, hdr, dst, src, i;

	if (w->err)
		return w->err;
	align_w(w);
	if (w->pos / 8 == start)
		put_bits(w, 0, 8); /* 11.2.1: an empty encoding becomes one zero octet */
	if (w->err)
		return w->err;
	len = w->pos / 8 - start;
	if (len < 128) { /* 11.9.3.6: one length octet, already in place */
		w->buf[mark] = (uint8_t)len;
		return 0;
	}
	if (len < APER_FRAG) { /* 11.9.3.7: two length octets, the value moves up by one */
		if (start + 1 + len > w->cap)
			return aper_w_fail(w, -ENOSPC, "buffer full");
		memmove(w->buf + start + 1, w->buf + start, len);
		w->buf[mark] = (uint8_t)(0x80 | (len >> 8));
		w->buf[mark + 1] = (uint8_t)len;
		w->pos += 8;
		return 0;
	}
	/* 11.9.3.8: insert fragment headers, moving the value from its end backwards. */
	for (rem = len; rem >= APER_FRAG; rem -= seg[nseg++]) {
		if (nseg == 64)
			return aper_w_fail(w, -EMSGSIZE, "open type too large");
		seg[nseg] = (rem / APER_FRAG > 4 ? 4 : rem / APER_FRAG) * APER_FRAG;
	}
	hdr = nseg + (rem < 128 ? 1 : 2);
	if (mark + hdr + len > w->cap)
		return aper_w_fail(w, -ENOSPC, "buffer full");
	/* shift the value right so that it starts after all headers, then pack it back front to back:
	 * every move goes to a lower address and never over data not yet moved */
	memmove(w->buf + mark + hdr, w->buf + start, len);
	src = mark + hdr;
	dst = mark;
	for (i = 0; i < nseg; i++) {
		w->buf[dst++] = (uint8_t)(0xc0 | (seg[i] / APER_FRAG));
		memmove(w->buf + dst, w->buf + src, seg[i]);
		dst += seg[i];
		src += seg[i];
	}
	if (rem >= 128)
		w->buf[dst++] = (uint8_t)(0x80 | (rem >> 8));
	w->buf[dst++] = (uint8_t)rem;
	memmove(w->buf + dst, w->buf + src, rem);
	w->pos = (mark + hdr + len) * 8;
	return 0;
}

int aper_put_open(struct aper_w *w, const uint8_t *p, size_t n)
{
	if (n == 0) {
		static const uint8_t zero;

		p = &zero;
		n = 1;
	}
	align_w(w);
	return put_octets_frag(w, p, n);
}
