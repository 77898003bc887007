/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Telling the running core what an API write changed. web/ stores the row and updates the
 * UDM; what follows for attached UEs (a new UE-AMBR to the gNB, session-AMBR modifications)
 * is the composition root's to do (core.c), so web/ calls no AMF or SMF function for it.
 */
#include "web/web_int.h"

void web_set_change_ops(struct web *web, const struct web_change_ops *ops)
{
	web->chg = ops ? *ops : (struct web_change_ops){ 0 };
}

void web_changed_subscriber(struct web *web, const char *supi)
{
	if (web->chg.subscriber)
		web->chg.subscriber(web->chg.arg, supi);
}

void web_changed_policy(struct web *web, const char *name)
{
	if (web->chg.policy)
		web->chg.policy(web->chg.arg, name);
}
