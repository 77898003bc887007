/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The AMF's N2 handover (TS 23.502 4.9.1.3, TS 38.413 8.4.1-8.4.3, 8.4.5-8.4.7) as one const
 * table in gmm_fsm.c's shape: per state x event the action and the states it may lead to (no
 * action: the state does not take the event), one dispatcher that refuses what the table does
 * not allow, logs each transition and is the only writer of ue->ho.state.
 *
 *   NONE        no handover; a leg released by a cancel may linger until its RELEASE COMPLETE
 *   PREPARING   HANDOVER REQUEST sent to the target (4.9.1.3.2 steps 5-9), ho-prep running
 *   PREPARED    HANDOVER COMMAND sent to the source (step 11), NOTIFY awaited (ho-overall)
 *   COMPLETING  the UE is the target's (4.9.1.3.3 step 7); the source's UE CONTEXT RELEASE
 *               (step 21a) awaited (ho-overall)
 *
 * The actions live in ngap_ho.c (preparation) and ngap_ho_exec.c (execution, cancel, loss).
 */
#include <errno.h>
#include <stdio.h>

#include "amf/amf_int.h"
#include "common/log.h"

#define NX(s) (1u << (s))
#define N NX(AMF_HO_NONE)
#define P NX(AMF_HO_PREPARING)
#define D NX(AMF_HO_PREPARED)
#define C NX(AMF_HO_COMPLETING)

struct ho_cell {
	int (*action)(struct amf_ue *ue, const void *arg);
	uint8_t next;                /* states the action may return */
};

static const char *const state_names[AMF_HO_STATE_COUNT] = {
	[AMF_HO_NONE] = "NONE",
	[AMF_HO_PREPARING] = "PREPARING",
	[AMF_HO_PREPARED] = "PREPARED",
	[AMF_HO_COMPLETING] = "COMPLETING",
};

static const char *const event_names[AMF_HO_EV_COUNT] = {
	[AMF_HO_EV_REQUIRED] = "REQUIRED",
	[AMF_HO_EV_REQ_ACK] = "REQ_ACK",
	[AMF_HO_EV_REQ_FAIL] = "REQ_FAIL",
	[AMF_HO_EV_CANCEL] = "CANCEL",
	[AMF_HO_EV_UL_STATUS] = "UL_STATUS",
	[AMF_HO_EV_NOTIFY] = "NOTIFY",
	[AMF_HO_EV_GUARD] = "GUARD",
	[AMF_HO_EV_SRC_LOST] = "SRC_LOST",
	[AMF_HO_EV_TGT_LOST] = "TGT_LOST",
	[AMF_HO_EV_REL_DONE] = "REL_DONE",
	[AMF_HO_EV_AN_REL] = "AN_REL",
	[AMF_HO_EV_ABORT] = "ABORT",
};

static const struct ho_cell tab[AMF_HO_STATE_COUNT][AMF_HO_EV_COUNT] = {
	[AMF_HO_NONE] = {
		[AMF_HO_EV_REQUIRED] = { amf_ho_a_required, N | P },
		/* a released leg answering late: released again (TS 38.413 8.3.3) */
		[AMF_HO_EV_REQ_ACK] = { amf_ho_a_late_ack, N },
		[AMF_HO_EV_REQ_FAIL] = { amf_ho_a_forget_leg, N },
		[AMF_HO_EV_NOTIFY] = { amf_ho_a_late_notify, N },
		/* 8.4.5.2: nothing to cancel, acknowledged */
		[AMF_HO_EV_CANCEL] = { amf_ho_a_cancel_ack_only, N },
		[AMF_HO_EV_TGT_LOST] = { amf_ho_a_forget_leg, N },
		[AMF_HO_EV_REL_DONE] = { amf_ho_a_forget_leg, N },
		[AMF_HO_EV_ABORT] = { amf_ho_a_forget_leg, N },
	},
	[AMF_HO_PREPARING] = {
		[AMF_HO_EV_REQUIRED] = { amf_ho_a_busy, P },
		[AMF_HO_EV_REQ_ACK] = { amf_ho_a_req_ack, N | D },
		[AMF_HO_EV_REQ_FAIL] = { amf_ho_a_req_fail, N },
		[AMF_HO_EV_CANCEL] = { amf_ho_a_cancel, N },
		[AMF_HO_EV_GUARD] = { amf_ho_a_prep_guard, N },
		[AMF_HO_EV_SRC_LOST] = { amf_ho_a_src_lost, N },
		[AMF_HO_EV_TGT_LOST] = { amf_ho_a_tgt_lost, N },
		[AMF_HO_EV_AN_REL] = { amf_ho_a_abandon, N },
		[AMF_HO_EV_ABORT] = { amf_ho_a_abandon, N },
	},
	[AMF_HO_PREPARED] = {
		[AMF_HO_EV_REQUIRED] = { amf_ho_a_busy, D },
		[AMF_HO_EV_CANCEL] = { amf_ho_a_cancel, N },
		[AMF_HO_EV_UL_STATUS] = { amf_ho_a_ul_status, D },
		[AMF_HO_EV_NOTIFY] = { amf_ho_a_notify, N | C },   /* N: the source is gone already */
		[AMF_HO_EV_GUARD] = { amf_ho_a_overall_guard, N },
		/* TS 23.502 4.9.1.3.3: the UE may still reach the target: NOTIFY awaited */
		[AMF_HO_EV_SRC_LOST] = { amf_ho_a_src_gone, D },
		[AMF_HO_EV_TGT_LOST] = { amf_ho_a_tgt_lost, N },
		[AMF_HO_EV_AN_REL] = { amf_ho_a_abandon, N },
		[AMF_HO_EV_ABORT] = { amf_ho_a_abandon, N },
	},
	[AMF_HO_COMPLETING] = {
		[AMF_HO_EV_REQUIRED] = { amf_ho_a_busy, C },
		/* 8.4.5.2 after NOTIFY: acknowledged, the handover stands */
		[AMF_HO_EV_CANCEL] = { amf_ho_a_cancel_ack_only, C },
		[AMF_HO_EV_UL_STATUS] = { amf_ho_a_ignore, C },
		[AMF_HO_EV_NOTIFY] = { amf_ho_a_ignore, C },
		[AMF_HO_EV_REL_DONE] = { amf_ho_a_src_released, N },
		[AMF_HO_EV_GUARD] = { amf_ho_a_src_released, N },
		[AMF_HO_EV_SRC_LOST] = { amf_ho_a_src_released, N },
		[AMF_HO_EV_AN_REL] = { amf_ho_a_ignore, C },
		[AMF_HO_EV_ABORT] = { amf_ho_a_src_released, N },
	},
};

