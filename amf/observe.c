/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Observation API (amf.h): UE and gNB snapshots, walks over the gNB table and the UE pool
 * for the web API's REST views, and the counter table for /metrics. Everything reads the
 * AMF's tables in place: no allocation, no copy of the pool.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amf/amf_int.h"

static void ue_fill(const struct amf_ue *ue, struct amf_ue_info *o)
{
	memset(o, 0, sizeof(*o));
	o->state = amf_gmm_main(ue);
	o->cm = ue->gnb ? AMF_CM_CONNECTED : AMF_CM_IDLE;
	o->supi = ue->has_supi ? ue->supi : "";
	o->amf_ue_ngap_id = ue->amf_ue_ngap_id;
	o->ran_ue_ngap_id = ue->ran_ue_ngap_id;
	o->assoc = ue->gnb ? ue->gnb->assoc : 0;
	o->tmsi = ue->tmsi;
	o->has_guti = ue->has_guti;
	o->sec_active = ue->sec_active;
	o->nia = ue->nia;
	o->nea = ue->nea;
	o->ngksi = ue->ngksi;
	o->ul_count = ue->ul_count;
	o->dl_count = ue->dl_count;
	o->nas_mac_fail = ue->nas_mac_fail;
	o->psi_map = ue->sm ? smf_ue_psi_map(ue->sm) : 0;
	o->sm = ue->sm;
	o->paging = ev_timer_pending(&ue->tmr[AMF_T3513]);
}

int amf_ue_info_by_supi(const struct amf *amf, const char *supi, struct amf_ue_info *o)
{
	const struct amf_ue *ue = amf_ue_by_supi(amf, supi);

	if (!ue)
		return -ENOENT;
	ue_fill(ue, o);
	return 0;
}

int amf_ue_walk(const struct amf *amf, uint32_t *cursor, uint32_t budget, amf_ue_walk_fn fn, void *arg)
{
	struct amf_ue_info info;
	uint32_t i = cursor ? *cursor : 0;
	uint32_t end = amf->ues_hw;
	int rc;

	if (cursor && budget && i < end && end - i > budget)
		end = i + budget;
	/* Slots at or above ues_hw were never used (the pool's untouched pages stay untouched). */
	for (; i < end; i++) {
		const struct amf_ue *ue = &amf->ues[i];

		if (!ue->in_use || ue->reaping)
			continue;
		ue_fill(ue, &info);
		rc = fn(&info, arg);
		if (rc) {
			if (cursor)
				*cursor = i + 1;
			return rc;
		}
	}
	if (cursor)
		*cursor = i < amf->ues_hw ? i : AMF_WALK_END;
	return 0;
}

int amf_guti_to_str(const struct amf *amf, const struct amf_ue_info *info, char *buf, size_t sz)
{
	const struct amf_cfg *c = &amf->cfg;
	/* TS 23.003 2.10.1: AMF ID = region (8 bits) | set (10 bits) | pointer (6 bits). */
	uint32_t amf_id = (uint32_t)c->amf_region_id << 16 | (uint32_t)(c->amf_set_id & 0x3ff) << 6 |
			  (c->amf_pointer & 0x3fu);

	if (!info->has_guti)
		return -ENOENT;
	return snprintf(buf, sz, "%s%s%06x%08x", amf->mcc, amf->mnc, amf_id, info->tmsi);
}

const char *amf_cm_state_name(enum amf_cm_state s)
{
	return s == AMF_CM_CONNECTED ? "CM-CONNECTED" : "CM-IDLE";
}

const char *amf_gnb_state_name(enum amf_gnb_state s)
{
	return s == AMF_GNB_READY ? "READY" : "CONNECTED";
}

static void gnb_fill(const struct amf_gnb *g, struct amf_gnb_info *o)
{
	memset(o, 0, sizeof(*o));
	o->assoc = g->assoc;
	o->state = g->setup_done ? AMF_GNB_READY : AMF_GNB_CONNECTED;
	o->name = g->name;
	memcpy(o->plmn, g->plmn, 3);
	o->gnb_id = g->gnb_id;
	o->gnb_id_bits = g->gnb_id_bits;
	o->peer = g->peer_len ? (const struct sockaddr *)&g->peer : NULL;
	o->peer_len = g->peer_len;
	o->tacs = g->tacs;
	o->n_tacs = g->n_tacs;
	o->slices = g->slices;
	o->n_slices = g->n_slices;
	o->n_ues = g->n_ues;
	o->in_streams = g->in_streams;
	o->out_streams = g->out_streams;
	o->paging_drx = g->paging_drx;
}

