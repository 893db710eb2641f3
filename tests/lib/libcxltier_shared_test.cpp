// SPDX-License-Identifier: GPL-2.0
// Shared pools through the exported C ABI, without a module: pools/<r>/ of a fake
// module tree with the shared, host, hosts, table and check files, the CXL
// region's dax devices and the module parameters in a fake standard sysfs, and
// fake_dev.c linked in (its write() fails the module's command files with the
// errno a test asks for, and makes check answer a repair; its STAT reports
// shared regions).
#include <cstdlib>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "daemon_fake_sys.hpp"
#include "pool_fake_sys.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

class SharedPoolTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_two_pools(sysfs);
		add_shared_pool(sysfs, {.pool = {.name = "region5", .blades = "mem2 mem3"}});
		sysfs.write("pool_attach", "");
		sysfs.write("pool_detach", "");
		ctx = open();
	}

	cxltier::ctx_ptr open()
	{
		int err = 0;
		auto c = cxltier::make_ctx(err);
		EXPECT_EQ(err, 0) << cxltier_get_last_error(nullptr);
		return c;
	}

	const char *why() const { return cxltier_get_last_error(ctx.get()); }
	cxltier_pool *pool(const char *name) { return cxltier_pool_get_by_name(ctx.get(), name); }
	std::string unbound() const { return sys.read("bus/dax/drivers/device_dax/unbind"); }
	std::string rebound() const { return sys.read("bus/dax/drivers/device_dax/bind"); }

	fake_sysfs sysfs;
	fake_sys sys;
	fake_dev dev;
	scoped_env env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env sys_env{CXLTIER_SYS_ENV, sys.root().string()};
	scoped_env dev_env{CXLTIER_DEV_ENV, dev.dev().string()};
	cxltier::ctx_ptr ctx;
};

} // namespace

// --- the pool's files -------------------------------------------------------------

// shared and host in their getters; every field of every hosts and table line.
TEST_F(SharedPoolTest, HostsAndTable)
{
	cxltier_pool *p = pool("region5");
	ASSERT_NE(p, nullptr);
	EXPECT_TRUE(cxltier_pool_is_shared(p));
	EXPECT_EQ(cxltier_pool_get_host(p), 2u);
	EXPECT_EQ(cxltier_pool_get_lease_ms(p), 5000u);
	EXPECT_EQ(cxltier_pool_get_grace_ms(p), 2500u);

	std::vector<unsigned int> ids;
	cxltier_pool_host *h;
	for_each_cxltier_pool_host(p, h)
		ids.push_back(cxltier_pool_host_get_id(h));
	EXPECT_THAT(ids, ElementsAre(1u, 2u, 3u));
	h = cxltier_pool_host_get_first(p);
	EXPECT_EQ(cxltier_pool_host_get_pool(h), p);
	EXPECT_STREQ(cxltier_pool_host_get_state(h), "live");
	EXPECT_STREQ(cxltier_pool_host_get_name(h), "node-a");
	EXPECT_EQ(cxltier_pool_host_get_heartbeat(h), 4711u);
	EXPECT_EQ(cxltier_pool_host_get_age_ms(h), 120u);
	EXPECT_FALSE(cxltier_pool_host_is_self(h));
	h = cxltier_pool_host_get_next(h);
	EXPECT_TRUE(cxltier_pool_host_is_self(h));
	h = cxltier_pool_host_get_next(h);
	EXPECT_STREQ(cxltier_pool_host_get_state(h), "expired");
	EXPECT_EQ(cxltier_pool_host_get_next(h), nullptr);

	cxltier_pool_entry *e = cxltier_pool_entry_get_first(p);
	ASSERT_NE(e, nullptr);
	EXPECT_EQ(cxltier_pool_entry_get_pool(e), p);
	EXPECT_EQ(cxltier_pool_entry_get_number(e), 0u);
	EXPECT_STREQ(cxltier_pool_entry_get_state(e), "used");
	EXPECT_STREQ(cxltier_pool_entry_get_name(e), "kv");
	EXPECT_EQ(cxltier_pool_entry_get_offset(e), 2097152u);
	EXPECT_EQ(cxltier_pool_entry_get_length(e), 4194304u);
	EXPECT_EQ(cxltier_pool_entry_get_uid(e), 0u);
	EXPECT_EQ(cxltier_pool_entry_get_mode(e), 0640u);
	EXPECT_EQ(cxltier_pool_entry_get_id(e), 0x8000u);
	std::size_t n = 0;
	const unsigned int *hosts = cxltier_pool_entry_get_hosts(e, &n);
	ASSERT_EQ(n, 2u);
	EXPECT_EQ(hosts[0], 1u);
	EXPECT_EQ(hosts[1], 2u);
	e = cxltier_pool_entry_get_next(e);
	ASSERT_NE(e, nullptr);
	EXPECT_STREQ(cxltier_pool_entry_get_state(e), "dying");
	EXPECT_EQ(cxltier_pool_entry_get_uid(e), 1000u);
	EXPECT_EQ(cxltier_pool_entry_get_gid(e), 100u);
	EXPECT_EQ(cxltier_pool_entry_get_id(e), 0x8001u);
	EXPECT_TRUE(cxltier::hosts_of(e).empty());
	EXPECT_EQ(cxltier_pool_entry_get_next(e), nullptr);

	// The C++ ranges walk the same records.
	std::size_t count = 0;
	for (cxltier_pool_entry *x : cxltier::entries_of(p))
		count += x != nullptr;
	EXPECT_EQ(count, 2u);
}

