/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * X.691 ALIGNED PER bit reader and writer (the subset NGAP needs, in general form).
 *
 * Reader: struct aper_r is a cursor over a byte buffer. It never reads past the buffer. The first
 * error is sticky: every later call returns it too, so a codec may check once at the end. The
 * error is a negative errno (-EBADMSG: malformed / truncated, -ERANGE: value outside its
 * constraint, -ENOTSUP: a legal form we do not decode, -E2BIG: more than the caller can hold)
 * plus the bit offset where it happened (err_bit) and a static reason string (why).
 *
 * Writer: struct aper_w writes into a caller buffer; -ENOSPC when it is full, -EINVAL when a value
 * does not fit its constraint; also sticky. aper_w_len() is the encoding length in octets.
 *
 * Integer bounds are int64_t; "ub < 0" on a length means unbounded (no upper bound, "MAX").
 * Clause numbers in comments are X.691 (02/2021).
 */
#ifndef SOLOCORE_COMMON_APER_APER_H
#define SOLOCORE_COMMON_APER_APER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define APER_UNBOUNDED (-1)
#define APER_FRAG 16384u                 /* X.691 11.9.3.8: fragments are multiples of 16K */

struct aper_r {
	const uint8_t *buf;
	size_t len;                      /* octets */
	size_t pos;                      /* bit position */
	size_t base;                     /* bit offset of buf[0] in the outermost input (for err_bit) */
	int err;                         /* first error, 0 if none */
	size_t err_bit;                  /* absolute: base + pos at the error */
	const char *why;
	void *user;                      /* for the codec on top (inherited by open-type sub-readers) */
};

struct aper_w {
	uint8_t *buf;
	size_t cap;                      /* octets */
	size_t pos;                      /* bit position */
	int err;
	const char *why;
};

enum aper_str { APER_PRINTABLE = 0, APER_VISIBLE = 1, APER_IA5 = 2 };

/* ---- reader ---- */
void aper_r_init(struct aper_r *r, const uint8_t *buf, size_t len);
/* Record an error at the current position (only the first one is kept); returns r->err. */
int aper_r_fail(struct aper_r *r, int err, const char *why);
/* Bits left in the input. */
size_t aper_r_left(const struct aper_r *r);
int aper_get_bits(struct aper_r *r, unsigned n, uint64_t *v);     /* n <= 64, no alignment */
int aper_r_align(struct aper_r *r);
/* 11.5.7 constrained whole number lb..ub; ext: the type has an extension marker (12.1). */
int aper_get_cint(struct aper_r *r, int64_t lb, int64_t ub, bool ext, int64_t *v);
int aper_get_semi(struct aper_r *r, int64_t lb, int64_t *v);      /* 11.7 semi-constrained */
int aper_get_unconstr(struct aper_r *r, int64_t *v);              /* 11.8 unconstrained */
int aper_get_nsnn(struct aper_r *r, uint64_t *v);                 /* 11.6 normally small */
/* 11.9 length determinant. For unbounded (or ub >= 64K) lengths *more is set when the length is a
 * 16K-multiple fragment and another determinant follows the items (11.9.3.8). */
int aper_get_len(struct aper_r *r, int64_t lb, int64_t ub, size_t *n, bool *more);
int aper_get_bool(struct aper_r *r, bool *b);
/* 14 ENUMERATED with nroot root values; an extension value is returned as nroot + index. */
int aper_get_enum(struct aper_r *r, unsigned nroot, bool ext, unsigned *v);
/* 23 CHOICE index; an extension alternative is nroot + index (its value is an open type). */
int aper_get_choice(struct aper_r *r, unsigned nroot, bool ext, unsigned *idx);
/* 16 BIT STRING, copied left-aligned into out (at most outcap octets); *nbits its length. */
int aper_get_bitstr(struct aper_r *r, int64_t lb, int64_t ub, bool ext, uint8_t *out, size_t outcap,
		    size_t *nbits);
/* BIT STRING of fixed size n <= 64 as a number (e.g. AMFSetID). */
int aper_get_bits_fixed(struct aper_r *r, unsigned n, bool ext, uint64_t *v);
/* 17 OCTET STRING by reference into the input. -ENOTSUP when the value is not octet-aligned
 * (fixed size <= 2) or is fragmented: use aper_get_octets_copy for those. */
