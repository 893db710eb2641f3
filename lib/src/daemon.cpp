// SPDX-License-Identifier: GPL-2.0
// The migration daemon through the module's sysfs tree: a reading of its tunables,
// counters and heat histogram with the tiers' promotion and demotion counts, and
// setting tunables as one change (all checked first, undone if the module refuses
// one of them).
#include "daemon.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <set>
#include <sys/stat.h>

#include "ctx.hpp"
#include "export.hpp"
#include "region.hpp"
#include "tier.hpp"

namespace cxltier::internal {

namespace {

// In the order the ABI document lists them; cxltier_daemon_tunable_range() answers
// from here.  The module checks the same ranges: a write outside them fails there
// with EINVAL, so this copy only lets a change be refused before any of it is made.
constexpr tunable_range tunable_ranges[] = {
	{"enable", 0, 1},
	{"period_ms", 10, 60000},
	{"budget_mbps", 0, 65536},
	{"sample_mb", 1, 1048576},
	// Bounded by the module parameter fast_budget_mb, checked when set.
	{"wmark_low_mb", 0, UINT64_MAX},
	{"wmark_high_mb", 0, UINT64_MAX},
	{"decay_shift", 1, 8},
	{"idle_bits", 0, 30},
	{"burst_bits", 0, 30},
	{"confidence", 0, 255},
	{"hyst_steps", 0, 255},
	{"min_resid", 0, 255},
	{"idle_fdr", 1, 255},
	{"burst_fdr", 1, 255},
};

constexpr const char *counter_order[] = {
	"periods",	  "sampled_pages", "accessed_pages", "promoted_pages", "demoted_pages",
	"pingpong_pages", "skipped_pinned", "skipped_busy",  "failed_pages",	"moved_bytes",
	"batches",	  "cpu_ns",	   "arm_ns",	     "harvest_ns",	"decide_ns",
	"move_ns",	  "managed_pages", "fast_pages",     "metadata_bytes",
};

constexpr const char *heat_file = "heat";
constexpr const char *stats_dir = "stats";
constexpr const char *wmark_low = "wmark_low_mb";
constexpr const char *wmark_high = "wmark_high_mb";
// The fast budget the watermarks are bounded by, under the standard sysfs root.
constexpr const char *fast_budget_param = "module/cxltier/parameters/fast_budget_mb";

bool still_there(const fs::path &p)
{
	std::error_code ec;
	return fs::exists(p, ec);
}

error module_missing(const fs::path &root)
{
	return {-ENOENT, "cxltier module not loaded (" + root.string() + " missing)"};
}

error no_daemon(const fs::path &root)
{
	return {-EOPNOTSUPP, (root / "daemon").string() +
				     " missing: this cxltier module has no migration daemon"};
}

// A read of a file under @root failed: the module may have gone meanwhile.
error read_failure(const fs::path &root, error err)
{
	if (err.code != -ENOENT && err.code != -ENODEV)
		return err;
	if (!still_there(root))
		return module_missing(root);
	return err.code == -ENOENT ? error{-EBADMSG, std::move(err.msg)} : err;
}

// Position of @name in a documented order; unknown names sort after all of those.
template <std::size_t N>
std::size_t rank(const std::string &name, const char *const (&order)[N])
{
	for (std::size_t i = 0; i < N; i++)
		if (name == order[i])
			return i;
	return N;
}

std::size_t tunable_rank(const std::string &name)
{
	for (std::size_t i = 0; i < std::size(tunable_ranges); i++)
		if (name == tunable_ranges[i].name)
			return i;
	return std::size(tunable_ranges);
}

// The readable regular files of @dir: values.  Files without read permission
// are write-only commands, and subdirectories are other objects; neither is a value.
result<std::vector<std::string>> value_files(const fs::path &dir)
{
	std::vector<std::string> names;
	std::error_code ec;
	fs::directory_iterator it(dir, ec);
	if (ec)
		return error{-ec.value(), dir.string() + ": cannot list: " + errno_text(ec.value())};
	for (; it != fs::directory_iterator(); it.increment(ec)) {
		std::error_code st_ec;
		fs::file_status st = it->status(st_ec);
		if (st_ec || st.type() != fs::file_type::regular)
			continue;
		if ((st.permissions() & (fs::perms::owner_read | fs::perms::group_read |
					 fs::perms::others_read)) == fs::perms::none)
			continue;
		names.push_back(it->path().filename().string());
	}
	if (ec)
		return error{-ec.value(), dir.string() + ": cannot list: " + errno_text(ec.value())};
	return names;
}

// Every value file of @dir but @skip, parsed as decimal, sorted by @rank_of.
template <class Rank>
result<std::vector<cxltier_daemon::named>> read_values(const fs::path &root, const fs::path &dir,
						       const char *skip, Rank rank_of)
{
	auto names = value_files(dir);
	if (!names)
		return read_failure(root, std::move(names).err());
	std::sort(names->begin(), names->end(), [&](const std::string &a, const std::string &b) {
		std::size_t ra = rank_of(a), rb = rank_of(b);
		return ra != rb ? ra < rb : natural_less(a, b);
	});
	std::vector<cxltier_daemon::named> out;
	for (const auto &name : *names) {
		if (skip && name == skip)
			continue;
		auto text = read_attr(dir / name);
		if (!text)
			return read_failure(root, std::move(text).err());
		auto v = parse_u64_dec(dir / name, *text);
		if (!v)
			return std::move(v).err();
		out.emplace_back(name, *v);
	}
	return out;
}

result<std::vector<cxltier_daemon::named>> read_tunables(const fs::path &root)
{
	return read_values(root, root / "daemon", heat_file, tunable_rank);
}

std::uint64_t monotonic_ns()
{
	struct timespec ts;
	::clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
	       static_cast<std::uint64_t>(ts.tv_nsec);
}

} // namespace

const tunable_range *find_tunable_range(std::string_view name)
{
	for (const auto &t : tunable_ranges)
		if (name == t.name)
			return &t;
	return nullptr;
}

result<std::vector<std::pair<std::string, cxltier_daemon::buckets>>>
parse_heat(const fs::path &file, std::string_view text)
{
	std::vector<std::pair<std::string, cxltier_daemon::buckets>> out;
	std::size_t pos = 0;
	while (pos < text.size()) {
		std::size_t nl = text.find('\n', pos);
		std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
		pos = nl == std::string_view::npos ? text.size() : nl + 1;
		auto words = split_words(line);
		if (words.empty())
			continue;
		if (words.size() != CXLTIER_HEAT_BUCKETS + 1)
			return error{-EBADMSG, file.string() + ": expected \"<tier> n0 ... n" +
						       std::to_string(CXLTIER_HEAT_BUCKETS - 1) +
						       "\" lines, got " + quote_value(line)};
		cxltier_daemon::buckets b{};
		for (std::size_t k = 0; k < CXLTIER_HEAT_BUCKETS; k++) {
			auto v = parse_u64_dec(file, words[k + 1]);
			if (!v)
				return std::move(v).err();
			b[k] = *v;
		}
		out.emplace_back(words[0], b);
	}
	return out;
}

result<cxltier_daemon> read_daemon(const fs::path &root)
{
	if (!still_there(root))
		return module_missing(root);
	fs::path dir = root / "daemon";
	if (!still_there(dir))
		return still_there(root) ? no_daemon(root) : module_missing(root);

	cxltier_daemon d;
	d.time_ns = monotonic_ns();
	auto counters = read_values(root, dir / stats_dir, nullptr,
				    [](const std::string &n) { return rank(n, counter_order); });
	if (!counters)
		return std::move(counters).err();
	d.counters = std::move(counters).value();

	auto tunables = read_tunables(root);
	if (!tunables)
		return std::move(tunables).err();
	d.tunables = std::move(tunables).value();

	auto heat_text = read_attr(dir / heat_file);
	if (!heat_text)
		return read_failure(root, std::move(heat_text).err());
	auto heat = parse_heat(dir / heat_file, *heat_text);
	if (!heat)
		return std::move(heat).err();
	d.heat = std::move(heat).value();

	auto tiers = list_subdirs(root / "tiers");
	if (!tiers)
		return std::move(tiers).err();
	for (const auto &name : *tiers) {
		attr_reader r(root / "tiers" / name);
		cxltier_daemon::tier t{name, r.u64_dec("promoted_pages"), r.u64_dec("demoted_pages")};
		if (!r.failure()) {
			d.tiers.push_back(std::move(t));
			continue;
		}
		// A tier removed while being read is simply not in this reading.
		if (!still_there(r.dir()) && still_there(root))
			continue;
		return read_failure(root, *r.failure());
	}
	if (!still_there(root))
		return module_missing(root);
	return d;
}

} // namespace cxltier::internal