// A module without shared pools, and a pool of this host's pmem: no shared, host,
// hosts or table files read as not shared, host 0, no records.
TEST_F(SharedPoolTest, MissingFilesReadEmpty)
{
	cxltier_pool *p = pool("region1");
	ASSERT_NE(p, nullptr);
	EXPECT_FALSE(cxltier_pool_is_shared(p));
	EXPECT_EQ(cxltier_pool_get_host(p), 0u);
	EXPECT_EQ(cxltier_pool_get_lease_ms(p), 0u);
	EXPECT_EQ(cxltier_pool_host_get_first(p), nullptr);
	EXPECT_EQ(cxltier_pool_entry_get_first(p), nullptr);
	EXPECT_EQ(cxltier_pool_host_get_first(nullptr), nullptr);
	EXPECT_EQ(cxltier_pool_entry_get_next(nullptr), nullptr);

	// Empty files, blank lines, extra fields of a newer module and states this
	// library has no word for are fine.
	sysfs.write("pools/region5/hosts", "");
	sysfs.write("pools/region5/table", "\n7 moving x 0 2097152 0 0 600 33031 4 extra\n\n");
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << why();
	p = pool("region5");
	EXPECT_EQ(cxltier_pool_host_get_first(p), nullptr);
	cxltier_pool_entry *e = cxltier_pool_entry_get_first(p);
	ASSERT_NE(e, nullptr);
	EXPECT_EQ(cxltier_pool_entry_get_number(e), 7u);
	EXPECT_STREQ(cxltier_pool_entry_get_state(e), "moving");
	EXPECT_EQ(cxltier_pool_entry_get_mode(e), 0600u);
	EXPECT_THAT(cxltier::hosts_of(e), ElementsAre(4u));
}

