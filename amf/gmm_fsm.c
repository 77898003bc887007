/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The 5GMM state machine of the network side (TS 24.501 5.1.3.2.2) as one const
 * table in smf/smf_fsm.c's shape: for each sub-state x event the states the event may
 * lead to (0: the state does not take the event), one action per event that returns
 * the next sub-state, and one dispatcher that refuses what the table does not allow,
 * logs every transition and is the only writer of ue->state.
 *
 * The sub-states say which procedure is waiting for which answer: identification,
 * authentication and security mode are common procedures that report to their parent
 * (registration, an unverified deregistration, a service request that needs a new key:
 * ue->parent), registration waits for its COMPLETE, a configuration update for its
 * COMPLETE, a network deregistration for its ACCEPT. amf/README.md shows the table as
 * amf_gmm_table_print() prints it (tests/amf/test_amf_fsm.c keeps the two equal).
 *
 * Contexts and authentication (TS 24.501 4.4.4.3, TS 23.502 4.2.2.2.2): an initial
 * message that is not integrity-verified with the context it names runs in a context
 * of its own, from DEREGISTERED; the context it names is not touched. Only when the
 * new context has authenticated (security mode complete) does it replace the old one
 * (amf_ue_supersede, nas_conn.c). A new context that fails is freed and nobody notices.
 */
#include <errno.h>
#include <stdio.h>

#include "amf/amf_int.h"
#include "common/log.h"

#define NX(s) (1u << (s))
#define D NX(AMF_GS_DEREGISTERED)
#define I NX(AMF_GS_IDENT)
#define A NX(AMF_GS_AUTH)
#define S NX(AMF_GS_SMC)
#define W NX(AMF_GS_WAIT_COMPLETE)
#define R NX(AMF_GS_REGISTERED)
#define C NX(AMF_GS_CFG_UPDATE)
#define X NX(AMF_GS_DEREG_INIT)
/* Where a registration request may lead: reject, identification, authentication,
 * security mode (verified context, new algorithms) or the accept. */
#define REG_OUT (D | I | A | S | W | R)

struct gmm_sub_def {
	const char *name;
	enum amf_gmm_state main;     /* TS 24.501 5.1.3.2.2 */
};

/* Each sub-state's 5GMM state. WAIT-COMPLETE and CFG-UPDATE count as REGISTERED: the
 * UE is registered for the network from the accept on (its sessions, paging and the
 * API see it so) while the procedure waits for the COMPLETE. */
static const struct gmm_sub_def subs[AMF_GS_COUNT] = {
	[AMF_GS_DEREGISTERED] = { "DEREGISTERED", AMF_GMM_DEREGISTERED },
	[AMF_GS_IDENT] = { "IDENT", AMF_GMM_COMMON_PROCEDURE_INITIATED },
	[AMF_GS_AUTH] = { "AUTH", AMF_GMM_COMMON_PROCEDURE_INITIATED },
	[AMF_GS_SMC] = { "SMC", AMF_GMM_COMMON_PROCEDURE_INITIATED },
	[AMF_GS_WAIT_COMPLETE] = { "WAIT-COMPLETE", AMF_GMM_REGISTERED },
	[AMF_GS_REGISTERED] = { "REGISTERED", AMF_GMM_REGISTERED },
	[AMF_GS_CFG_UPDATE] = { "CFG-UPDATE", AMF_GMM_REGISTERED },
	[AMF_GS_DEREG_INIT] = { "DEREG-INIT", AMF_GMM_DEREGISTERED_INITIATED },
};

struct gmm_ev_def {
	const char *name;
	int (*action)(struct amf_ue *ue, struct amf_gmm_ctx *c);
	bool nas;                    /* a 5GMM message: refused with 5GMM STATUS #98 */
};

