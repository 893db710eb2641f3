// SPDX-License-Identifier: GPL-2.0
// The CXL topology through libcxl and libdaxctl (ndctl): memdevs with their
// serial, capacity and PCI device; regions under every root decoder with their
// range, interleave, targets and commit state; and, from the dax devices inside a
// region's range, whether the region is device-dax or System RAM and its node.
//
// libcxl 76 has no cxl_region_get_mode() and no link from a region to its dax
// region, so the mode is the first target decoder's and dax devices are matched to
// regions by their physical address.
#include "platform.hpp"

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <memory>

#include <cxl/libcxl.h>
#include <daxctl/libdaxctl.h>

#include "sysfs.hpp"

namespace cxltier::internal {

namespace {

struct cxl_ctx_unref {
	void operator()(cxl_ctx *c) const noexcept { cxl_unref(c); }
};
struct daxctl_ctx_unref {
	void operator()(daxctl_ctx *c) const noexcept { daxctl_unref(c); }
};
using cxl_ctx_ptr = std::unique_ptr<cxl_ctx, cxl_ctx_unref>;
using daxctl_ctx_ptr = std::unique_ptr<daxctl_ctx, daxctl_ctx_unref>;

// The library reports failures through its results; ndctl's default logging to
// stderr would print into cxltierctl's tables.
void quiet_cxl(cxl_ctx *, int, const char *, int, const char *, const char *, va_list) {}
void quiet_daxctl(daxctl_ctx *, int, const char *, int, const char *, const char *, va_list) {}

// libcxl reads "no value" as all ones (a serial the device did not report, a
// region without a resource yet).
std::uint64_t or_zero(unsigned long long v)
{
	return v == ULLONG_MAX ? 0 : v;
}

std::string str(const char *s)
{
	return s ? s : "";
}

cxl_memdev_data memdev_data(cxl_memdev *m)
{
	return {
		.name = str(cxl_memdev_get_devname(m)),
		.serial = or_zero(cxl_memdev_get_serial(m)),
		.ram_size = or_zero(cxl_memdev_get_ram_size(m)),
		.pmem_size = or_zero(cxl_memdev_get_pmem_size(m)),
		.host = str(cxl_memdev_get_host(m)),
	};
}

cxltier_cxl_region_mode mode_of(cxl_decoder *d)
{
	switch (cxl_decoder_get_mode(d)) {
	case CXL_DECODER_MODE_RAM:
		return CXLTIER_CXL_REGION_MODE_RAM;
	case CXL_DECODER_MODE_PMEM:
		return CXLTIER_CXL_REGION_MODE_PMEM;
	default:
		return CXLTIER_CXL_REGION_MODE_UNKNOWN;
	}
}

cxl_region_data region_data(cxl_region *r)
{
	cxl_region_data d{
		.name = str(cxl_region_get_devname(r)),
		.mode = CXLTIER_CXL_REGION_MODE_UNKNOWN,
		.start = or_zero(cxl_region_get_resource(r)),
		.size = or_zero(cxl_region_get_size(r)),
		.interleave_ways = cxl_region_get_interleave_ways(r),
		.interleave_granularity = cxl_region_get_interleave_granularity(r),
		.targets = {},
		.state = cxl_region_decode_is_committed(r) == 1 ? CXLTIER_CXL_REGION_STATE_COMMITTED
								: CXLTIER_CXL_REGION_STATE_UNCOMMITTED,
		.dax_node = -1,
	};
	if (d.interleave_ways == UINT_MAX)
		d.interleave_ways = 0;
	if (d.interleave_granularity == UINT_MAX)
		d.interleave_granularity = 0;
	if (d.size == 0)
		d.start = 0;
	for (unsigned int pos = 0; pos < d.interleave_ways && pos <= INT_MAX; pos++) {
		cxl_decoder *t = cxl_region_get_target_decoder(r, static_cast<int>(pos));
		if (!t)
			continue; // a position not set yet
		if (d.mode == CXLTIER_CXL_REGION_MODE_UNKNOWN)
			d.mode = mode_of(t);
		if (cxl_memdev *m = cxl_decoder_get_memdev(t))
			d.targets.push_back(str(cxl_memdev_get_devname(m)));
	}
	// Without targets yet, a root decoder that takes one kind of memory only says
	// which the region is.
	if (d.mode == CXLTIER_CXL_REGION_MODE_UNKNOWN) {
		cxl_decoder *root = cxl_region_get_decoder(r);
		bool ram = root && cxl_decoder_is_volatile_capable(root);
		bool pmem = root && cxl_decoder_is_pmem_capable(root);
		if (ram != pmem)
			d.mode = ram ? CXLTIER_CXL_REGION_MODE_RAM : CXLTIER_CXL_REGION_MODE_PMEM;
	}
	return d;
}

// The dax devices whose range lies in a committed region's: enabled, the region is
// device-dax; bound to kmem (it then has a memory object), System RAM.
void join_dax(daxctl_ctx *dax, std::vector<cxl_region_data> &regions)
{
	daxctl_region *dr;
	daxctl_region_foreach(dax, dr)
	{
		daxctl_dev *dev;
		daxctl_dev_foreach(dr, dev)
		{
			std::uint64_t start = or_zero(daxctl_dev_get_resource(dev));
			if (!start || !or_zero(daxctl_dev_get_size(dev)))
				continue; // a seed device without a range
			for (auto &r : regions) {
				if (r.state == CXLTIER_CXL_REGION_STATE_UNCOMMITTED || !r.size ||
				    start < r.start || start - r.start >= r.size)
					continue;
				if (r.dax_node < 0)
					r.dax_node = daxctl_dev_get_target_node(dev);
				if (!daxctl_dev_is_enabled(dev))
					break;
				if (daxctl_dev_get_memory(dev))
					r.state = CXLTIER_CXL_REGION_STATE_SYSTEM_RAM;
				else if (r.state != CXLTIER_CXL_REGION_STATE_SYSTEM_RAM)
					r.state = CXLTIER_CXL_REGION_STATE_DAX;
				break;
			}
		}
	}
}

} // namespace

result<cxl_topology> read_cxl_libcxl()
{
	cxl_ctx *raw = nullptr;
	if (int rc = cxl_new(&raw); rc < 0)
		return error{rc, std::string("libcxl: cannot start: ") + errno_text(-rc)};
	cxl_ctx_ptr cxl(raw);
	cxl_set_log_fn(cxl.get(), quiet_cxl);

	cxl_topology topo;
	cxl_memdev *m;
	cxl_memdev_foreach(cxl.get(), m)
		topo.memdevs.push_back(memdev_data(m));

	// Regions hang off the root decoders, the decoders of each bus's root port.
	cxl_bus *bus;
	cxl_bus_foreach(cxl.get(), bus)
	{
		cxl_port *port = cxl_bus_get_port(bus);
		if (!port)
			continue;
		cxl_decoder *dec;
		cxl_decoder_foreach(port, dec)
		{
			cxl_region *r;
			cxl_region_foreach(dec, r)
				topo.regions.push_back(region_data(r));
		}
	}

	daxctl_ctx *draw = nullptr;
	if (int rc = daxctl_new(&draw); rc < 0)
		return error{rc, std::string("libdaxctl: cannot start: ") + errno_text(-rc)};
	daxctl_ctx_ptr dax(draw);
	daxctl_set_log_fn(dax.get(), quiet_daxctl);
	join_dax(dax.get(), topo.regions);
	return topo;
}

} // namespace cxltier::internal
