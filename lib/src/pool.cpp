// SPDX-License-Identifier: GPL-2.0
// Pools: the pools/<region>/ objects of a snapshot with their host records and
// table entries, formatting one through the module's pool_format command file, and
// checking one through its check file.  Attaching shared pools is shared_pool.cpp.
#include "pool.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <linux/cxltier.h>

#include "ctx.hpp"
#include "export.hpp"
#include "tier.hpp"

namespace cxltier::internal {

namespace {

// Names in enum order, as the ABI document spells the state file's text.
constexpr const char *state_names[] = {"unknown", "unformatted", "online",   "bad",
				       "lost",    "busy",	"degraded", "uncommitted"};

cxltier_pool_state parse_state(const std::string &s)
{
	// A newer module may report states this library has no name for.
	for (std::size_t i = 1; i < std::size(state_names); i++)
		if (s == state_names[i])
			return static_cast<cxltier_pool_state>(i);
	return CXLTIER_POOL_STATE_UNKNOWN;
}

// CXLTIER_POOL_NAME_MAX with its NUL.
constexpr std::size_t max_pool_name = 23;

} // namespace

std::optional<error> check_pool_name(const char *pool)
{
	if (!pool || !*pool)
		return error{-EINVAL, "no pool name given (such as region3)"};
	std::string_view name(pool);
	if (name.size() > max_pool_name)
		return error{-EINVAL, quote_value(name) + " is not a pool name: longer than " +
					      std::to_string(max_pool_name) + " bytes"};
	for (char c : name)
		if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f || c == '/')
			return error{-EINVAL, quote_value(name) +
						      " is not a pool name: blanks, '/' or control "
						      "characters"};
	return std::nullopt;
}

namespace {

std::string format_reason(const std::string &p, int err, bool known)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		return "formatting " + p + " needs root";
	case ENOENT:
	case ENODEV:
		return "no CXL pmem region " + p + " (see cxltierctl pool list)";
	case EEXIST:
		return p + " holds a pool, or data that is not one; formatting it destroys "
			   "every persistent region on it (force it: cxltierctl pool format " + p + " --force)";
	case EBUSY:
		return p + " is busy: a pool with persistent regions (destroy them first), or its "
			   "memory is claimed or not committed";
	case EINVAL:
		if (!known)
			return "no pool " + p + " (see cxltierctl pool list)";
		break;
	}
	return "formatting " + p + " failed: " + errno_text(-err) +
	       " (the kernel log says why: dmesg | grep cxltier)";
}

// The fields of one line of a hosts or table file.  The first failure is kept and
// later reads give 0, so a parser reads every field and checks once, as
// attr_reader does for files.  Fields past those the ABI lists are a newer
// module's and are ignored.
class field_reader {
public:
	field_reader(const fs::path &file, std::size_t line, std::string_view text, std::size_t need)
		: where_(file.string() + ":" + std::to_string(line)), words_(split_words(text))
	{
		if (words_.size() < need)
			failure_ = error{-EBADMSG, where_ + ": expected " + std::to_string(need) +
							   " fields, got " + std::to_string(words_.size()) +
							   ": " + quote_value(text)};
	}

	std::string word(std::size_t i) const { return i < words_.size() ? words_[i] : std::string(); }

	std::uint64_t dec(std::size_t i, const char *field, std::uint64_t min, std::uint64_t max)
	{
		if (failure_)
			return 0;
		auto v = parse_u64_dec(where_ + ": " + field, words_[i]);
		if (!v) {
			failure_ = std::move(v).err();
			return 0;
		}
		if (*v < min || *v > max) {
			bad(field, std::to_string(*v) + " is out of range [" + std::to_string(min) + ", " +
					   std::to_string(max) + "]");
			return 0;
		}
		return *v;
	}

	unsigned int octal(std::size_t i, const char *field, unsigned int max)
	{
		if (failure_)
			return 0;
		const std::string &w = words_[i];
		unsigned int v = 0;
		auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), v, 8);
		if (ec != std::errc() || ptr != w.data() + w.size() || v > max) {
			bad(field, "expected an octal mode, got " + quote_value(w));
			return 0;
		}
		return v;
	}

	// "-" for none, else ids from 1 to max_pool_host separated by commas.
	std::vector<unsigned int> host_ids(std::size_t i, const char *field)
	{
		std::vector<unsigned int> ids;
		if (failure_ || words_[i] == "-")
			return ids;
		std::string_view rest = words_[i];
		for (;;) {
			std::size_t comma = rest.find(',');
			std::string_view part = rest.substr(0, comma);
			unsigned int id = 0;
			auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), id);
			if (ec != std::errc() || ptr != part.data() + part.size() || id < 1 ||
			    id > max_pool_host) {
				bad(field, "expected \"-\" or host ids (1 to " + std::to_string(max_pool_host) +
						   ") separated by commas, got " + quote_value(words_[i]));
				return {};
			}
			ids.push_back(id);
			if (comma == std::string_view::npos)
				return ids;
			rest.remove_prefix(comma + 1);
		}
	}

	void bad(const char *field, const std::string &why)
	{
		if (!failure_)
			failure_ = error{-EBADMSG, where_ + ": " + field + ": " + why};
	}

	const std::optional<error> &failure() const noexcept { return failure_; }