static const struct gmm_ev_def evs[AMF_EV_COUNT] = {
	[AMF_EV_REG_REQ] = { "REG_REQ", amf_a_reg_req, true },
	[AMF_EV_ID_RSP] = { "ID_RSP", amf_a_id_rsp, true },
	[AMF_EV_AUTH_RSP] = { "AUTH_RSP", amf_a_auth_rsp, true },
	[AMF_EV_AUTH_FAIL] = { "AUTH_FAIL", amf_a_auth_fail, true },
	[AMF_EV_SMC_CPL] = { "SMC_CPL", amf_a_smc_cpl, true },
	[AMF_EV_SMC_REJ] = { "SMC_REJ", amf_a_smc_rej, true },
	[AMF_EV_REG_CPL] = { "REG_CPL", amf_a_reg_cpl, true },
	[AMF_EV_CUC_CPL] = { "CUC_CPL", amf_a_cuc_cpl, true },
	[AMF_EV_DEREG_REQ] = { "DEREG_REQ", amf_a_dereg_req, true },
	[AMF_EV_DEREG_ACC] = { "DEREG_ACC", amf_a_dereg_acc, true },
	[AMF_EV_SVC_REQ] = { "SVC_REQ", amf_a_svc_req, true },
	[AMF_EV_UL_NAS] = { "UL_NAS", amf_a_ul_nas, true },
	[AMF_EV_STATUS] = { "STATUS", amf_a_status, true },
	[AMF_EV_T3550] = { "T3550", amf_a_t3550, false },
	[AMF_EV_T3555] = { "T3555", amf_a_t3555, false },
	[AMF_EV_T3560] = { "T3560", amf_a_t3560, false },
	[AMF_EV_T3570] = { "T3570", amf_a_t3570, false },
	[AMF_EV_T3522] = { "T3522", amf_a_t3522, false },
	[AMF_EV_AN_REL] = { "AN_REL", amf_a_an_rel, false },
	[AMF_EV_IMPLICIT] = { "IMPLICIT", amf_a_implicit, false },
	[AMF_EV_NET_DEREG] = { "NET_DEREG", amf_a_net_dereg, false },
	[AMF_EV_CUC_START] = { "CUC_START", amf_a_cuc_start, false },
};

/* state x event -> the states the action may return. A verified initial message is
 * dispatched on the context it names (nas_conn.c), so that context's row applies. */