const char *amf_ho_state_name(unsigned s)
{
	return s < AMF_HO_STATE_COUNT ? state_names[s] : "?";
}

const char *amf_ho_event_name(unsigned ev)
{
	return ev < AMF_HO_EV_COUNT ? event_names[ev] : "?";
}

int amf_ho_dispatch(struct amf_ue *ue, enum amf_ho_event ev, const void *arg)
{
	unsigned from = ue->ho.state;
	const struct ho_cell *c;
	int next;

	if ((unsigned)ev >= AMF_HO_EV_COUNT || from >= AMF_HO_STATE_COUNT)
		return -EINVAL;
	c = &tab[from][ev];
	if (!c->action) {
		/* the caller answers (Error Indication) and counts it (ho_refused) */
		amf_ue_log(LOGL_WARN, ue, "ho{%s}: %s not taken", state_names[from], event_names[ev]);
		return -EPERM;
	}
	ue->ho.in_fsm = true;
	next = c->action(ue, arg);
	ue->ho.in_fsm = false;
	if (next < 0) {
		amf_ue_log(LOGL_DEBUG, ue, "ho{%s}: %s rc=%d, state kept", state_names[from], event_names[ev], next);
		return next;
	}
	if ((unsigned)next >= AMF_HO_STATE_COUNT || !(c->next & NX(next))) {
		amf_ue_log(LOGL_ERROR, ue, "ho{%s} -> %s on %s not in the table", state_names[from],
			   amf_ho_state_name((unsigned)next), event_names[ev]);
		return -EPROTO;
	}
	if ((unsigned)next != from)
		amf_ue_log(LOGL_INFO, ue, "ho{%s} -> %s on %s", state_names[from], state_names[next], event_names[ev]);
	ue->ho.state = (uint8_t)next;
	return 0;
}

int amf_ho_table_print(char *buf, size_t len)
{
	size_t off = 0;

	for (unsigned s = 0; s < AMF_HO_STATE_COUNT; s++) {
		for (unsigned e = 0; e < AMF_HO_EV_COUNT; e++) {
			const char *sep = " ";
			int n;

			if (!tab[s][e].action)
				continue;
			n = snprintf(buf + off, off < len ? len - off : 0, "%-10s %-9s ->", state_names[s],
				     event_names[e]);
			if (n < 0 || off + (size_t)n >= len)
				return -ENOSPC;
			off += (size_t)n;
			for (unsigned t = 0; t < AMF_HO_STATE_COUNT; t++) {
				if (!(tab[s][e].next & NX(t)))
					continue;
				n = snprintf(buf + off, len - off, "%s%s", sep, state_names[t]);
				if (n < 0 || off + (size_t)n >= len)
					return -ENOSPC;
				off += (size_t)n;
				sep = "|";
			}
			if (off + 1 >= len)
				return -ENOSPC;
			buf[off++] = '\n';
			buf[off] = '\0';
		}
	}
	return (int)off;
}
