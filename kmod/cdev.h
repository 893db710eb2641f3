/* SPDX-License-Identifier: GPL-2.0 */
/* cdev.c: /dev/cxltier and region files. */
#ifndef _CXLT_CDEV_H
#define _CXLT_CDEV_H

int cxlt_cdev_init(void);
void cxlt_cdev_exit(void);

#endif /* _CXLT_CDEV_H */
