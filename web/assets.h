/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* web: files compiled into the binary by web/embed.py (NUL-terminated). */
#ifndef SOLOCORE_WEB_ASSETS_H
#define SOLOCORE_WEB_ASSETS_H

extern const char web_openapi_json[];   /* web/openapi.json */
extern const char web_ui_html[];        /* web/ui.html */

#endif
