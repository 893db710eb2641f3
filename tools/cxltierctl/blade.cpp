// SPDX-License-Identifier: GPL-2.0
// cxltierctl blade ...: CXL memory devices: list them with their fencing and
// draining counters, fence a failed one, drain one before it is removed (with
// progress), and put one back in service.
#include <cerrno>
#include <chrono>
#include <memory>
#include <optional>

#include <fmt/core.h>

#include "cxltierctl.hpp"
#include "progress.hpp"

namespace cxltierctl {

namespace {

// A counter of the module's, or JSON null from a module that predates them.
json counter_json(const cxltier_blade *b, std::uint64_t (*get)(const cxltier_blade *))
{
	return cxltier_blade_has_recovery_counters(b) ? json(get(b)) : json(nullptr);
}

std::string counter_cell(const cxltier_blade *b, std::uint64_t (*get)(const cxltier_blade *))
{
	return cxltier_blade_has_recovery_counters(b) ? std::to_string(get(b)) : "-";
}

} // namespace

json blades_json(cxltier_ctx *ctx, const list_filter *f)
{
	json arr = json::array();
	for (cxltier_blade *b : cxltier::blades(ctx)) {
		if (f && !f->blade(b))
			continue;
		arr.push_back({
			{"name", cxltier_blade_get_name(b)},
			{"serial", cxltier_blade_get_serial(b)},
			{"ram_size", cxltier_blade_get_ram_size(b)},
			{"pmem_size", cxltier_blade_get_pmem_size(b)},
			{"pci_dev", cxltier_blade_get_pci_dev(b)},
			{"state", cxltier_blade_state_name(cxltier_blade_get_state(b))},
			{"cxl_regions", names_json(cxltier::cxl_regions_of(b))},
			{"fenced_pages", counter_json(b, cxltier_blade_get_fenced_pages)},
			{"fence_us", counter_json(b, cxltier_blade_get_fence_us)},
			{"drained_pages", counter_json(b, cxltier_blade_get_drained_pages)},
			{"drain_left", counter_json(b, cxltier_blade_get_drain_left)},
			{"drain_us", counter_json(b, cxltier_blade_get_drain_us)},
			{"poisoned_pages", counter_json(b, cxltier_blade_get_poisoned_pages)},
		});
	}
	return arr;
}

void print_blades(cxltier_ctx *ctx, const list_filter *f)
{
	if (!cxltier_blade_get_first(ctx)) {
		fmt::print("No blades found.\n");
		return;
	}
	table t({{"BLADE"},
		 {"SERIAL"},
		 {"RAM", true},
		 {"PMEM", true},
		 {"PCI-DEV"},
		 {"STATE"},
		 {"FENCED", true},
		 {"DRAINED", true},
		 {"CXL-REGIONS"}});
	for (cxltier_blade *b : cxltier::blades(ctx)) {
		if (f && !f->blade(b))
			continue;
		// A fenced blade whose memdev is gone has no PCI device any more.
		const char *pci = cxltier_blade_get_pci_dev(b);
		t.add({
			cxltier_blade_get_name(b),
			fmt::format("{:#x}", cxltier_blade_get_serial(b)),
			human_size(cxltier_blade_get_ram_size(b)),
			human_size(cxltier_blade_get_pmem_size(b)),
			*pci ? pci : "-",
			cxltier_blade_state_name(cxltier_blade_get_state(b)),
			counter_cell(b, cxltier_blade_get_fenced_pages),
			counter_cell(b, cxltier_blade_get_drained_pages),
			join(cxltier::cxl_regions_of(b), ",", "-"),
		});
	}
	if (t.size())
		t.print();
	else
		fmt::print("No blades match.\n");
}

namespace {

struct drain_options {
	std::string blade;
	double interval = 1.0; // seconds between progress lines
};

// "1.250 s", "850 ms", "12 us".
// Fails with the library's reason when @rc is an error.
void check_result(cxltier_ctx *ctx, int rc)
{
	if (rc)
		throw fatal(library_error(ctx, rc));
}

// Parse-time check of BLADE arguments (the library checks again).
std::string check_blade_name(const std::string &s)
{
	if (s.empty())
		return "a blade name such as mem0 is expected";
	if (s.find_first_of(" \t\n\r\v\f") != std::string::npos)
		return fmt::format("'{}' is not a blade name: it contains whitespace", s);
	if (s.size() > 31)
		return fmt::format("'{}' is not a blade name: longer than 31 bytes", s);
	return "";
}

// The blade named @name in a fresh snapshot of @ctx, or nullptr.
cxltier_blade *fresh(cxltier_ctx *ctx, const std::string &name)
{
	if (cxltier_refresh(ctx) != 0)
		return nullptr;
	return cxltier_blade_get_by_name(ctx, name.c_str());
}

void blade_list(bool json_out)
{
	auto ctx = open_ctx();
	if (!json_out) {
		print_blades(ctx.get());
		return;
	}
	json doc = list_document(ctx.get());
	doc["blades"] = blades_json(ctx.get());
	print_json(doc);
}

void blade_fence(const std::string &name, bool json_out)
{
	auto ctx = open_ctx();
	if (json_out) {
		// Nothing on stdout but the blade, as blade list --json has it.
		check_result(ctx.get(), cxltier_blade_fence(ctx.get(), name.c_str()));
		if (int rc = cxltier_refresh(ctx.get()); rc != 0)
			throw fatal(library_error(ctx.get(), rc));
		list_filter only{{name}, {}, {}};
		json doc = list_document(ctx.get());
		doc["blades"] = blades_json(ctx.get(), &only);
		print_json(doc);
		return;
	}
	fmt::print("fencing {}... ", name);
	std::fflush(stdout);
	if (int rc = cxltier_blade_fence(ctx.get(), name.c_str()); rc != 0) {
		fmt::print("failed\n");
		std::fflush(stdout);
		check_result(ctx.get(), rc);
	}
	cxltier_blade *b = fresh(ctx.get(), name);
	if (!b || !cxltier_blade_has_recovery_counters(b)) {
		fmt::print("done\n");
		return;
	}
	fmt::print("done: {} fenced in {}\n", pages_text(cxltier_blade_get_fenced_pages(b)),
		   duration_text(cxltier_blade_get_fence_us(b)));
}

void blade_restore(const std::string &name)
{
	auto ctx = open_ctx();
	check_result(ctx.get(), cxltier_blade_restore(ctx.get(), name.c_str()));
	fmt::print("{} is back in service\n", name);
}

// --- blade drain --------------------------------------------------------------------

// One progress line from drain_left and drained_pages; empty until the drain shows.
class drain_progress {
public:
	explicit drain_progress(std::string blade) : blade_(std::move(blade)), start_(steady::now()) {}