int amf_gnb_walk(const struct amf *amf, amf_gnb_walk_fn fn, void *arg)
{
	struct amf_gnb_info info;
	uint32_t i;
	int rc;

	for (i = 0; i < amf->cfg.max_gnbs; i++) {
		if (!amf->gnbs[i].in_use)
			continue;
		gnb_fill(&amf->gnbs[i], &info);
		rc = fn(&info, arg);
		if (rc)
			return rc;
	}
	return 0;
}

int amf_gnb_info_by_assoc(const struct amf *amf, uint32_t assoc, struct amf_gnb_info *out)
{
	const struct amf_gnb *g = amf_gnb_by_assoc(amf, assoc);

	if (!g)
		return -ENOENT;
	gnb_fill(g, out);
	return 0;
}

#define C(f, h) { #f, h, (uint16_t)offsetof(struct amf_stats, f), false }
#define G(f, h) { #f, h, (uint16_t)offsetof(struct amf_stats, f), true }
static const struct amf_stat_desc stat_desc[] = {
	C(ngap_rx, "NGAP PDUs received"),
	C(ngap_tx, "NGAP PDUs sent"),
	C(ngap_rx_bad, "NGAP PDUs dropped as undecodable or unexpected"),
	G(gnbs, "gNBs with a successful NG Setup"),
	G(ues, "UE contexts in use"),
	G(registered, "UEs in 5GMM-REGISTERED"),
	C(reg_accepted, "Registration Accepts sent"),
	C(reg_rejected, "Registration Rejects sent"),
	C(auth_ok, "5G-AKA authentications that succeeded"),
	C(auth_mac_fail, "Authentication Failures with #20 MAC failure"),
	C(auth_sync_fail, "Authentication Failures with #21 synch failure"),
	C(auth_reject, "Authentication Rejects sent"),
	C(smc_ok, "Security Mode Completes"),
	C(smc_reject, "Security Mode Rejects"),
	C(nas_mac_fail, "uplink NAS messages with a bad MAC, discarded"),
	C(nas_dropped, "other uplink NAS messages discarded"),
	C(t3550_expired, "T3550 expiries"),
	C(t3560_expired, "T3560 expiries"),
	C(t3570_expired, "T3570 expiries"),
	C(t3522_expired, "T3522 expiries"),
	C(implicit_dereg, "implicit deregistrations"),
	C(dereg_ue, "UE-initiated deregistrations"),
	C(dereg_net, "network-initiated deregistrations"),
	C(sm_forwarded, "N1 SM payloads handed to the SMF"),
	C(sm_not_forwarded, "N1 SM payloads returned with 5GMM #90 / #91"),
	C(service_req, "Service Requests"),
	C(service_rej, "Service Rejects"),
	C(paging_sent, "PAGING messages sent (per gNB, with repeats)"),
	C(paging_gave_up, "pagings given up after the last T3513 expiry"),
	G(connected, "UEs in CM-CONNECTED (an N2 connection to a gNB)"),
	C(ho_required, "N2 HANDOVER REQUIREDs taken"),
	C(ho_prep_failed, "HANDOVER PREPARATION FAILUREs sent"),
	C(ho_prep_failed_target, "HANDOVER PREPARATION FAILUREs: unknown or not allowed target"),
	C(ho_prep_failed_state, "HANDOVER PREPARATION FAILUREs: UE not in a state to hand over"),
	C(ho_prep_failed_sessions, "HANDOVER PREPARATION FAILUREs: no session prepared or admitted"),
	C(ho_prep_failed_refused, "HANDOVER PREPARATION FAILUREs: target refused or lost"),
	C(ho_prep_failed_guard, "HANDOVER PREPARATION FAILUREs: no answer from the target in time"),
	C(ho_commands, "HANDOVER COMMANDs sent"),
	C(ho_notified, "N2 handovers completed (HANDOVER NOTIFY)"),
	C(ho_cancelled, "N2 handovers cancelled (cancel, release, association loss, guard)"),
	C(ho_guard_expired, "N2 handover guard expiries"),
	C(ho_refused, "N2 handover messages refused (foreign IDs, wrong state)"),
	C(ng_setup_not_allowed, "NG Setups refused: gNB not in n2.allowed_gnbs"),
	C(ng_setup_id_in_use, "NG Setups refused: Global RAN Node ID held by another association"),
	C(gnb_probe_lost, "gNB associations taken as lost: silent after another claimed their ID"),
};
#undef C
#undef G
/* A field added to struct amf_stats (all uint64_t) must get its line above. */
_Static_assert(sizeof(stat_desc) / sizeof(stat_desc[0]) == sizeof(struct amf_stats) / sizeof(uint64_t),
	       "amf_stats_desc does not cover struct amf_stats");

