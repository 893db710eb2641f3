// SPDX-License-Identifier: GPL-2.0
// The module's event log (CXLTIER_IOC_EVENTS on /dev/cxltier): one read of up to
// CXLTIER_EVENTS_MAX records from a sequence number, waiting for one if asked, into
// a list the caller walks with accessors.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <linux/cxltier.h>
#include <memory>
#include <string>
#include <sys/ioctl.h>
#include <vector>

#include "ctx.hpp"
#include "export.hpp"
#include "region.hpp"
#include "sysfs.hpp"
#include "unique_fd.hpp"

// The C enums and the ABI's numbers are one and the same.
static_assert(CXLTIER_EVENT_TYPE_FENCE == CXLTIER_EVENT_FENCE);
static_assert(CXLTIER_EVENT_TYPE_FENCE_PAGE == CXLTIER_EVENT_FENCE_PAGE);
static_assert(CXLTIER_EVENT_TYPE_REPLACE == CXLTIER_EVENT_REPLACE);
static_assert(CXLTIER_EVENT_TYPE_POISON == CXLTIER_EVENT_POISON);
static_assert(CXLTIER_EVENT_TYPE_DRAIN == CXLTIER_EVENT_DRAIN);
static_assert(CXLTIER_EVENT_TYPE_RESTORE == CXLTIER_EVENT_RESTORE);
static_assert(CXLTIER_EVENT_CAUSE_ADMIN == CXLTIER_CAUSE_ADMIN);
static_assert(CXLTIER_EVENT_CAUSE_UNBIND == CXLTIER_CAUSE_UNBIND);
static_assert(CXLTIER_EVENT_CAUSE_POISON == CXLTIER_CAUSE_POISON);
static_assert(CXLTIER_EVENT_CAUSE_MEDIA == CXLTIER_CAUSE_MEDIA);
static_assert(CXLTIER_EVENT_CAUSE_UNCORRECTABLE == CXLTIER_CAUSE_UNCORRECTABLE);
static_assert(CXLTIER_EVENT_READ_WAIT == CXLTIER_EVENTS_WAIT);
static_assert(CXLTIER_EVENT_LOG_SIZE == CXLTIER_EVENTS_KEPT);

struct cxltier_event_list {
	struct entry {
		std::uint64_t seq;
		std::uint64_t time_ns;
		std::uint32_t type;
		std::uint32_t cause;
		std::string blade;
		std::uint32_t region_id;
		std::string region;
		std::uint64_t offset;
		std::uint64_t pages;
		std::uint64_t ram_pages;
		std::uint64_t duration_ns;
	};
	std::vector<entry> entries;
	std::uint64_t next_seq = 0;
	std::uint64_t lost = 0;
};

namespace cxltier::internal {

namespace {

// Indexed by the ABI's numbers; 0 is no type or cause.
constexpr const char *type_names[] = {"unknown", "fence", "fence-page", "replace",
				      "poison",	 "drain", "restore"};
constexpr const char *cause_names[] = {"unknown", "admin", "unbind",
				       "poison",  "media", "uncorrectable",
				       "peer"};
static_assert(std::size(type_names) == CXLTIER_EVENT_MAX + 1);
static_assert(std::size(cause_names) == CXLTIER_CAUSE_MAX + 1);

template <std::size_t N> std::string text_of(const char (&a)[N])
{
	return std::string(a, strnlen(a, N));
}

error read_error(int e)
{
	const std::string what = "read the event log of " + dev_path() + ": ";
	switch (e) {
	case ENOTTY:
		return {-EOPNOTSUPP, what + "this cxltier module has no event log (it predates "
					    "CXLTIER_IOC_EVENTS)"};
	case EINTR:
		return {-EINTR, what + "interrupted by a signal"};
	case EINVAL:
		return {-EINVAL, what + "the module refused the request (dynamic debug of cxltier "
					"logs why)"};
	}
	return {-e, what + errno_text(e)};
}

const cxltier_event_list::entry *at(const cxltier_event_list *list, std::size_t i)
{
	return list && i < list->entries.size() ? &list->entries[i] : nullptr;
}

} // namespace

} // namespace cxltier::internal

using namespace cxltier::internal;

CXLTIER_EXPORT const char *cxltier_event_type_name(cxltier_event_type type)
{
	auto i = static_cast<unsigned int>(type);
	return i < std::size(type_names) ? type_names[i] : "unknown";
}

CXLTIER_EXPORT const char *cxltier_event_cause_name(cxltier_event_cause cause)
{
	auto i = static_cast<unsigned int>(cause);
	return i < std::size(cause_names) ? cause_names[i] : "unknown";
}

