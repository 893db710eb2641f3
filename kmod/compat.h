/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxltier: what differs between the kernels the module is built for.
 *
 * Built and tested: Debian's 6.12 (make check) and the newest kernel Debian ships,
 * 7.3 (make check KERNEL=newest).  Each shim below says what changed and how it is
 * told apart: by the kernel's own types, or by kmod/Kbuild's probes of its headers
 * (CXLT_HAVE_*), so that no version number has to be right for the kernels in between
 * (which are not built); one prototype no header shows is told by the kernel's version
 * in kmod/Kbuild (the last shim).
 * Everything else in the module is written the same for both.
 */
#ifndef CXLT_COMPAT_H
#define CXLT_COMPAT_H

#include <linux/sysfs.h>

/*
 * struct folio_batch: <linux/pagevec.h> in 6.12, <linux/folio_batch.h> in 7.3 (the
 * header was renamed when pagevec went away); kmod/Kbuild looks for the new one.
 */
#ifdef CXLT_HAVE_FOLIO_BATCH_H
#include <linux/folio_batch.h>
#else
#include <linux/pagevec.h>
#endif

/*
 * Binary sysfs attributes: their read/write callbacks and attribute_group.bin_attrs
 * take plain struct bin_attribute pointers in 6.12 and const ones in 7.3 (the
 * "constify bin_attribute" series).  The pointer type is the one the kernel's own
 * attribute_group holds, for the array and for the callbacks' parameter (where the
 * top-level const it may carry does not change the function's type).
 */
#define cxlt_bin_attr_t typeof(((struct attribute_group *)NULL)->bin_attrs[0])

/*
 * The CXL core's cxl_general_media and cxl_dram tracepoints, whose probes fence on
 * media event records (failure.c), gained an argument after hpa in 6.15, hpa_alias0
 * ("cxl: Add extended linear cache address alias emission for cxl events"): a probe
 * of the other prototype takes that number for the record's address and crashes (it
 * did, on 7.3: pagestate.media_events).  They are declared in
 * drivers/cxl/core/trace.h, which no headers package ships, so kmod/Kbuild tells by
 * the kernel's version (CXLT_HAVE_MEDIA_HPA_ALIAS).  CXLT_MEDIA_ALIAS_PARAM is the
 * parameter, with its comma.
 */
#ifdef CXLT_HAVE_MEDIA_HPA_ALIAS
#define CXLT_MEDIA_ALIAS_PARAM	u64 hpa_alias0,
#else
#define CXLT_MEDIA_ALIAS_PARAM
#endif

#endif /* CXLT_COMPAT_H */