static const uint16_t tab[AMF_GS_COUNT][AMF_EV_COUNT] = {
	[AMF_GS_DEREGISTERED] = {
		[AMF_EV_REG_REQ] = REG_OUT,
		/* unknown or unverified: answered, or authenticated first (TS 23.502
		 * 4.2.2.3.2 step 1a) */
		[AMF_EV_DEREG_REQ] = D | A,
		[AMF_EV_SVC_REQ] = D,          /* unknown or unverified: SERVICE REJECT #9 */
		[AMF_EV_STATUS] = D,
		[AMF_EV_AN_REL] = D,
	},
	[AMF_GS_IDENT] = {
		[AMF_EV_REG_REQ] = REG_OUT,    /* TS 24.501 5.5.1.2.8 f): start again */
		[AMF_EV_ID_RSP] = D | A,
		[AMF_EV_DEREG_REQ] = D,        /* 5.5.1.2.8 e): the UE gave up */
		[AMF_EV_STATUS] = I,
		[AMF_EV_T3570] = D,
		[AMF_EV_AN_REL] = D | R,
	},
	[AMF_GS_AUTH] = {
		[AMF_EV_REG_REQ] = REG_OUT,
		[AMF_EV_AUTH_RSP] = D | I | S,
		[AMF_EV_AUTH_FAIL] = D | I | A,
		[AMF_EV_DEREG_REQ] = D,
		[AMF_EV_STATUS] = A,
		[AMF_EV_T3560] = D | R,
		[AMF_EV_AN_REL] = D | R,
	},
	[AMF_GS_SMC] = {
		[AMF_EV_REG_REQ] = REG_OUT,
		[AMF_EV_SMC_CPL] = D | W | R,
		[AMF_EV_SMC_REJ] = D | R,
		[AMF_EV_DEREG_REQ] = D,
		[AMF_EV_STATUS] = S,
		[AMF_EV_T3560] = D | R,
		[AMF_EV_AN_REL] = D | R,
	},
	[AMF_GS_WAIT_COMPLETE] = {
		[AMF_EV_REG_REQ] = REG_OUT,
		[AMF_EV_REG_CPL] = R | C,
		[AMF_EV_DEREG_REQ] = D,
		[AMF_EV_SVC_REQ] = W,
		[AMF_EV_UL_NAS] = W,
		[AMF_EV_STATUS] = W,
		[AMF_EV_T3550] = R,            /* 5.5.1.2.8 c): both 5G-GUTIs stay valid */
		[AMF_EV_AN_REL] = R,
		[AMF_EV_NET_DEREG] = X | D,
	},
	[AMF_GS_REGISTERED] = {
		[AMF_EV_REG_REQ] = REG_OUT,
		[AMF_EV_DEREG_REQ] = D,
		[AMF_EV_SVC_REQ] = R | A,      /* A: a new K_AMF first (TS 33.501 6.4.3.1) */
		[AMF_EV_UL_NAS] = R,
		[AMF_EV_STATUS] = R,
		[AMF_EV_AN_REL] = R,
		[AMF_EV_IMPLICIT] = D,
		[AMF_EV_NET_DEREG] = X | D | R,  /* R: CM-IDLE, paged first */
		[AMF_EV_CUC_START] = C,
	},
	[AMF_GS_CFG_UPDATE] = {
		[AMF_EV_REG_REQ] = REG_OUT,
		[AMF_EV_CUC_CPL] = R,
		[AMF_EV_DEREG_REQ] = D,
		[AMF_EV_SVC_REQ] = C,
		[AMF_EV_UL_NAS] = C,
		[AMF_EV_STATUS] = C,
		[AMF_EV_T3555] = R,
		[AMF_EV_AN_REL] = R,
		[AMF_EV_NET_DEREG] = X | D,
	},
	[AMF_GS_DEREG_INIT] = {
		/* TS 24.501 5.5.2.3.6: a registration or deregistration from the UE
		 * collides with ours */
		[AMF_EV_REG_REQ] = REG_OUT,
		[AMF_EV_DEREG_REQ] = D,
		[AMF_EV_DEREG_ACC] = D,
		[AMF_EV_STATUS] = X,
		[AMF_EV_T3522] = D,
		[AMF_EV_AN_REL] = D,
	},
};

