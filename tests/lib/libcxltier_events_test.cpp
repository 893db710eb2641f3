// SPDX-License-Identifier: GPL-2.0
// The event log through the C ABI, against the fake /dev/cxltier of fake_dev.c
// (linked in, so that its ioctl() answers CXLTIER_IOC_EVENTS from a text file):
// every field of a record, reading on from a sequence number, records lost,
// waiting for the next one, and the names of types and causes.
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "daemon_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

// A blade fenced by hand, a page fenced by poison, its replacement, a drain.
const std::vector<std::string> fake_events = {
	"1 1767225600000000000 1 1 mem1 0 - 0 4096 1024 1500000",
	"2 1767225601000000000 2 3 mem2 7 kv 8192 1 0 20000",
	"3 1767225602000000000 3 1 - 7 kv 8192 1 0 0",
	"4 1767225603000000000 5 1 mem3 0 - 0 65536 65536 2500000000",
};

class EventsTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		dev.set_events(fake_events);
		int err = 0;
		ctx = cxltier::make_ctx(err);
		ASSERT_TRUE(ctx) << cxltier_get_last_error(nullptr);
	}

	cxltier::event_list_ptr read(std::uint64_t seq, unsigned int flags = 0)
	{
		int err = 0;
		auto l = cxltier::read_events(ctx.get(), seq, flags, err);
		EXPECT_EQ(err, 0) << cxltier_get_last_error(ctx.get());
		return l;
	}

	static std::vector<std::uint64_t> seqs(const cxltier_event_list *l)
	{
		std::vector<std::uint64_t> out;
		for (std::size_t i = 0; i < cxltier_event_list_get_count(l); i++)
			out.push_back(cxltier_event_list_get_seq(l, i));
		return out;
	}

	fake_sysfs sysfs;
	fake_dev dev;
	scoped_env sysfs_env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env dev_env{CXLTIER_DEV_ENV, dev.dev().string()};
	cxltier::ctx_ptr ctx;
};

} // namespace

// From the oldest, every record with every field as the module wrote it.
TEST_F(EventsTest, ReadsEveryField)
{
	auto l = read(0);
	ASSERT_TRUE(l);
	ASSERT_EQ(cxltier_event_list_get_count(l.get()), 4u);
	EXPECT_EQ(cxltier_event_list_get_next_seq(l.get()), 5u);
	EXPECT_EQ(cxltier_event_list_get_lost(l.get()), 0u);

	const cxltier_event_list *e = l.get();
	EXPECT_EQ(cxltier_event_list_get_seq(e, 0), 1u);
	EXPECT_EQ(cxltier_event_list_get_time_ns(e, 0), 1767225600000000000u);
	EXPECT_EQ(cxltier_event_list_get_type(e, 0), CXLTIER_EVENT_TYPE_FENCE);
	EXPECT_EQ(cxltier_event_list_get_cause(e, 0), CXLTIER_EVENT_CAUSE_ADMIN);
	EXPECT_STREQ(cxltier_event_list_get_blade(e, 0), "mem1");
	EXPECT_EQ(cxltier_event_list_get_region_id(e, 0), 0u);
	EXPECT_STREQ(cxltier_event_list_get_region(e, 0), "");
	EXPECT_EQ(cxltier_event_list_get_pages(e, 0), 4096u);
	EXPECT_EQ(cxltier_event_list_get_ram_pages(e, 0), 1024u);
	EXPECT_EQ(cxltier_event_list_get_duration_ns(e, 0), 1500000u);

	EXPECT_EQ(cxltier_event_list_get_type(e, 1), CXLTIER_EVENT_TYPE_FENCE_PAGE);
	EXPECT_EQ(cxltier_event_list_get_cause(e, 1), CXLTIER_EVENT_CAUSE_POISON);
	EXPECT_EQ(cxltier_event_list_get_region_id(e, 1), 7u);
	EXPECT_STREQ(cxltier_event_list_get_region(e, 1), "kv");
	EXPECT_EQ(cxltier_event_list_get_offset(e, 1), 8192u);

	EXPECT_EQ(cxltier_event_list_get_type(e, 2), CXLTIER_EVENT_TYPE_REPLACE);
	EXPECT_STREQ(cxltier_event_list_get_blade(e, 2), "");
	EXPECT_EQ(cxltier_event_list_get_type(e, 3), CXLTIER_EVENT_TYPE_DRAIN);
	EXPECT_EQ(cxltier_event_list_get_duration_ns(e, 3), 2500000000u);

	// Past the end: zeroes and empty strings, never a crash.
	EXPECT_EQ(cxltier_event_list_get_seq(e, 4), 0u);
	EXPECT_STREQ(cxltier_event_list_get_blade(e, 4), "");
	EXPECT_EQ(cxltier_event_list_get_type(e, 4), CXLTIER_EVENT_TYPE_UNKNOWN);
	EXPECT_EQ(cxltier_event_list_get_count(nullptr), 0u);
}

