// SPDX-License-Identifier: GPL-2.0
// cxltier-slurm-gres: keeps Slurm's count-only GRES "cxlmem" (bytes) equal to the
// CXL memory cxltier offers on this node: the capacity of the NUMA nodes of its
// usable tiers, by the rule the placement planner has for CXL nodes (cxltier.h,
// "Job placement"): not fenced, every blade under the tier online.  Jobs then ask
// for it (--gres=cxlmem:16G) and the scheduler sends them where there is some; the
// plugin (cxltier_spank.so, --cxl-slow) places their memory on the node.  A shared
// pool attached here is reported too: the license and node feature "cxlpool" that
// slurm.conf gives it (--cxl-pool), for the admin to copy; Slurm 22.05 cannot
// change a license's count at run time, so nothing is updated for it.
//
//   cxltier-slurm-gres [--node NAME] [--conf FILE] [--update] [--watch [--interval S]] [--json]
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "cxltier.hpp"

namespace {

using json = nlohmann::ordered_json;
using namespace std::chrono_literals;

constexpr const char *prog = "cxltier-slurm-gres";
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;
// slurmctld may be slow to answer; an update must still end.
constexpr auto scontrol_timeout = 60s;

// A failure reported as "cxltier-slurm-gres: <what>", exit status 1.
class fatal : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

struct options {
	std::string node;
	std::string conf;
	bool update = false;
	bool watch = false;
	unsigned int interval = 60;
	bool json_out = false;
};

// --- what cxltier offers --------------------------------------------------------

struct tier_offer {
	std::string name;
	int node = -1;
	std::uint64_t bytes = 0; // the node's capacity; 0 when the node is not online
	std::string unusable;	 // why nothing goes there, "" when usable
};

// A shared pool attached here.
struct pool_offer {
	std::string name; // its CXL region here
	std::string state;
	std::string uuid; // the same on every host
	std::uint64_t bytes = 0, free = 0;
	bool online() const { return state == "online"; }
	// slurm.conf's license for it: whole MiB of its space.
	std::string license() const { return fmt::format("cxlpool:{}", bytes >> 20); }
};

struct offer {
	bool module = true; // false: no cxltier module, nothing offered
	std::vector<tier_offer> tiers;
	std::vector<pool_offer> pools;
	std::uint64_t count() const
	{
		std::uint64_t sum = 0;
		for (const auto &t : tiers)
			sum += t.unusable.empty() ? t.bytes : 0;
		return sum;
	}
};

// tiers/<region>/state ("online", "fenced", "offline"): the C ABI has no call for
// it, and the planner skips all but online.  A module older than fencing has no
// such file: online, as the library reads it.
std::string tier_state(cxltier_ctx *ctx, const char *tier)
{
	std::string path = std::string(cxltier_get_sysfs_root(ctx)) + "/tiers/" + tier + "/state";
	std::ifstream f(path);
	if (!f) {
		struct stat st;
		if (::stat(path.c_str(), &st) != 0 && errno == ENOENT)
			return "online";
		return "unreadable (" + path + ")";
	}
	std::string s;
	std::getline(f, s);
	return s;
}

// Why nothing new should go to @t, "" when it is usable (as the planner's rule).
std::string unusable(cxltier_ctx *ctx, cxltier_tier *t)
{
	std::string state = tier_state(ctx, cxltier_tier_get_name(t));
	if (state != "online")
		return "the tier is " + state;
	for (const char *name : cxltier::blades_of(t)) {
		const cxltier_blade *b = cxltier_blade_get_by_name(ctx, name);
		if (b && cxltier_blade_get_state(b) != CXLTIER_BLADE_STATE_ONLINE)
			return fmt::format("blade {} is {}", name,
					   cxltier_blade_state_name(cxltier_blade_get_state(b)));
	}
	return "";
}

offer measure(cxltier_ctx *ctx)
{
	offer o;
	for (cxltier_tier *t : cxltier::tiers(ctx)) {
		tier_offer to;
		to.name = cxltier_tier_get_name(t);
		to.node = cxltier_tier_get_node(t);
		const cxltier_node *n = cxltier_node_get_by_id(ctx, to.node);
		to.unusable = unusable(ctx, t);
		if (!n) {
			if (to.unusable.empty())
				to.unusable = fmt::format("node {} is not online", to.node);
		} else {
			to.bytes = cxltier_node_get_mem_total(n);
		}
		o.tiers.push_back(std::move(to));
	}
	cxltier_pool *p;
	for_each_cxltier_pool(ctx, p)
		if (cxltier_pool_is_shared(p))
			o.pools.push_back({cxltier_pool_get_name(p),
					   cxltier_pool_state_name(cxltier_pool_get_state(p)),
					   cxltier_pool_get_uuid(p), cxltier_pool_get_size(p),
					   cxltier_pool_get_free(p)});
	return o;
}

std::string library_error(const cxltier_ctx *ctx, int rc)
{
	std::string r = cxltier_get_last_error(ctx);
	return r.empty() ? cxltier_strerror(rc) : r;
}

// The context, made or refreshed; null without the module (a node without CXL
// offers none).  Other failures are fatal.
void refresh(cxltier::ctx_ptr &ctx)
{
	int rc = 0;
	if (ctx) {
		rc = cxltier_refresh(ctx.get());
		if (rc == 0)
			return;
		if (rc != -ENOENT)
			throw fatal(library_error(ctx.get(), rc));
		ctx.reset();
		return;
	}
	ctx = cxltier::make_ctx(rc);
	if (!ctx && rc != -ENOENT)
		throw fatal(library_error(nullptr, rc));
}

// --- publishing it ------------------------------------------------------------------

std::string gres_line(const std::string &node, std::uint64_t count)
{
	return fmt::format("NodeName={} Name=cxlmem Count={} Flags=CountOnly", node, count);
}

json offer_json(const std::string &node, const offer &o)
{
	json tiers = json::array();
	for (const auto &t : o.tiers)
		tiers.push_back({{"tier", t.name},
				 {"node", t.node},
				 {"bytes", t.bytes},
				 {"usable", t.unusable.empty()},
				 {"reason", t.unusable.empty() ? json(nullptr) : json(t.unusable)}});
	json pools = json::array();
	for (const auto &p : o.pools)
		pools.push_back({{"pool", p.name},
				 {"state", p.state},
				 {"uuid", p.uuid},
				 {"bytes", p.bytes},
				 {"free", p.free},
				 {"license", p.online() ? json(p.license()) : json(nullptr)}});
	return {{"node_name", node},
		{"gres", "cxlmem"},
		{"count", o.count()},
		{"module", o.module},
		{"tiers", tiers},
		{"shared_pools", pools},
		{"line", gres_line(node, o.count())}};
}

// What slurm.conf needs for the shared pools attached here (comment lines).
std::string pool_lines(const offer &o)
{
	std::string s;
	for (const auto &p : o.pools)
		s += p.online() ? fmt::format("# shared pool {} (uuid {}): slurm.conf Licenses={}, "
					      "and Features=cxlpool for this node\n",
					      p.name, p.uuid, p.license())
				: fmt::format("# shared pool {} is {}: no license for it\n", p.name,
					      p.state);
	return s;
}

// @path replaced whole (written aside, synced, renamed), so slurmd never reads half.
void write_conf(const std::string &path, const std::string &line)
{
	std::string tmp = path + ".tmp";
	std::string text = fmt::format("# Generated by {}: the CXL memory cxltier offers on this node, "
				       "in bytes (the\n"
				       "# NUMA nodes of its usable tiers).  Do not edit: it is "
				       "rewritten when that changes.\n"
				       "{}\n",
				       prog, line);
	std::FILE *f = std::fopen(tmp.c_str(), "we");
	if (!f)
		throw fatal(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
	bool ok = std::fputs(text.c_str(), f) >= 0 && std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
	int e = errno;
	if (std::fclose(f) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		std::remove(tmp.c_str());
		throw fatal(fmt::format("cannot write {}: {}", path, std::strerror(e)));
	}
}

// scontrol from PATH, else where Debian puts it (a service's PATH may lack it).
std::string scontrol_path()
{
	std::string p = cxltier_slurm::find_in_path("scontrol");
	return p.empty() ? "/usr/bin/scontrol" : p;
}

void update_slurm(const std::string &node, std::uint64_t count)
{
	std::vector<std::string> argv = {scontrol_path(), "update", "NodeName=" + node,
					 fmt::format("Gres=cxlmem:{}", count)};
	auto r = cxltier_slurm::run_command(argv, scontrol_timeout);
	if (!r.ok())
		throw fatal(fmt::format("scontrol update NodeName={} Gres=cxlmem:{} failed: {}", node,
					count, r.describe()));
}

// Everything asked for, for the offer @o now.
void publish(const options &opt, const std::string &node, const offer &o)
{
	if (!o.module)
		fmt::print(stderr, "{}: warning: this node has no cxltier module (its sysfs is "
				   "missing): cxlmem Count=0\n",
			   prog);
	if (opt.json_out)
		fmt::print("{}\n", offer_json(node, o).dump(-1, ' ', false, json::error_handler_t::replace));
	else
		fmt::print("{}\n{}", gres_line(node, o.count()), pool_lines(o));
	std::fflush(stdout);
	if (!opt.conf.empty())
		write_conf(opt.conf, gres_line(node, o.count()));
	if (opt.update)
		update_slurm(node, o.count());
}

offer current(cxltier::ctx_ptr &ctx)
{
	refresh(ctx);
	if (!ctx)
		return offer{.module = false, .tiers = {}, .pools = {}};
	return measure(ctx.get());
}

// --- --watch ------------------------------------------------------------------------

// A signal that ends the program ends it at once while it waits (nothing is half
// written then), else once the update under way is done.  SIGALRM, every
// --interval, ends a wait to look again for what the event log does not report:
// tiers added and removed, memory onlined.
volatile std::sig_atomic_t quit = 0;
volatile std::sig_atomic_t waiting = 0;
volatile std::sig_atomic_t tick = 0;

extern "C" void on_quit(int sig)
{
	if (waiting)
		::_exit(0);
	quit = sig;
}

extern "C" void on_tick(int)
{
	tick = 1;
}

class watch_signals {
public:
	explicit watch_signals(unsigned int interval)
	{
		struct sigaction sa = {};
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = on_quit; // no SA_RESTART: a wait must end
		for (std::size_t i = 0; i < std::size(quit_signals); i++)
			::sigaction(quit_signals[i], &sa, &old_[i]);
		sa.sa_handler = on_tick;
		::sigaction(SIGALRM, &sa, &old_alarm_);
		struct itimerval it = {};
		it.it_interval.tv_sec = interval;
		it.it_value.tv_sec = interval;
		::setitimer(ITIMER_REAL, &it, nullptr);
	}
	~watch_signals()
	{
		struct itimerval off = {};
		::setitimer(ITIMER_REAL, &off, nullptr);
		::sigaction(SIGALRM, &old_alarm_, nullptr);
		for (std::size_t i = 0; i < std::size(quit_signals); i++)
			::sigaction(quit_signals[i], &old_[i], nullptr);
	}
	watch_signals(const watch_signals &) = delete;
	watch_signals &operator=(const watch_signals &) = delete;

private:
	static constexpr int quit_signals[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction old_[std::size(quit_signals)];
	struct sigaction old_alarm_;
};

// Fences, drains and restores change what is usable; pages fenced, replaced or
// poisoned do not.
bool changes_capacity(cxltier_event_type type)
{
	return type == CXLTIER_EVENT_TYPE_FENCE || type == CXLTIER_EVENT_TYPE_DRAIN ||
	       type == CXLTIER_EVENT_TYPE_RESTORE;
}

// "blade mem1 fenced"
std::string event_text(const cxltier_event_list *l, std::size_t i)
{
	const char *blade = cxltier_event_list_get_blade(l, i);
	const char *what = "";
	switch (cxltier_event_list_get_type(l, i)) {
	case CXLTIER_EVENT_TYPE_FENCE:
		what = "fenced";
		break;
	case CXLTIER_EVENT_TYPE_DRAIN:
		what = "drained";
		break;
	case CXLTIER_EVENT_TYPE_RESTORE:
		what = "restored";
		break;
	default:
		what = cxltier_event_type_name(cxltier_event_list_get_type(l, i));
	}
	return fmt::format("blade {} {}", *blade ? blade : "?", what);
}

// Where the event log ends now (the next record's number), or nullopt when it
// cannot be read (no module, or one without an event log): then only --interval.
std::optional<std::uint64_t> log_end(cxltier_ctx *ctx, std::string &why)
{
	std::uint64_t seq = 0;
	for (;;) {
		int rc = 0;
		auto l = cxltier::read_events(ctx, seq, 0, rc);
		if (!l) {
			why = library_error(ctx, rc);
			return std::nullopt;
		}
		seq = cxltier_event_list_get_next_seq(l.get());
		if (!cxltier_event_list_get_count(l.get()))
			return seq;
	}
}

void watch(const options &opt, const std::string &node)
{
	watch_signals signals(opt.interval);
	std::optional<std::uint64_t> seq;
	bool try_events = true; // false after a failure, until the next look
	std::string no_events;	// why the log could not be read, once said
	auto events_failed = [&](const std::string &why) {
		seq.reset();
		try_events = false;
		if (why != no_events)
			fmt::print(stderr, "{}: note: {}; looking again every {} s\n", prog, why,
				   opt.interval);
		no_events = why;
	};
	// Where the log ends, taken before what it changes is looked at: a record
	// that comes meanwhile is then read, not skipped.
	auto find_log_end = [&](cxltier_ctx *ctx) {
		std::string why;
		seq = log_end(ctx, why);
		if (!seq)
			events_failed(why);
		return seq.has_value();
	};

	cxltier::ctx_ptr ctx;
	refresh(ctx);
	if (ctx)
		find_log_end(ctx.get());
	offer now = current(ctx);
	publish(opt, node, now); // the first failure is fatal: a wrong node name, say
	std::uint64_t published = now.count();
	bool pending = false; // the last update failed: try again

	while (!quit) {
		// Back to the log (after a failure, or the module came back): look once
		// more, for what happened before this position.
		if (ctx && !seq && try_events && find_log_end(ctx.get()))
			tick = 1;
		std::fflush(stdout);
		std::string because;
		int rc = 0;
		cxltier::event_list_ptr l;
		waiting = 1;
		if (!quit && !tick) {
			if (ctx && seq)
				l = cxltier::read_events(ctx.get(), *seq, CXLTIER_EVENT_READ_WAIT, rc);
			else
				::pause();
		}
		waiting = 0;
		if (quit)
			break;
		if (l) {
			for (std::size_t i = 0; i < cxltier_event_list_get_count(l.get()); i++)
				if (changes_capacity(cxltier_event_list_get_type(l.get(), i)))
					because += (because.empty() ? "" : ", ") + event_text(l.get(), i);
			seq = cxltier_event_list_get_next_seq(l.get());
		} else if (ctx && seq && rc != -EINTR) {
			events_failed(library_error(ctx.get(), rc)); // the module went away, say
		}
		bool looked = tick;
		tick = 0;
		try_events |= looked;
		if (because.empty() && !looked)
			continue;

		try {
			now = current(ctx);
		} catch (const fatal &e) {
			fmt::print(stderr, "{}: {}\n", prog, e.what());
			continue;
		}
		if (!ctx)
			seq.reset();
		// An event always updates; a look only when the count changed.
		if (because.empty() && now.count() == published && !pending)
			continue;
		if (!because.empty())
			fmt::print(stderr, "{}: {}: cxlmem Count={}\n", prog, because, now.count());
		try {
			publish(opt, node, now);
			published = now.count();
			pending = false;
		} catch (const fatal &e) {
			fmt::print(stderr, "{}: {} (trying again in {} s)\n", prog, e.what(), opt.interval);
			pending = true;
		}
	}
	std::fflush(stdout);
}

std::string short_hostname()
{
	char host[256] = {};
	if (::gethostname(host, sizeof(host) - 1) != 0)
		throw fatal(fmt::format("cannot get the host name: {}", std::strerror(errno)));
	std::string h = host;
	return h.substr(0, h.find('.'));
}

void run(const options &opt)
{
	std::string node = opt.node.empty() ? short_hostname() : opt.node;
	// It goes into gres.conf and onto scontrol's command line as one word.
	if (node.empty() || node.find_first_of(" \t\n=,") != std::string::npos)
		throw fatal(fmt::format("'{}' is not a node name", node));
	if (opt.watch)
		return watch(opt, node);
	cxltier::ctx_ptr ctx;
	publish(opt, node, current(ctx));
}

} // namespace

int main(int argc, char **argv)
{
	CLI::App app(
		"Keep Slurm's count-only GRES \"cxlmem\" equal to the CXL memory cxltier offers on "
		"this node: the capacity, in bytes, of the NUMA nodes of its usable tiers (not "
		"fenced, every blade under them online; cxltier's placement rule for CXL "
		"memory).  Prints the gres.conf line \"NodeName=NAME Name=cxlmem Count=BYTES Flags=CountOnly\".  "
		"A node without the cxltier module offers 0 (with a warning; exit status 0).\n\n"
		"Slurm needs GresTypes=cxlmem in slurm.conf and the node's Gres=cxlmem:<count> "
		"there or in gres.conf (which may Include the file --conf writes).  Jobs ask with "
		"--gres=cxlmem:16G.  Note that scontrol update replaces the node's whole Gres "
		"list, other GRES included.\n\n"
		"A shared pool attached here gets a comment line after it: \"# shared pool REGION "
		"(uuid UUID): slurm.conf Licenses=cxlpool:MIB, and Features=cxlpool for this node\", "
		"what slurm.conf needs for --cxl-pool (once for the cluster, on every node that "
		"attaches the pool).\n\n"
		"Exit status: 0, 1 on a failure (scontrol's output is shown), 2 for bad usage.",
		prog);
	options opt;
	app.add_option("--node", opt.node,
		       "The Slurm node name (default: this host's name, up to the first dot)")
		->type_name("NAME");
	app.add_option("--conf", opt.conf,
		       "Also write the line to FILE, a whole file with a header saying it is "
		       "generated, replaced atomically")
		->type_name("FILE");
	app.add_flag("--update", opt.update,
		     "Also run 'scontrol update NodeName=NAME Gres=cxlmem:BYTES' (scontrol from "
		     "PATH, else /usr/bin/scontrol; root or SlurmUser)");
	app.add_flag("--watch", opt.watch,
		     "After the first update, stay and update again when a blade is fenced, "
		     "drained or restored (the module's event log), and when the count changes "
		     "otherwise (tiers added or removed: looked at every --interval); ends on "
		     "SIGTERM or SIGINT with status 0");
	app.add_option("--interval", opt.interval,
		       "With --watch, look at the tiers every S seconds (default 60)")
		->type_name("S")
		->check(CLI::Range(1u, 86400u));
	app.add_flag("-j,--json", opt.json_out,
		     "Print JSON instead of the line: node_name, gres, count, module, tiers "
		     "(tier, node, bytes, usable, reason), shared_pools (pool, state, uuid, "
		     "bytes, free, license) and line; one object per line with --watch");
	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		if (e.get_exit_code() == 0) // --help
			return app.exit(e);
		fmt::print(stderr, "{}: {} (see {} --help)\n", prog, e.what(), prog);
		return exit_usage;
	}
	try {
		run(opt);
	} catch (const std::exception &e) {
		std::fflush(stdout);
		fmt::print(stderr, "{}: {}\n", prog, e.what());
		return exit_failure;
	}
	if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
		fmt::print(stderr, "{}: cannot write output: {}\n", prog, std::strerror(errno));
		return exit_failure;
	}
	return 0;
}
