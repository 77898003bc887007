/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * qos - facts about standardized 5QI values that provisioning (db/) and session
 * management (smf/) both need.
 */
#ifndef SOLOCORE_COMMON_QOS_H
#define SOLOCORE_COMMON_QOS_H

#include <stdbool.h>

/* TS 23.501 table 5.7.4-1: GBR 1-4, 65-67, 71-76; delay-critical GBR 82-85. A subscribed
 * default 5QI must be a non-GBR one (TS 23.501 5.7.2.7), so these are refused at
 * provisioning and at PDU session establishment. */
static inline bool qos_5qi_is_gbr(unsigned q)
{
	return (q >= 1 && q <= 4) || (q >= 65 && q <= 67) || (q >= 71 && q <= 76) || (q >= 82 && q <= 85);
}

#endif