using namespace cxltier::internal;

namespace {

// Looks @name up in @list.
const cxltier_daemon::named *find(const std::vector<cxltier_daemon::named> &list,
				  const char *name)
{
	if (!name)
		return nullptr;
	for (const auto &e : list)
		if (e.first == name)
			return &e;
	return nullptr;
}

int entry_at(const std::vector<cxltier_daemon::named> &list, std::size_t i, const char **name,
	     uint64_t *value)
{
	if (i >= list.size())
		return -ERANGE;
	if (name)
		*name = list[i].first.c_str();
	if (value)
		*value = list[i].second;
	return 0;
}

// Only plain file names may become paths under daemon/.
bool is_tunable_name(std::string_view name)
{
	return !name.empty() && name != "." && name != ".." && name != heat_file &&
	       name != stats_dir && name.find('/') == std::string_view::npos &&
	       std::all_of(name.begin(), name.end(),
			   [](char c) { return c > ' ' && c < 0x7f; });
}

std::string names_of(const std::vector<cxltier_daemon::named> &list)
{
	std::string out;
	for (const auto &e : list)
		out += (out.empty() ? "" : ", ") + e.first;
	return out;
}

struct change {
	std::string name;
	std::uint64_t old_value;
	std::uint64_t new_value;
};

// The module parameter the watermarks are bounded by, when it can be read.
std::optional<std::uint64_t> fast_budget_mb()
{
	fs::path file = std_sysfs_root() / fast_budget_param;
	auto text = read_attr(file);
	if (!text)
		return std::nullopt;
	auto v = parse_u64_dec(file, *text);
	return v ? std::optional<std::uint64_t>(*v) : std::nullopt;
}

// @changes checked against the ranges and the watermarks' order; nullopt if fine.
std::optional<error> check_changes(const std::vector<change> &changes,
				   const std::vector<cxltier_daemon::named> &now)
{
	const std::string unchanged = "; nothing was changed";
	for (const auto &c : changes) {
		const tunable_range *r = find_tunable_range(c.name);
		if (r && (c.new_value < r->min || c.new_value > r->max))
			return error{-EINVAL, c.name + "=" + std::to_string(c.new_value) +
						      " is out of range (" + std::to_string(r->min) +
						      "-" + std::to_string(r->max) + ")" + unchanged};
	}
	auto final_value = [&](const char *name) -> std::optional<std::uint64_t> {
		for (const auto &c : changes)
			if (c.name == name)
				return c.new_value;
		if (const auto *e = find(now, name))
			return e->second;
		return std::nullopt;
	};
	auto given = [&](const char *name) {
		return std::any_of(changes.begin(), changes.end(),
				   [&](const change &c) { return c.name == name; });
	};
	if (!given(wmark_low) && !given(wmark_high))
		return std::nullopt;
	auto low = final_value(wmark_low), high = final_value(wmark_high);
	if (low && high && *low > *high)
		return error{-EINVAL, std::string(wmark_low) + "=" + std::to_string(*low) +
					      " would be above " + wmark_high + "=" +
					      std::to_string(*high) + " (low <= high)" + unchanged};
	auto budget = fast_budget_mb();
	if (high && budget && *high > *budget)
		return error{-EINVAL, std::string(wmark_high) + "=" + std::to_string(*high) +
					      " would be above the fast budget (module parameter "
					      "fast_budget_mb=" + std::to_string(*budget) + ")" + unchanged};
	return std::nullopt;
}

// Watermarks go in the order that keeps low <= high after every write: the high one
// first when it grows, the low one first when the high one shrinks.
void order_changes(std::vector<change> &changes)
{
	auto lo = std::find_if(changes.begin(), changes.end(),
			       [](const change &c) { return c.name == wmark_low; });
	auto hi = std::find_if(changes.begin(), changes.end(),
			       [](const change &c) { return c.name == wmark_high; });
	if (lo == changes.end() || hi == changes.end())
		return;
	bool high_first = hi->new_value >= hi->old_value;
	if ((hi < lo) != high_first)
		std::iter_swap(lo, hi);
}

std::string write_error_text(int err)
{
	switch (-err) {
	case EINVAL:
		return "the module refused the value (out of its range)";
	case EACCES:
	case EPERM:
		return "permission denied (setting daemon tunables needs root)";
	}
	return errno_text(-err);
}

} // namespace

