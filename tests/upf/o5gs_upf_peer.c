/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* A PFCP peer that behaves like Open5GS's UPF v2.8.0: see o5gs_upf_peer.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "o5gs_upf_peer.h"

#define PORT 8805

/* TS 29.244 7.3 message types, 8.1.2 IE types: our own numbers, not common/pfcp's */
enum {
	M_HB_REQ = 1, M_HB_RSP = 2, M_AS_REQ = 5, M_AS_RSP = 6, M_AR_REQ = 9, M_AR_RSP = 10,
	M_EST_REQ = 50, M_EST_RSP = 51, M_MOD_REQ = 52, M_MOD_RSP = 53, M_DEL_REQ = 54,
	M_DEL_RSP = 55, M_REP_REQ = 56, M_REP_RSP = 57,
};
enum {
	I_CREATE_PDR = 1, I_PDI = 2, I_CREATE_FAR = 3, I_FWD = 4, I_CREATE_URR = 6, I_CREATED_PDR = 8,
	I_UPDATE_FAR = 10, I_UPD_FWD = 11, I_CAUSE = 19, I_SRC_IF = 20, I_F_TEID = 21, I_NI = 22,
	I_REP_TRIG = 37, I_REPORT_TYPE = 39, I_DST_IF = 42, I_UP_FEAT = 43, I_APPLY = 44, I_PDR_ID = 56,
	I_F_SEID = 57, I_NODE_ID = 60, I_UR_TRIG = 63, I_VOL_MEAS = 66, I_START = 75, I_END = 76,
	I_UR_SDR = 79, I_URR_ID = 81, I_DLDR = 83, I_OHC = 84, I_UE_IP = 93, I_RECOVERY = 96,
	I_UR_SEQN = 104, I_FAR_ID = 108, I_PDN_TYPE = 113, I_IFT = 160,
};
enum { IFT_N3 = 11, IFT_N6 = 17, IF_ACCESS = 0, IF_CORE = 1, AA_FORW = 2 };

const char *o5p_finding_name(unsigned f)
{
	static const char *n[O5P__MAX] = {
		"Apply Action / Reporting Triggers of a Release 15 size (request dropped)",
		"no PDN Type (UE address never bound)",
		"Access PDR without Source Interface Type N3 (uplink buffered)",
		"uplink FAR without Destination Interface Type N6 (uplink buffered)",
		"Core PDR without Source Interface Type N6",
		"FORW FAR to Access without Destination Interface Type N3",
		"PDR without Network Instance",
		"CP-chosen F-TEID although FTUP is advertised",
		"CH without CHID",
	};

	return f < O5P__MAX ? n[f] : "?";
}

/* ---- TLV reader: the idx-th IE of type t in a list, NULL when absent or cut short ---- */

static const uint8_t *ie(const uint8_t *p, size_t n, uint16_t t, unsigned idx, uint16_t *len)
{
	size_t o = 0;

	while (o + 4 <= n) {
		uint16_t ty = (uint16_t)(p[o] << 8 | p[o + 1]), l = (uint16_t)(p[o + 2] << 8 | p[o + 3]);

		if (o + 4 + l > n)
			return NULL;
		if (ty == t && idx-- == 0) {
			*len = l;
			return p + o + 4;
		}
		o += 4 + (size_t)l;
	}
	return NULL;
}

static bool grouped(uint16_t t)
{
	return (t >= 1 && t <= 18 && t != 8) || t == 85 || t == 86 || t == 87;
}

/* v2.8.0's fixed sizes (8.2.26 Apply Action 2 octets, 8.2.19 Reporting Triggers 3): false when
 * any IE, at any depth, has another size */
static bool sizes_ok(const uint8_t *p, size_t n)
{
	size_t o = 0;

	while (o + 4 <= n) {
		uint16_t ty = (uint16_t)(p[o] << 8 | p[o + 1]), l = (uint16_t)(p[o + 2] << 8 | p[o + 3]);

		if (o + 4 + l > n)
			return false;
		if ((ty == I_APPLY && l != 2) || (ty == I_REP_TRIG && l != 3))
			return false;
		if (grouped(ty) && !sizes_ok(p + o + 4, l))
			return false;
		o += 4 + (size_t)l;
	}
	return o == n;
}

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint64_t be64(const uint8_t *b)
{
	return (uint64_t)be32(b) << 32 | be32(b + 4);
}