private:
	std::string where_;
	std::vector<std::string> words_;
	std::optional<error> failure_;
};

// Calls @line for each line of @text that is not blank, with its number from 1.
template <class F> std::optional<error> for_each_line(std::string_view text, F &&line)
{
	std::size_t no = 0;
	while (!text.empty()) {
		std::size_t nl = text.find('\n');
		std::string_view l = text.substr(0, nl);
		no++;
		if (!split_words(l).empty())
			if (auto bad = line(no, l))
				return bad;
		if (nl == std::string_view::npos)
			break;
		text.remove_prefix(nl + 1);
	}
	return std::nullopt;
}

// <id> <state> <name> <heartbeat> <age_ms> <self>
result<std::vector<cxltier_pool_host>> parse_hosts(const fs::path &file, std::string_view text)
{
	std::vector<cxltier_pool_host> hosts;
	auto bad = for_each_line(text, [&](std::size_t no, std::string_view l) {
		field_reader f(file, no, l, 6);
		cxltier_pool_host h{
			.pool = nullptr,
			.id = static_cast<unsigned int>(f.dec(0, "id", 1, max_pool_host)),
			.state = f.word(1),
			.name = f.word(2),
			.heartbeat = f.dec(3, "heartbeat", 0, UINT64_MAX),
			.age_ms = f.dec(4, "age_ms", 0, UINT64_MAX),
			.self = f.word(5) == "self",
		};
		if (f.word(5) != "self" && f.word(5) != "-")
			f.bad("self", "expected \"self\" or \"-\", got " + quote_value(f.word(5)));
		if (f.failure())
			return f.failure();
		hosts.push_back(std::move(h));
		return std::optional<error>();
	});
	if (bad)
		return *bad;
	return hosts;
}

// <entry> <state> <name> <offset> <length> <uid> <gid> <mode> <id> <hosts>
result<std::vector<cxltier_pool_entry>> parse_table(const fs::path &file, std::string_view text)
{
	std::vector<cxltier_pool_entry> entries;
	auto bad = for_each_line(text, [&](std::size_t no, std::string_view l) {
		field_reader f(file, no, l, 10);
		cxltier_pool_entry e{
			.pool = nullptr,
			.number = static_cast<unsigned int>(f.dec(0, "entry", 0, UINT_MAX)),
			.state = f.word(1),
			.name = f.word(2),
			.offset = f.dec(3, "offset", 0, UINT64_MAX),
			.length = f.dec(4, "length", 0, UINT64_MAX),
			.uid = static_cast<std::uint32_t>(f.dec(5, "uid", 0, UINT32_MAX)),
			.gid = static_cast<std::uint32_t>(f.dec(6, "gid", 0, UINT32_MAX)),
			.mode = f.octal(7, "mode", 07777),
			.id = static_cast<std::uint32_t>(f.dec(8, "id", 1, CXLTIER_REGION_ID_MAX)),
			.hosts = f.host_ids(9, "hosts"),
		};
		if (f.failure())
			return f.failure();
		entries.push_back(std::move(e));
		return std::optional<error>();
	});
	if (bad)
		return *bad;
	return entries;
}

// A file older modules (or other pools) lack: "" when missing.
result<std::string> read_optional(const fs::path &file)
{
	auto r = read_attr(file);
	if (!r && r.err().code == -ENOENT)
		return std::string();
	return r;
}

