/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* common/ngap internals: the row macros of the ProtocolIE-Container tables (ngap_msg.c, ngap_ho.c).
 * Apart from ngap_int.h because ngap_xfer.c has a ROW of its own. Not for other folders. */
#ifndef SOLOCORE_COMMON_NGAP_NGAP_TAB_H
#define SOLOCORE_COMMON_NGAP_NGAP_TAB_H

#include <stddef.h>

#include "common/ngap/ngap_int.h"

/* T is the message struct; the last argument the IE's ProtocolIE-ID name in TS 38.413 9.4.7. */
#define ROW(T, id, crit, pres, fld, cnt, has, codec, ref) \
	{ id, NGAP_CRIT_##crit, NGAP_PRES_##pres, (int16_t)offsetof(T, fld), cnt, has, &ngap_c_##codec, ref, -1, -1, 0 }
/* a list that may be longer than its array: raw octets and total count kept (see struct ngap_ie_spec) */
#define LX(T, id, crit, pres, fld, n, tot, rw, codec, ref) \
	{ id, NGAP_CRIT_##crit, NGAP_PRES_##pres, (int16_t)offsetof(T, fld), (int16_t)offsetof(T, n), -1, \
	  &ngap_c_##codec, ref, (int16_t)offsetof(T, rw), (int16_t)offsetof(T, tot), sizeof(((T *)0)->tot) }
/* mandatory / optional with has_* / optional OCTET STRING (present when .p) / lists / whole struct / flag */
#define M(T, id, crit, fld, codec, ref) ROW(T, id, crit, M, fld, -1, -1, codec, ref)
#define O(T, id, crit, fld, has, codec, ref) ROW(T, id, crit, O, fld, -1, (int16_t)offsetof(T, has), codec, ref)
#define OB(T, id, crit, fld, codec, ref) ROW(T, id, crit, O, fld, -1, -1, codec, ref)
#define ML(T, id, crit, fld, n, codec, ref) ROW(T, id, crit, M, fld, (int16_t)offsetof(T, n), -1, codec, ref)
#define OL(T, id, crit, fld, n, codec, ref) ROW(T, id, crit, O, fld, (int16_t)offsetof(T, n), -1, codec, ref)
#define OF(T, id, crit, has, ref) ROW(T, id, crit, O, has, -1, (int16_t)offsetof(T, has), flag, ref)
#define MW(T, id, crit, codec, ref) { id, NGAP_CRIT_##crit, NGAP_PRES_M, 0, -1, -1, &ngap_c_##codec, ref, -1, -1, 0 }
/* The pair that opens a UE-associated message (TS 38.413 9.3.3.1 AMF UE NGAP ID, 9.3.3.2 RAN UE
 * NGAP ID), both with the message's criticality for them. */
#define UE_IDS(T, crit) \
	M(T, 10, crit, amf_ue_id, amf_ue_id, "id-AMF-UE-NGAP-ID"), \
	M(T, 85, crit, ran_ue_id, ran_ue_id, "id-RAN-UE-NGAP-ID")
#define CONTAINER(nm, T) \
	static const struct ngap_container nm = { nm##_ies, sizeof(nm##_ies) / sizeof(nm##_ies[0]), sizeof(T) }
/* the same, for a table another file registers (ngap_msg.c's MSGS) */
#define CONTAINER_X(nm, T) \
	const struct ngap_container nm = { nm##_ies, sizeof(nm##_ies) / sizeof(nm##_ies[0]), sizeof(T) }


#endif
