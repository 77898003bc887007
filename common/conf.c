/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* placeholder: the runtime lands here */
#include "common/conf.h"