int aper_get_octets(struct aper_r *r, int64_t lb, int64_t ub, bool ext, const uint8_t **p, size_t *n);
/* 17 OCTET STRING copied into out (handles every form incl. fragmentation). */
int aper_get_octets_copy(struct aper_r *r, int64_t lb, int64_t ub, bool ext, uint8_t *out, size_t outcap,
			 size_t *n);
/* 30 known-multiplier strings (8 bits a character in ALIGNED PER), by reference; the alphabet is checked. */
int aper_get_string(struct aper_r *r, enum aper_str kind, int64_t lb, int64_t ub, bool ext, const uint8_t **p,
		    size_t *n);
/* 30.6 UTF8String: unconstrained length in octets (size constraints are not PER-visible). */
int aper_get_utf8(struct aper_r *r, const uint8_t **p, size_t *n);
/* 19 SEQUENCE preamble: extension bit (if ext) and nopt optional bits; bit i of *mask = optional i. */
int aper_get_seq(struct aper_r *r, bool ext, unsigned nopt, bool *extp, uint32_t *mask);
/* 19.7-19.9 skip the extension additions of a SEQUENCE whose extension bit was set. */
int aper_skip_seq_ext(struct aper_r *r);
/* 11.2 open type: carve a sub-reader over its octets and move past them. */
int aper_get_open(struct aper_r *r, struct aper_r *sub);
/* Propagate a sub-reader's error (if any) to its parent; returns the parent's error. */
int aper_r_take(struct aper_r *r, const struct aper_r *sub);
/* 20 SEQUENCE OF count (same as a length determinant, no fragmentation support past 16K items). */
int aper_get_count(struct aper_r *r, int64_t lb, int64_t ub, size_t *n);

/* ---- writer ---- */
void aper_w_init(struct aper_w *w, uint8_t *buf, size_t cap);
int aper_w_fail(struct aper_w *w, int err, const char *why);
/* Octets used so far (a partial last octet counts), or the sticky error. */
int aper_w_len(const struct aper_w *w);
int aper_put_bits(struct aper_w *w, uint64_t v, unsigned n);
int aper_w_align(struct aper_w *w);
int aper_put_cint(struct aper_w *w, int64_t lb, int64_t ub, bool ext, int64_t v);
int aper_put_semi(struct aper_w *w, int64_t lb, int64_t v);
int aper_put_unconstr(struct aper_w *w, int64_t v);
int aper_put_nsnn(struct aper_w *w, uint64_t v);
/* Length determinant; an unbounded length >= 16K is -EINVAL here (contents writers fragment). */
int aper_put_len(struct aper_w *w, int64_t lb, int64_t ub, size_t n);
int aper_put_bool(struct aper_w *w, bool b);
int aper_put_enum(struct aper_w *w, unsigned nroot, bool ext, unsigned v);
int aper_put_choice(struct aper_w *w, unsigned nroot, bool ext, unsigned idx);
int aper_put_bitstr(struct aper_w *w, int64_t lb, int64_t ub, bool ext, const uint8_t *p, size_t nbits);
int aper_put_bits_fixed(struct aper_w *w, unsigned n, bool ext, uint64_t v);
/* Fragments unbounded values of 16K or more (11.9.3.8). */
int aper_put_octets(struct aper_w *w, int64_t lb, int64_t ub, bool ext, const uint8_t *p, size_t n);
int aper_put_string(struct aper_w *w, enum aper_str kind, int64_t lb, int64_t ub, bool ext, const uint8_t *p,
		    size_t n);
int aper_put_utf8(struct aper_w *w, const uint8_t *p, size_t n);
int aper_put_seq(struct aper_w *w, bool ext, unsigned nopt, uint32_t mask);
int aper_put_count(struct aper_w *w, int64_t lb, int64_t ub, size_t n);
/* Open type: begin reserves room for the length, end writes it (fragmenting a value >= 16K). */
int aper_open_begin(struct aper_w *w, size_t *mark);
int aper_open_end(struct aper_w *w, size_t mark);
/* Write an already-encoded open type value. */
int aper_put_open(struct aper_w *w, const uint8_t *p, size_t n);

#endif
