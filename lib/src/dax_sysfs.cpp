// SPDX-License-Identifier: GPL-2.0
// The one place libcxltier drives the dax bus through sysfs by hand:
//   <sys>/bus/cxl/devices/<region>/dax_<region>/dax<N>.<M>/driver  (a link)
//   <sys>/bus/dax/drivers/<driver>/unbind, bind
// libcxl 76 has no link from a region to its dax region (platform_libcxl.cpp
// matches them by address instead, which cannot tell several dax devices of one
// region apart), and libdaxctl, like libcxl, reads the real /sys only; <sys> is
// CXLTIER_SYS_ROOT, so tests can use a fake tree as node_sysfs.cpp's do.
#include "dax_sysfs.hpp"

#include <algorithm>
#include <cerrno>

namespace cxltier::internal {

namespace {

// "dax3.0": a dax device, not one of the dax region's attributes or links.
bool is_dax_device(std::string_view name)
{
	if (!name.starts_with("dax"))
		return false;
	name.remove_prefix(3);
	std::size_t dot = name.find('.');
	auto digits = [](std::string_view s) {
		return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
	};
	return dot != std::string_view::npos && digits(name.substr(0, dot)) &&
	       digits(name.substr(dot + 1));
}

} // namespace

result<std::vector<dax_device>> region_dax_devices(const fs::path &sys, std::string_view region)
{
	fs::path dir = sys / "bus/cxl/devices" / region / ("dax_" + std::string(region));
	auto names = list_subdirs(dir);
	if (!names)
		return std::move(names).err();
	std::vector<dax_device> devs;
	for (const auto &n : *names) {
		if (!is_dax_device(n))
			continue;
		std::error_code ec;
		fs::path target = fs::read_symlink(dir / n / "driver", ec);
		if (ec && ec != std::errc::no_such_file_or_directory)
			return error{-ec.value(), (dir / n / "driver").string() + ": cannot read the link: " +
							  errno_text(ec.value())};
		devs.push_back({n, ec ? std::string() : target.filename().string()});
	}
	return devs;
}

fs::path dax_driver_file(const fs::path &sys, std::string_view driver, const char *verb)
{
	return sys / "bus/dax/drivers" / driver / verb;
}

write_result dax_unbind(const fs::path &sys, const dax_device &dev)
{
	return write_attr(dax_driver_file(sys, dev.driver, "unbind"), dev.name);
}

write_result dax_bind(const fs::path &sys, const std::string &dev, std::string_view driver)
{
	return write_attr(dax_driver_file(sys, driver, "bind"), dev);
}

} // namespace cxltier::internal
