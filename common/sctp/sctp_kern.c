/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * n2sctp kernel backend: Linux SCTP via lksctp's <netinet/sctp.h>.
 * One non-blocking one-to-many socket per endpoint (RFC 6458 3), association
 * events from SCTP_ASSOC_CHANGE notifications (RFC 6458 6.1.1), data with an
 * SCTP_SNDRCV control message carrying stream, PPID and assoc id.
 */
#include "common/sctp/sctp_int.h"

#include "common/ev.h"
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/sctp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MOD "sctp"
#define KERN_RX_BATCH 64 /* messages per wake-up, so one busy gNB cannot starve the loop */

struct kern_ep {
	int fd;
};

static int kern_fd(const struct n2sctp *ep)
{
	return ((const struct kern_ep *)ep->be)->fd;
}

int n2sctp_kern_probe(char *why, size_t whylen)
{
	int fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);

	if (fd < 0) {
		int e = errno;
		snprintf(why, whylen,
			 "kernel SCTP unavailable: socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP): %s "
			 "(no sctp module in this kernel; 'modprobe sctp' where it exists)", strerror(e));
		return -EPROTONOSUPPORT;
	}
	close(fd);
	snprintf(why, whylen, "kernel SCTP available");
	return 0;
}

/* ---- send ---- */

static int kern_send(struct n2sctp *ep, uint32_t assoc_id, uint16_t stream, uint32_t ppid,
		     const void *buf, size_t len, unsigned flags)
{
	char cbuf[CMSG_SPACE(sizeof(struct sctp_sndrcvinfo))];
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = len ? 1 : 0,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	struct sctp_sndrcvinfo *si;

	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = IPPROTO_SCTP;
	c->cmsg_type = SCTP_SNDRCV;
	c->cmsg_len = CMSG_LEN(sizeof(*si));
	si = (struct sctp_sndrcvinfo *)CMSG_DATA(c);
	si->sinfo_stream = stream;
	si->sinfo_ppid = htonl(ppid); /* opaque to SCTP: sent as given, so network order */
	si->sinfo_assoc_id = (sctp_assoc_t)assoc_id;
	if (flags & N2SCTP_SEND_EOF)
		si->sinfo_flags = SCTP_EOF;
	else if (flags & N2SCTP_SEND_ABORT)
		si->sinfo_flags = SCTP_ABORT;
	if (sendmsg(kern_fd(ep), &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return 0;
}

static int kern_peer_addr(struct n2sctp *ep, struct n2sctp_assoc *a, struct sockaddr_storage *ss,
			  socklen_t *len)
{
	struct sctp_prim prim;
	socklen_t pl = sizeof(prim);

	memset(&prim, 0, sizeof(prim));
	prim.ssp_assoc_id = (sctp_assoc_t)a->id;
	if (getsockopt(kern_fd(ep), IPPROTO_SCTP, SCTP_PRIMARY_ADDR, &prim, &pl) < 0)
		return -errno;
	memcpy(ss, &prim.ssp_addr, sizeof(*ss));
	*len = prim.ssp_addr.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	return 0;
}

static void kern_close(struct n2sctp *ep)
{
	struct kern_ep *k = ep->be;

	if (!k)
		return;
	if (k->fd >= 0) {
		/* SO_LINGER 0: close() sends ABORT on every association (RFC 6458 8.1.4). */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };
		setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		ev_fd_del(ep->loop, k->fd);
		close(k->fd);
	}
	free(k);
	ep->be = NULL;
}

static const struct n2sctp_ops kern_ops = {
	.send = kern_send,
	.peer_addr = kern_peer_addr,
	.assoc_gone = NULL,
	.close = kern_close,
};

/* ---- receive ---- */

static void kern_notification(struct n2sctp *ep, const uint8_t *buf, size_t len)
{
	const union sctp_notification *sn = (const union sctp_notification *)buf;

	ep->st.notifications++;
	if (len < sizeof(sn->sn_header))
		return;
	switch (sn->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE: {
		const struct sctp_assoc_change *sac = &sn->sn_assoc_change;
		uint32_t id;
		if (len < sizeof(*sac))
			return;
		id = (uint32_t)sac->sac_assoc_id;
		switch (sac->sac_state) {
		case SCTP_COMM_UP:
			n2sctp_core_up(ep, id, sac->sac_outbound_streams, sac->sac_inbound_streams);
			break;
		case SCTP_RESTART:
			n2sctp_core_restart(ep, id, sac->sac_outbound_streams, sac->sac_inbound_streams);
			break;
		case SCTP_SHUTDOWN_COMP:
			n2sctp_core_down(ep, id, N2SCTP_DOWN_SHUTDOWN);
			break;
		case SCTP_CANT_STR_ASSOC:
			n2sctp_core_down(ep, id, N2SCTP_DOWN_CANT_START);
			break;
		case SCTP_COMM_LOST:
			/* RFC 6458 6.1.1: sac_info carries the ABORT chunk when the peer sent one. */
			n2sctp_core_down(ep, id, sac->sac_length > sizeof(*sac) ? N2SCTP_DOWN_ABORT
										 : N2SCTP_DOWN_COMM_LOST);
			break;
		default:
			break;
		}
		break;
	}
	case SCTP_SEND_FAILED:
		ep->st.tx_errors++;
		break;
	case SCTP_REMOTE_ERROR:
		log_rl(LOGL_WARN, MOD, ep->name, "peer sent an ERROR chunk");
		break;
	default:
		break;
	}
}

static void kern_read(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	struct n2sctp *ep = arg;
	char cbuf[CMSG_SPACE(sizeof(struct sctp_sndrcvinfo)) + 64];
	(void)loop;
	(void)events;

	n2sctp_core_enter(ep);
	for (int i = 0; i < KERN_RX_BATCH && !ep->doomed; i++) {
		struct iovec iov = { .iov_base = ep->rdbuf, .iov_len = N2SCTP_MAX_MSG };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				log_rl(LOGL_WARN, MOD, ep->name, "recvmsg: %s", strerror(errno));
			break;
		}
		bool eor = mh.msg_flags & MSG_EOR;
		if (mh.msg_flags & MSG_NOTIFICATION) {
			if (eor) /* notifications are small; a truncated one is ignored */
				kern_notification(ep, ep->rdbuf, (size_t)n);
			continue;
		}
		const struct sctp_sndrcvinfo *si = NULL;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == IPPROTO_SCTP && c->cmsg_type == SCTP_SNDRCV)
				si = (const struct sctp_sndrcvinfo *)CMSG_DATA(c);
		if (!si) {
			ep->st.rx_unknown_assoc++;
			continue;
		}
		n2sctp_core_data(ep, (uint32_t)si->sinfo_assoc_id, si->sinfo_stream, ntohl(si->sinfo_ppid),
				 ep->rdbuf, (size_t)n, eor);
	}
	n2sctp_core_leave(ep);
}