	std::string line(const cxltier_blade *b)
	{
		auto now = steady::now();
		if (!b || cxltier_blade_get_state(b) != CXLTIER_BLADE_STATE_DRAINING)
			return "";
		if (!cxltier_blade_has_recovery_counters(b))
			return fmt::format("draining {}...", blade_);
		std::uint64_t drained = cxltier_blade_get_drained_pages(b);
		// The rate over the last interval; at first, since the drain began (its
		// count starts from 0).
		double since = std::chrono::duration<double>(now - (seen_ ? last_time_ : start_)).count();
		std::uint64_t base = seen_ && drained >= last_drained_ ? last_drained_ : 0;
		double rate = since > 0 ? static_cast<double>(drained - base) / since : 0;
		seen_ = true;
		last_time_ = now;
		last_drained_ = drained;
		return fmt::format("draining {}: {} left, {} moved, {:.0f} pages/s", blade_,
				   pages_text(cxltier_blade_get_drain_left(b)), drained, rate);
	}

	double elapsed() const { return std::chrono::duration<double>(steady::now() - start_).count(); }

private:
	std::string blade_;
	steady::time_point start_;
	steady::time_point last_time_;
	std::uint64_t last_drained_ = 0;
	bool seen_ = false;
};

void blade_drain(const drain_options &o)
{
	auto ctx = open_ctx();
	// Said here, before a thread starts, for the commonest mistake.
	if (!cxltier_blade_get_by_name(ctx.get(), o.blade.c_str()))
		throw fatal(fmt::format("no blade {} (see cxltierctl blade list)", o.blade));

	drain_progress progress(o.blade);
	progress_output out;
	int rc = 0;
	std::string reason;
	{
		interrupt_signals signals;
		blocking_write writer(
			[&o](cxltier_ctx *c) { return cxltier_blade_drain(c, o.blade.c_str()); },
			fmt::format("draining {} was interrupted before it began; nothing was changed",
				    o.blade));
		while (!writer.wait_for(std::chrono::duration<double>(o.interval))) {
			if (interrupt_signal)
				writer.interrupt();
			out.show(progress.line(fresh(ctx.get(), o.blade)));
		}
		rc = writer.result();
		reason = writer.reason();
	}
	out.end();
	if (rc)
		throw fatal(reason);

	cxltier_blade *b = fresh(ctx.get(), o.blade);
	std::string state = b ? cxltier_blade_state_name(cxltier_blade_get_state(b)) : "gone";
	if (!b || !cxltier_blade_has_recovery_counters(b)) {
		fmt::print("{} drained in {:.3f} s; state {}\n", o.blade, progress.elapsed(), state);
		return;
	}
	std::uint64_t pages = cxltier_blade_get_drained_pages(b);
	std::uint64_t us = cxltier_blade_get_drain_us(b);
	double secs = us ? static_cast<double>(us) / 1e6 : progress.elapsed();
	fmt::print("{} drained: {} moved in {}, {:.0f} pages/s; state {}\n", o.blade, pages_text(pages),
		   duration_text(us ? us : static_cast<std::uint64_t>(secs * 1e6)),
		   secs > 0 ? static_cast<double>(pages) / secs : 0.0, state);
}

} // namespace

void add_blade_command(CLI::App &app, action &run)
{
	auto *noun = app.add_subcommand("blade", "CXL memory devices (blades)");
	noun->require_subcommand(0, 1);
	CLI::Validator blade_name(check_blade_name, "BLADE", "blade name");

	auto *list = noun->add_subcommand("list",
					  "List blades with their state and fenced and drained pages");
	auto json_out = std::make_shared<bool>(false);
	list->add_flag("-j,--json", *json_out, "Print JSON instead of a table");
	list->callback([&run, json_out] { run = [json_out] { blade_list(*json_out); }; });

	auto *fence = noun->add_subcommand(
		"fence", "Fence a failed blade: its pages are lost, their next access is SIGBUS (needs root)");
	auto fence_name = std::make_shared<std::string>();
	auto force = std::make_shared<bool>(false);
	fence->add_option("BLADE", *fence_name, "Blade (memdev) name, such as mem0")
		->required()
		->check(blade_name);
	fence->add_flag("--force", *force, "Fence it: the data of every page on it is lost");
	auto fence_json = std::make_shared<bool>(false);
	fence->add_flag("-j,--json", *fence_json,
			"Print the fenced blade as JSON (as blade list --json) instead of progress");
	fence->callback([&run, fence_name, force, fence_json] {
		if (!*force)
			throw CLI::ValidationError(
				"fence", fmt::format("the data of every page on {} would be lost, and every "
						     "process that maps one gets SIGBUS; add --force to fence it",
						     *fence_name));
		run = [fence_name, fence_json] { blade_fence(*fence_name, *fence_json); };
	});

	auto *drain = noun->add_subcommand(
		"drain", "Move every page off a blade and take it out of service (needs root)");
	auto d = std::make_shared<drain_options>();
	drain->add_option("BLADE", d->blade, "Blade (memdev) name, such as mem0")
		->required()
		->check(blade_name);
	drain->add_option("--interval", d->interval, "Seconds between progress lines (default 1)")
		->check(CLI::Range(0.05, 3600.0));
	drain->callback([&run, d] { run = [d] { blade_drain(*d); }; });

	auto *restore = noun->add_subcommand(
		"restore", "Put a drained or fenced blade back in service (needs root)");
	auto restore_name = std::make_shared<std::string>();
	restore->add_option("BLADE", *restore_name, "Blade (memdev) name, such as mem0")
		->required()
		->check(blade_name);
	restore->callback(
		[&run, restore_name] { run = [restore_name] { blade_restore(*restore_name); }; });
}

} // namespace cxltierctl
