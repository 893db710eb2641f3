// SPDX-License-Identifier: GPL-2.0
#include <cerrno>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

cxltier::ctx_ptr open_ctx()
{
	int err = 0;
	auto ctx = cxltier::make_ctx(err);
	if (ctx)
		return ctx;
	std::string reason = cxltier_get_last_error(nullptr);
	if (reason.empty())
		reason = cxltier_strerror(err);
	// The one failure every new user meets; say how to fix it.
	if (err == -ENOENT)
		throw fatal(fmt::format("{}; load it with: modprobe cxltier", reason));
	throw fatal(reason);
}

} // namespace cxltierctl