CXLTIER_EXPORT int cxltier_daemon_read(cxltier_ctx *ctx, cxltier_daemon **daemon)
{
	if (!ctx || !daemon)
		return -EINVAL;
	*daemon = nullptr;
	return guarded(ctx->last_error, [&] {
		auto d = read_daemon(ctx->root);
		if (!d)
			return fail(ctx, std::move(d).err());
		*daemon = new cxltier_daemon(std::move(d).value());
		return 0;
	});
}

CXLTIER_EXPORT void cxltier_daemon_free(cxltier_daemon *daemon)
{
	delete daemon;
}

CXLTIER_EXPORT uint64_t cxltier_daemon_get_time_ns(const cxltier_daemon *daemon)
{
	return daemon->time_ns;
}

CXLTIER_EXPORT size_t cxltier_daemon_get_nr_tunables(const cxltier_daemon *daemon)
{
	return daemon->tunables.size();
}

CXLTIER_EXPORT int cxltier_daemon_get_tunable_at(const cxltier_daemon *daemon, size_t i,
						 const char **name, uint64_t *value)
{
	return daemon ? entry_at(daemon->tunables, i, name, value) : -ERANGE;
}

CXLTIER_EXPORT int cxltier_daemon_get_tunable(const cxltier_daemon *daemon, const char *name,
					      uint64_t *value)
{
	const auto *e = daemon ? find(daemon->tunables, name) : nullptr;
	if (!e)
		return -ENOENT;
	if (value)
		*value = e->second;
	return 0;
}

