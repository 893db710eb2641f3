// SPDX-License-Identifier: GPL-2.0
// Shared pools: attaching a CXL RAM region of a shared (multi-headed) device as a
// pool through the module's pool_attach command file, after taking its dax devices
// from device_dax (the module cannot claim memory a driver holds), and detaching
// it through pool_detach.
#include <cerrno>
#include <climits>
#include <cstdint>

#include "ctx.hpp"
#include "dax_sysfs.hpp"
#include "export.hpp"
#include "pool.hpp"
#include "tier.hpp"

namespace cxltier::internal {

namespace {

constexpr const char *params_dir = "module/cxltier/parameters";
constexpr const char *host_id_param = "module/cxltier/parameters/host_id";

// Module parameter @name under the standard sysfs root, within [0, @max].
int read_param(cxltier_ctx *ctx, const char *name, std::uint64_t max, unsigned int *out)
{
	if (!out)
		return -EINVAL;
	const fs::path sys = ctx->snap->numa.sys_root;
	const fs::path file = sys / params_dir / name;
	auto text = read_attr(file);
	if (!text) {
		if (text.err().code != -ENOENT)
			return fail(ctx, std::move(text).err());
		if (std::error_code ec; !fs::exists(sys / "module/cxltier", ec))
			return fail(ctx, {-ENOENT, "cxltier module not loaded (" +
							   (sys / "module/cxltier").string() + " missing)"});
		return fail(ctx, {-EOPNOTSUPP, file.string() + " missing: this cxltier module "
								"has no shared pools"});
	}
	auto v = parse_u64_dec(file, *text);
	if (!v)
		return fail(ctx, std::move(v).err());
	if (*v > max)
		return fail(ctx, {-EBADMSG, file.string() + ": " + std::to_string(*v) +
						    " is out of range [0, " + std::to_string(max) + "]"});
	*out = static_cast<unsigned int>(*v);
	return 0;
}

// pool_attach or pool_detach cannot be opened: not loaded, no shared pools, or
// not root (@what: "attaching region5").
error command_missing(cxltier_ctx *ctx, const fs::path &file, int err, const std::string &what)
{
	if (err == -ENOENT) {
		std::error_code ec;
		if (!fs::exists(ctx->root, ec))
			return {-ENOENT, "cxltier module not loaded (" + ctx->root + " missing)"};
		return {-EOPNOTSUPP, file.string() + " missing: this cxltier module has no shared pools"};
	}
	if (err == -EACCES || err == -EPERM)
		return {err, what + " needs root"};
	return {err, file.string() + ": cannot open: " + errno_text(-err)};
}

// "host 3", or "the module parameter host_id" for 0.
std::string host_words(unsigned int host_id)
{
	return host_id ? "host id " + std::to_string(host_id) : "the module parameter host_id";
}

std::string attach_reason(const std::string &r, unsigned int host_id, int err,
			  const std::vector<dax_device> &devs)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		return "attaching " + r + " needs root";
	case EINVAL:
		return "the module refused to attach " + r + " with " + host_words(host_id) +
		       ": ids are 1 to " + std::to_string(max_pool_host) +
		       (host_id ? "" : "; give one, or set the module parameter (/sys/" +
						std::string(host_id_param) + ")");
	case ENODEV:
	case ENOENT:
		return "no CXL RAM region " + r + " (see cxltierctl cxl-region list)";
	case EEXIST:
		return r + " is attached already (see cxltierctl pool stat " + r + ")";
	case EBUSY:
		for (const auto &d : devs)
			if (!d.driver.empty() && d.driver != "device_dax")
				return r + " is busy: its dax device " + d.name + " is bound to " + d.driver;
		return r + " is busy: its memory is System RAM or claimed by a driver, or the record of " +
		       host_words(host_id) + " belongs to another host whose heartbeat is live "
					     "(every host needs an id of its own)";
	}
	return "attaching " + r + " failed: " + errno_text(-err) +
	       " (the kernel log says why: dmesg | grep cxltier)";
}

std::string detach_reason(const std::string &r, int err)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		return "detaching " + r + " needs root";
	case ENOENT:
		return "no shared pool " + r + " is attached on this host (see cxltierctl pool list)";
	case EBUSY:
		return "a region of " + r + " is open or mapped on this host (see cxltierctl region list)";
	}
	return "detaching " + r + " failed: " + errno_text(-err) +
	       " (the kernel log says why: dmesg | grep cxltier)";
}