// Each malformed line fails the refresh with -EBADMSG naming the file, line and
// field; the previous snapshot stays.
TEST_F(SharedPoolTest, BadLines)
{
	struct bad_case {
		const char *file;
		const char *text;
		const char *said;
	};
	const bad_case cases[] = {
		{"hosts", "1 live a 1 2 -\n2 live b 1 2", "hosts:2: expected 6 fields, got 5"},
		{"hosts", "0 live a 1 2 -", "hosts:1: id: 0 is out of range [1, 63]"},
		{"hosts", "64 live a 1 2 -", "hosts:1: id: 64 is out of range"},
		{"hosts", "x live a 1 2 -", "hosts:1: id: expected a decimal number"},
		{"hosts", "1 live a -1 2 -", "hosts:1: heartbeat: expected a decimal number"},
		{"hosts", "1 live a 1 2 yes", "hosts:1: self: expected \"self\" or \"-\""},
		{"table", "0 used kv 0 2097152 0 0 0640 32768", "table:1: expected 10 fields, got 9"},
		{"table", "0 used kv 0 2097152 0 0 0980 32768 -", "table:1: mode: expected an octal mode"},
		{"table", "0 used kv 0 2097152 0 0 0640 0 -", "table:1: id: 0 is out of range"},
		{"table", "0 used kv 0 2097152 0 0 0640 70000 -", "table:1: id: 70000 is out of range"},
		{"table", "0 used kv 0 2097152 0 0 0640 32768 1,,2", "table:1: hosts: expected \"-\""},
		{"table", "0 used kv 0 2097152 0 0 0640 32768 64", "table:1: hosts: expected"},
		{"table", "0 used kv 0 2097152 4294967296 0 0640 32768 -", "table:1: uid: 4294967296"},
		{"shared", "2", "shared: expected 0 or 1, got 2"},
		{"host", "64", "host: 64 is out of range [0, 63]"},
	};
	for (const auto &c : cases) {
		fake_sysfs fresh;
		add_shared_pool(fresh, {.pool = {.name = "region5"}});
		fresh.write(fs::path("pools/region5") / c.file, c.text);
		scoped_env e{CXLTIER_SYSFS_ENV, fresh.root().string()};
		cxltier_ctx *raw = nullptr;
		EXPECT_EQ(cxltier_new(&raw), -EBADMSG) << c.text;
		EXPECT_THAT(cxltier_get_last_error(nullptr),
			    AllOf(HasSubstr("pools/region5/"), HasSubstr(c.said)));
		cxltier_unref(raw);
	}
	sysfs.write("pools/region5/hosts", "1 live a 1 2");
	EXPECT_EQ(cxltier_refresh(ctx.get()), -EBADMSG);
	EXPECT_NE(cxltier_pool_host_get_first(pool("region5")), nullptr); // the old snapshot
}

// STAT's CXLTIER_REGION_SHARED in cxltier_region_info_is_shared().
TEST_F(SharedPoolTest, RegionInfoIsShared)
{
	dev.set_regions({"32768 kv 4194304 0 640 rw persistent=1 shared=1 pool=region5 pool_offset=2097152",
			 "1 local 4194304 0 600 rw persistent=1 pool=region1 pool_offset=2097152"});
	cxltier_region_info *info = nullptr;
	ASSERT_EQ(cxltier_region_stat(ctx.get(), "kv", &info), 0) << why();
	EXPECT_TRUE(cxltier_region_info_is_shared(info));
	EXPECT_TRUE(cxltier_region_info_is_persistent(info));
	EXPECT_EQ(cxltier_region_info_get_id(info), 32768u);
	cxltier_region_info_free(info);
	ASSERT_EQ(cxltier_region_stat(ctx.get(), "local", &info), 0) << why();
	EXPECT_FALSE(cxltier_region_info_is_shared(info));
	cxltier_region_info_free(info);
}

// --- attach and detach ---------------------------------------------------------------

// pool_attach gets "<region> host=<id>", or "<region>" alone for the module
// parameter; a region without dax devices needs no unbinding.
TEST_F(SharedPoolTest, AttachWrites)
{
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 3), 0) << why();
	EXPECT_EQ(sysfs.read("pool_attach"), "region7 host=3");
	set_pool_params(sys, "4");
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 0), 0) << why();
	EXPECT_EQ(sysfs.read("pool_attach"), "region7");
	EXPECT_EQ(unbound(), "");
}

// device_dax lets go of the region's dax devices first; unbound ones are left alone.
TEST_F(SharedPoolTest, AttachUnbindsDeviceDax)
{
	add_dax_device(sys, "region7", "dax7.0", "device_dax");
	add_dax_device(sys, "region7", "dax7.1", "");
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 1), 0) << why();
	EXPECT_EQ(unbound(), "dax7.0");
	EXPECT_EQ(sysfs.read("pool_attach"), "region7 host=1");
	EXPECT_EQ(rebound(), "\n");
}