// Reading on from next_seq gets only what came since, and nothing when nothing did.
TEST_F(EventsTest, ReadsOnFromASequenceNumber)
{
	auto l = read(3);
	ASSERT_TRUE(l);
	EXPECT_THAT(seqs(l.get()), ElementsAre(3, 4));
	std::uint64_t next = cxltier_event_list_get_next_seq(l.get());
	EXPECT_EQ(next, 5u);

	auto none = read(next);
	ASSERT_TRUE(none);
	EXPECT_EQ(cxltier_event_list_get_count(none.get()), 0u);
	EXPECT_EQ(cxltier_event_list_get_next_seq(none.get()), 5u);

	dev.add_event("5 1767225604000000000 6 1 mem3 0 - 0 0 0 0");
	auto more = read(next);
	ASSERT_TRUE(more);
	EXPECT_THAT(seqs(more.get()), ElementsAre(5));
	EXPECT_EQ(cxltier_event_list_get_type(more.get(), 0), CXLTIER_EVENT_TYPE_RESTORE);
}

// Records the log dropped before they were read are counted as lost.
TEST_F(EventsTest, CountsLostRecords)
{
	dev.set_events({"10 1 4 4 mem0 0 - 12345678 1 0 0", "11 2 4 4 mem0 0 - 12349678 1 0 0"});
	auto l = read(6);
	ASSERT_TRUE(l);
	EXPECT_THAT(seqs(l.get()), ElementsAre(10, 11));
	EXPECT_EQ(cxltier_event_list_get_lost(l.get()), 4u);
	EXPECT_EQ(cxltier_event_list_get_offset(l.get(), 0), 12345678u) << "poison: the address";
}

// With CXLTIER_EVENT_READ_WAIT the read returns when the next record comes.
TEST_F(EventsTest, WaitsForTheNextRecord)
{
	std::thread writer([this] {
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
		dev.add_event("5 1767225604000000000 4 5 mem0 0 - 4096 0 0 0");
	});
	auto start = std::chrono::steady_clock::now();
	auto l = read(5, CXLTIER_EVENT_READ_WAIT);
	auto waited = std::chrono::steady_clock::now() - start;
	writer.join();
	ASSERT_TRUE(l);
	EXPECT_THAT(seqs(l.get()), ElementsAre(5));
	EXPECT_EQ(cxltier_event_list_get_cause(l.get(), 0), CXLTIER_EVENT_CAUSE_UNCORRECTABLE);
	EXPECT_GE(waited, std::chrono::milliseconds(90));
}

// Wrong flags, a missing device and a module without the log say so.
TEST_F(EventsTest, Errors)
{
	cxltier_event_list *l = reinterpret_cast<cxltier_event_list *>(&dev);
	EXPECT_EQ(cxltier_event_list_read(ctx.get(), 0, 2, &l), -EINVAL);
	EXPECT_EQ(l, nullptr);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("unknown flags 2"));
	EXPECT_EQ(cxltier_event_list_read(nullptr, 0, 0, &l), -EINVAL);
	EXPECT_EQ(cxltier_event_list_read(ctx.get(), 0, 0, nullptr), -EINVAL);

	dev.make_old();
	EXPECT_EQ(cxltier_event_list_read(ctx.get(), 0, 0, &l), -EOPNOTSUPP);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("has no event log"));

	scoped_env nodev{CXLTIER_DEV_ENV, (dev.dev().parent_path() / "none").string()};
	EXPECT_EQ(cxltier_event_list_read(ctx.get(), 0, 0, &l), -ENOENT);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("is cxltier.ko loaded?"));
	cxltier_event_list_free(nullptr);
}

// Every type and cause the ABI defines has a name; other values are unknown.
TEST(EventNames, TypesAndCauses)
{
	const char *types[] = {"unknown", "fence", "fence-page", "replace", "poison", "drain", "restore"};
	for (int t = 0; t < 7; t++)
		EXPECT_STREQ(cxltier_event_type_name(static_cast<cxltier_event_type>(t)), types[t]);
	EXPECT_STREQ(cxltier_event_type_name(static_cast<cxltier_event_type>(7)), "unknown");
	const char *causes[] = {"unknown", "admin", "unbind", "poison", "media", "uncorrectable"};
	for (int c = 0; c < 6; c++)
		EXPECT_STREQ(cxltier_event_cause_name(static_cast<cxltier_event_cause>(c)), causes[c]);
	EXPECT_STREQ(cxltier_event_cause_name(static_cast<cxltier_event_cause>(-1)), "unknown");
}
