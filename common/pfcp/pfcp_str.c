/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP as text: message, IE and cause names (TS 29.244 7.3, 8.1.2, 8.2.1),
 * a whole message rendered from its table for logs and tests, and the cause
 * a decode error is answered with.
 */
#include <stdarg.h>
#include <stdio.h>

#include "common/pfcp/pfcp_int.h"

int pfcp_catf(char *out, size_t cap, int k, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < cap)
		n = vsnprintf(out + k, cap - (size_t)k, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	return n < 0 ? k : k + n;
}

int pfcp_cathex(char *out, size_t cap, int k, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		k = pfcp_catf(out, cap, k, "%02x", p[i]);
	return k;
}

int pfcp_cataddr(char *out, size_t cap, int k, const uint8_t *v4, const uint8_t *v6)
{
	if (v4)
		k = pfcp_catf(out, cap, k, " v4=%u.%u.%u.%u", v4[0], v4[1], v4[2], v4[3]);
	if (v6)
		k = pfcp_cathex(out, cap, pfcp_catf(out, cap, k, " v6="), v6, 16);
	return k;
}

static const struct {
	uint16_t type;
	const char *name;
} ie_names[] = {
	{ PFCP_IE_CREATE_PDR, "Create PDR" }, { PFCP_IE_PDI, "PDI" },
	{ PFCP_IE_CREATE_FAR, "Create FAR" }, { PFCP_IE_FWD_PARAMS, "Forwarding Parameters" },
	{ PFCP_IE_CREATE_URR, "Create URR" }, { PFCP_IE_CREATE_QER, "Create QER" },
	{ PFCP_IE_CREATED_PDR, "Created PDR" }, { PFCP_IE_UPDATE_PDR, "Update PDR" },
	{ PFCP_IE_UPDATE_FAR, "Update FAR" }, { PFCP_IE_UPD_FWD_PARAMS, "Update Forwarding Parameters" },
	{ PFCP_IE_UPDATE_BAR_SRR, "Update BAR" }, { PFCP_IE_UPDATE_URR, "Update URR" },
	{ PFCP_IE_UPDATE_QER, "Update QER" }, { PFCP_IE_REMOVE_PDR, "Remove PDR" },
	{ PFCP_IE_REMOVE_FAR, "Remove FAR" }, { PFCP_IE_REMOVE_URR, "Remove URR" },
	{ PFCP_IE_REMOVE_QER, "Remove QER" }, { PFCP_IE_CAUSE, "Cause" },
	{ PFCP_IE_SOURCE_IF, "Source Interface" }, { PFCP_IE_F_TEID, "F-TEID" },
	{ PFCP_IE_NETWORK_INSTANCE, "Network Instance" }, { PFCP_IE_SDF_FILTER, "SDF Filter" },
	{ PFCP_IE_GATE_STATUS, "Gate Status" }, { PFCP_IE_MBR, "MBR" }, { PFCP_IE_GBR, "GBR" },
	{ PFCP_IE_PRECEDENCE, "Precedence" }, { PFCP_IE_VOLUME_THRESHOLD, "Volume Threshold" },
	{ PFCP_IE_TIME_THRESHOLD, "Time Threshold" }, { PFCP_IE_REPORTING_TRIGGERS, "Reporting Triggers" },
	{ PFCP_IE_REPORT_TYPE, "Report Type" }, { PFCP_IE_OFFENDING_IE, "Offending IE" },
	{ PFCP_IE_DEST_IF, "Destination Interface" }, { PFCP_IE_UP_FEATURES, "UP Function Features" },
	{ PFCP_IE_APPLY_ACTION, "Apply Action" }, { PFCP_IE_DDN_DELAY, "Downlink Data Notification Delay" },
	{ PFCP_IE_PDR_ID, "PDR ID" }, { PFCP_IE_F_SEID, "F-SEID" }, { PFCP_IE_NODE_ID, "Node ID" },
	{ PFCP_IE_MEASUREMENT_METHOD, "Measurement Method" },
	{ PFCP_IE_USAGE_REPORT_TRIGGER, "Usage Report Trigger" },
	{ PFCP_IE_MEASUREMENT_PERIOD, "Measurement Period" },
	{ PFCP_IE_VOLUME_MEASUREMENT, "Volume Measurement" },
	{ PFCP_IE_DURATION_MEASUREMENT, "Duration Measurement" }, { PFCP_IE_VOLUME_QUOTA, "Volume Quota" },
	{ PFCP_IE_TIME_QUOTA, "Time Quota" }, { PFCP_IE_START_TIME, "Start Time" },
	{ PFCP_IE_END_TIME, "End Time" }, { PFCP_IE_USAGE_REPORT_SMR, "Usage Report" },
	{ PFCP_IE_USAGE_REPORT_SDR, "Usage Report" }, { PFCP_IE_USAGE_REPORT_SRR, "Usage Report" },
	{ PFCP_IE_URR_ID, "URR ID" }, { PFCP_IE_DL_DATA_REPORT, "Downlink Data Report" },
	{ PFCP_IE_ERR_IND_REPORT, "Error Indication Report" },
	{ PFCP_IE_OUTER_HDR_CREATION, "Outer Header Creation" }, { PFCP_IE_CREATE_BAR, "Create BAR" },
	{ PFCP_IE_UPDATE_BAR_SMR, "Update BAR" }, { PFCP_IE_REMOVE_BAR, "Remove BAR" },
	{ PFCP_IE_BAR_ID, "BAR ID" }, { PFCP_IE_CP_FEATURES, "CP Function Features" },
	{ PFCP_IE_UE_IP_ADDRESS, "UE IP Address" }, { PFCP_IE_OUTER_HDR_REMOVAL, "Outer Header Removal" },
	{ PFCP_IE_RECOVERY_TIME_STAMP, "Recovery Time Stamp" }, { PFCP_IE_NODE_REPORT_TYPE, "Node Report Type" },
	{ PFCP_IE_UP_PATH_FAILURE, "User Plane Path Failure Report" },
	{ PFCP_IE_REMOTE_GTPU_PEER, "Remote GTP-U Peer" }, { PFCP_IE_UR_SEQN, "UR-SEQN" },
	{ PFCP_IE_FAR_ID, "FAR ID" }, { PFCP_IE_QER_ID, "QER ID" }, { PFCP_IE_QFI, "QFI" },
	{ PFCP_IE_SUGGESTED_BUF_PKTS, "Suggested Buffering Packets Count" },
	{ PFCP_IE_PDN_TYPE, "PDN Type" }, { PFCP_IE_3GPP_IF_TYPE, "3GPP Interface Type" },
	{ PFCP_IE_SMREQ_FLAGS, "PFCPSMReq-Flags" }, { PFCP_IE_QUERY_URR, "Query URR" },
	{ PFCP_IE_FAILED_RULE_ID, "Failed Rule ID" },
};