CXLTIER_EXPORT size_t cxltier_daemon_get_nr_counters(const cxltier_daemon *daemon)
{
	return daemon->counters.size();
}

CXLTIER_EXPORT int cxltier_daemon_get_counter_at(const cxltier_daemon *daemon, size_t i,
						 const char **name, uint64_t *value)
{
	return daemon ? entry_at(daemon->counters, i, name, value) : -ERANGE;
}

CXLTIER_EXPORT int cxltier_daemon_get_counter(const cxltier_daemon *daemon, const char *name,
					      uint64_t *value)
{
	const auto *e = daemon ? find(daemon->counters, name) : nullptr;
	if (!e)
		return -ENOENT;
	if (value)
		*value = e->second;
	return 0;
}

CXLTIER_EXPORT const uint64_t *cxltier_daemon_get_heat(const cxltier_daemon *daemon,
						       const char *tier)
{
	if (!daemon || !tier)
		return nullptr;
	for (const auto &[name, buckets] : daemon->heat)
		if (name == tier)
			return buckets.data();
	return nullptr;
}

CXLTIER_EXPORT size_t cxltier_daemon_get_nr_tiers(const cxltier_daemon *daemon)
{
	return daemon->tiers.size();
}

CXLTIER_EXPORT int cxltier_daemon_get_tier(const cxltier_daemon *daemon, size_t i,
					   const char **name, uint64_t *promoted, uint64_t *demoted)
{
	if (!daemon || i >= daemon->tiers.size())
		return -ERANGE;
	const auto &t = daemon->tiers[i];
	if (name)
		*name = t.name.c_str();
	if (promoted)
		*promoted = t.promoted;
	if (demoted)
		*demoted = t.demoted;
	return 0;
}