// pools/<r>/check could not be read or written (@opened: the file could be
// opened, so @err is the module's): the error to report.
error check_failure(cxltier_ctx *ctx, const std::string &p, const fs::path &file, int err,
		    bool opened)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		return {err, "checking pool " + p + " needs root"};
	case ENODEV:
		return {err, "pool " + p + " is not online: only an online pool can be checked"};
	case ENOENT:
		if (opened)
			break;
		if (std::error_code ec; !fs::exists(ctx->root, ec))
			return {err, "cxltier module not loaded (" + ctx->root + " missing)"};
		if (std::error_code ec; !fs::exists(file.parent_path(), ec))
			return {-ENODEV, "no pool " + p + " any more (see cxltierctl pool list)"};
		return {-EOPNOTSUPP, file.string() + " missing: this cxltier module cannot check pools"};
	case EINVAL:
		if (opened)
			return {err, "the module refused to repair pool " + p};
		break;
	}
	return {err, file.string() + ": " + errno_text(-err)};
}

// "<N> problems" (or "1 problem"): N, else nullopt.
std::optional<std::uint64_t> problem_count(std::string_view line)
{
	auto words = split_words(line);
	if (words.size() != 2 || (words[1] != "problems" && words[1] != "problem"))
		return std::nullopt;
	std::uint64_t n = 0;
	const std::string &w = words[0];
	auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), n);
	if (ec != std::errc() || ptr != w.data() + w.size())
		return std::nullopt;
	return n;
}

} // namespace

result<cxltier_pool> load_pool(cxltier_ctx *ctx, const fs::path &dir)
{
	attr_reader r(dir);
	std::uint64_t regions = 0;
	cxltier_pool p{
		.ctx = ctx,
		.name = dir.filename().string(),
		.state = parse_state(r.text("state")),
		.size = r.u64_dec("size"),
		.free = r.u64_dec("free"),
		.regions = 0,
		.blades = {},
		.uuid = r.text("uuid"),
		.format = r.text("format"),
		.error = r.text("error"),
		.shared = false,
		.host = 0,
		.lease_ms = 0,
		.grace_ms = 0,
		.hosts = {},
		.entries = {},
	};
	regions = r.u64_dec("regions");
	auto blades = r.words("blades");
	auto shared = r.optional_u64_dec("shared");
	auto host = r.optional_u64_dec("host");
	auto lease = r.optional_u64_dec("lease_ms");
	auto grace = r.optional_u64_dec("grace_ms");
	if (r.failure())
		return *r.failure();
	if (shared.value_or(0) > 1)
		return error{-EBADMSG, (dir / "shared").string() + ": expected 0 or 1, got " +
					       std::to_string(*shared)};
	if (host.value_or(0) > max_pool_host)
		return error{-EBADMSG, (dir / "host").string() + ": " + std::to_string(*host) +
					       " is out of range [0, " + std::to_string(max_pool_host) + "]"};
	p.blades = name_list(std::move(blades));
	p.regions = static_cast<unsigned int>(std::min<std::uint64_t>(regions, UINT32_MAX));
	p.shared = shared.value_or(0) == 1;
	p.host = static_cast<unsigned int>(host.value_or(0));
	p.lease_ms = static_cast<unsigned int>(std::min<std::uint64_t>(lease.value_or(0), UINT32_MAX));
	p.grace_ms = static_cast<unsigned int>(std::min<std::uint64_t>(grace.value_or(0), UINT32_MAX));

	auto hosts_text = read_optional(dir / "hosts");
	if (!hosts_text)
		return std::move(hosts_text).err();
	auto hosts = parse_hosts(dir / "hosts", *hosts_text);
	if (!hosts)
		return std::move(hosts).err();
	p.hosts = std::move(hosts).value();
	auto table_text = read_optional(dir / "table");
	if (!table_text)
		return std::move(table_text).err();
	auto entries = parse_table(dir / "table", *table_text);
	if (!entries)
		return std::move(entries).err();
	p.entries = std::move(entries).value();
	return p;
}

void link_pool(cxltier_pool &p)
{
	for (auto &h : p.hosts)
		h.pool = &p;
	for (auto &e : p.entries)
		e.pool = &p;
}

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT cxltier_pool *cxltier_pool_get_first(cxltier_ctx *ctx)
{
	if (!ctx || ctx->snap->pools.empty())
		return nullptr;
	return ctx->snap->pools.data();
}

CXLTIER_EXPORT cxltier_pool *cxltier_pool_get_next(cxltier_pool *pool)
{
	if (!pool)
		return nullptr;
	return snapshot_next(pool->ctx->snap->pools, pool);
}

CXLTIER_EXPORT cxltier_pool *cxltier_pool_get_by_name(cxltier_ctx *ctx, const char *name)
{
	if (!ctx || !name)
		return nullptr;
	return snapshot_find(ctx->snap->pools, name);
}

CXLTIER_EXPORT cxltier_ctx *cxltier_pool_get_ctx(const cxltier_pool *pool)
{
	return pool->ctx;
}

