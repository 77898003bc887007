/* SPDX-License-Identifier: AGPL-3.0-or-later */
#ifndef SOLOCORE_COMMON_CONF_H
#define SOLOCORE_COMMON_CONF_H
#endif