// System RAM is refused before anything is written: no unbind, no attach.
TEST_F(SharedPoolTest, AttachRefusesKmem)
{
	add_dax_device(sys, "region7", "dax7.0", "device_dax");
	add_dax_device(sys, "region7", "dax7.1", "kmem");
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 1), -EBUSY);
	EXPECT_THAT(why(), AllOf(HasSubstr("region7 is System RAM"), HasSubstr("dax7.1"),
				 HasSubstr("daxctl reconfigure-device --mode=devdax")));
	EXPECT_EQ(unbound(), "\n");
	EXPECT_EQ(sysfs.read("pool_attach"), "\n");
}

// A refused attach binds the devices it unbound again, and says why it was refused.
TEST_F(SharedPoolTest, AttachFailureRebinds)
{
	add_dax_device(sys, "region7", "dax7.0", "device_dax");
	sysfs.write("pool_attach.errno", std::to_string(EBUSY));
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 2), -EBUSY);
	EXPECT_THAT(why(), AllOf(HasSubstr("region7 is busy"), HasSubstr("host id 2")));
	EXPECT_EQ(unbound(), "dax7.0");
	EXPECT_EQ(rebound(), "dax7.0");

	// What cannot be bound again is named with the command that does it.
	sys.remove("bus/dax/drivers/device_dax/bind");
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 2), -EBUSY);
	EXPECT_THAT(why(), HasSubstr("dax7.0 is left without a driver (bind it again: echo dax7.0 > "
				     "/sys/bus/dax/drivers/device_dax/bind)"));

	// A device that cannot be unbound stops the attach.
	sysfs.remove("pool_attach.errno");
	sysfs.write("pool_attach", "");
	sys.remove("bus/dax/drivers/device_dax/unbind");
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 2), -ENOENT);
	EXPECT_THAT(why(), HasSubstr("cannot take dax7.0 of region7 from device_dax"));
	EXPECT_EQ(sysfs.read("pool_attach"), "\n");
}

// The module's refusals get reasons; bad input never reaches it.
TEST_F(SharedPoolTest, AttachErrors)
{
	const std::pair<int, const char *> refusals[] = {
		{EEXIST, "region7 is attached already"},
		{ENODEV, "no CXL RAM region region7"},
		{EINVAL, "ids are 1 to 63"},
		{EACCES, "attaching region7 needs root"},
	};
	for (const auto &[err, said] : refusals) {
		sysfs.write("pool_attach.errno", std::to_string(err));
		EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 9), -err);
		EXPECT_THAT(why(), HasSubstr(said));
	}
	sysfs.remove("pool_attach.errno");
	sysfs.write("pool_attach", "");
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 64), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("host id 64 is out of range"));
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region 7", 1), -EINVAL);
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "", 1), -EINVAL);
	EXPECT_EQ(cxltier_pool_attach(nullptr, "region7", 1), -EINVAL);
	// No id anywhere: refused here, with how to give one.
	set_pool_params(sys, "0");
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 0), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("no host id for region7"));
	EXPECT_EQ(sysfs.read("pool_attach"), "\n");
	sysfs.remove("pool_attach");
	EXPECT_EQ(cxltier_pool_attach(ctx.get(), "region7", 1), -EOPNOTSUPP);
	EXPECT_THAT(why(), HasSubstr("has no shared pools"));
}