CXLTIER_EXPORT const char *cxltier_pool_get_name(const cxltier_pool *pool)
{
	return pool->name.c_str();
}

CXLTIER_EXPORT cxltier_pool_state cxltier_pool_get_state(const cxltier_pool *pool)
{
	return pool->state;
}

CXLTIER_EXPORT uint64_t cxltier_pool_get_size(const cxltier_pool *pool)
{
	return pool->size;
}

CXLTIER_EXPORT uint64_t cxltier_pool_get_free(const cxltier_pool *pool)
{
	return pool->free;
}

CXLTIER_EXPORT unsigned int cxltier_pool_get_nr_regions(const cxltier_pool *pool)
{
	return pool->regions;
}

CXLTIER_EXPORT const char *const *cxltier_pool_get_blades(const cxltier_pool *pool, size_t *count)
{
	if (count)
		*count = pool->blades.size();
	return pool->blades.c_array();
}

CXLTIER_EXPORT const char *cxltier_pool_get_uuid(const cxltier_pool *pool)
{
	return pool->uuid.c_str();
}

CXLTIER_EXPORT const char *cxltier_pool_get_format(const cxltier_pool *pool)
{
	return pool->format.c_str();
}

CXLTIER_EXPORT const char *cxltier_pool_get_error(const cxltier_pool *pool)
{
	return pool->error.c_str();
}

CXLTIER_EXPORT const char *cxltier_pool_state_name(cxltier_pool_state state)
{
	auto i = static_cast<unsigned int>(state);
	return i < std::size(state_names) ? state_names[i] : "unknown";
}

CXLTIER_EXPORT int cxltier_pool_format(cxltier_ctx *ctx, const char *pool, unsigned int flags)
{
	if (!ctx)
		return -EINVAL;
	return tier_guarded(ctx->last_error, [&] {
		if (auto bad = check_pool_name(pool))
			return fail(ctx, *bad);
		if (flags & ~static_cast<unsigned int>(CXLTIER_POOL_FORMAT_FORCE))
			return fail(ctx, {-EINVAL, "unknown pool format flags " + std::to_string(flags)});
		fs::path file = fs::path(ctx->root) / "pool_format";
		std::string value = pool;
		if (flags & CXLTIER_POOL_FORMAT_FORCE)
			value += " force";
		write_result w = write_attr(file, value);
		if (w.err == 0)
			return 0;
		if (!w.opened && w.err == -ENOENT) {
			std::error_code ec;
			if (!fs::exists(ctx->root, ec))
				return fail(ctx, {-ENOENT, "cxltier module not loaded (" + ctx->root +
								   " missing)"});
			return fail(ctx, {-EOPNOTSUPP, file.string() + " missing: this cxltier module "
								       "has no pools"});
		}
		if (!w.opened && w.err != -EACCES && w.err != -EPERM)
			return fail(ctx, {w.err, file.string() + ": cannot open: " + errno_text(-w.err)});
		bool known = cxltier_pool_get_by_name(ctx, pool) != nullptr;
		return fail(ctx, {w.err, format_reason(pool, w.err, known)});
	});
}

CXLTIER_EXPORT int cxltier_pool_is_shared(const cxltier_pool *pool)
{
	return pool->shared;
}

CXLTIER_EXPORT unsigned int cxltier_pool_get_host(const cxltier_pool *pool)
{
	return pool->host;
}

CXLTIER_EXPORT unsigned int cxltier_pool_get_lease_ms(const cxltier_pool *pool)
{
	return pool->lease_ms;
}

CXLTIER_EXPORT unsigned int cxltier_pool_get_grace_ms(const cxltier_pool *pool)
{
	return pool->grace_ms;
}

CXLTIER_EXPORT cxltier_pool_host *cxltier_pool_host_get_first(cxltier_pool *pool)
{
	if (!pool || pool->hosts.empty())
		return nullptr;
	return pool->hosts.data();
}

CXLTIER_EXPORT cxltier_pool_host *cxltier_pool_host_get_next(cxltier_pool_host *host)
{
	if (!host)
		return nullptr;
	return snapshot_next(host->pool->hosts, host);
}

CXLTIER_EXPORT cxltier_pool *cxltier_pool_host_get_pool(const cxltier_pool_host *host)
{
	return host->pool;
}

CXLTIER_EXPORT unsigned int cxltier_pool_host_get_id(const cxltier_pool_host *host)
{
	return host->id;
}