static int u8_of(const uint8_t *p, size_t n, uint16_t t)
{
	uint16_t l;
	const uint8_t *v = ie(p, n, t, 0, &l);

	return v && l >= 1 ? v[0] : -1;
}

static uint32_t u32_of(const uint8_t *p, size_t n, uint16_t t)
{
	uint16_t l;
	const uint8_t *v = ie(p, n, t, 0, &l);

	return v && l >= 4 ? be32(v) : 0;
}

/* ---- TLV writer ---- */

struct wb {
	uint8_t b[2048];
	size_t n;
};

static void put(struct wb *w, const void *v, size_t n)
{
	if (w->n + n <= sizeof(w->b))
		memcpy(w->b + w->n, v, n);
	w->n += n;
}

static size_t ie_open(struct wb *w, uint16_t t)
{
	uint8_t h[4] = { (uint8_t)(t >> 8), (uint8_t)t, 0, 0 };
	size_t at = w->n;

	put(w, h, 4);
	return at;
}

static void ie_close(struct wb *w, size_t at)
{
	size_t l = w->n - at - 4;

	w->b[at + 2] = (uint8_t)(l >> 8);
	w->b[at + 3] = (uint8_t)l;
}

static void ie_put(struct wb *w, uint16_t t, const void *v, size_t n)
{
	size_t at = ie_open(w, t);

	put(w, v, n);
	ie_close(w, at);
}

static void ie_u8(struct wb *w, uint16_t t, uint8_t v)
{
	ie_put(w, t, &v, 1);
}

static void be_put(uint8_t *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* 7.2.2: version 1, S with the SEID; the length is set by finish() */
static void hdr(struct wb *w, uint8_t type, bool s, uint64_t seid, uint32_t seq)
{
	uint8_t h[16] = { (uint8_t)(0x20 | (s ? 1 : 0)), type };
	size_t o = 4;

	if (s) {
		be_put(h + o, seid, 8);
		o += 8;
	}
	be_put(h + o, seq, 3);
	w->n = 0;
	put(w, h, o + 4);
}

static void finish(struct wb *w)
{
	w->b[2] = (uint8_t)((w->n - 4) >> 8);
	w->b[3] = (uint8_t)(w->n - 4);
}

static void node_id(struct o5p *p, struct wb *w)
{
	uint8_t v[5] = { 0 };

	memcpy(v + 1, &p->addr, 4);
	ie_put(w, I_NODE_ID, v, 5);
}

static void recovery(struct o5p *p, struct wb *w)
{
	uint8_t v[4];

	be_put(v, p->recovery, 4);
	ie_put(w, I_RECOVERY, v, 4);
}

static void send_to(struct o5p *p, int fd, uint32_t addr, uint16_t port, struct wb *w)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = addr };

	finish(w);
	if (p->record)
		p->record(p->addr, fd == p->fd ? PORT : p->eport, addr, port, w->b, w->n);
	(void)sendto(fd, w->b, w->n, 0, (const struct sockaddr *)&to, sizeof(to));
}

/* ---- sessions ---- */

static struct o5p_sess *by_up(struct o5p *p, uint64_t up)
{
	for (unsigned i = 0; i < O5P_SESS_MAX; i++)
		if (p->s[i].used && p->s[i].up_seid == up)
			return &p->s[i];
	return NULL;
}

struct o5p_sess *o5p_find_ue(struct o5p *p, uint32_t ue_addr)
{
	for (unsigned i = 0; i < O5P_SESS_MAX; i++)
		if (p->s[i].used && p->s[i].ue_addr == ue_addr)
			return &p->s[i];
	return NULL;
}

