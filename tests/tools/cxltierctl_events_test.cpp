// SPDX-License-Identifier: GPL-2.0
// cxltierctl events end to end: the built binary with tests/lib/fake_dev.c
// LD_PRELOADed, whose /dev/cxltier answers CXLTIER_IOC_EVENTS from records the test
// writes (and appends while --follow waits).  Times print in TZ=UTC.
#include <csignal>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "daemon_fake_sys.hpp"
#include "run_cli.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using json = nlohmann::json;

namespace {

// A blade fenced by hand (with its system RAM), a page fenced by poison and then
// replaced, a poisoned address, a drain.
const std::vector<std::string> fake_events = {
	"1 1767225600000000000 1 1 mem1 0 - 0 4096 1024 1500000",
	"2 1767225601250000000 2 3 mem2 7 kv 8192 1 0 20000",
	"3 1767225602000000000 3 1 - 7 kv 8192 1 0 0",
	"4 1767225603000000000 4 4 mem0 0 - 15300800512 1 0 0",
	"5 1767225604000000000 5 1 mem3 0 - 0 65536 65536 2500000000",
};

// @s with runs of blanks made one, to compare table rows without their padding.
std::string squeeze(const std::string &s)
{
	std::string out;
	for (char c : s)
		if (c != ' ' || (!out.empty() && out.back() != ' '))
			out += c;
	while (!out.empty() && out.back() == ' ')
		out.pop_back();
	return out;
}

class EventsCommandTest : public ::testing::Test {
protected:
	void SetUp() override { dev.set_events(fake_events); }

	env_overrides env() const
	{
		return {{"CXLTIER_SYSFS", sysfs.root().string()},
			{"CXLTIER_SYS_ROOT", sys.root().string()},
			{"CXLTIER_DEV", dev.dev().string()},
			{"LD_PRELOAD", CXLTIER_FAKE_DEV_PATH},
			{"TZ", "UTC"}};
	}

	run_result run(const std::vector<std::string> &args) { return run_cxltierctl(args, env()); }

	std::string run_ok(const std::vector<std::string> &args)
	{
		run_result r = run(args);
		EXPECT_EQ(r.status, 0) << r.err;
		EXPECT_EQ(r.err, "");
		return r.out;
	}

	fake_sysfs sysfs;
	fake_sys sys;
	fake_dev dev;
};

const std::vector<std::string> expected_rows = {
	"SEQ TIME TYPE CAUSE BLADE REGION@OFFSET PAGES DURATION",
	"1 2026-01-01 00:00:00.000 fence admin mem1 - 4096 (1024 ram) 1.5 ms",
	"2 2026-01-01 00:00:01.250 fence-page poison mem2 kv@0x2000 1 20.0 us",
	"3 2026-01-01 00:00:02.000 replace admin - kv@0x2000 1 -",
	"4 2026-01-01 00:00:03.000 poison media mem0 hpa 0x38fffb000 1 -",
	"5 2026-01-01 00:00:04.000 drain admin mem3 - 65536 (65536 ram) 2.500 s",
};

} // namespace

// The table: time, type, cause, blade, where (region@offset, or the poisoned
// address), pages (with those of system RAM) and how long it took.
TEST_F(EventsCommandTest, Table)
{
	auto l = lines(run_ok({"events"}));
	ASSERT_EQ(l.size(), expected_rows.size());
	for (std::size_t i = 0; i < l.size(); i++)
		EXPECT_EQ(squeeze(l[i]), expected_rows[i]);
}

// JSON: the list document with every field of every record, null for no name.
TEST_F(EventsCommandTest, Json)
{
	json doc = json::parse(run_ok({"events", "--json"}));
	EXPECT_EQ(doc["abi_version"], 2);
	EXPECT_EQ(doc["next_seq"], 6);
	EXPECT_EQ(doc["lost"], 0);
	ASSERT_EQ(doc["events"].size(), 5u);
	const json &e = doc["events"][1];
	EXPECT_EQ(e, json::parse(R"({"seq": 2, "time_ns": 1767225601250000000, "type": "fence-page",
		"cause": "poison", "blade": "mem2", "region_id": 7, "region": "kv", "offset": 8192,
		"pages": 1, "ram_pages": 0, "duration_ns": 20000})"));
	EXPECT_TRUE(doc["events"][0]["region"].is_null());
	EXPECT_TRUE(doc["events"][0]["region_id"].is_null());
	EXPECT_TRUE(doc["events"][2]["blade"].is_null());
	EXPECT_EQ(doc["events"][3]["offset"], 15300800512u);
}