CXLTIER_EXPORT const char *cxltier_pool_host_get_state(const cxltier_pool_host *host)
{
	return host->state.c_str();
}

CXLTIER_EXPORT const char *cxltier_pool_host_get_name(const cxltier_pool_host *host)
{
	return host->name.c_str();
}

CXLTIER_EXPORT uint64_t cxltier_pool_host_get_heartbeat(const cxltier_pool_host *host)
{
	return host->heartbeat;
}

CXLTIER_EXPORT uint64_t cxltier_pool_host_get_age_ms(const cxltier_pool_host *host)
{
	return host->age_ms;
}

CXLTIER_EXPORT int cxltier_pool_host_is_self(const cxltier_pool_host *host)
{
	return host->self;
}

CXLTIER_EXPORT cxltier_pool_entry *cxltier_pool_entry_get_first(cxltier_pool *pool)
{
	if (!pool || pool->entries.empty())
		return nullptr;
	return pool->entries.data();
}

CXLTIER_EXPORT cxltier_pool_entry *cxltier_pool_entry_get_next(cxltier_pool_entry *entry)
{
	if (!entry)
		return nullptr;
	return snapshot_next(entry->pool->entries, entry);
}

CXLTIER_EXPORT cxltier_pool *cxltier_pool_entry_get_pool(const cxltier_pool_entry *entry)
{
	return entry->pool;
}

CXLTIER_EXPORT unsigned int cxltier_pool_entry_get_number(const cxltier_pool_entry *entry)
{
	return entry->number;
}

CXLTIER_EXPORT const char *cxltier_pool_entry_get_state(const cxltier_pool_entry *entry)
{
	return entry->state.c_str();
}

CXLTIER_EXPORT const char *cxltier_pool_entry_get_name(const cxltier_pool_entry *entry)
{
	return entry->name.c_str();
}

CXLTIER_EXPORT uint64_t cxltier_pool_entry_get_offset(const cxltier_pool_entry *entry)
{
	return entry->offset;
}

CXLTIER_EXPORT uint64_t cxltier_pool_entry_get_length(const cxltier_pool_entry *entry)
{
	return entry->length;
}

CXLTIER_EXPORT uint32_t cxltier_pool_entry_get_uid(const cxltier_pool_entry *entry)
{
	return entry->uid;
}

CXLTIER_EXPORT uint32_t cxltier_pool_entry_get_gid(const cxltier_pool_entry *entry)
{
	return entry->gid;
}

CXLTIER_EXPORT unsigned int cxltier_pool_entry_get_mode(const cxltier_pool_entry *entry)
{
	return entry->mode;
}

CXLTIER_EXPORT uint32_t cxltier_pool_entry_get_id(const cxltier_pool_entry *entry)
{
	return entry->id;
}

CXLTIER_EXPORT const unsigned int *cxltier_pool_entry_get_hosts(const cxltier_pool_entry *entry,
								size_t *count)
{
	if (count)
		*count = entry->hosts.size();
	return entry->hosts.data();
}

CXLTIER_EXPORT int cxltier_pool_check(cxltier_pool *pool, int repair, char **report)
{
	if (report)
		*report = nullptr;
	if (!pool)
		return -EINVAL;
	cxltier_ctx *ctx = pool->ctx;
	return tier_guarded(ctx->last_error, [&] {
		fs::path file = fs::path(ctx->root) / "pools" / pool->name / "check";
		if (repair) {
			write_result w = write_attr(file, "repair");
			if (w.err)
				return fail(ctx, check_failure(ctx, pool->name, file, w.err, w.opened));
		}
		auto text = read_attr(file);
		if (!text) {
			int err = text.err().code; // -ENOENT only when the file is missing
			return fail(ctx, check_failure(ctx, pool->name, file, err, err != -ENOENT));
		}
		// The last line counts the problems; the lines before name them.
		std::string_view all = *text;
		std::size_t nl = all.rfind('\n');
		std::string_view last = nl == std::string_view::npos ? all : all.substr(nl + 1);
		auto n = problem_count(last);
		if (!n)
			return fail(ctx, {-EBADMSG, file.string() + ": expected \"<N> problems\" as the "
								    "last line, got " + quote_value(last)});
		if (report) {
			std::string out = *text + "\n";
			char *copy = static_cast<char *>(std::malloc(out.size() + 1));
			if (!copy)
				return fail(ctx, {-ENOMEM, "out of memory"});
			std::memcpy(copy, out.c_str(), out.size() + 1);
			*report = copy;
		}
		return static_cast<int>(std::min<std::uint64_t>(*n, INT_MAX));
	});
}
