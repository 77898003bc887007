/* SPDX-License-Identifier: AGPL-3.0-or-later */
#include <stdio.h>
int main(void)
{
	puts("not written yet");
	return 77;
}
