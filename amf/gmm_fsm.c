/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * 5GMM state machine of the network side (TS 24.501 5.1.3.2.2) as a const
 * table: for each state the events it accepts and the states it may move to.
 * Every transition goes through amf_gmm_transition(), which checks both and
 * logs; handlers never assign ue->state themselves.
 *
 * The sub-procedures (identification, authentication, security mode) are
 * children of registration: they run in COMMON-PROCEDURE-INITIATED and report
 * their result to the registration procedure (nas_reg.c), which decides the
 * next step.
 */
#include <errno.h>

#include "amf/amf_int.h"
#include "common/log.h"

#define S(x) (1u << (x))
#define E(x) (1u << (x))

struct gmm_state_def {
	const char *name;
	uint32_t events;   /* accepted events */
	uint32_t next;     /* allowed next states */
};

static const struct gmm_state_def gmm_states[] = {
	[AMF_GMM_DEREGISTERED] = {
		.name = "DEREGISTERED",
		.events = E(AMF_EV_REG_REQUEST) | E(AMF_EV_REG_REJECT) | E(AMF_EV_DEREG_UE) |
			  E(AMF_EV_IMPLICIT_DEREG),
		.next = S(AMF_GMM_COMMON_PROCEDURE_INITIATED) | S(AMF_GMM_DEREGISTERED),
	},
	[AMF_GMM_COMMON_PROCEDURE_INITIATED] = {
		.name = "COMMON-PROCEDURE-INITIATED",
		.events = E(AMF_EV_REG_REQUEST) | E(AMF_EV_PROC_OK) | E(AMF_EV_REG_REJECT) |
			  E(AMF_EV_DEREG_UE) | E(AMF_EV_DEREG_NET) | E(AMF_EV_IMPLICIT_DEREG),
		.next = S(AMF_GMM_COMMON_PROCEDURE_INITIATED) | S(AMF_GMM_REGISTERED) |
			S(AMF_GMM_DEREGISTERED) | S(AMF_GMM_DEREGISTERED_INITIATED),
	},
	[AMF_GMM_REGISTERED] = {
		.name = "REGISTERED",
		.events = E(AMF_EV_REG_REQUEST) | E(AMF_EV_PROC_OK) | E(AMF_EV_REG_COMPLETE) |
			  E(AMF_EV_REG_REJECT) | E(AMF_EV_DEREG_UE) | E(AMF_EV_DEREG_NET) |
			  E(AMF_EV_IMPLICIT_DEREG) | E(AMF_EV_SERVICE_REQ),
		.next = S(AMF_GMM_REGISTERED) | S(AMF_GMM_COMMON_PROCEDURE_INITIATED) |
			S(AMF_GMM_DEREGISTERED) | S(AMF_GMM_DEREGISTERED_INITIATED),
	},
	[AMF_GMM_DEREGISTERED_INITIATED] = {
		.name = "DEREGISTERED-INITIATED",
		/* TS 24.501 5.5.2.3.6: a REGISTRATION REQUEST (not periodic) or UE-initiated
		 * DEREGISTRATION REQUEST collides with ours; both complete deregistration. */
		.events = E(AMF_EV_DEREG_ACCEPT) | E(AMF_EV_T3522_GIVEUP) | E(AMF_EV_DEREG_UE) |
			  E(AMF_EV_REG_REQUEST) | E(AMF_EV_IMPLICIT_DEREG),
		.next = S(AMF_GMM_DEREGISTERED) | S(AMF_GMM_COMMON_PROCEDURE_INITIATED),
	},
};

static const char *const gmm_event_names[AMF_EV_COUNT] = {
	[AMF_EV_REG_REQUEST] = "REG_REQUEST",
	[AMF_EV_PROC_OK] = "PROC_OK",
	[AMF_EV_REG_COMPLETE] = "REG_COMPLETE",
	[AMF_EV_REG_REJECT] = "REG_REJECT",
	[AMF_EV_DEREG_UE] = "DEREG_UE",
	[AMF_EV_DEREG_NET] = "DEREG_NET",
	[AMF_EV_DEREG_ACCEPT] = "DEREG_ACCEPT",
	[AMF_EV_T3522_GIVEUP] = "T3522_GIVEUP",
	[AMF_EV_IMPLICIT_DEREG] = "IMPLICIT_DEREG",
	[AMF_EV_SERVICE_REQ] = "SERVICE_REQ",
};

const char *amf_gmm_state_name(enum amf_gmm_state s)
{
	return (unsigned)s < sizeof(gmm_states) / sizeof(gmm_states[0]) ? gmm_states[s].name : "?";
}

const char *amf_gmm_event_name(enum amf_gmm_event ev)
{
	return (unsigned)ev < AMF_EV_COUNT ? gmm_event_names[ev] : "?";
}

/* Whether the current state accepts ev (without moving). */
bool amf_gmm_accepts(const struct amf_ue *ue, enum amf_gmm_event ev)
{
	return (gmm_states[ue->state].events & E(ev)) != 0;
}

int amf_gmm_transition(struct amf_ue *ue, enum amf_gmm_event ev, enum amf_gmm_state next)
{
	const struct gmm_state_def *cur = &gmm_states[ue->state];
	struct amf *amf = ue->amf;

	if (!(cur->events & E(ev))) {
		amf_ue_log(LOGL_WARN, ue, "event %s not allowed", amf_gmm_event_name(ev));
		return -EPERM;
	}
	if (!(cur->next & S(next))) {
		amf_ue_log(LOGL_ERROR, ue, "transition to %s on %s not allowed",
			   amf_gmm_state_name(next), amf_gmm_event_name(ev));
		return -EPERM;
	}
	if (ue->state == next)
		return 0;
	amf_ue_log(LOGL_DEBUG, ue, "%s -> %s on %s", cur->name, amf_gmm_state_name(next),
		   amf_gmm_event_name(ev));
	if (ue->state == AMF_GMM_REGISTERED && amf->st.registered)
		amf->st.registered--;
	if (next == AMF_GMM_REGISTERED)
		amf->st.registered++;
	ue->state = (uint8_t)next;
	amf_ue_update_logpfx(ue);
	return 0;
}