unsigned o5p_sessions(const struct o5p *p)
{
	unsigned n = 0;

	for (unsigned i = 0; i < O5P_SESS_MAX; i++)
		n += p->s[i].used;
	return n;
}

/* The Create / Update FAR whose FAR ID is far_id (t: I_CREATE_FAR or I_UPDATE_FAR) */
static const uint8_t *far_of(const uint8_t *b, size_t n, uint16_t t, uint32_t far_id, uint16_t *len)
{
	const uint8_t *f;

	for (unsigned i = 0; (f = ie(b, n, t, i, len)); i++)
		if (u32_of(f, *len, I_FAR_ID) == far_id)
			return f;
	return NULL;
}

/* A FAR's Apply Action and (Update) Forwarding Parameters into the session's downlink */
static void dl_far(struct o5p_sess *s, const uint8_t *f, uint16_t fl, uint16_t fwd_t)
{
	uint16_t l, ol;
	const uint8_t *fw = ie(f, fl, fwd_t, 0, &l), *ohc;
	int aa = u8_of(f, fl, I_APPLY);

	if (aa >= 0)
		s->dl_apply = (uint8_t)aa;
	if (fw && (ohc = ie(fw, l, I_OHC, 0, &ol)) && ol >= 10) {
		s->dl_teid = be32(ohc + 2);
		memcpy(&s->dl_gnb, ohc + 6, 4);
	}
}

