/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Production N2 transport: amf_start() opens an SCTP listener through
 * common/sctp with the configured backend and wires its callbacks to the
 * transport-neutral amf_n2_* entry points.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"
#include "common/sctp/sctp.h"

static void n2_up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t peerlen, void *arg)
{
	struct amf *amf = arg;
	uint32_t id = n2sctp_assoc_num(a);
	struct amf_gnb *gnb;

	amf_n2_assoc_up(amf, id, n2sctp_assoc_istreams(a), n2sctp_assoc_ostreams(a));
	gnb = amf_gnb_by_assoc(amf, id);
	if (gnb) {
		gnb->tx_handle = a;
		if (peer && peerlen > 0)
			amf_n2_assoc_peer(amf, id, peer, peerlen);
	} else
		n2sctp_abort(a);   /* refused (max_gnbs): safe inside the callback (sctp.h) */
}

static void n2_data(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const uint8_t *buf,
		    size_t len, void *arg)
{
	struct amf *amf = arg;

	if (ppid != N2SCTP_PPID_NGAP) {
		log_rl(LOGL_WARN, "amf", NULL, "assoc=%u ppid=%u is not NGAP: dropped", n2sctp_assoc_num(a), ppid);
		return;
	}
	amf_n2_rx(amf, n2sctp_assoc_num(a), stream, buf, len);
}

static void n2_down(struct n2sctp_assoc *a, enum n2sctp_down_reason reason, void *arg)
{
	struct amf *amf = arg;

	log_info("amf", "assoc=%u down: %s", n2sctp_assoc_num(a), n2sctp_down_reason_name(reason));
	amf_n2_assoc_down(amf, n2sctp_assoc_num(a));
}

static int n2_send(void *arg, uint32_t assoc, uint16_t stream, const uint8_t *buf, size_t len)
{
	struct amf *amf = arg;
	struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);

	if (!gnb || !gnb->tx_handle)
		return -ENOTCONN;
	if (stream >= n2sctp_assoc_ostreams(gnb->tx_handle))
		stream = 0;
	return n2sctp_send(gnb->tx_handle, stream, N2SCTP_PPID_NGAP, buf, len);
}

static void n2_shutdown(void *arg, uint32_t assoc)
{
	struct amf *amf = arg;
	struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);

	/* RFC 9260 9.2: what was queued (the NG SETUP FAILURE) goes out before the SHUTDOWN */
	if (gnb && gnb->tx_handle && n2sctp_shutdown(gnb->tx_handle) < 0)
		n2sctp_abort(gnb->tx_handle);
}

static void n2_close(void *arg, uint32_t assoc)
{
	struct amf *amf = arg;
	struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);

	if (gnb && gnb->tx_handle)
		n2sctp_abort(gnb->tx_handle);
}

struct amf *amf_start(struct ev_loop *loop, const struct conf *conf, struct ausf *ausf,
		      struct udm *udm, int *err)
{
	struct amf_n2_ops ops = { .send = n2_send, .close = n2_close, .shutdown = n2_shutdown };
	struct n2sctp_cbs cbs = { .up = n2_up, .data = n2_data, .down = n2_down };
	struct sockaddr_storage ss;
	struct n2sctp_cfg scfg;
	struct amf_cfg cfg;
	struct amf *amf;
	socklen_t sl;
	int rc;

	rc = amf_cfg_from_conf(&cfg, conf);
	if (rc < 0) {
		*err = rc;
		return NULL;
	}
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, cfg.n2_addr[0] ? cfg.n2_addr : "0.0.0.0",
		      &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(cfg.n2_port);
		sl = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, cfg.n2_addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(cfg.n2_port);
		sl = sizeof(struct sockaddr_in6);
	} else {
		log_error("amf", "n2.address %s is not an IP address", cfg.n2_addr);
		*err = -EINVAL;
		return NULL;
	}
	amf = amf_new(loop, &cfg, ausf, udm, &ops, err);
	if (!amf)
		return NULL;
	amf->ops.arg = amf;
	cbs.arg = amf;
	n2sctp_cfg_init(&scfg);
	rc = n2sctp_backend_parse(cfg.n2_backend, &scfg.backend);
	if (rc == 0) {
		scfg.encap = cfg.n2_udp_encap ? N2SCTP_ENCAP_UDP : N2SCTP_ENCAP_RAW;
		if (cfg.n2_udp_encap)
			scfg.udp_port = cfg.n2_udp_port;   /* 0: ephemeral (tests) */
		rc = n2sctp_listen(loop, &scfg, (struct sockaddr *)&ss, sl, &cbs,
				   (struct n2sctp **)&amf->n2);
	}
	if (rc < 0) {
		log_error("amf", "N2 listen on %s:%u (%s) failed rc=%d", cfg.n2_addr, cfg.n2_port,
			  cfg.n2_backend, rc);
		amf_free(amf);
		*err = rc;
		return NULL;
	}
	if (amf_warm_up(amf) < 0)
		log_warn("amf", "crypto warm-up failed: the first registration will be slower");
	log_info("amf", "N2 listening on %s:%u backend=%s", cfg.n2_addr, n2sctp_local_port(amf->n2),
		 n2sctp_backend_name(n2sctp_backend_of(amf->n2)));
	return amf;
}

void amf_stop(struct amf *amf)
{
	if (!amf)
		return;
	n2sctp_free(amf->n2);
	amf->n2 = NULL;
	amf_free(amf);
}

uint16_t amf_n2_port(const struct amf *amf)
{
	return amf->n2 ? n2sctp_local_port(amf->n2) : 0;
}

uint16_t amf_n2_udp_port(const struct amf *amf)
{
	return amf->n2 ? n2sctp_local_udp_port(amf->n2) : 0;
}