const char *pfcp_ie_name(uint16_t type)
{
	for (size_t i = 0; i < sizeof(ie_names) / sizeof(ie_names[0]); i++)
		if (ie_names[i].type == type)
			return ie_names[i].name;
	return "?";
}

const char *pfcp_msg_name(uint8_t type)
{
	const struct pfcp_msg_desc *md = pfcp_msg_desc(type);

	return md ? md->name : "?";
}

const char *pfcp_cause_name(uint8_t cause)
{
	switch (cause) {
	case PFCP_CAUSE_ACCEPTED: return "Request accepted";
	case PFCP_CAUSE_REJECTED: return "Request rejected";
	case PFCP_CAUSE_SESSION_NOT_FOUND: return "Session context not found";
	case PFCP_CAUSE_MANDATORY_IE_MISSING: return "Mandatory IE missing";
	case PFCP_CAUSE_CONDITIONAL_IE_MISSING: return "Conditional IE missing";
	case PFCP_CAUSE_INVALID_LENGTH: return "Invalid length";
	case PFCP_CAUSE_MANDATORY_IE_INCORRECT: return "Mandatory IE incorrect";
	case PFCP_CAUSE_INVALID_FWD_POLICY: return "Invalid Forwarding Policy";
	case PFCP_CAUSE_INVALID_FTEID_ALLOC: return "Invalid F-TEID allocation option";
	case PFCP_CAUSE_NO_ASSOCIATION: return "No established PFCP Association";
	case PFCP_CAUSE_RULE_FAILURE: return "Rule creation/modification Failure";
	case PFCP_CAUSE_CONGESTION: return "PFCP entity in congestion";
	case PFCP_CAUSE_NO_RESOURCES: return "No resources available";
	case PFCP_CAUSE_SERVICE_NOT_SUPPORTED: return "Service not supported";
	case PFCP_CAUSE_SYSTEM_FAILURE: return "System failure";
	default: return "?";
	}
}