/* ---- set-up ---- */
/* RFC 6458 8.1.1, 8.1.2, 8.1.12: defaults for the socket's future associations.
 * Same shape as usr_timers in sctp_usr.c: the struct layouts and option numbers come
 * from two headers that cannot be included in one file. */
static int kern_timers(int s, const struct n2sctp_cfg *c)
{
	struct sctp_rtoinfo rto;
	struct sctp_assocparams ap;
	struct sctp_paddrparams pp;

	memset(&rto, 0, sizeof(rto));
	rto.srto_assoc_id = 0;
	rto.srto_initial = c->rto_initial_ms;
	rto.srto_max = c->rto_max_ms;
	rto.srto_min = c->rto_min_ms;
	memset(&ap, 0, sizeof(ap));
	ap.sasoc_assoc_id = 0;
	ap.sasoc_asocmaxrxt = c->max_retrans;
	memset(&pp, 0, sizeof(pp));
	pp.spp_assoc_id = 0;
	pp.spp_hbinterval = c->hb_interval_ms;
	pp.spp_pathmaxrxt = c->max_retrans;
	pp.spp_flags = c->hb_interval_ms ? SPP_HB_ENABLE : 0;
	if ((rto.srto_initial || rto.srto_max || rto.srto_min) &&
	    setsockopt(s, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof(rto)) < 0)
		return -errno;
	if (c->max_retrans && setsockopt(s, IPPROTO_SCTP, SCTP_ASSOCINFO, &ap, sizeof(ap)) < 0)
		return -errno;
	if ((c->hb_interval_ms || c->max_retrans) &&
	    setsockopt(s, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp)) < 0)
		return -errno;
	return 0;
}


