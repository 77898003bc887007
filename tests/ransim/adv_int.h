/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* ransim adversary internals: shared by adv.c (attacks, phases, victim, report) and
 * adv_forger.c (the forger's state machine). Not a public header. */
#ifndef SOLOCORE_TESTS_RANSIM_ADV_INT_H
#define SOLOCORE_TESTS_RANSIM_ADV_INT_H

#include <stdarg.h>

#include "common/log.h"
#include "gtpu.h"
#include "rs_int.h"

#define ADV_MAX_STEPS 8
#define ADV_CAP_MAX 256               /* one captured uplink NAS PDU */
#define ADV_RAN_ID_BASE 0x00800000u   /* forger RAN-UE-NGAP-IDs, far from the victim's idx + k */
#define ADV_AUTH_ANSWERS_MAX 4        /* authentication requests answered per step (no loops) */
#define ADV_SYNC_POLL_MS 50
#define ADV_SYNC_POLLS 400            /* 20 s for the script's ack */
#define ADV_SETTLE_MS 200             /* after a step's release, before the next step */
#define ADV_CLEANUP_MS 2000           /* wait for the release our release request asks for */

/* What the forger sends first. */
enum adv_kind {
	ADV_K_NONE = 0,       /* baseline: no attack */
	ADV_K_REG_GUTI,       /* plain REGISTRATION REQUEST with the victim's 5G-GUTI */
	ADV_K_REG_SUCI,       /* plain REGISTRATION REQUEST with a SUCI of the victim's SUPI */
	ADV_K_SVC,            /* SERVICE REQUEST with the victim's 5G-S-TMSI: v0 bad MAC, v1 plain */
	ADV_K_DEREG,          /* DEREGISTRATION REQUEST with the victim's 5G-GUTI and a bad MAC */
	ADV_K_REPLAY_UL,      /* v0 the victim's UL NAS TRANSPORT, v1 its REGISTRATION COMPLETE */
	ADV_K_REPLAY_SVC,     /* the victim's old SERVICE REQUEST */
};

/* The forger's answer to an AUTHENTICATION REQUEST. */
enum adv_auth { ADV_A_WRONG_RES = 0, ADV_A_FAIL20, ADV_A_SILENT };

/* The forger's answer the spec defines (checked per step; an acceptance never passes). */
enum adv_expect {
	ADV_E_NO_ACCEPT = 0,  /* nothing defined beyond "not accepted" */
	ADV_E_REG_REJECT_23,
	ADV_E_AUTH_REJECT,
	ADV_E_SVC_REJECT_9,
	ADV_E_RELEASE,        /* the N1 signalling connection released */
};
struct adv_attack {
	const char *name;
	const char *spec;     /* what protects the victim, and the forger's expected answer */
	uint8_t kind;         /* enum adv_kind */
	uint8_t n_var;        /* variants, each once per gNB */
	uint8_t auth;         /* enum adv_auth */
	uint8_t expect;       /* enum adv_expect */
	uint8_t ia, ea;       /* forger's UE security capability (0: the configured one) */
	int8_t suci;          /* SUCI scheme the attack needs (enum ransim_suci), -1 any */
	bool svc_round;       /* the victim goes to CM-IDLE and back by service request first */
	bool switch_off;      /* ADV_K_DEREG: switch-off */
};

/* ---- run phases ---- */
enum adv_phase {
	ADV_P_SETUP = 0,   /* victim registering, PDU session (and the service request round) */
	ADV_P_PRE,         /* traffic window before the attack */
	ADV_P_SYNC,        /* waiting for the script's ack of a phase line */
	ADV_P_ATTACK,      /* the forger's steps */
	ADV_P_POST,        /* traffic window after the attack */
	ADV_P_DEREG,       /* the victim deregisters */
	ADV_P_COUNT
};

/* ---- the forger's states ---- */
enum adv_fstate {
	ADV_F_IDLE = 0,
	ADV_F_WAIT,        /* initial message sent: whatever the network answers */
	ADV_F_CLEANUP,     /* quiet: our UE Context Release Request sent, waiting for the release */
	ADV_F_DONE,        /* released (or given up): the next step follows */
	ADV_F_COUNT
};
struct adv_step {
	uint8_t gnb, var;
	char answer[32];   /* first final answer: reg_reject_N, auth_reject, svc_reject_N, accepted_X ... */
	bool released, accepted, protected_rx, expected;
	char end[12];      /* released | quiet | no_release */
};

struct rs_adv {
	struct ransim *rs;
	const struct adv_attack *a;
	enum adv_phase ph, sync_next;
	const char *sync_name;
	unsigned sync_polls;
	struct ev_timer t;          /* phase timer */
	struct ev_timer quiet;      /* forger step: no message for attack_quiet_ms */
	struct rs_ue *v;            /* the victim, rs->ues[0] */
	struct rs_ue f;             /* the forger */
	struct ransim_sim fsim;     /* the victim's SUPI with a random K / OPc */
	enum adv_fstate fst;
	unsigned step, n_steps, auth_answers;
	struct adv_step steps[ADV_MAX_STEPS];
	/* the victim's uplink NAS PDUs as sent (TS 24.501 4.4.3.1: each has its own COUNT) */
	uint8_t cap_ul[ADV_CAP_MAX], cap_rc[ADV_CAP_MAX], cap_sr[ADV_CAP_MAX];
	uint16_t cap_ul_len, cap_rc_len, cap_sr_len;
	/* the victim's N2 connection when the attack starts */
	uint32_t v_ran_id;
	uint64_t v_amf_id;
	bool attacking, checked, victim_ok, forger_ok, traffic;
	uint64_t victim_releases, dl_mac_fail0;
	struct rs_gtpu_stats snap[4];  /* before / after the pre window, at attack end, after post */
	uint32_t forger_rx[256], forger_rx_prot[256];
	char harm[8][32];
	unsigned n_harm;
};

extern const char *const rs_adv_fstate_names[ADV_F_COUNT];

/* Log with the prefix "adv <attack> step=N forger{STATE}". */
void rs_adv_log(enum log_level lvl, const struct rs_adv *ad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The forger (adv_forger.c): set up once with a random K, and one attack step. When a step
 * is over the forger arms ad->t for ADV_SETTLE_MS: the ATTACK phase's timeout goes on. */
void rs_adv_forger_init(struct rs_adv *ad);
void rs_adv_step_start(struct rs_adv *ad);

#endif