/* TS 29.244 7.6 / 8.2.1: the cause of the rejecting response. -ENOMSG (an
 * unknown message) and -EPROTONOSUPPORT (Version Not Supported Response, no
 * cause) get none, nor does a message too broken to have a header. */
int pfcp_err_cause(int err)
{
	switch (err) {
	case -EBADMSG: return PFCP_CAUSE_INVALID_LENGTH;
	case -ENOENT: return PFCP_CAUSE_MANDATORY_IE_MISSING;
	case -EINVAL:
	case -ELOOP:
	case -EPROTO: return PFCP_CAUSE_MANDATORY_IE_INCORRECT;
	case -E2BIG: return PFCP_CAUSE_NO_RESOURCES;
	default: return 0;
	}
}

/* One value through its codec's to_str, written at offset k */
static int val_str(const struct pfcp_ie_desc *d, const void *v, char *o, size_t cap, int k)
{
	int n = pfcp_codecs[d->kind].str((size_t)k < cap ? o + k : NULL, (size_t)k < cap ? cap - (size_t)k : 0,
					 v, d);

	return n < 0 ? k : k + n;
}

/* Bounded by the tables' depth (PFCP_NEST_MAX), like the walker */
static int grp_str(const struct pfcp_grp *g, const void *s, char *o, size_t cap, int k)
{
	for (unsigned i = 0; i < g->n; i++) {
		const struct pfcp_ie_desc *d = &g->ie[i];
		unsigned n = pfcp_count(s, d);

		for (unsigned j = 0; j < n && j < (d->max > 1 ? d->max : 1u); j++) {
			const void *v = pfcp_cval(s, d, j);

			k = pfcp_catf(o, cap, k, " %s", pfcp_ie_name(d->type));
			if (d->kind == PFCP_K_GROUP) {
				k = pfcp_catf(o, cap, k, " {");
				k = grp_str(d->grp, v, o, cap, k);
				k = pfcp_catf(o, cap, k, " }");
			} else {
				k = val_str(d, v, o, cap, pfcp_catf(o, cap, k, "="));
			}
		}
	}
	return k;
}

int pfcp_msg_to_str(const struct pfcp_msg *m, char *out, size_t cap)
{
	const struct pfcp_msg_desc *md = pfcp_msg_desc(m->h.type);
	int k;

	if (!md)
		return -ENOMSG;
	if (cap)
		out[0] = 0;
	k = pfcp_catf(out, cap, 0, "%s seq=%u", md->name, m->h.seq);
	if (md->session)
		k = pfcp_catf(out, cap, k, " seid=0x%llx", (unsigned long long)m->h.seid);
	if (m->h.has_prio)
		k = pfcp_catf(out, cap, k, " prio=%u", m->h.prio);
	k = pfcp_catf(out, cap, k, ":");
	return grp_str(md->body, (const void *)&m->node, out, cap, k);
}