static int kern_socket(struct n2sctp *ep, int family, const struct sockaddr *local, socklen_t locallen)
{
	struct kern_ep *k = calloc(1, sizeof(*k));
	struct sctp_event_subscribe evs;
	struct sctp_initmsg im;
	int fd, one = 1, rc;

	if (!k)
		return -ENOMEM;
	k->fd = -1;
	ep->be = k;
	ep->ops = &kern_ops;
	fd = socket(family, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_SCTP);
	if (fd < 0)
		return -errno;
	k->fd = fd;

	memset(&evs, 0, sizeof(evs));
	evs.sctp_data_io_event = 1;        /* SCTP_SNDRCV on every message */
	evs.sctp_association_event = 1;    /* up / down / restart */
	evs.sctp_send_failure_event = 1;
	evs.sctp_peer_error_event = 1;
	evs.sctp_shutdown_event = 1;
	memset(&im, 0, sizeof(im));
	im.sinit_num_ostreams = ep->cfg.ostreams;
	im.sinit_max_instreams = ep->cfg.istreams;
	im.sinit_max_attempts = ep->cfg.max_init_retrans;
	im.sinit_max_init_timeo = (uint16_t)(ep->cfg.rto_max_ms > 65535 ? 65535 : ep->cfg.rto_max_ms);
	int zero = 0; /* RFC 6458 8.1.20 level 0 (Linux's default): see sctp_usr.c */
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, &zero, sizeof(zero)) < 0 ||
	    setsockopt(fd, IPPROTO_SCTP, SCTP_EVENTS, &evs, sizeof(evs)) < 0 ||
	    setsockopt(fd, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof(im)) < 0 ||
	    /* NGAP is request/response: no Nagle-like bundling delay. */
	    setsockopt(fd, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof(one)) < 0)
		return -errno;
	int sndbuf = N2SCTP_SNDBUF; /* capped by net.core.wmem_max; best effort */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	rc = kern_timers(fd, &ep->cfg);
	if (rc < 0) {
		log_error(MOD, "kernel: RTO/heartbeat settings refused: %s", strerror(-rc));
		return rc;
	}
	if (local) {
		if (bind(fd, local, locallen) < 0) {
			rc = -errno;
			char as[64];
			log_error(MOD, "kernel: bind %s: %s", n2sctp_addr_str(local, as, sizeof(as)), strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static uint16_t kern_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* With net.sctp.sndbuf_policy=0 every association of the listener draws on
 * the one socket send buffer: a gNB that stops reading can starve the rest. */
static void kern_check_sndbuf_policy(const struct n2sctp *ep)
{
	FILE *f = fopen("/proc/sys/net/sctp/sndbuf_policy", "r");
	int v = -1;

	if (!f)
		return;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	if (v == 0)
		log_info(MOD, "%s: net.sctp.sndbuf_policy=0: associations share the socket send buffer; "
			 "'sysctl -w net.sctp.sndbuf_policy=1' accounts it per gNB", ep->name);
}

/* Common tail of listen/connect: watch the socket, or undo everything on error. */
static int kern_arm(struct n2sctp *ep, int rc)
{
	if (rc == 0)
		rc = ev_fd_add(ep->loop, kern_fd(ep), EV_READ, kern_read, ep);
	if (rc < 0) {
		kern_close(ep);
		return rc;
	}
	ep->port = kern_port(kern_fd(ep));
	return 0;
}

static void kern_explain_enosys(void)
{
	char alg[64] = "?";
	FILE *f = fopen("/proc/sys/net/sctp/cookie_hmac_alg", "r");

	if (f) {
		if (fgets(alg, sizeof(alg), f))
			alg[strcspn(alg, "\n")] = 0;
		fclose(f);
	}
	/* Measured in UML 6.1: every algorithm (md5, sha1, sha256) needs the hmac
	 * template; only "none" works without it, leaving the State Cookie
	 * unsigned (RFC 9260 5.1.3 wants it authenticated). */
	log_error(MOD, "kernel: listen() failed with ENOSYS: the kernel cannot build the SCTP cookie HMAC "
		  "hmac(%s) (net.sctp.cookie_hmac_alg=%s). Fix: 'modprobe hmac' (and the %s hash module if it "
		  "is not built in), or 'sysctl -w net.sctp.cookie_hmac_alg=' an algorithm the kernel can HMAC; "
		  "'none' needs no hmac but leaves SCTP cookies unsigned (only on a trusted network); "
		  "or run with n2.sctp: usrsctp", alg, alg, alg);
}

int n2sctp_kern_listen(struct n2sctp *ep, const struct sockaddr *local, socklen_t locallen)
{
	int rc = kern_socket(ep, local->sa_family, local, locallen);

	if (rc == 0 && listen(kern_fd(ep), 128) < 0) {
		rc = -errno;
		if (rc == -ENOSYS)
			kern_explain_enosys();
		else
			log_error(MOD, "kernel: listen: %s", strerror(-rc));
	}
	rc = kern_arm(ep, rc);
	if (rc < 0)
		return rc;
	snprintf(ep->name, sizeof(ep->name), "kern lis :%u", ep->port);
	log_info(MOD, "%s: listening (streams %u/%u)", ep->name, ep->cfg.ostreams, ep->cfg.istreams);
	kern_check_sndbuf_policy(ep);
	return 0;
}

int n2sctp_kern_connect(struct n2sctp *ep, const struct sockaddr *local, socklen_t locallen,
			const struct sockaddr *peer, socklen_t peerlen)
{
	char ps[64];
	int rc = kern_socket(ep, peer->sa_family, local, locallen);

	/* One-to-many connect starts the association (RFC 6458 3.1.5); non-blocking,
	 * so the outcome comes as COMM_UP or CANT_STR_ASSOC. */
	if (rc == 0 && connect(kern_fd(ep), peer, peerlen) < 0 && errno != EINPROGRESS) {
		rc = -errno;
		log_error(MOD, "kernel: connect %s: %s", n2sctp_addr_str(peer, ps, sizeof(ps)), strerror(-rc));
	}
	rc = kern_arm(ep, rc);
	if (rc < 0)
		return rc;
	snprintf(ep->name, sizeof(ep->name), "kern cli ->%s", n2sctp_addr_str(peer, ps, sizeof(ps)));
	return 0;
}