CXLTIER_EXPORT int cxltier_daemon_tunable_range(const char *name, uint64_t *min, uint64_t *max)
{
	const tunable_range *r = name ? find_tunable_range(name) : nullptr;
	if (!r)
		return -ENOENT;
	if (min)
		*min = r->min;
	if (max)
		*max = r->max;
	return 0;
}

CXLTIER_EXPORT int cxltier_daemon_set_tunables(cxltier_ctx *ctx, size_t n, const char *const *names,
					       const uint64_t *values)
{
	if (!ctx)
		return -EINVAL;
	return guarded(ctx->last_error, [&] {
		if (!n)
			return 0;
		if (!names || !values)
			return fail(ctx, {-EINVAL, "no tunable names or values given (NULL)"});
		fs::path root = ctx->root;
		if (!still_there(root))
			return fail(ctx, module_missing(root));
		if (!still_there(root / "daemon"))
			return fail(ctx, no_daemon(root));
		auto now = read_tunables(root);
		if (!now)
			return fail(ctx, std::move(now).err());

		std::vector<change> changes;
		std::set<std::string> seen;
		for (std::size_t i = 0; i < n; i++) {
			const char *name = names[i];
			if (!name || !is_tunable_name(name))
				return fail(ctx, {-EINVAL, (name ? quote_value(name) : std::string("NULL")) +
								  " is not a tunable name; nothing was changed"});
			const auto *cur = find(*now, name);
			if (!cur)
				return fail(ctx, {-EINVAL, "no daemon tunable '" + std::string(name) +
								  "' (there are: " + names_of(*now) +
								  "); nothing was changed"});
			if (!seen.insert(name).second)
				return fail(ctx, {-EINVAL, std::string(name) +
								  " is given twice; nothing was changed"});
			changes.push_back({name, cur->second, values[i]});
		}
		if (auto bad = check_changes(changes, *now))
			return fail(ctx, std::move(*bad));
		order_changes(changes);

		fs::path dir = root / "daemon";
		for (std::size_t i = 0; i < changes.size(); i++) {
			const change &c = changes[i];
			write_result w = write_attr(dir / c.name, std::to_string(c.new_value));
			if (!w.err)
				continue;
			// Put back what was written, newest first, so the watermarks stay
			// ordered on the way back too.
			std::string undone;
			for (std::size_t k = i; k-- > 0;) {
				const change &back = changes[k];
				write_result u = write_attr(dir / back.name, std::to_string(back.old_value));
				undone += (undone.empty() ? "" : ", ") + back.name +
					  (u.err ? " could NOT be restored to " : " restored to ") +
					  std::to_string(back.old_value) +
					  (u.err ? " (" + std::string(errno_text(-u.err)) + ")" : "");
			}
			std::string msg = (dir / c.name).string() + ": cannot set " +
					  std::to_string(c.new_value) + ": " + write_error_text(w.err);
			if (const tunable_range *r = find_tunable_range(c.name); r && w.err == -EINVAL &&
			    r->max != UINT64_MAX)
				msg += "; documented range " + std::to_string(r->min) + "-" +
				       std::to_string(r->max);
			msg += undone.empty() ? "; nothing was changed" : "; " + undone;
			return fail(ctx, {w.err, msg});
		}
		return 0;
	});
}
