// SPDX-License-Identifier: GPL-2.0
/*
 * cxltier-ckpt-job: a job that survives the failure of a blade under its data.
 *
 * It keeps one counter per page of a global region (a stand-in for model state), adds
 * one to every counter each iteration and checkpoints the counters to DRAM after
 * each.  When a blade under the region fails, cxltier fences its pages: the next
 * access is SIGBUS.  The job installed libcxltier's fence handler; its callback notes
 * the page as lost (async-signal-safe: an atomic flag and a write(2)) and asks for a
 * fresh page, the access runs again, and the job restores the page from its
 * checkpoint and goes on.  At the end every counter must equal the iteration count.
 *
 *   cxltier-ckpt-job [--region NAME] [--mib N] [--iterations N] [--pause-ms N]
 *
 * Exit status: 0 when every page verified, 1 when one did not, 2 for bad usage or a
 * library error.
 */
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cxltier.h"

namespace {

constexpr size_t kPage = 4096;

struct Lost {
	std::unique_ptr<std::atomic<uint8_t>[]> page;	// 1: fenced, to restore
	std::atomic<uint64_t> count{0};
	uint64_t first_offset = 0;
	char *base = nullptr;
};

Lost lost;

// Signal context: only atomics, formatting into a stack buffer, and write(2).
cxltier_fence_action on_fence(const cxltier_fence_event *ev, void *)
{
	size_t page = ev->offset / kPage;
	char line[256];
	int n;

	uint64_t nth;

	lost.page[page].store(1, std::memory_order_relaxed);
	nth = lost.count.fetch_add(1, std::memory_order_relaxed);
	// The first few by name; the pass lines count the rest.
	if (nth < 3)
		n = snprintf(line, sizeof(line),
			     "ckpt-job: page %zu of %s fenced (blade %s, %s): replacing it, restoring from the checkpoint\n",
			     page, ev->region, ev->blade[0] ? ev->blade : "?",
			     cxltier_event_cause_name(ev->cause));
	else if (nth == 3)
		n = snprintf(line, sizeof(line), "ckpt-job: more pages fenced (blade %s): counted below\n",
			     ev->blade[0] ? ev->blade : "?");
	else
		return CXLTIER_FENCE_RETRY_REPLACE;
	if (n > 0 && write(STDOUT_FILENO, line, std::min<size_t>(n, sizeof(line) - 1)) < 0)
		(void)0;
	return CXLTIER_FENCE_RETRY_REPLACE;
}

struct CtxDeleter {
	void operator()(cxltier_ctx *c) const { cxltier_unref(c); }
};
struct RegionDeleter {
	void operator()(cxltier_region *r) const { cxltier_region_close(r); }
};

int fail(cxltier_ctx *ctx, const char *what, int rc)
{
	fmt::print(stderr, "ckpt-job: {}: {} ({})\n", what, cxltier_strerror(rc),
		   ctx ? cxltier_get_last_error(ctx) : "");
	return 2;
}

} // namespace

int main(int argc, char **argv)
{
	std::string name = fmt::format("ckpt-job.{}", getpid());
	unsigned mib = 8, iterations = 20, pause_ms = 200;
	CLI::App app{"A checkpointing job that survives a failed blade (libcxltier example)"};

	app.add_option("--region", name, "global region to create and use");
	app.add_option("--mib", mib, "region size in MiB")->check(CLI::Range(1, 1024));
	app.add_option("--iterations", iterations, "passes over the data")->check(CLI::Range(1, 100000));
	app.add_option("--pause-ms", pause_ms, "pause between passes")->check(CLI::Range(0, 60000));
	CLI11_PARSE(app, argc, argv);

	cxltier_ctx *raw = nullptr;
	int rc = cxltier_new(&raw);
	if (rc)
		return fail(nullptr, "cannot start libcxltier", rc);
	std::unique_ptr<cxltier_ctx, CtxDeleter> ctx(raw);

	const size_t pages = size_t(mib) << 20 >> 12;
	rc = cxltier_region_create(ctx.get(), name.c_str(), pages * kPage,
				   CXLTIER_REGION_POLICY_INTERLEAVE, 0600, nullptr, 0, nullptr);
	if (rc)
		return fail(ctx.get(), "cannot create the region", rc);
	cxltier_region *rraw = nullptr;
	rc = cxltier_region_open(ctx.get(), name.c_str(), CXLTIER_REGION_RDWR, &rraw);
	if (rc) {
		cxltier_region_destroy(ctx.get(), name.c_str());
		return fail(ctx.get(), "cannot open the region", rc);
	}
	std::unique_ptr<cxltier_region, RegionDeleter> region(rraw);
	void *addr = nullptr;
	rc = cxltier_region_map(region.get(), &addr);
	if (rc) {
		cxltier_region_destroy(ctx.get(), name.c_str());
		return fail(ctx.get(), "cannot map the region", rc);
	}
	// The name goes now; the memory stays while mapped.
	cxltier_region_destroy(ctx.get(), name.c_str());

	lost.page = std::make_unique<std::atomic<uint8_t>[]>(pages);
	lost.base = static_cast<char *>(addr);
	rc = cxltier_fence_handler_install(on_fence, nullptr);
	if (rc)
		return fail(ctx.get(), "cannot install the fence handler", rc);

	auto *data = static_cast<char *>(addr);
	std::vector<uint64_t> ckpt(pages, 0);
	uint64_t restored = 0;
	auto counter = [&](size_t p) -> volatile uint64_t & {
		return *reinterpret_cast<volatile uint64_t *>(data + p * kPage);
	};

	fmt::print("ckpt-job: {} MiB region {} ({} pages, interleaved over the CXL tiers), {} passes\n",
		   mib, name, pages, iterations);
	std::fflush(stdout);
	for (unsigned it = 1; it <= iterations; it++) {
		for (size_t p = 0; p < pages; p++) {
			uint64_t v = counter(p);	// may fault: the handler replaces the page
			if (lost.page[p].exchange(0)) {
				v = ckpt[p];
				restored++;
			}
			counter(p) = v + 1;
		}
		for (size_t p = 0; p < pages; p++) {
			uint64_t v = counter(p);
			// Lost after this pass updated it: replay the pass's update.
			if (lost.page[p].exchange(0)) {
				v = ckpt[p] + 1;
				counter(p) = v;
				restored++;
			}
			ckpt[p] = v;
		}
		fmt::print("ckpt-job: pass {}/{} done, {} pages lost so far, {} restored\n", it,
			   iterations, lost.count.load(), restored);
		std::fflush(stdout);
		std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
	}

	size_t bad = 0;
	for (size_t p = 0; p < pages; p++) {
		uint64_t v = counter(p);

		if (lost.page[p].exchange(0)) {
			counter(p) = v = ckpt[p];
			restored++;
		}
		bad += v != iterations;
	}
	cxltier_fence_handler_remove();
	fmt::print("ckpt-job: finished: {} passes over {} pages; {} pages lost to fenced blades and restored from the checkpoint; {}\n",
		   iterations, pages, restored,
		   bad ? fmt::format("{} pages WRONG", bad) : std::string("every page verified"));
	return bad ? 1 : 0;
}
