// SPDX-License-Identifier: GPL-2.0
// cxltierctl manage, unmanage, managed: opt processes and cgroups in and out of
// process mode, where the service cxltier-procd tiers their anonymous memory, and
// show what it does with them.  The opt-ins, the service's pid and its status are
// files in its state directory (tools/procd/state.hpp): opting in needs no
// connection to the service and outlives a restart of it.
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include <fmt/core.h>

#include "cxltierctl.hpp"
#include "state.hpp"

namespace fs = std::filesystem;

namespace cxltierctl {

namespace {

using cxlt_procd::target;

constexpr const char *not_running = "cxltier-procd is not running (start it: systemctl start "
				    "cxltier-procd)";

// status.json counts 4 KiB pages whatever the host's page size.
constexpr std::uint64_t status_page_size = 4096;

// A target's counters in status.json, in the order of its entries.
constexpr const char *counters[] = {"pages",	"fast_pages", "slow_pages", "promoted",
				    "demoted", "failed",     "skipped"};

// --- the targets ------------------------------------------------------------------

// "1234" as a pid; nullopt unless a decimal number above 0 that fits a pid_t.
std::optional<pid_t> parse_pid(std::string_view s)
{
	long long v = 0;
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (ec != std::errc() || end != s.data() + s.size() || v <= 0 || v > INT_MAX)
		return std::nullopt;
	return static_cast<pid_t>(v);
}

// --pid's check at parse time: a malformed one is a usage error.
std::string check_pid(const std::string &s)
{
	return parse_pid(s) ? "" : fmt::format("'{}' is not a process id (a number above 0)", s);
}

// A line of /proc/PID/@file; "" when there is none.
std::string proc_line(pid_t pid, const char *file)
{
	std::ifstream f(fmt::format("/proc/{}/{}", pid, file));
	std::string s;
	std::getline(f, s);
	return s;
}

// The process @pid is a thread of (Tgid: in /proc/PID/status), when it says.
std::optional<pid_t> tgid_of(pid_t pid)
{
	std::ifstream f(fmt::format("/proc/{}/status", pid));
	for (std::string line; std::getline(f, line);)
		if (line.starts_with("Tgid:")) {
			auto digits = line.find_first_not_of(" \t", 5);
			return digits == std::string::npos ? std::nullopt
							   : parse_pid(std::string_view(line).substr(digits));
		}
	return std::nullopt;
}

// "pid 1234 (python3)", or "pid 1234" without a name.
std::string pid_label(pid_t pid, const std::string &comm)
{
	return comm.empty() ? fmt::format("pid {}", pid) : fmt::format("pid {} ({})", pid, comm);
}

// The opt-in of the live process @pid, or fatal with why it cannot be managed.
target pid_target(pid_t pid, std::optional<pid_t> service)
{
	auto start = cxlt_procd::process_starttime(pid);
	if (!start) {
		std::error_code ec;
		if (fs::exists(fmt::format("/proc/{}", pid), ec))
			throw fatal(fmt::format("pid {} is a kernel thread: it has no memory to manage",
						pid));
		throw fatal(fmt::format("no process {}", pid));
	}
	if (pid == ::getpid())
		throw fatal(fmt::format("pid {} is cxltierctl itself", pid));
	if (service && pid == *service)
		throw fatal(fmt::format("pid {} is cxltier-procd itself", pid));
	// /proc/TID works for any thread, but an opt-in is of a whole process.
	if (auto tgid = tgid_of(pid); tgid && *tgid != pid)
		throw fatal(fmt::format("pid {} is a thread of process {} (manage --pid {})", pid,
					*tgid, *tgid));
	target t;
	t.what = target::kind::pid;
	t.pid = pid;
	t.starttime = *start;
	return t;
}

// The directory cgroup paths are relative to: CXLTIER_CGROUP_ROOT (for tests) or
// the cgroup2 mount, symbolic links resolved.
fs::path cgroup_root()
{
	const char *r = std::getenv("CXLTIER_CGROUP_ROOT");
	fs::path root = r && *r ? r : "/sys/fs/cgroup";
	std::error_code ec;
	fs::path c = fs::weakly_canonical(root, ec);
	return ec ? root.lexically_normal() : c;
}

// @path (absolute, or relative to @root) made absolute and normal, with symbolic
// links resolved as far as it exists: the path an opt-in stores.
fs::path cgroup_path(const fs::path &root, const std::string &path)
{
	fs::path p = fs::path(path).is_absolute() ? fs::path(path) : root / path;
	std::error_code ec;
	fs::path n = fs::weakly_canonical(p, ec);
	if (ec)
		n = p.lexically_normal();
	while (n.has_relative_path() && !n.has_filename()) // "job/"
		n = n.parent_path();
	return n;
}

// The opt-in of the cgroup @path, with the number of processes in it now, or fatal
// when it is not a cgroup below the root.
target cgroup_target(const std::string &path, std::size_t *nr_procs)
{
	fs::path root = cgroup_root();
	fs::path p = cgroup_path(root, path);
	fs::path rel = p.lexically_relative(root);
	if (rel.empty() || *rel.begin() == "..")
		throw fatal(fmt::format("not a cgroup v2 directory: {} (not under {})", p.string(),
					root.string()));
	if (rel == ".")
		throw fatal(fmt::format("{} is the root cgroup, which holds every process on the "
					"host: manage a cgroup below it",
					p.string()));
	std::error_code ec;
	std::optional<std::vector<pid_t>> pids;
	if (fs::is_directory(p, ec) && fs::is_regular_file(p / "cgroup.procs", ec))
		pids = cxlt_procd::cgroup_pids(p.string());
	if (!pids)
		throw fatal(fmt::format("not a cgroup v2 directory: {}", p.string()));
	*nr_procs = pids->size();
	target t;
	t.what = target::kind::cgroup;
	t.cgroup = p.string();
	return t;
}

std::string target_label(const target &t)
{
	return t.what == target::kind::pid ? fmt::format("pid {}", t.pid) : "cgroup " + t.cgroup;
}

struct target_options {
	std::vector<std::string> pids;
	std::string cgroup;
	std::uint64_t fast = 0; // manage --fast: the target's own limit on DRAM
	bool no_service_check = false;
};

void write_or_fail(const std::string &dir, const target &t)
{
	try {
		cxlt_procd::write_target(dir, t);
	} catch (const std::system_error &e) { // std::filesystem_error too
		throw fatal(fmt::format("cannot write {}/managed/{}: {}", dir, t.file_name(),
					e.code().message()));
	}
}

void manage(const target_options &o)
{
	const std::string dir = cxlt_procd::state_dir();
	auto service = cxlt_procd::service_pid(dir);
	struct wanted {
		target t;
		std::string label;
		std::string detail; // after "managing LABEL"
	};
	// Every target is checked before any is written.
	std::vector<wanted> want;
	if (!o.cgroup.empty()) {
		std::size_t n = 0;
		target t = cgroup_target(o.cgroup, &n);
		std::string label = target_label(t);
		want.push_back({std::move(t), std::move(label),
				fmt::format(" ({} process{})", n, n == 1 ? "" : "es")});
	} else {
		std::set<pid_t> seen;
		for (const auto &s : o.pids) {
			pid_t pid = parse_pid(s).value_or(0); // checked at parse time
			if (!seen.insert(pid).second)
				continue;
			target t = pid_target(pid, service);
			want.push_back({std::move(t), pid_label(pid, proc_line(pid, "comm")), ""});
		}
	}
	if (!service && !o.no_service_check)
		throw fatal(not_running);

	auto have = cxlt_procd::read_targets(dir);
	for (auto &w : want) {
		w.t.fast_bytes = o.fast;
		// A pid's opt-in of an earlier process with that pid is replaced, and one
		// with another --fast is updated.
		bool already = std::any_of(have.begin(), have.end(), [&](const target &h) {
			return h.file_name() == w.t.file_name() && h.starttime == w.t.starttime &&
			       h.fast_bytes == w.t.fast_bytes;
		});
		if (already) {
			fmt::print("{} is already managed\n", w.label);
			continue;
		}
		write_or_fail(dir, w.t);
		fmt::print("managing {}{}\n", w.label, w.detail);
	}
	if (!service)
		fmt::print(stderr, "cxltierctl: cxltier-procd is not running: it takes the opt-in up "
				   "when it starts\n");
}

void unmanage(const target_options &o)
{
	const std::string dir = cxlt_procd::state_dir();
	std::vector<target> targets;
	if (!o.cgroup.empty()) {
		// The cgroup may be gone already: only its path is needed.
		target t;
		t.what = target::kind::cgroup;
		t.cgroup = cgroup_path(cgroup_root(), o.cgroup).string();
		targets.push_back(std::move(t));
	} else {
		std::set<pid_t> seen;
		for (const auto &s : o.pids) {
			target t;
			t.pid = parse_pid(s).value_or(0); // checked at parse time
			if (seen.insert(t.pid).second)
				targets.push_back(std::move(t));
		}
	}
	// Each failure as it comes, the rest done all the same.
	bool failed = false;
	for (const auto &t : targets) {
		if (cxlt_procd::remove_target(dir, t)) {
			fmt::print("no longer managing {}\n", target_label(t));
			continue;
		}
		int err = errno;
		std::string file = dir + "/managed/" + t.file_name();
		std::error_code ec;
		std::string why = fs::exists(fs::symlink_status(file, ec))
					  ? fmt::format("cannot remove {}: {}", file, std::strerror(err))
					  : fmt::format("{} is not managed", target_label(t));
		fmt::print(stderr, "cxltierctl: {}\n", why);
		failed = true;
	}
	if (failed)
		throw already_reported();
}

// --- the status -------------------------------------------------------------------

std::uint64_t count(const json &o, const char *key)
{
	auto it = o.find(key);
	return it != o.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

std::string text(const json &o, const char *key)
{
	auto it = o.find(key);
	return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

// DIR/status.json when it is the running service's; null otherwise (none yet, not
// JSON, or left by a service that has stopped or restarted since).
json read_status(const std::string &dir, std::optional<pid_t> service)
{
	if (!service)
		return nullptr;
	std::ifstream f(dir + "/status.json");
	if (!f)
		return nullptr;
	json doc = json::parse(f, nullptr, false);
	if (doc.is_discarded() || !doc.is_object())
		return nullptr;
	auto svc = doc.find("service");
	if (svc == doc.end() || !svc->is_object() || count(*svc, "pid") != std::uint64_t(*service))
		return nullptr;
	if (auto t = doc.find("targets"); t == doc.end() || !t->is_array())
		doc["targets"] = json::array();
	return doc;
}

// @status's entry for the target named @name (target::file_name()), or null.
json entry_of(const json &status, const std::string &name)
{
	if (status.is_null())
		return nullptr;
	for (const auto &e : status["targets"])
		if (e.is_object() && text(e, "target") == name)
			return e;
	return nullptr;
}

// An opt-in the service has not reported on yet, shaped as its entries are.
json pending_entry(const target &t)
{
	bool is_pid = t.what == target::kind::pid;
	json e = {
		{"target", t.file_name()},
		{"kind", is_pid ? "pid" : "cgroup"},
		{"pid", is_pid ? json(t.pid) : json(nullptr)},
		{"cgroup", is_pid ? json(nullptr) : json(t.cgroup)},
		{"state", "pending"},
		{"reason", ""},
	};
	for (const char *c : counters)
		e[c] = 0;
	e["processes"] = json::array();
	return e;
}

// "pid 1234 (python3)": the name as the service saw it, else the live process's.
std::string row_label(const target &t, const json &e)
{
	if (t.what == target::kind::cgroup)
		return target_label(t);
	if (auto procs = e.find("processes"); procs != e.end() && procs->is_array())
		for (const auto &p : *procs)
			if (p.is_object() && count(p, "pid") == std::uint64_t(t.pid) &&
			    !text(p, "comm").empty())
				return pid_label(t.pid, text(p, "comm"));
	std::string comm;
	if (cxlt_procd::process_starttime(t.pid) == t.starttime)
		comm = proc_line(t.pid, "comm");
	return pid_label(t.pid, comm);
}

std::string size_of(const json &e, const char *key)
{
	return human_size(count(e, key) * status_page_size);
}

void managed(bool json_out)
{
	const std::string dir = cxlt_procd::state_dir();
	auto service = cxlt_procd::service_pid(dir);
	json status = read_status(dir, service);
	auto targets = cxlt_procd::read_targets(dir);

	std::vector<json> entries;
	for (const auto &t : targets) {
		json e = entry_of(status, t.file_name());
		entries.push_back(e.is_null() ? pending_entry(t) : std::move(e));
	}

	if (json_out) {
		json svc = nullptr;
		if (!status.is_null())
			svc = status["service"];
		else if (service)
			svc = {{"pid", *service},
			       {"period", nullptr},
			       {"period_ms", nullptr},
			       {"budget_mbps", nullptr},
			       {"flush_ms", nullptr},
			       {"cpu_ms", nullptr}};
		json arr = json::array();
		for (auto &e : entries)
			arr.push_back(std::move(e));
		print_json({{"service", svc}, {"targets", arr}});
		return;
	}

	if (!service)
		fmt::print("cxltier-procd is not running\n");
	else if (status.is_null())
		fmt::print("cxltier-procd is running (pid {}, no status yet)\n", *service);
	else
		fmt::print("cxltier-procd is running (pid {}, period {})\n", *service,
			   count(status["service"], "period"));
	if (targets.empty()) {
		fmt::print("No targets are managed (opt one in: cxltierctl manage --pid PID or "
			   "--cgroup PATH).\n");
		return;
	}
	table t({{"TARGET"},
		 {"STATE"},
		 {"PAGES", true},
		 {"FAST", true},
		 {"SLOW", true},
		 {"PROMOTED", true},
		 {"DEMOTED", true},
		 {"FAILED", true},
		 {"SKIPPED", true}});
	std::vector<std::string> notes;
	for (std::size_t i = 0; i < targets.size(); i++) {
		const json &e = entries[i];
		std::string label = row_label(targets[i], e), state = text(e, "state");
		t.add({label, state.empty() ? "-" : state, size_of(e, "pages"),
		       size_of(e, "fast_pages"), size_of(e, "slow_pages"),
		       std::to_string(count(e, "promoted")), std::to_string(count(e, "demoted")),
		       std::to_string(count(e, "failed")), std::to_string(count(e, "skipped"))});
		if (std::string reason = text(e, "reason"); !reason.empty())
			notes.push_back(fmt::format("{}: {}: {}", label, state, reason));
	}
	t.print();
	for (const auto &n : notes)
		fmt::print("{}\n", n);
}

// --pid (several) or --cgroup (one), exactly one of the two.
void add_target_options(CLI::App *cmd, target_options &o)
{
	auto *pid = cmd->add_option("--pid", o.pids, "A process, by its pid (may be repeated)")
			    ->type_name("PID")
			    ->check(CLI::Validator(check_pid, ""))
			    ->take_all();
	auto *cgroup = cmd->add_option("--cgroup", o.cgroup,
				       "A cgroup v2 directory, absolute or relative to "
				       "/sys/fs/cgroup")
			       ->type_name("PATH");
	pid->excludes(cgroup);
}

void require_target(const CLI::App *cmd, const target_options &o)
{
	if (o.pids.empty() && o.cgroup.empty())
		throw CLI::ValidationError(cmd->get_name(), "give --pid PID or --cgroup PATH");
}

} // namespace

int require_procd()
{
	auto pid = cxlt_procd::service_pid(cxlt_procd::state_dir());
	if (!pid)
		throw fatal(not_running);
	return *pid;
}

json procd_target_status(const std::string &name)
{
	const std::string dir = cxlt_procd::state_dir();
	return entry_of(read_status(dir, cxlt_procd::service_pid(dir)), name);
}

void add_manage_command(CLI::App &app, action &run)
{
	auto *cmd = app.add_subcommand(
		"manage", "Opt a process or cgroup into process mode: cxltier-procd tiers its "
			  "anonymous memory");
	auto o = std::make_shared<target_options>();
	add_target_options(cmd, *o);
	cmd->add_option("--fast", o->fast,
			"At most this much of its memory on DRAM (such as 512M); colder pages go "
			"to CXL first.  Default: what DRAM has free")
		->transform(CLI::AsSizeValue(false));
	cmd->add_flag("--no-service-check", o->no_service_check,
		      "Opt in even when cxltier-procd is not running (it takes the opt-in up "
		      "when it starts)");
	cmd->callback([&run, cmd, o] {
		require_target(cmd, *o);
		run = [o] { manage(*o); };
	});
}

void add_unmanage_command(CLI::App &app, action &run)
{
	auto *cmd = app.add_subcommand("unmanage", "Take a process or cgroup out of process mode");
	auto o = std::make_shared<target_options>();
	add_target_options(cmd, *o);
	cmd->callback([&run, cmd, o] {
		require_target(cmd, *o);
		run = [o] { unmanage(*o); };
	});
}

void add_managed_command(CLI::App &app, action &run)
{
	auto *cmd = app.add_subcommand(
		"managed", "List the processes and cgroups in process mode, with what cxltier-procd "
			   "did with them");
	auto json_out = std::make_shared<bool>(false);
	cmd->add_flag("-j,--json", *json_out, "Print JSON instead of a table");
	cmd->callback([&run, json_out] { run = [json_out] { managed(*json_out); }; });
}

} // namespace cxltierctl
