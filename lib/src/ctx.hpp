// SPDX-License-Identifier: GPL-2.0
// The library context: the sysfs root, where the CXL topology and NUMA nodes come
// from, the current snapshot and the last error.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "platform.hpp"
#include "snapshot.hpp"

struct cxltier_ctx {
	std::atomic<int> refs{1};
	std::string root; // as given by CXLTIER_SYSFS or the default, for messages
	std::string last_error;
	std::unique_ptr<cxltier::internal::platform_source> platform; // never null
	std::unique_ptr<cxltier::internal::snapshot> snap; // never null once created
};

namespace cxltier::internal {

// Records @err as the context's last error and returns its code.
int fail(cxltier_ctx *ctx, error err);

} // namespace cxltier::internal