/* TS 29.244 7.5.2, as Open5GS's upf_n4_handle_session_establishment_request takes it */
static void est(struct o5p *p, const uint8_t *b, size_t n, struct wb *w, uint32_t seq)
{
	struct o5p_sess *s = NULL;
	uint16_t l, pl, dl, fl;
	const uint8_t *fs = ie(b, n, I_F_SEID, 0, &l), *pdr, *pdi, *v;
	uint8_t created[O5P_SESS_MAX][2 + 9];   /* PDR ID, F-TEID */
	unsigned n_created = 0, chosen_id = 0;
	uint32_t chosen_teid = 0;
	bool ul_n3 = false, ul_n6 = false;

	for (unsigned i = 0; i < O5P_SESS_MAX && !s; i++)
		if (!p->s[i].used)
			s = &p->s[i];
	if (!fs || l < 9 || !s) {   /* no context: Cause 66 "Mandatory IE missing" (no room: 74) */
		hdr(w, M_EST_RSP, true, 0, seq);
		node_id(p, w);
		ie_u8(w, I_CAUSE, s ? 66 : 74);
		return;
	}
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->cp_seid = be64(fs + 1);
	s->up_seid = ++p->next_seid;
	if (u8_of(b, n, I_PDN_TYPE) < 0)
		p->findings[O5P_NO_PDN_TYPE]++;
	for (unsigned i = 0; (pdr = ie(b, n, I_CREATE_PDR, i, &pl)); i++) {
		int src, ift, pdr_id = -1;
		uint32_t far_id = u32_of(pdr, pl, I_FAR_ID);
		const uint8_t *far;

		if ((v = ie(pdr, pl, I_PDR_ID, 0, &l)) && l >= 2)
			pdr_id = v[0] << 8 | v[1];
		if (!(pdi = ie(pdr, pl, I_PDI, 0, &dl)))
			continue;
		src = u8_of(pdi, dl, I_SRC_IF) & 0x0f;
		ift = u8_of(pdi, dl, I_IFT);
		if (!ie(pdi, dl, I_NI, 0, &l))
			p->findings[O5P_NO_NI]++;
		if ((v = ie(pdi, dl, I_UE_IP, 0, &l)) && l >= 5 && (v[0] & 0x02))
			memcpy(&s->ue_addr, v + 1, 4);
		far = far_of(b, n, I_CREATE_FAR, far_id, &fl);
		if (src == IF_ACCESS) {
			const uint8_t *fw;

			ul_n3 = ift >= 0 && (ift & 0x3f) == IFT_N3;
			if (!ul_n3)
				p->findings[O5P_NO_UL_IFT_N3]++;
			fw = far ? ie(far, fl, I_FWD, 0, &l) : NULL;
			ul_n6 = fw && (u8_of(fw, l, I_IFT) & 0x3f) == IFT_N6;
			if (!ul_n6)
				p->findings[O5P_NO_UL_IFT_N6]++;
			if ((v = ie(pdi, dl, I_F_TEID, 0, &l)) && l >= 1) {
				if (!(v[0] & 0x04)) {                 /* CP-chosen */
					p->findings[O5P_NO_CHOOSE]++;
					s->ul_teid = l >= 5 ? be32(v + 1) : 0;
				} else {                              /* CH: Open5GS allocates */
					unsigned chid = (v[0] & 0x08) && l >= 2 ? v[1] : 0;

					if (!(v[0] & 0x08))
						p->findings[O5P_NO_CHID]++;
					if (!chid || chid != chosen_id) {
						chosen_teid = ++p->next_teid;
						chosen_id = chid;
					}
					s->ul_teid = chosen_teid;
					s->chose = true;
					if (pdr_id >= 0 && n_created < O5P_SESS_MAX) {
						uint8_t *c = created[n_created++];

						be_put(c, (uint64_t)pdr_id, 2);
						c[2] = 0x01;   /* V4 */
						be_put(c + 3, chosen_teid, 4);
						memcpy(c + 7, &p->n3, 4);
					}
				}
			}
		} else if (src == IF_CORE) {
			if (!(ift >= 0 && (ift & 0x3f) == IFT_N6))
				p->findings[O5P_NO_DL_IFT_N6]++;
			if (far) {
				const uint8_t *fw = ie(far, fl, I_FWD, 0, &l);

				dl_far(s, far, fl, I_FWD);
				if (fw && (s->dl_apply & AA_FORW) && (u8_of(fw, l, I_IFT) & 0x3f) != IFT_N3)
					p->findings[O5P_NO_DL_IFT_N3]++;
			}
		}
	}
	for (unsigned i = 0; ie(b, n, I_CREATE_URR, i, &l); i++)
		s->n_urr++;
	s->ue_bound = u8_of(b, n, I_PDN_TYPE) >= 0;
	s->ul_fwd = ul_n3 && ul_n6;
	hdr(w, M_EST_RSP, true, s->cp_seid, seq);
	node_id(p, w);
	ie_u8(w, I_CAUSE, 1);
	{
		uint8_t f[13] = { 0x02 };   /* V4 */

		be_put(f + 1, s->up_seid, 8);
		memcpy(f + 9, &p->addr, 4);
		ie_put(w, I_F_SEID, f, sizeof(f));
	}
	for (unsigned i = 0; i < n_created; i++) {   /* 7.5.3.2 */
		size_t at = ie_open(w, I_CREATED_PDR);

		ie_put(w, I_PDR_ID, created[i], 2);
		ie_put(w, I_F_TEID, created[i] + 2, 9);
		ie_close(w, at);
	}
}

/* 7.5.4: Update FAR applied to the downlink (Open5GS: ogs_pfcp_handle_update_far) */
static void mod(struct o5p *p, struct o5p_sess *s, const uint8_t *b, size_t n, struct wb *w, uint32_t seq)
{
	uint16_t l;
	const uint8_t *f;

	(void)p;
	s->n_mod++;
	for (unsigned i = 0; (f = ie(b, n, I_UPDATE_FAR, i, &l)); i++)
		dl_far(s, f, l, I_UPD_FWD);
	hdr(w, M_MOD_RSP, true, s->cp_seid, seq);
	ie_u8(w, I_CAUSE, 1);
}

