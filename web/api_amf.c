/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web: the AMF's views. /metrics lines from amf_get_stats(), GET
 * /api/v1/stats (the same counters as JSON for the dashboard), GET
 * /api/v1/ues/{supi} (one UE context) and POST /api/v1/ues/{supi}/deregister
 * (network-initiated deregistration, TS 24.501 5.5.2.3).
 * Everything runs on the control thread, which owns the AMF.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "amf/amf.h"
#include "db/db.h"
#include "web/sub_int.h"
#include "web/web_int.h"

/* One counter family: name, help, type, then label value -> field pairs. */
static void metrics(struct web_metrics_out *o, void *arg)
{
	struct amf_stats s;

	amf_get_stats(arg, &s);
#define FAMILY(name, type, help) \
	web_metrics_printf(o, "# HELP solocore_" name " " help "\n# TYPE solocore_" name " " type "\n")
#define LINE(name, labels, v) web_metrics_printf(o, "solocore_" name labels " %llu\n", (unsigned long long)(v))
	FAMILY("ngap_messages_total", "counter", "NGAP PDUs by direction (TS 38.413)");
	LINE("ngap_messages_total", "{direction=\"rx\"}", s.ngap_rx);
	LINE("ngap_messages_total", "{direction=\"tx\"}", s.ngap_tx);
	FAMILY("ngap_rx_undecodable_total", "counter", "NGAP PDUs received that did not decode");
	LINE("ngap_rx_undecodable_total", "", s.ngap_rx_bad);
	FAMILY("gnbs", "gauge", "gNBs with a successful NG Setup");
	LINE("gnbs", "", s.gnbs);
	FAMILY("ue_contexts", "gauge", "UE contexts in the AMF");
	LINE("ue_contexts", "", s.ues);
	FAMILY("registered_ues", "gauge", "UEs in 5GMM-REGISTERED");
	LINE("registered_ues", "", s.registered);
	FAMILY("registrations_total", "counter", "registration procedures by result (TS 24.501 5.5.1)");
	LINE("registrations_total", "{result=\"accepted\"}", s.reg_accepted);
	LINE("registrations_total", "{result=\"rejected\"}", s.reg_rejected);
	FAMILY("authentications_total", "counter", "5G-AKA results (TS 33.501 6.1.3.2)");
	LINE("authentications_total", "{result=\"ok\"}", s.auth_ok);
	LINE("authentications_total", "{result=\"mac_failure\"}", s.auth_mac_fail);
	LINE("authentications_total", "{result=\"sync_failure\"}", s.auth_sync_fail);
	LINE("authentications_total", "{result=\"reject\"}", s.auth_reject);
	FAMILY("security_mode_total", "counter", "NAS security mode control by result");
	LINE("security_mode_total", "{result=\"ok\"}", s.smc_ok);
	LINE("security_mode_total", "{result=\"reject\"}", s.smc_reject);
	FAMILY("nas_discarded_total", "counter", "uplink NAS messages discarded by reason (TS 24.501 4.4.4)");
	LINE("nas_discarded_total", "{reason=\"mac\"}", s.nas_mac_fail);
	LINE("nas_discarded_total", "{reason=\"other\"}", s.nas_dropped);
	FAMILY("nas_timer_expiries_total", "counter", "5GMM timer expiries (TS 24.501 10.2)");
	LINE("nas_timer_expiries_total", "{timer=\"t3550\"}", s.t3550_expired);
	LINE("nas_timer_expiries_total", "{timer=\"t3560\"}", s.t3560_expired);
	LINE("nas_timer_expiries_total", "{timer=\"t3570\"}", s.t3570_expired);
	LINE("nas_timer_expiries_total", "{timer=\"t3522\"}", s.t3522_expired);
	FAMILY("deregistrations_total", "counter", "deregistrations by initiator");
	LINE("deregistrations_total", "{by=\"ue\"}", s.dereg_ue);
	LINE("deregistrations_total", "{by=\"network\"}", s.dereg_net);
	LINE("deregistrations_total", "{by=\"implicit\"}", s.implicit_dereg);
	FAMILY("service_requests_total", "counter", "service requests by result (TS 24.501 5.6.1)");
	LINE("service_requests_total", "{result=\"accepted\"}", s.service_req);
	LINE("service_requests_total", "{result=\"rejected\"}", s.service_rej);
	FAMILY("paging_total", "counter", "paging (TS 38.413 8.5.1): messages sent and UEs given up on");
	LINE("paging_total", "{result=\"sent\"}", s.paging_sent);
	LINE("paging_total", "{result=\"gave_up\"}", s.paging_gave_up);
	FAMILY("n1_sm_total", "counter", "N1 SM payloads: handed to the SMF, or sent back (TS 24.501 5.4.5.2.5)");
	LINE("n1_sm_total", "{result=\"forwarded\"}", s.sm_forwarded);
	LINE("n1_sm_total", "{result=\"not_forwarded\"}", s.sm_not_forwarded);
#undef FAMILY
#undef LINE
}

