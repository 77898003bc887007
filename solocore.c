/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* placeholder: the CLI lands here */
int main(void) { return 0; }