/* 7.5.7: Cause and a Usage Report per URR, trigger TERMR (8.2.41, octet 6 bit 4) */
static void del(struct o5p *p, struct o5p_sess *s, struct wb *w, uint32_t seq)
{
	(void)p;
	hdr(w, M_DEL_RSP, true, s->cp_seid, seq);
	ie_u8(w, I_CAUSE, 1);
	for (unsigned u = 0; u < s->n_urr; u++) {
		size_t at = ie_open(w, I_UR_SDR);
		uint8_t v[25] = { 0x07 }, t[4];   /* TOVOL | ULVOL | DLVOL */

		be_put(t, u + 1, 4);
		ie_put(w, I_URR_ID, t, 4);
		be_put(t, 0, 4);
		ie_put(w, I_UR_SEQN, t, 4);
		ie_put(w, I_UR_TRIG, (uint8_t[3]){ 0, 0x08, 0 }, 3);
		be_put(t, 3990000000u, 4);
		ie_put(w, I_START, t, 4);
		be_put(t, 3990000010u, 4);
		ie_put(w, I_END, t, 4);
		be_put(v + 1, 3000, 8);
		be_put(v + 9, 1000, 8);
		be_put(v + 17, 2000, 8);
		ie_put(w, I_VOL_MEAS, v, sizeof(v));
		ie_close(w, at);
	}
	memset(s, 0, sizeof(*s));
}

static void request(struct o5p *p, const uint8_t *b, size_t n, const struct sockaddr_in *from)
{
	struct wb w;
	bool sflag = b[0] & 1;
	size_t h = sflag ? 16 : 8;
	uint8_t type = b[1];
	uint32_t seq = be32(b + h - 4) >> 8;
	const uint8_t *body = b + h;
	size_t bn = n - h;
	struct o5p_sess *s = NULL;

	for (unsigned i = 0; i < sizeof(p->txn) / sizeof(p->txn[0]); i++) {
		struct o5p_txn *t = &p->txn[i];

		if (t->len && t->addr == from->sin_addr.s_addr && t->port == ntohs(from->sin_port) && t->seq == seq &&
		    t->type == type) {
			p->dups++;
			if (p->record)
				p->record(p->addr, PORT, t->addr, t->port, t->b, t->len);
			(void)sendto(p->fd, t->b, t->len, 0, (const struct sockaddr *)from, sizeof(*from));
			return;
		}
	}
	p->rx[type & 63]++;
	if (!sizes_ok(body, bn)) {   /* v2.8.0 cannot parse it: no answer */
		p->findings[O5P_BAD_SIZE]++;
		if (!p->lax_sizes) {
			p->dropped[type & 63]++;
			return;
		}
	}
	if (sflag && type != M_EST_REQ)
		s = by_up(p, be64(b + 4));
	switch (type) {
	case M_HB_REQ:
		hdr(&w, M_HB_RSP, false, 0, seq);
		recovery(p, &w);
		break;
	case M_AS_REQ:   /* Open5GS: Node ID, Cause, Recovery Time Stamp, UP Function Features */
		p->assoc = true;
		p->smf_addr = from->sin_addr.s_addr;
		hdr(&w, M_AS_RSP, false, 0, seq);
		node_id(p, &w);
		ie_u8(&w, I_CAUSE, 1);
		recovery(p, &w);
		/* 8.2.25: FTUP (5/5); EMPU (6/1), FRRT (6/6); MNOP (7/5); VTIME (8/3) */
		ie_put(&w, I_UP_FEAT, (uint8_t[4]){ 0x10, 0x21, 0x10, 0x04 }, 4);
		break;
	case M_AR_REQ:
		p->assoc = false;
		hdr(&w, M_AR_RSP, false, 0, seq);
		node_id(p, &w);
		ie_u8(&w, I_CAUSE, 1);
		break;
	case M_EST_REQ:
		est(p, body, bn, &w, seq);
		break;
	case M_MOD_REQ:
	case M_DEL_REQ:
		if (!s) {   /* 65 Session context not found, header SEID 0 (7.2.2.4.2) */
			hdr(&w, (uint8_t)(type + 1), true, 0, seq);
			ie_u8(&w, I_CAUSE, 65);
		} else if (type == M_MOD_REQ) {
			mod(p, s, body, bn, &w, seq);
		} else {
			del(p, s, &w, seq);
		}
		break;
	default:
		p->dropped[type & 63]++;
		return;
	}
	send_to(p, p->fd, from->sin_addr.s_addr, ntohs(from->sin_port), &w);
	if (w.n <= sizeof(p->txn[0].b)) {
		struct o5p_txn *t = &p->txn[p->txn_next++ % (sizeof(p->txn) / sizeof(p->txn[0]))];

		*t = (struct o5p_txn){ .addr = from->sin_addr.s_addr, .port = ntohs(from->sin_port), .seq = seq,
				       .type = type, .len = (uint16_t)w.n };
		memcpy(t->b, w.b, w.n);
	}
}