const char *amf_gmm_state_name(enum amf_gmm_state s)
{
	static const char *const n[] = {
		[AMF_GMM_DEREGISTERED] = "DEREGISTERED",
		[AMF_GMM_COMMON_PROCEDURE_INITIATED] = "COMMON-PROCEDURE-INITIATED",
		[AMF_GMM_REGISTERED] = "REGISTERED",
		[AMF_GMM_DEREGISTERED_INITIATED] = "DEREGISTERED-INITIATED",
	};

	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

const char *amf_gmm_sub_name(enum amf_gmm_sub s)
{
	return (unsigned)s < AMF_GS_COUNT ? subs[s].name : "?";
}

const char *amf_gmm_event_name(enum amf_gmm_event ev)
{
	return (unsigned)ev < AMF_EV_COUNT ? evs[ev].name : "?";
}

enum amf_gmm_state amf_gmm_main(const struct amf_ue *ue)
{
	return subs[ue->state].main;
}

bool amf_gmm_accepts(const struct amf_ue *ue, enum amf_gmm_event ev)
{
	return (unsigned)ev < AMF_EV_COUNT && tab[ue->state][ev] != 0;
}

/* st.registered follows the 5GMM state; the log prefix names the sub-state. */
static void enter(struct amf_ue *ue, unsigned next)
{
	struct amf *amf = ue->amf;
	enum amf_gmm_state was = subs[ue->state].main, now = subs[next].main;

	if (was == AMF_GMM_REGISTERED && now != AMF_GMM_REGISTERED && amf->st.registered)
		amf->st.registered--;
	if (now == AMF_GMM_REGISTERED && was != AMF_GMM_REGISTERED)
		amf->st.registered++;
	ue->state = (uint8_t)next;
	ue->fsm_gen++;
}

int amf_gmm_dispatch(struct amf_ue *ue, enum amf_gmm_event ev, struct amf_gmm_ctx *c)
{
	struct amf_gmm_ctx local = { 0 };
	unsigned from = ue->state;
	uint32_t gen = ue->fsm_gen;
	int next;

	if ((unsigned)ev >= AMF_EV_COUNT)
		return -EINVAL;
	if (!tab[from][ev]) {
		amf_ue_log(LOGL_WARN, ue, "%s not taken in %s", evs[ev].name, subs[from].name);
		/* TS 24.501 7.4: a message not compatible with the protocol state. */
		if (evs[ev].nas && ue->gnb && !(c && c->initial))
			amf_gmm_status_send(ue, NAS_5GMM_MSG_TYPE_NOT_COMPATIBLE);
		return -EPERM;
	}
	next = evs[ev].action(ue, c ? c : &local);
	if (next < 0) {
		amf_ue_log(LOGL_DEBUG, ue, "%s in %s: rc=%d, state kept", evs[ev].name, subs[from].name, next);
		return next;
	}
	if (ue->fsm_gen != gen) {
		/* The action's last step (a release without an N2 connection) ran a nested
		 * event on this context: that later transition stands. */
		return 0;
	}
	if ((unsigned)next >= AMF_GS_COUNT || !(tab[from][ev] & NX(next))) {
		amf_ue_log(LOGL_ERROR, ue, "%s -> %s on %s not in the table", subs[from].name,
			   amf_gmm_sub_name((enum amf_gmm_sub)next), evs[ev].name);
		return -EPROTO;
	}
	if ((unsigned)next != from) {
		amf_ue_log(LOGL_DEBUG, ue, "%s -> %s on %s", subs[from].name, subs[next].name, evs[ev].name);
		enter(ue, (unsigned)next);
	}
	return 0;
}

static int put(char *buf, size_t len, size_t *off, const char *fmt, const char *a, const char *b)
{
	int n = snprintf(buf + *off, *off < len ? len - *off : 0, fmt, a, b);

	if (n < 0 || *off + (size_t)n >= len)
		return -ENOSPC;
	*off += (size_t)n;
	return 0;
}

int amf_gmm_table_print(char *buf, size_t len, bool dot)
{
	size_t off = 0;
	unsigned s, e, t;

	if (dot && put(buf, len, &off, "%s%s", "digraph gmm {\n  rankdir=LR;\n", ""))
		return -ENOSPC;
	for (s = 0; s < AMF_GS_COUNT; s++) {
		for (e = 0; e < AMF_EV_COUNT; e++) {
			bool first = true;

			if (!tab[s][e])
				continue;
			if (!dot && put(buf, len, &off, "%-13s %-10s ->", subs[s].name, evs[e].name))
				return -ENOSPC;
			for (t = 0; t < AMF_GS_COUNT; t++) {
				if (!(tab[s][e] & NX(t)))
					continue;
				if (dot) {
					if (put(buf, len, &off, "  \"%s\" -> \"%s\"", subs[s].name, subs[t].name) ||
					    put(buf, len, &off, " [label=\"%s\"];\n%s", evs[e].name, ""))
						return -ENOSPC;
				} else if (put(buf, len, &off, first ? " %s%s" : "|%s%s", subs[t].name, "")) {
					return -ENOSPC;
				}
				first = false;
			}
			if (!dot && put(buf, len, &off, "%s%s", "\n", ""))
				return -ENOSPC;
		}
	}
	if (dot && put(buf, len, &off, "%s%s", "}\n", ""))
		return -ENOSPC;
	return (int)off;
}