// The devices @unbound go back to device_dax after a failed attach, so that a
// refusal leaves the region as it was.  What could not be put back is named in
// the reason, with the command that does it.
std::string rebind(const fs::path &sys, const std::vector<std::string> &unbound)
{
	std::string left;
	for (const auto &d : unbound) {
		if (dax_bind(sys, d, "device_dax").err == 0)
			continue;
		left += "; " + d + " is left without a driver (bind it again: echo " + d + " > " +
			dax_driver_file("/sys", "device_dax", "bind").string() + ")";
	}
	return left;
}

} // namespace

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT int cxltier_pool_attach(cxltier_ctx *ctx, const char *region, unsigned int host_id)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (auto bad = check_pool_name(region))
			return fail(ctx, *bad);
		if (host_id > max_pool_host)
			return fail(ctx, {-EINVAL, "host id " + std::to_string(host_id) +
							   " is out of range (1 to " +
							   std::to_string(max_pool_host) + ", 0: the module parameter)"});
		const std::string r = region;
		const fs::path sys = ctx->snap->numa.sys_root;
		const fs::path file = fs::path(ctx->root) / "pool_attach";
		// Nothing is unbound for a module that could not take the memory anyway.
		if (std::error_code ec; !fs::exists(file, ec))
			return fail(ctx, command_missing(ctx, file, -ENOENT, "attaching " + r));
		if (!host_id) {
			auto param = read_attr(sys / host_id_param);
			if (param && *param == "0")
				return fail(ctx, {-EINVAL, "no host id for " + r + ": give one (1 to " +
								   std::to_string(max_pool_host) +
								   ") or set the module parameter: echo ID > /sys/" +
								   host_id_param});
		}

		auto devs = region_dax_devices(sys, r);
		if (!devs)
			return fail(ctx, std::move(devs).err());
		// Memory onlined here cannot be shared: every host would use it as its own.
		for (const auto &d : *devs)
			if (d.driver == "kmem")
				return fail(ctx, {-EBUSY, r + " is System RAM on this host (" + d.name +
								  " is bound to kmem): take it offline and give it "
								  "back to device_dax first: daxctl "
								  "reconfigure-device --mode=devdax --force " + d.name});
		std::vector<std::string> unbound;
		for (const auto &d : *devs) {
			if (d.driver != "device_dax")
				continue;
			write_result w = dax_unbind(sys, d);
			if (w.err) {
				std::string why = w.err == -EACCES || w.err == -EPERM
							  ? "needs root"
							  : errno_text(-w.err);
				return fail(ctx, {w.err, "cannot take " + d.name + " of " + r +
								 " from device_dax: " + why + rebind(sys, unbound)});
			}
			unbound.push_back(d.name);
		}

		std::string value = r;
		if (host_id)
			value += " host=" + std::to_string(host_id);
		write_result w = write_attr(file, value);
		if (w.err == 0)
			return 0;
		error e = w.opened ? error{w.err, attach_reason(r, host_id, w.err, *devs)}
				   : command_missing(ctx, file, w.err, "attaching " + r);
		e.msg += rebind(sys, unbound);
		return fail(ctx, std::move(e));
	});
}

CXLTIER_EXPORT int cxltier_pool_detach(cxltier_ctx *ctx, const char *region)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (auto bad = check_pool_name(region))
			return fail(ctx, *bad);
		const fs::path file = fs::path(ctx->root) / "pool_detach";
		write_result w = write_attr(file, region);
		if (w.err == 0)
			return 0;
		if (!w.opened)
			return fail(ctx, command_missing(ctx, file, w.err, "detaching " + std::string(region)));
		return fail(ctx, {w.err, detach_reason(region, w.err)});
	});
}

CXLTIER_EXPORT int cxltier_get_host_id(cxltier_ctx *ctx, unsigned int *host_id)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error,
			    [&] { return read_param(ctx, "host_id", max_pool_host, host_id); });
}

CXLTIER_EXPORT int cxltier_get_pool_lease_ms(cxltier_ctx *ctx, unsigned int *lease_ms)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error,
			    [&] { return read_param(ctx, "pool_lease_ms", UINT_MAX, lease_ms); });
}