// pool_detach gets the name; its refusals get reasons.
TEST_F(SharedPoolTest, Detach)
{
	EXPECT_EQ(cxltier_pool_detach(ctx.get(), "region5"), 0) << why();
	EXPECT_EQ(sysfs.read("pool_detach"), "region5");
	sysfs.write("pool_detach.errno", std::to_string(EBUSY));
	EXPECT_EQ(cxltier_pool_detach(ctx.get(), "region5"), -EBUSY);
	EXPECT_THAT(why(), HasSubstr("a region of region5 is open or mapped"));
	sysfs.write("pool_detach.errno", std::to_string(ENOENT));
	EXPECT_EQ(cxltier_pool_detach(ctx.get(), "region9"), -ENOENT);
	EXPECT_THAT(why(), HasSubstr("no shared pool region9 is attached"));
	EXPECT_EQ(cxltier_pool_detach(ctx.get(), "a/b"), -EINVAL);
	sysfs.remove("pool_detach");
	EXPECT_EQ(cxltier_pool_detach(ctx.get(), "region5"), -EOPNOTSUPP);
}

// The module parameters, and their absence.
TEST_F(SharedPoolTest, ModuleParameters)
{
	unsigned int v = 0;
	EXPECT_EQ(cxltier_get_host_id(ctx.get(), &v), -ENOENT); // no /sys/module/cxltier
	set_pool_params(sys, "5", "2000");
	ASSERT_EQ(cxltier_get_host_id(ctx.get(), &v), 0) << why();
	EXPECT_EQ(v, 5u);
	ASSERT_EQ(cxltier_get_pool_lease_ms(ctx.get(), &v), 0) << why();
	EXPECT_EQ(v, 2000u);
	set_pool_params(sys, "99");
	EXPECT_EQ(cxltier_get_host_id(ctx.get(), &v), -EBADMSG);
	sys.remove("module/cxltier/parameters/pool_lease_ms");
	EXPECT_EQ(cxltier_get_pool_lease_ms(ctx.get(), &v), -EOPNOTSUPP);
	EXPECT_EQ(cxltier_get_pool_lease_ms(ctx.get(), nullptr), -EINVAL);
}

// --- check ---------------------------------------------------------------------------

// The number of problems and the module's text; with repair, "repair" is written
// first and what is left after it is reported.
TEST_F(SharedPoolTest, Check)
{
	sysfs.write("pools/region5/check",
		    "problem: expired host 3 still holds entry 1\nproblem: entry 4 half updated\n"
		    "2 problems");
	char *report = nullptr;
	EXPECT_EQ(cxltier_pool_check(pool("region5"), 0, &report), 2) << why();
	ASSERT_NE(report, nullptr);
	EXPECT_STREQ(report, "problem: expired host 3 still holds entry 1\n"
			     "problem: entry 4 half updated\n2 problems\n");
	std::free(report);

	sysfs.write("pools/region5/check.reply", "problem: entry 4 half updated\n1 problem");
	int rc = 0;
	auto text = cxltier::check_pool(pool("region5"), true, rc);
	EXPECT_EQ(rc, 1) << why();
	EXPECT_STREQ(text.get(), "problem: entry 4 half updated\n1 problem\n");

	// (The fake's write() answers the test's own writes too.)
	sysfs.remove("pools/region5/check.reply");
	sysfs.write("pools/region5/check", "0 problems");
	EXPECT_EQ(cxltier_pool_check(pool("region5"), 0, nullptr), 0) << why();
}

// Errors: not online (the module's ENODEV), no check file, text not understood.
TEST_F(SharedPoolTest, CheckErrors)
{
	char *report = reinterpret_cast<char *>(1);
	EXPECT_EQ(cxltier_pool_check(pool("region5"), 0, &report), -EOPNOTSUPP);
	EXPECT_EQ(report, nullptr);
	EXPECT_THAT(why(), HasSubstr("cannot check pools"));

	sysfs.write("pools/region5/check", "problem: x");
	EXPECT_EQ(cxltier_pool_check(pool("region5"), 0, &report), -EBADMSG);
	EXPECT_THAT(why(), HasSubstr("expected \"<N> problems\" as the last line, got \"problem: x\""));

	sysfs.write("pools/region5/check.errno", std::to_string(ENODEV));
	EXPECT_EQ(cxltier_pool_check(pool("region5"), 1, &report), -ENODEV);
	EXPECT_THAT(why(), HasSubstr("pool region5 is not online"));
	EXPECT_EQ(cxltier_pool_check(nullptr, 0, nullptr), -EINVAL);
}