// --since starts at a record; past the last, nothing.
TEST_F(EventsCommandTest, Since)
{
	json doc = json::parse(run_ok({"events", "--json", "--since", "4"}));
	ASSERT_EQ(doc["events"].size(), 2u);
	EXPECT_EQ(doc["events"][0]["seq"], 4);
	EXPECT_EQ(run_ok({"events", "--since", "6"}), "No events.\n");
	doc = json::parse(run_ok({"events", "--json", "--since", "6"}));
	EXPECT_EQ(doc["events"], json::array());
	EXPECT_EQ(doc["next_seq"], 6);
}

// Records dropped before they were read are said to be lost.
TEST_F(EventsCommandTest, LostRecords)
{
	dev.set_events({"10 1767225600000000000 4 3 mem0 0 - 4096 1 0 0"});
	auto l = lines(run_ok({"events", "--since", "6"}));
	ASSERT_EQ(l.size(), 3u);
	EXPECT_EQ(l[0], "note: 4 records asked for were no longer kept (the log keeps the newest 1024)");
	json doc = json::parse(run_ok({"events", "--json", "--since", "6"}));
	EXPECT_EQ(doc["lost"], 4);
}

// --follow prints what is there, then each record as it comes, until interrupted;
// an interrupt is the normal end (exit status 0).
TEST_F(EventsCommandTest, FollowTable)
{
	running_cli cli({"events", "--follow", "--since", "5"}, env());
	ASSERT_TRUE(wait_for_output(cli, "drain"));
	dev.add_event("6 1767225605000000000 6 1 mem3 0 - 0 0 0 0");
	ASSERT_TRUE(wait_for_output(cli, "restore"));
	ASSERT_EQ(::kill(cli.pid(), SIGINT), 0);
	run_result r = cli.wait();
	EXPECT_EQ(cli.signal(), 0);
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.err, "");
	auto l = lines(r.out);
	ASSERT_EQ(l.size(), 3u) << r.out;
	EXPECT_EQ(squeeze(l[0]), expected_rows[0]);
	EXPECT_EQ(squeeze(l[1]), expected_rows[5]);
	EXPECT_EQ(squeeze(l[2]), "6 2026-01-01 00:00:05.000 restore admin mem3 - - -");
}

// --follow --json: one object per record and line, each a document of its own.
TEST_F(EventsCommandTest, FollowJson)
{
	running_cli cli({"events", "-f", "--json"}, env());
	ASSERT_TRUE(wait_for_output(cli, "\"seq\":5"));
	dev.add_event("6 1767225605000000000 2 5 mem1 9 db 4096 1 0 300");
	ASSERT_TRUE(wait_for_output(cli, "\"seq\":6"));
	ASSERT_EQ(::kill(cli.pid(), SIGTERM), 0);
	run_result r = cli.wait();
	EXPECT_EQ(r.status, 0) << r.err;
	auto l = lines(r.out);
	ASSERT_EQ(l.size(), 6u) << r.out;
	std::vector<int> seqs;
	for (const auto &line : l) {
		json e = json::parse(line, nullptr, false);
		ASSERT_TRUE(e.is_object()) << line;
		seqs.push_back(e["seq"]);
	}
	EXPECT_THAT(seqs, ElementsAre(1, 2, 3, 4, 5, 6));
	json last = json::parse(l.back());
	EXPECT_EQ(last["cause"], "uncorrectable");
	EXPECT_EQ(last["region"], "db");
}

// A module without the event log, and a bad --since, fail in one line.
TEST_F(EventsCommandTest, Errors)
{
	dev.make_old();
	run_result r = run({"events"});
	EXPECT_EQ(r.status, 1);
	EXPECT_THAT(r.err, AllOf(StartsWith("cxltierctl: "), HasSubstr("has no event log")));
	r = run({"events", "--since", "soon"});
	EXPECT_EQ(r.status, 2);
	EXPECT_THAT(r.err, StartsWith("cxltierctl: "));
}