void amf_reg_latency(const struct amf *amf, struct hist *out)
{
	*out = amf->reg_latency;
}

const struct amf_stat_desc *amf_stats_desc(unsigned *n)
{
	*n = (unsigned)(sizeof(stat_desc) / sizeof(stat_desc[0]));
	return stat_desc;
}

/* Elementary procedures by ProcedureCode: TS 38.413 9.4.7 (NGAP-Constants, v17), the
 * ASN.1 names without "id-". */
static const char *const ngap_proc_names[AMF_NGAP_PROC_SLOTS] = {
	"AMFConfigurationUpdate", "AMFStatusIndication", "CellTrafficTrace", "DeactivateTrace",
	"DownlinkNASTransport", "DownlinkNonUEAssociatedNRPPaTransport",
	"DownlinkRANConfigurationTransfer", "DownlinkRANStatusTransfer",
	"DownlinkUEAssociatedNRPPaTransport", "ErrorIndication", "HandoverCancel",
	"HandoverNotification", "HandoverPreparation", "HandoverResourceAllocation",
	"InitialContextSetup", "InitialUEMessage", "LocationReportingControl",
	"LocationReportingFailureIndication", "LocationReport", "NASNonDeliveryIndication",
	"NGReset", "NGSetup", "OverloadStart", "OverloadStop", "Paging", "PathSwitchRequest",
	"PDUSessionResourceModify", "PDUSessionResourceModifyIndication",
	"PDUSessionResourceRelease", "PDUSessionResourceSetup", "PDUSessionResourceNotify",
	"PrivateMessage", "PWSCancel", "PWSFailureIndication", "PWSRestartIndication",
	"RANConfigurationUpdate", "RerouteNASRequest", "RRCInactiveTransitionReport",
	"TraceFailureIndication", "TraceStart", "UEContextModification", "UEContextRelease",
	"UEContextReleaseRequest", "UERadioCapabilityCheck", "UERadioCapabilityInfoIndication",
	"UETNLABindingRelease", "UplinkNASTransport", "UplinkNonUEAssociatedNRPPaTransport",
	"UplinkRANConfigurationTransfer", "UplinkRANStatusTransfer",
	"UplinkUEAssociatedNRPPaTransport", "WriteReplaceWarning", "SecondaryRATDataUsageReport",
	"UplinkRIMInformationTransfer", "DownlinkRIMInformationTransfer", "RetrieveUEInformation",
	"UEInformationTransfer", "RANCPRelocationIndication", "UEContextResume", "UEContextSuspend",
	"UERadioCapabilityIDMapping", "HandoverSuccess", "UplinkRANEarlyStatusTransfer",
	"DownlinkRANEarlyStatusTransfer",
};
_Static_assert(NGAP_PROC_UPLINK_NAS_TRANSPORT < AMF_NGAP_PROC_SLOTS, "a procedure we decode has no counter slot");

const char *amf_ngap_proc_name(unsigned proc)
{
	return proc < AMF_NGAP_PROC_SLOTS ? ngap_proc_names[proc] : NULL;
}

uint64_t amf_ngap_msg_count(const struct amf *amf, unsigned proc, enum amf_ngap_dir dir, unsigned type)
{
	if (proc >= AMF_NGAP_PROC_SLOTS || (unsigned)dir > AMF_NGAP_TX || type >= AMF_NGAP_PDU_TYPES)
		return 0;
	return amf->ngap_msgs[proc][dir][type];
}

void amf_reg_counts(const struct amf *amf, struct amf_reg_counts *out)
{
	memcpy(out->accepted, amf->reg_acc_type, sizeof(out->accepted));
	memcpy(out->rejected, amf->reg_rej_cause, sizeof(out->rejected));
	/* nas_conn.c: every SERVICE REQUEST handled is counted in service_req and ends in
	 * either the SERVICE ACCEPT or a SERVICE REJECT (service_rej). */
	out->service_rejected = amf->st.service_rej;
	out->service_accepted = amf->st.service_req - amf->st.service_rej;
}

const char *amf_reg_type_name(unsigned type)
{
	/* TS 24.501 9.11.3.7 (5GS registration type value). */
	static const char *const n[AMF_REG_TYPES] = {
		NULL, "initial", "mobility", "periodic", "emergency", "snpn_onboarding", NULL, NULL,
	};

	return type < AMF_REG_TYPES ? n[type] : NULL;
}
