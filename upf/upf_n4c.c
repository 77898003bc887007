/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* PLACEHOLDER while the N4 client is written (issue 18 item 3): every call fails. Not done. */
#include <errno.h>
#include <stdlib.h>

#include "upf/upf_int.h"

int upf_n4c_open(const struct upf_n4c_params *p, struct upf_n4c **out)
{
	(void)p;
	*out = NULL;
	return -EOPNOTSUPP;
}
void upf_n4c_close(struct upf_n4c *c) { (void)c; }
int upf_n4c_peer_add(struct upf_n4c *c, const struct upf_n4c_peer *pp, struct upf **out)
{
	(void)c; (void)pp; *out = NULL;
	return -EOPNOTSUPP;
}
void upf_n4c_input(struct upf_n4c *c, uint32_t addr, uint16_t port, const uint8_t *buf, size_t len)
{
	(void)c; (void)addr; (void)port; (void)buf; (void)len;
}
int upf_n4c_fd(const struct upf_n4c *c) { (void)c; return -1; }
int upf_n4c_sess_create(struct upf *u, uint32_t id, const struct upf_session_rule *r) { (void)u; (void)id; (void)r; return -EOPNOTSUPP; }
int upf_n4c_sess_modify(struct upf *u, uint32_t id, const struct upf_session_rule *r) { (void)u; (void)id; (void)r; return -EOPNOTSUPP; }
int upf_n4c_sess_remove(struct upf *u, uint32_t id) { (void)u; (void)id; return -EOPNOTSUPP; }
int upf_n4c_sess_stats(struct upf *u, uint32_t id, struct upf_session_stats *out) { (void)u; (void)id; (void)out; return -EOPNOTSUPP; }
int upf_n4c_counters(struct upf *u, uint64_t *out, size_t n) { (void)u; (void)out; (void)n; return -EOPNOTSUPP; }
bool upf_n4c_ready(const struct upf *u) { (void)u; return false; }
uint32_t upf_n4c_n3_addr(const struct upf *u) { (void)u; return 0; }
void upf_n4c_peer_close(struct upf *u) { free(u); }