static int h_stats(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct amf_stats s;

	(void)w;
	(void)req;
	amf_get_stats(arg, &s);
	web_resp_json(resp, 200, json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
					   "gnbs", (json_int_t)s.gnbs, "ue_contexts", (json_int_t)s.ues,
					   "registered_ues", (json_int_t)s.registered,
					   "ngap_rx", (json_int_t)s.ngap_rx, "ngap_tx", (json_int_t)s.ngap_tx,
					   "registrations_accepted", (json_int_t)s.reg_accepted,
					   "registrations_rejected", (json_int_t)s.reg_rejected,
					   "auth_failures", (json_int_t)(s.auth_mac_fail + s.auth_sync_fail + s.auth_reject)));
	return 0;
}

static int ue_supi(const struct web_req *req, struct web_resp *resp, char supi[DB_SUPI_MAX])
{
	if (web_supi_from_param(web_req_param(req, 0), supi) < 0) {
		web_resp_error(resp, 400, "supi", "supi must be imsi-<5 to 15 digits> or the digits");
		return -EINVAL;
	}
	return 0;
}

static int h_ue(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	char supi[DB_SUPI_MAX], tmsi[12];
	struct amf_ue_info u;
	json_t *j, *psi;

	(void)w;
	if (ue_supi(req, resp, supi) < 0)
		return 0;
	if (amf_ue_info_by_supi(arg, supi, &u) < 0) {
		web_resp_error(resp, 404, "supi", "no UE context for %s", supi);
		return 0;
	}
	psi = json_array();
	for (unsigned i = 1; i < 16; i++)
		if (u.psi_map & (1u << i))
			json_array_append_new(psi, json_integer(i));
	j = json_pack("{s:s, s:s, s:b, s:b, s:o}", "supi", supi, "state", amf_gmm_state_name(u.state),
		      "connected", u.amf_ue_ngap_id != UINT64_MAX, "paging", u.paging, "pdu_sessions", psi);
	if (j && u.amf_ue_ngap_id != UINT64_MAX) {
		json_object_set_new(j, "amf_ue_ngap_id", json_integer((json_int_t)u.amf_ue_ngap_id));
		json_object_set_new(j, "ran_ue_ngap_id", json_integer(u.ran_ue_ngap_id));
		json_object_set_new(j, "gnb_assoc", json_integer(u.assoc));
	}
	if (j && u.has_guti) {
		snprintf(tmsi, sizeof(tmsi), "%08x", u.tmsi);
		json_object_set_new(j, "tmsi", json_string(tmsi));
	}
	if (j && u.sec_active)
		json_object_set_new(j, "security", json_pack("{s:i, s:i}", "nia", u.nia, "nea", u.nea));
	web_resp_json(resp, 200, j);
	return 0;
}

static int h_ue_dereg(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	char supi[DB_SUPI_MAX];
	bool rereg = false;

	(void)w;
	if (ue_supi(req, resp, supi) < 0)
		return 0;
	if (req->body_len) {
		json_error_t e;
		json_t *j = json_loadb((const char *)req->body, req->body_len, 0, &e);
		json_t *r = json_object_get(j, "reregister");

		if (!json_is_object(j) || (r && !json_is_boolean(r))) {
			json_decref(j);
			web_resp_error(resp, 400, "reregister", "body: {\"reregister\": true|false}");
			return 0;
		}
		rereg = json_is_true(r);
		json_decref(j);
	}
	if (amf_deregister_supi(arg, supi, rereg) < 0) {
		web_resp_error(resp, 404, "supi", "no UE context for %s", supi);
		return 0;
	}
	web_resp_json(resp, 202, json_pack("{s:s, s:s}", "supi", supi, "status", "deregistering"));
	return 0;
}

int web_attach_amf(struct web *w, struct amf *amf)
{
	int rc;

	if (!w || !amf)
		return -EINVAL;
	rc = web_metrics_register(w, metrics, amf);
	if (rc == 0)
		rc = web_route_add(w, WEB_GET, "/api/v1/stats", WEB_ROLE_READ, h_stats, amf);
	if (rc == 0)
		rc = web_route_add(w, WEB_GET, "/api/v1/ues/{supi}", WEB_ROLE_READ, h_ue, amf);
	if (rc == 0)
		rc = web_route_add(w, WEB_POST, "/api/v1/ues/{supi}/deregister", WEB_ROLE_OPERATOR, h_ue_dereg, amf);
	return rc;
}