CXLTIER_EXPORT int cxltier_event_list_read(cxltier_ctx *ctx, uint64_t seq, unsigned int flags,
					   cxltier_event_list **list)
{
	if (!ctx || !list)
		return -EINVAL;
	*list = nullptr;
	return guarded(ctx->last_error, [&] {
		if (flags & ~CXLTIER_EVENT_READ_WAIT)
			return fail(ctx, {-EINVAL, "read the event log: unknown flags " +
							   std::to_string(flags)});
		auto fd = open_dev();
		if (!fd)
			return fail(ctx, std::move(fd).err());
		unique_fd dev(*fd);

		std::vector<struct cxltier_event> records(CXLTIER_EVENTS_MAX);
		struct cxltier_events arg = {};
		arg.size = sizeof(arg);
		arg.flags = flags & CXLTIER_EVENT_READ_WAIT ? CXLTIER_EVENTS_WAIT : 0;
		arg.seq = seq;
		arg.count = static_cast<__u32>(records.size());
		arg.events = reinterpret_cast<std::uintptr_t>(records.data());
		if (::ioctl(dev.get(), CXLTIER_IOC_EVENTS, &arg) < 0)
			return fail(ctx, read_error(errno));

		auto out = std::make_unique<cxltier_event_list>();
		std::size_t n = std::min<std::size_t>(arg.count, records.size());
		out->entries.reserve(n);
		for (std::size_t i = 0; i < n; i++) {
			const struct cxltier_event &r = records[i];
			out->entries.push_back({r.seq, r.time_ns, r.type, r.cause, text_of(r.blade),
						r.region_id, text_of(r.region), r.offset, r.pages,
						r.ram_pages, r.duration_ns});
		}
		// The module says where to go on; should it not, the record after the
		// last one returned, or the same place when there was none.
		if (arg.seq)
			out->next_seq = arg.seq;
		else
			out->next_seq = n ? out->entries.back().seq + 1 : seq;
		out->lost = arg.lost;
		*list = out.release();
		return 0;
	});
}

CXLTIER_EXPORT void cxltier_event_list_free(cxltier_event_list *list)
{
	std::unique_ptr<cxltier_event_list> adopt(list);
}

CXLTIER_EXPORT size_t cxltier_event_list_get_count(const cxltier_event_list *list)
{
	return list ? list->entries.size() : 0;
}

CXLTIER_EXPORT uint64_t cxltier_event_list_get_next_seq(const cxltier_event_list *list)
{
	return list ? list->next_seq : 0;
}

CXLTIER_EXPORT uint64_t cxltier_event_list_get_lost(const cxltier_event_list *list)
{
	return list ? list->lost : 0;
}

CXLTIER_EXPORT uint64_t cxltier_event_list_get_seq(const cxltier_event_list *list, size_t i)
{
	auto e = at(list, i);
	return e ? e->seq : 0;
}

CXLTIER_EXPORT uint64_t cxltier_event_list_get_time_ns(const cxltier_event_list *list, size_t i)
{
	auto e = at(list, i);
	return e ? e->time_ns : 0;
}

CXLTIER_EXPORT cxltier_event_type cxltier_event_list_get_type(const cxltier_event_list *list,
							      size_t i)
{
	auto e = at(list, i);
	return e ? static_cast<cxltier_event_type>(e->type) : CXLTIER_EVENT_TYPE_UNKNOWN;
}

CXLTIER_EXPORT cxltier_event_cause cxltier_event_list_get_cause(const cxltier_event_list *list,
								size_t i)
{
	auto e = at(list, i);
	return e ? static_cast<cxltier_event_cause>(e->cause) : CXLTIER_EVENT_CAUSE_UNKNOWN;
}

CXLTIER_EXPORT const char *cxltier_event_list_get_blade(const cxltier_event_list *list, size_t i)
{
	auto e = at(list, i);
	return e ? e->blade.c_str() : "";
}

CXLTIER_EXPORT uint32_t cxltier_event_list_get_region_id(const cxltier_event_list *list, size_t i)
{
	auto e = at(list, i);
	return e ? e->region_id : 0;
}

CXLTIER_EXPORT const char *cxltier_event_list_get_region(const cxltier_event_list *list, size_t i)
{
	auto e = at(list, i);
	return e ? e->region.c_str() : "";
}

CXLTIER_EXPORT uint64_t cxltier_event_list_get_offset(const cxltier_event_list *list, size_t i)
{
	auto e = at(list, i);
	return e ? e->offset : 0;
}

CXLTIER_EXPORT uint64_t cxltier_event_list_get_pages(const cxltier_event_list *list, size_t i)
{
	auto e = at(list, i);
	return e ? e->pages : 0;
}

CXLTIER_EXPORT uint64_t cxltier_event_list_get_ram_pages(const cxltier_event_list *list, size_t i)
{
	auto e = at(list, i);
	return e ? e->ram_pages : 0;
}

CXLTIER_EXPORT uint64_t cxltier_event_list_get_duration_ns(const cxltier_event_list *list,
							   size_t i)
{
	auto e = at(list, i);
	return e ? e->duration_ns : 0;
}
