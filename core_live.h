/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * core_live - live network settings carried to the running modules: the composition
 * root's half of PATCH /api/v1/settings (web/ parses, checks and saves; this applies).
 * Each module gets its part through its own setter, which copies what it needs: the
 * SMF its DNN list and slices, the AMF its TACs and slices, the UDM the network defaults.
 */
#ifndef SOLOCORE_CORE_LIVE_H
#define SOLOCORE_CORE_LIVE_H

struct amf;
struct conf;
struct smf;
struct udm;

struct core_live {
	struct conf *conf;   /* the configuration the modules were started with: kept current */
	struct amf *amf;     /* each may be NULL (not running) */
	struct smf *smf;
	struct udm *udm;
};

/* web_settings_env.apply: apply the keys of want (WEB_LIVE_*) of c, then copy them into
 * l->conf; returns the keys applied (a key a module refused waits for the next start). */
unsigned core_live_apply(void *l, const struct conf *c, unsigned want);

#endif