static void answer(struct o5p *p, const uint8_t *b, size_t n, bool on_efd)
{
	size_t h = (b[0] & 1) ? 16 : 8;

	if (!on_efd) {
		p->answers_wrong_port++;
		return;
	}
	if (b[1] == M_HB_RSP)
		p->hb_answered++;
	if (b[1] == M_REP_RSP) {
		p->rep_answered++;
		p->rep_cause = (uint8_t)u8_of(b + h, n - h, I_CAUSE);
	}
}

static void drain(struct o5p *p, int fd)
{
	uint8_t b[4096];

	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		size_t h;

		if (n < 0)
			return;
		if (p->record)
			p->record(from.sin_addr.s_addr, ntohs(from.sin_port), p->addr, fd == p->fd ? PORT : p->eport,
				  b, (size_t)n);
		h = n >= 1 && (b[0] & 1) ? 16 : 8;
		if ((size_t)n < h || (b[0] >> 5) != 1 || (size_t)((b[2] << 8 | b[3]) + 4) != (size_t)n)
			continue;   /* not a PFCP message: Open5GS drops it */
		/* 7.3: node requests odd (1, 5, 9 ...), session requests even (50 ... 56) */
		if (b[1] < 50 ? (b[1] & 1) : !(b[1] & 1))
			request(p, b, (size_t)n, &from);
		else
			answer(p, b, (size_t)n, fd == p->efd);
	}
}

void o5p_poll(struct o5p *p)
{
	drain(p, p->fd);
	drain(p, p->efd);
}

int o5p_heartbeat(struct o5p *p)
{
	struct wb w;

	if (!p->assoc)
		return -ENOTCONN;
	hdr(&w, M_HB_REQ, false, 0, ++p->seq);
	recovery(p, &w);
	send_to(p, p->efd, p->smf_addr, PORT, &w);
	p->hb_sent++;
	return 0;
}

int o5p_report_dldr(struct o5p *p, const struct o5p_sess *s, uint16_t pdr_id)
{
	struct wb w;
	size_t at;
	uint8_t id[2];

	if (!p->assoc || !s->used)
		return -ENOTCONN;
	hdr(&w, M_REP_REQ, true, s->cp_seid, ++p->seq);
	ie_u8(&w, I_REPORT_TYPE, 0x01);   /* 8.2.21 DLDR */
	at = ie_open(&w, I_DLDR);
	be_put(id, pdr_id, 2);
	ie_put(&w, I_PDR_ID, id, 2);
	ie_close(&w, at);
	send_to(p, p->efd, p->smf_addr, PORT, &w);
	p->rep_sent++;
	return 0;
}

static int bound(uint32_t addr, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = addr };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int o5p_open(struct o5p *p, uint32_t addr, uint32_t n3, uint32_t rec)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	void (*r)(uint32_t, uint16_t, uint32_t, uint16_t, const uint8_t *, size_t) = p->record;

	memset(p, 0, sizeof(*p));
	p->record = r;
	p->addr = addr;
	p->n3 = n3;
	p->recovery = rec;
	p->next_teid = 0x100;   /* Open5GS: the PDR's pool index */
	p->fd = bound(addr, PORT);
	if (p->fd < 0)
		return p->fd;
	p->efd = bound(addr, 0);
	if (p->efd < 0 || getsockname(p->efd, (struct sockaddr *)&a, &al)) {
		close(p->fd);
		return p->efd < 0 ? p->efd : -errno;
	}
	p->eport = ntohs(a.sin_port);
	return 0;
}

void o5p_close(struct o5p *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->efd >= 0)
		close(p->efd);
	p->fd = p->efd = -1;
}
