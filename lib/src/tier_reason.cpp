// SPDX-License-Identifier: GPL-2.0
#include "tier_reason.hpp"

#include <cerrno>

#include "sysfs.hpp"

namespace cxltier::internal {

namespace {

std::string str(std::string_view s)
{
	return std::string(s);
}

// The kernel logs the precise cause of errors without a meaning of their own.
std::string generic(std::string_view what, int err)
{
	return str(what) + " failed: " + errno_text(-err) + " (the kernel log says why: dmesg | grep cxltier)";
}

// -EBUSY from tier_add: someone else has the region or its range.
std::string add_busy(const std::string &r, const region_facts &facts)
{
	const std::string unbind =
		"echo dax_" + r + " > /sys/bus/cxl/drivers/cxl_dax_region/unbind";
	switch (facts.state) {
	case CXLTIER_CXL_REGION_STATE_DAX:
		return r + " is held by device_dax: free it with: " + unbind;
	case CXLTIER_CXL_REGION_STATE_SYSTEM_RAM:
		return r + " is onlined as System RAM by kmem: free it with: "
			   "daxctl offline-memory all && " + unbind;
	case CXLTIER_CXL_REGION_STATE_COMMITTED:
		return "the address range of " + r + " is claimed by another driver (see /proc/iomem)";
	default:
		break;
	}
	return r + " is held by device_dax or kmem, or its address range by another driver"
		   " (see cxltierctl list and /proc/iomem)";
}

// -EINVAL from tier_add, after this library checked the name and the adistance.
std::string add_invalid(const std::string &r, int adistance, const region_facts &facts)
{
	if (facts.known && !facts.mode.empty() && facts.mode != "ram")
		return r + " is a " + facts.mode + " region; only ram regions can be tiers";
	if (adistance > 0)
		return "the module refused " + r + " with adistance " + std::to_string(adistance) +
		       ": not a ram region, not aligned to memory blocks, or the adistance is out of its range"
		       " (dmesg | grep cxltier says which)";
	return r + " cannot be a tier: not a ram region or not aligned to memory blocks"
		   " (dmesg | grep cxltier says which)";
}

} // namespace

std::string tier_add_reason(std::string_view region, int adistance, int err,
			    const region_facts &facts)
{
	const std::string r(region);
	switch (-err) {
	case ENOENT:
		return "no CXL region " + r + " (see cxltierctl list)";
	case EEXIST:
		return r + " is already a tier (see cxltierctl tier list)";
	case ENXIO:
		return r + " is not committed: commit it with: echo 1 > /sys/bus/cxl/devices/" + r +
		       "/commit";
	case EBUSY:
		return add_busy(r, facts);
	case EINVAL:
		return add_invalid(r, adistance, facts);
	case ENODEV:
		return "the platform assigns no NUMA node to the address range of " + r;
	case EACCES:
	case EPERM:
		return "registering " + r + " as a tier needs root";
	case ENOMEM:
		return "not enough memory to register " + r + " (dmesg | grep cxltier says where)";
	}
	return generic("registering " + r + " as a tier", err);
}

std::string tier_remove_reason(std::string_view region, int err)
{
	const std::string r(region);
	switch (-err) {
	case ENOENT:
		return r + " is not a tier (see cxltierctl tier list)";
	case EBUSY:
		return "some pages of " + r + " cannot be moved; the tier stays online, nothing was lost";
	case EINTR:
		return "removing " + r + " was interrupted by a signal; the tier stays online, nothing was lost";
	case EACCES:
	case EPERM:
		return "removing the tier " + r + " needs root";
	}
	return generic("removing the tier " + r, err);
}

} // namespace cxltier::internal
