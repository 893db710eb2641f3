// SPDX-License-Identifier: GPL-2.0
/*
 * cxltier: tiered CXL memory for Linux.
 */
#include <linux/module.h>

static int __init cxlt_init(void)
{
	return 0;
}

static void __exit cxlt_exit(void)
{
}

module_init(cxlt_init);
module_exit(cxlt_exit);
MODULE_DESCRIPTION("Tiered CXL memory: tiers, global regions, migration and fencing");
MODULE_LICENSE("GPL");
