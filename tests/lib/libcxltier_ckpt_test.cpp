// SPDX-License-Identifier: GPL-2.0
// Pools, persistent regions and checkpoints through the exported C ABI, without a
// module: the pools are a fake sysfs tree, the persistent regions live in the fake
// /dev/cxltier of fake_dev.c (linked in: its CREATE, DESTROY, OPEN and STAT answer
// for them, and their memory is a file every open shares), so checkpoints are
// created, committed, reopened, restored, damaged and dropped as on the guest.
// The crash cases are the core's (ckpt_core_test.cpp); these are the calls'.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <sys/stat.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "daemon_fake_sys.hpp"
#include "pool_fake_sys.hpp"
#include "tier_fake_sys.hpp"

using namespace cxltier_test;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

constexpr std::uint64_t cap = 3 * 4096 + 17;

std::vector<unsigned char> pattern(std::size_t n, unsigned int seed)
{
	std::mt19937 rng(seed);
	std::vector<unsigned char> v(n);
	for (auto &b : v)
		b = static_cast<unsigned char>(rng());
	return v;
}

class CkptTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		add_two_pools(sysfs);
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

	// Checkpoint @name with @copies copies of capacity cap, open for writing.
	cxltier_ckpt *create(const char *name, unsigned int copies, const char *pool0 = nullptr,
			     const char *pool1 = nullptr)
	{
		cxltier_ckpt_params *p = nullptr;
		EXPECT_EQ(cxltier_ckpt_params_new(&p), 0);
		EXPECT_EQ(cxltier_ckpt_params_set_capacity(p, cap), 0);
		EXPECT_EQ(cxltier_ckpt_params_set_copies(p, copies), 0);
		EXPECT_EQ(cxltier_ckpt_params_set_pool(p, 0, pool0), 0);
		EXPECT_EQ(cxltier_ckpt_params_set_pool(p, 1, pool1), 0);
		cxltier_ckpt *ck = nullptr;
		int rc = cxltier_ckpt_create(ctx.get(), name, p, &ck);
		cxltier_ckpt_params_free(p);
		EXPECT_EQ(rc, 0) << why();
		return ck;
	}

	std::uint64_t commit(cxltier_ckpt *ck, const std::vector<unsigned char> &data)
	{
		void *staging = nullptr;
		EXPECT_EQ(cxltier_ckpt_begin(ck, data.size(), &staging), 0) << why();
		EXPECT_NE(staging, nullptr);
		EXPECT_EQ(cxltier_ckpt_write(ck, 0, data.data(), data.size()), 0) << why();
		std::uint64_t gen = 0;
		EXPECT_EQ(cxltier_ckpt_commit(ck, &gen), 0) << why();
		return gen;
	}

	// The region line of @name in the fake device, with @extra appended.
	void mark_region(const std::string &name, const std::string &extra)
	{
		fs::path f = dev.dev().parent_path() / "regions";
		std::string text = slurp(f), out;
		std::size_t pos = 0;
		while (pos < text.size()) {
			std::size_t nl = text.find('\n', pos);
			std::string line = text.substr(pos, nl - pos);
			if (line.find(" " + name + " ") != std::string::npos)
				line += " " + extra;
			out += line + "\n";
			pos = nl + 1;
		}
		std::ofstream(f, std::ios::trunc) << out;
	}

	// The region line of @name without @extra (what mark_region() added).
	void unmark_region(const std::string &name, const std::string &extra)
	{
		fs::path f = dev.dev().parent_path() / "regions";
		std::string text = slurp(f), out;
		std::size_t pos = 0;
		while (pos < text.size()) {
			std::size_t nl = text.find('\n', pos);
			std::string line = text.substr(pos, nl - pos);
			std::size_t at = line.find(" " + extra);
			if (line.find(" " + name + " ") != std::string::npos && at != std::string::npos)
				line.erase(at, extra.size() + 1);
			out += line + "\n";
			pos = nl + 1;
		}
		std::ofstream(f, std::ios::trunc) << out;
	}

	// Restore of @ck into @out; the info (freed by the caller) in *@info.
	int restore(cxltier_ckpt *ck, std::vector<unsigned char> &out, cxltier_ckpt_info **info)
	{
		out.assign(cap, 0);
		return cxltier_ckpt_restore(ck, out.data(), out.size(), info);
	}

	static bool holds(const std::vector<unsigned char> &out, const std::vector<unsigned char> &want)
	{
		return out.size() >= want.size() && std::equal(want.begin(), want.end(), out.begin());
	}

	// The data file of region @name (its memory), for damaging it.
	fs::path region_data(const char *name)
	{
		cxltier_region_info *info = nullptr;
		EXPECT_EQ(cxltier_region_stat(ctx.get(), name, &info), 0) << why();
		auto id = cxltier_region_info_get_id(info);
		cxltier_region_info_free(info);
		return dev.dev().parent_path() / ("region." + std::to_string(id) + ".data");
	}

	void flip_byte(const char *region, std::uint64_t off)
	{
		std::fstream f(region_data(region), std::ios::in | std::ios::out | std::ios::binary);
		f.seekg(static_cast<std::streamoff>(off));
		char c = 0;
		f.read(&c, 1);
		c ^= 0x40;
		f.seekp(static_cast<std::streamoff>(off));
		f.write(&c, 1);
	}

	fake_sysfs sysfs;
	fake_sys sys;
	fake_dev dev;
	scoped_env env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
	scoped_env sys_env{CXLTIER_SYS_ENV, sys.root().string()};
	scoped_env dev_env{CXLTIER_DEV_ENV, dev.dev().string()};
	cxltier::ctx_ptr ctx;
};

} // namespace

// --- pools ------------------------------------------------------------------------

// Every file of pools/<region>/ in its getter; blades in name order.
TEST_F(CkptTest, PoolAttributes)
{
	add_pool(sysfs, {.name = "region10",
			 .state = "bad",
			 .size = "1000",
			 .free = "10",
			 .regions = "3",
			 .blades = "mem3 mem10 mem2",
			 .uuid = "",
			 .format = "1.0",
			 .error = "superblock checksum mismatch"});
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << why();
	std::vector<std::string> names;
	cxltier_pool *p;
	for_each_cxltier_pool(ctx.get(), p)
		names.emplace_back(cxltier_pool_get_name(p));
	EXPECT_EQ(names, (std::vector<std::string>{"region1", "region2", "region10"}));
	p = cxltier_pool_get_by_name(ctx.get(), "region10");
	ASSERT_NE(p, nullptr);
	EXPECT_EQ(cxltier_pool_get_ctx(p), ctx.get());
	EXPECT_EQ(cxltier_pool_get_state(p), CXLTIER_POOL_STATE_BAD);
	EXPECT_STREQ(cxltier_pool_state_name(cxltier_pool_get_state(p)), "bad");
	EXPECT_EQ(cxltier_pool_get_size(p), 1000u);
	EXPECT_EQ(cxltier_pool_get_free(p), 10u);
	EXPECT_EQ(cxltier_pool_get_nr_regions(p), 3u);
	std::size_t n = 0;
	const char *const *blades = cxltier_pool_get_blades(p, &n);
	ASSERT_EQ(n, 3u);
	EXPECT_STREQ(blades[0], "mem3"); // interleave order, as the module lists them
	EXPECT_STREQ(blades[2], "mem2");
	EXPECT_EQ(blades[3], nullptr);
	EXPECT_STREQ(cxltier_pool_get_uuid(p), "");
	EXPECT_STREQ(cxltier_pool_get_format(p), "1.0");
	EXPECT_STREQ(cxltier_pool_get_error(p), "superblock checksum mismatch");
	EXPECT_EQ(cxltier_pool_get_by_name(ctx.get(), "region9"), nullptr);
}

// Each state the module writes has its value; other text is unknown.
TEST_F(CkptTest, PoolStates)
{
	const std::pair<const char *, cxltier_pool_state> states[] = {
		{"unformatted", CXLTIER_POOL_STATE_UNFORMATTED}, {"online", CXLTIER_POOL_STATE_ONLINE},
		{"bad", CXLTIER_POOL_STATE_BAD},		 {"lost", CXLTIER_POOL_STATE_LOST},
		{"busy", CXLTIER_POOL_STATE_BUSY},		 {"degraded", CXLTIER_POOL_STATE_DEGRADED},
		{"uncommitted", CXLTIER_POOL_STATE_UNCOMMITTED}, {"resting", CXLTIER_POOL_STATE_UNKNOWN},
	};
	for (const auto &[text, state] : states) {
		sysfs.write("pools/region1/state", text);
		ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << why();
		auto *p = cxltier_pool_get_by_name(ctx.get(), "region1");
		EXPECT_EQ(cxltier_pool_get_state(p), state) << text;
		if (state != CXLTIER_POOL_STATE_UNKNOWN) {
			EXPECT_STREQ(cxltier_pool_state_name(state), text);
		}
	}
	EXPECT_STREQ(cxltier_pool_state_name(static_cast<cxltier_pool_state>(77)), "unknown");
}

// A module without pools/ has none; a malformed file is reported with its path.
TEST_F(CkptTest, NoPoolsAndMalformedPool)
{
	sysfs.remove("pools");
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << why();
	EXPECT_EQ(cxltier_pool_get_first(ctx.get()), nullptr);
	add_pool(sysfs, {.name = "region1", .free = "lots"});
	EXPECT_EQ(cxltier_refresh(ctx.get()), -EBADMSG);
	EXPECT_THAT(why(), HasSubstr("pools/region1/free"));
}

// pool_format gets "regionN" or "regionN force"; its refusals get reasons.
TEST_F(CkptTest, PoolFormat)
{
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region1", 0), 0) << why();
	EXPECT_EQ(slurp(sysfs.root() / "pool_format"), "region1");
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region2", CXLTIER_POOL_FORMAT_FORCE), 0) << why();
	EXPECT_EQ(slurp(sysfs.root() / "pool_format"), "region2 force");
	sysfs.write("pool_format.errno", std::to_string(EEXIST));
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region1", 0), -EEXIST);
	EXPECT_THAT(why(), HasSubstr("--force"));
	sysfs.write("pool_format.errno", std::to_string(EBUSY));
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region1", 0), -EBUSY);
	EXPECT_THAT(why(), HasSubstr("destroy them first"));
	sysfs.write("pool_format.errno", std::to_string(ENODEV));
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region5", 0), -ENODEV);
	EXPECT_THAT(why(), HasSubstr("no CXL pmem region region5"));
	sysfs.remove("pool_format.errno");
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region 1", 0), -EINVAL);
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "", 0), -EINVAL);
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region1", 2), -EINVAL);
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region-with-a-very-long-name", 0), -EINVAL);
	sysfs.remove("pool_format");
	EXPECT_EQ(cxltier_pool_format(ctx.get(), "region1", 0), -EOPNOTSUPP);
	EXPECT_THAT(why(), HasSubstr("has no pools"));
}

// --- persistent regions ---------------------------------------------------------------

// A persistent region on a named pool, and on the one with the most free space;
// STAT's flags, pool and offset come out of the info.
TEST_F(CkptTest, PersistentRegion)
{
	std::uint32_t id = 0;
	ASSERT_EQ(cxltier_region_create_persistent(ctx.get(), "p1", 1 << 20, 0640, "region1", &id), 0)
		<< why();
	EXPECT_NE(id, 0u);
	ASSERT_EQ(cxltier_region_create_persistent(ctx.get(), "p2", 1 << 20, 0, nullptr, nullptr), 0)
		<< why();
	ASSERT_EQ(cxltier_region_create(ctx.get(), "v", 1 << 20, CXLTIER_REGION_POLICY_FAST_FIRST, 0,
					nullptr, 0, nullptr),
		  0)
		<< why();
	cxltier_region_info *info = nullptr;
	ASSERT_EQ(cxltier_region_stat(ctx.get(), "p1", &info), 0) << why();
	EXPECT_TRUE(cxltier_region_info_is_persistent(info));
	EXPECT_FALSE(cxltier_region_info_is_lost(info));
	EXPECT_STREQ(cxltier_region_info_get_pool(info), "region1");
	EXPECT_GT(cxltier_region_info_get_pool_offset(info), 0u);
	EXPECT_EQ(cxltier_region_info_get_mode(info), 0640u);
	cxltier_region_info_free(info);
	ASSERT_EQ(cxltier_region_stat(ctx.get(), "p2", &info), 0) << why();
	EXPECT_STREQ(cxltier_region_info_get_pool(info), "region2"); // more free
	cxltier_region_info_free(info);
	ASSERT_EQ(cxltier_region_stat(ctx.get(), "v", &info), 0) << why();
	EXPECT_FALSE(cxltier_region_info_is_persistent(info));
	EXPECT_STREQ(cxltier_region_info_get_pool(info), "");
	EXPECT_EQ(cxltier_region_info_get_pool_offset(info), 0u);
	cxltier_region_info_free(info);
	mark_region("p1", "lost=1");
	ASSERT_EQ(cxltier_region_stat(ctx.get(), "p1", &info), 0) << why();
	EXPECT_TRUE(cxltier_region_info_is_lost(info));
	cxltier_region_info_free(info);
}

// The region list has each region's id, name, size and policy, in id order, and
// nothing past its end; an open region has its name and a file descriptor of the
// region file, which maps like the library's own mapping.
TEST_F(CkptTest, RegionListAndRegionFile)
{
	std::uint32_t a = 0, b = 0;
	ASSERT_EQ(cxltier_region_create(ctx.get(), "a", 1 << 20, CXLTIER_REGION_POLICY_SLOW_ONLY, 0,
					nullptr, 0, &a),
		  0)
		<< why();
	ASSERT_EQ(cxltier_region_create(ctx.get(), "b", 2 << 20, CXLTIER_REGION_POLICY_INTERLEAVE, 0,
					nullptr, 0, &b),
		  0)
		<< why();
	cxltier_region_list *list = nullptr;
	ASSERT_EQ(cxltier_region_list_new(ctx.get(), &list), 0) << why();
	ASSERT_EQ(cxltier_region_list_get_count(list), 2u);
	EXPECT_EQ(cxltier_region_list_get_id(list, 0), a);
	EXPECT_STREQ(cxltier_region_list_get_name(list, 0), "a");
	EXPECT_EQ(cxltier_region_list_get_size(list, 0), 1u << 20);
	EXPECT_EQ(cxltier_region_list_get_policy(list, 0), CXLTIER_REGION_POLICY_SLOW_ONLY);
	EXPECT_EQ(cxltier_region_list_get_id(list, 1), b);
	EXPECT_EQ(cxltier_region_list_get_size(list, 1), 2u << 20);
	EXPECT_EQ(cxltier_region_list_get_policy(list, 1), CXLTIER_REGION_POLICY_INTERLEAVE);
	EXPECT_EQ(cxltier_region_list_get_id(list, 2), 0u);
	EXPECT_EQ(cxltier_region_list_get_name(list, 2), nullptr);
	EXPECT_EQ(cxltier_region_list_get_size(list, 2), 0u);
	cxltier_region_list_free(list);

	// A persistent one: the fake device backs its region file with the pool's bytes.
	ASSERT_EQ(cxltier_region_create_persistent(ctx.get(), "p", 2 << 20, 0, "region1", nullptr), 0)
		<< why();
	cxltier_region *r = nullptr;
	ASSERT_EQ(cxltier_region_open(ctx.get(), "p", CXLTIER_REGION_RDWR, &r), 0) << why();
	EXPECT_STREQ(cxltier_region_get_name(r), "p");
	int fd = cxltier_region_get_fd(r);
	ASSERT_GE(fd, 0);
	struct stat st;
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), 2u << 20);
	void *addr = nullptr;
	ASSERT_EQ(cxltier_region_map(r, &addr), 0) << why();
	auto *p = static_cast<volatile char *>(addr);
	p[4096] = 42;
	void *own = mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(own, MAP_FAILED);
	EXPECT_EQ(static_cast<const char *>(own)[4096], 42);
	munmap(own, 8192);
	cxltier_region_close(r);
}

// The module's ENODEV and ENOSPC name the pool; bad pool names never reach it.
TEST_F(CkptTest, PersistentRegionRefusals)
{
	EXPECT_EQ(cxltier_region_create_persistent(ctx.get(), "p", 1 << 20, 0, "region7", nullptr),
		  -ENODEV);
	EXPECT_THAT(why(), HasSubstr("no pool region7 online"));
	EXPECT_EQ(cxltier_region_create_persistent(ctx.get(), "p", 1ull << 30, 0, "region1", nullptr),
		  -ENOSPC);
	EXPECT_THAT(why(), HasSubstr("no room"));
	EXPECT_EQ(cxltier_region_create_persistent(ctx.get(), "p", 1 << 20, 0, "a b", nullptr), -EINVAL);
	EXPECT_EQ(cxltier_region_create_persistent(ctx.get(), "p", 100, 0, nullptr, nullptr), -EINVAL);
	sysfs.write("pools/region1/state", "degraded");
	EXPECT_EQ(cxltier_region_create_persistent(ctx.get(), "p", 1 << 20, 0, "region1", nullptr),
		  -EROFS);
	EXPECT_THAT(why(), HasSubstr("region1 is degraded"));
	sysfs.write("pools/region1/state", "lost");
	sysfs.write("pools/region2/state", "unformatted");
	EXPECT_EQ(cxltier_region_create_persistent(ctx.get(), "p", 1 << 20, 0, "", nullptr), -ENODEV);
	EXPECT_THAT(why(), HasSubstr("no pool online"));
}

// --- checkpoints ------------------------------------------------------------------------

// Two copies go on pools of different blades by themselves; generations commit and
// restore, also from a fresh context (another process would do the same).
TEST_F(CkptTest, CreateCommitRestore)
{
	cxltier_ckpt *ck = create("job", 2);
	ASSERT_NE(ck, nullptr);
	EXPECT_STREQ(cxltier_ckpt_get_name(ck), "job");
	EXPECT_EQ(cxltier_ckpt_get_capacity(ck), cap);
	EXPECT_EQ(cxltier_ckpt_get_copies(ck), 2u);
	EXPECT_EQ(cxltier_ckpt_get_generation(ck), 0u);
	auto a = pattern(cap, 1), b = pattern(5000, 2);
	EXPECT_EQ(commit(ck, a), 1u);
	EXPECT_EQ(commit(ck, b), 2u);
	EXPECT_EQ(cxltier_ckpt_get_durable_copies(ck), 2u);
	cxltier_ckpt_close(ck);

	auto other = open();
	cxltier_ckpt *rd = nullptr;
	ASSERT_EQ(cxltier_ckpt_open(other.get(), "job", CXLTIER_REGION_READ, &rd), 0)
		<< cxltier_get_last_error(other.get());
	EXPECT_EQ(cxltier_ckpt_get_generation(rd), 2u);
	std::vector<unsigned char> out(cap);
	cxltier_ckpt_info *info = nullptr;
	ASSERT_EQ(cxltier_ckpt_restore(rd, out.data(), out.size(), &info), 0);
	EXPECT_STREQ(cxltier_get_last_error(other.get()), "");
	EXPECT_EQ(cxltier_ckpt_info_get_generation(info), 2u);
	EXPECT_EQ(cxltier_ckpt_info_get_size(info), b.size());
	EXPECT_GT(cxltier_ckpt_info_get_time_ns(info), 0u);
	EXPECT_EQ(cxltier_ckpt_info_get_source(info), 0);
	EXPECT_TRUE(std::equal(b.begin(), b.end(), out.begin()));
	ASSERT_EQ(cxltier_ckpt_info_get_nr_copies(info), 2u);
	std::set<std::string> pools;
	for (unsigned int k = 0; k < 2; k++) {
		EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, k), CXLTIER_CKPT_COPY_OK);
		EXPECT_EQ(cxltier_ckpt_info_get_copy_generation(info, k), 2u);
		EXPECT_EQ(cxltier_ckpt_info_get_copy_region(info, k), "job@" + std::to_string(k));
		EXPECT_STREQ(cxltier_ckpt_info_get_copy_message(info, k), "");
		pools.insert(cxltier_ckpt_info_get_copy_pool(info, k));
	}
	EXPECT_EQ(pools, (std::set<std::string>{"region1", "region2"}));
	cxltier_ckpt_info_free(info);
	// Read-only: no commits.
	void *staging = nullptr;
	EXPECT_EQ(cxltier_ckpt_begin(rd, 10, &staging), -EBADF);
	cxltier_ckpt_close(rd);
}

// Pools given are used; two copies on pools that share a blade, or on the same
// pool, are refused, as is a second copy when only one pool has room.
// Without a staging pointer the state goes through cxltier_ckpt_write() only: in
// order (checksummed on the way) or out of order (checksummed at commit), it
// restores whole from either copy.
TEST_F(CkptTest, DirectWrites)
{
	cxltier_ckpt *ck = create("job", 2);
	ASSERT_NE(ck, nullptr);
	auto a = pattern(9000, 3), b = pattern(7000, 4);
	ASSERT_EQ(cxltier_ckpt_begin(ck, a.size(), nullptr), 0) << why();
	for (std::size_t off = 0; off < a.size(); off += 4000)
		ASSERT_EQ(cxltier_ckpt_write(ck, off, a.data() + off,
					     std::min<std::size_t>(4000, a.size() - off)), 0);
	std::uint64_t gen = 0;
	ASSERT_EQ(cxltier_ckpt_commit(ck, &gen), 0) << why();
	EXPECT_EQ(gen, 1u);
	// Second half first.
	ASSERT_EQ(cxltier_ckpt_begin(ck, b.size(), nullptr), 0);
	ASSERT_EQ(cxltier_ckpt_write(ck, 3500, b.data() + 3500, 3500), 0);
	ASSERT_EQ(cxltier_ckpt_write(ck, 0, b.data(), 3500), 0);
	ASSERT_EQ(cxltier_ckpt_commit(ck, &gen), 0) << why();
	EXPECT_EQ(gen, 2u);
	std::vector<unsigned char> out(cap);
	cxltier_ckpt_info *info = nullptr;
	ASSERT_EQ(cxltier_ckpt_verify(ck, &info), 0);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_OK);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 1), CXLTIER_CKPT_COPY_OK);
	cxltier_ckpt_info_free(info);
	ASSERT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), nullptr), 0);
	EXPECT_TRUE(std::equal(b.begin(), b.end(), out.begin()));
	cxltier_ckpt_close(ck);
}

TEST_F(CkptTest, PoolChoice)
{
	cxltier_ckpt *ck = create("a", 2, "region1", "region2");
	ASSERT_NE(ck, nullptr);
	cxltier_ckpt_info *info = nullptr;
	EXPECT_EQ(cxltier_ckpt_stat(ck, &info), -ENODATA);
	EXPECT_STREQ(cxltier_ckpt_info_get_copy_pool(info, 0), "region1");
	cxltier_ckpt_info_free(info);
	cxltier_ckpt_close(ck);

	cxltier_ckpt_params *p = nullptr;
	ASSERT_EQ(cxltier_ckpt_params_new(&p), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_capacity(p, cap), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_copies(p, 2), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_pool(p, 0, "region1"), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_pool(p, 1, "region1"), 0);
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "b", p, &ck), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("cannot share pool region1"));
	sysfs.write("pools/region2/blades", "mem1 mem0");
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_pool(p, 1, "region2"), 0);
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "b", p, &ck), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("shares blade mem0"));
	ASSERT_EQ(cxltier_ckpt_params_set_pool(p, 0, nullptr), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_pool(p, 1, nullptr), 0);
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "b", p, &ck), -ENODEV);
	EXPECT_THAT(why(), HasSubstr("on blades of their own"));
	cxltier_ckpt_params_free(p);
	// Nothing was left behind by the refusals.
	cxltier_ckpt_list *list = nullptr;
	ASSERT_EQ(cxltier_ckpt_list_new(ctx.get(), &list), 0) << why();
	EXPECT_EQ(cxltier_ckpt_list_get_count(list), 1u);
	cxltier_ckpt_list_free(list);
}

// Bad input is refused with the value named: capacity 0, a size beyond the
// capacity, names too long or with '@', copies 0 or 3, a pool for a copy not made.
TEST_F(CkptTest, BadInput)
{
	cxltier_ckpt_params *p = nullptr;
	ASSERT_EQ(cxltier_ckpt_params_new(&p), 0);
	EXPECT_EQ(cxltier_ckpt_params_set_capacity(p, 0), -EINVAL);
	EXPECT_EQ(cxltier_ckpt_params_set_capacity(p, CXLTIER_CKPT_CAPACITY_MAX + 1), -EINVAL);
	EXPECT_EQ(cxltier_ckpt_params_set_copies(p, 0), -EINVAL);
	EXPECT_EQ(cxltier_ckpt_params_set_copies(p, 3), -EINVAL);
	EXPECT_EQ(cxltier_ckpt_params_set_pool(p, 2, "region1"), -EINVAL);
	EXPECT_EQ(cxltier_ckpt_params_set_pool(p, 0, "a/b"), -EINVAL);
	EXPECT_EQ(cxltier_ckpt_params_set_mode(p, 01000), -EINVAL);
	cxltier_ckpt *ck = nullptr;
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "job", p, &ck), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("capacity 0"));
	ASSERT_EQ(cxltier_ckpt_params_set_capacity(p, cap), 0);
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "job", nullptr, &ck), -EINVAL);
	std::string long_name(CXLTIER_CKPT_NAME_MAX + 1, 'n');
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), long_name.c_str(), p, &ck), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("at most 61"));
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "a@b", p, &ck), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("'@'"));
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "", p, &ck), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("checkpoint name is empty"));
	ASSERT_EQ(cxltier_ckpt_params_set_pool(p, 1, "region2"), 0);
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "job", p, &ck), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("a pool for copy 1 of 1"));
	ASSERT_EQ(cxltier_ckpt_params_set_pool(p, 1, nullptr), 0);
	std::string just_fits(CXLTIER_CKPT_NAME_MAX, 'n');
	ASSERT_EQ(cxltier_ckpt_create(ctx.get(), just_fits.c_str(), p, &ck), 0) << why();
	cxltier_ckpt_params_free(p);

	void *staging = nullptr;
	EXPECT_EQ(cxltier_ckpt_begin(ck, cap + 1, &staging), -EFBIG);
	EXPECT_THAT(why(), HasSubstr("more than its capacity"));
	EXPECT_EQ(cxltier_ckpt_commit_async(ck, "x", cap + 1), -EFBIG);
	EXPECT_EQ(cxltier_ckpt_commit(ck, nullptr), -EINVAL);
	EXPECT_EQ(cxltier_ckpt_write(ck, 0, "x", 1), -EINVAL);
	ASSERT_EQ(cxltier_ckpt_begin(ck, 100, &staging), 0);
	EXPECT_EQ(cxltier_ckpt_write(ck, 99, "xy", 2), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("beyond the 100 bytes begun"));
	EXPECT_EQ(cxltier_ckpt_begin(ck, 100, &staging), -EBUSY);
	EXPECT_EQ(cxltier_ckpt_abort(ck), 0);
	EXPECT_EQ(cxltier_ckpt_abort(ck), -EINVAL);
	cxltier_ckpt_close(ck);
	EXPECT_EQ(cxltier_ckpt_open(ctx.get(), "job", 4, &ck), -EINVAL);
}

// An aborted commit leaves the last generation; the staging memory is the copy's.
TEST_F(CkptTest, AbortKeepsLastGeneration)
{
	cxltier_ckpt *ck = create("job", 1);
	auto a = pattern(1000, 3);
	EXPECT_EQ(commit(ck, a), 1u);
	void *staging = nullptr;
	ASSERT_EQ(cxltier_ckpt_begin(ck, 2000, &staging), 0);
	std::memset(staging, 0xee, 2000);
	ASSERT_EQ(cxltier_ckpt_abort(ck), 0);
	std::vector<unsigned char> out(cap);
	ASSERT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), nullptr), 0);
	EXPECT_TRUE(std::equal(a.begin(), a.end(), out.begin()));
	EXPECT_EQ(commit(ck, pattern(10, 4)), 2u);
	cxltier_ckpt_close(ck);
}

// No such checkpoint, and one with nothing committed: clear errors.
TEST_F(CkptTest, NoCheckpoint)
{
	cxltier_ckpt *ck = nullptr;
	EXPECT_EQ(cxltier_ckpt_open(ctx.get(), "nope", CXLTIER_REGION_READ, &ck), -ENOENT);
	EXPECT_THAT(why(), HasSubstr("no checkpoint 'nope' (no region 'nope@0' or 'nope@1')"));
	EXPECT_EQ(cxltier_ckpt_drop(ctx.get(), "nope"), -ENOENT);
	ck = create("empty", 1);
	std::vector<unsigned char> out(10);
	cxltier_ckpt_info *info = nullptr;
	EXPECT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), &info), -ENODATA);
	EXPECT_THAT(why(), HasSubstr("checkpoint 'empty': nothing committed yet"));
	EXPECT_EQ(cxltier_ckpt_info_get_generation(info), 0u);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_STALE);
	cxltier_ckpt_info_free(info);
	EXPECT_EQ(cxltier_ckpt_verify(ck, nullptr), -ENODATA);
	cxltier_ckpt_close(ck);
	// The name is taken now.
	cxltier_ckpt_params *p = nullptr;
	ASSERT_EQ(cxltier_ckpt_params_new(&p), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_capacity(p, cap), 0);
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "empty", p, &ck), -EEXIST);
	EXPECT_THAT(why(), HasSubstr("checkpoint drop empty"));
	cxltier_ckpt_params_free(p);
}

// A buffer too small: -ENOBUFS, and the info says how big.
TEST_F(CkptTest, RestoreBufferTooSmall)
{
	cxltier_ckpt *ck = create("job", 1);
	commit(ck, pattern(5000, 5));
	std::vector<unsigned char> out(4999);
	cxltier_ckpt_info *info = nullptr;
	EXPECT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), &info), -ENOBUFS);
	EXPECT_EQ(cxltier_ckpt_info_get_size(info), 5000u);
	cxltier_ckpt_info_free(info);
	EXPECT_EQ(cxltier_ckpt_restore(ck, nullptr, 0, nullptr), -ENOBUFS);
	cxltier_ckpt_close(ck);
}

// One copy damaged on the device: detected, the other copy read, and the context
// says which copy, why, and where the data came from.
TEST_F(CkptTest, CorruptCopy)
{
	cxltier_ckpt *ck = create("job", 2);
	auto a = pattern(cap, 6);
	commit(ck, a);
	cxltier_ckpt_close(ck);
	flip_byte("job@0", 4096 + 4096 + 100); // slot 0's data
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_READ, &ck), 0) << why();
	std::vector<unsigned char> out(cap);
	cxltier_ckpt_info *info = nullptr;
	ASSERT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), &info), 0);
	EXPECT_TRUE(std::equal(a.begin(), a.end(), out.begin()));
	EXPECT_EQ(cxltier_ckpt_info_get_source(info), 1);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_BAD);
	EXPECT_THAT(cxltier_ckpt_info_get_copy_message(info, 0), HasSubstr("data checksum"));
	EXPECT_THAT(why(), HasSubstr("checkpoint 'job' copy 0 bad: slot 0 (generation 1): data checksum"));
	EXPECT_THAT(why(), HasSubstr("generation 1 read from copy 1"));
	cxltier_ckpt_info_free(info);
	EXPECT_EQ(cxltier_ckpt_verify(ck, &info), 0);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_BAD);
	cxltier_ckpt_info_free(info);
	cxltier_ckpt_close(ck);
}

// A missing copy (its region destroyed) and a lost one (its pool's device failed):
// the other copy serves; commits go on to the copy that is left.
TEST_F(CkptTest, MissingAndLostCopy)
{
	cxltier_ckpt *ck = create("job", 2);
	auto a = pattern(777, 7), b = pattern(888, 8);
	commit(ck, a);
	cxltier_ckpt_close(ck);
	mark_region("job@0", "lost=1");
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_RDWR, &ck), 0) << why();
	std::vector<unsigned char> out(cap);
	cxltier_ckpt_info *info = nullptr;
	ASSERT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), &info), 0);
	EXPECT_TRUE(std::equal(a.begin(), a.end(), out.begin()));
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_MISSING);
	EXPECT_THAT(cxltier_ckpt_info_get_copy_message(info, 0), HasSubstr("lost with its pool"));
	EXPECT_THAT(why(), HasSubstr("copy 0 missing"));
	cxltier_ckpt_info_free(info);
	EXPECT_EQ(commit(ck, b), 2u);
	EXPECT_EQ(cxltier_ckpt_get_durable_copies(ck), 1u);
	cxltier_ckpt_close(ck);

	ASSERT_EQ(cxltier_region_destroy(ctx.get(), "job@0"), 0) << why();
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_READ, &ck), 0) << why();
	EXPECT_EQ(cxltier_ckpt_get_copies(ck), 2u);
	ASSERT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), &info), 0);
	EXPECT_TRUE(std::equal(b.begin(), b.end(), out.begin()));
	EXPECT_THAT(cxltier_ckpt_info_get_copy_message(info, 0), HasSubstr("does not exist"));
	cxltier_ckpt_info_free(info);
	cxltier_ckpt_close(ck);
}

// The asynchronous commit: the call returns at once, poll reports progress, wait
// the generation, and the state restores; the caller's buffer is free to change
// right after the call.
TEST_F(CkptTest, AsyncCommit)
{
	cxltier_ckpt *ck = create("job", 2);
	std::uint64_t gen = 0;
	EXPECT_EQ(cxltier_ckpt_wait(ck, &gen), -ENOENT);
	EXPECT_EQ(cxltier_ckpt_poll(ck, &gen), -ENOENT);
	auto a = pattern(cap, 9), want = a;
	ASSERT_EQ(cxltier_ckpt_commit_async(ck, a.data(), a.size()), 0) << why();
	std::fill(a.begin(), a.end(), 0);
	int rc;
	while ((rc = cxltier_ckpt_poll(ck, &gen)) == -EINPROGRESS)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	EXPECT_EQ(rc, 0) << why();
	EXPECT_EQ(gen, 1u);
	EXPECT_EQ(cxltier_ckpt_get_generation(ck), 1u);
	auto b = pattern(100, 10);
	ASSERT_EQ(cxltier_ckpt_commit_async(ck, b.data(), b.size()), 0) << why();
	EXPECT_EQ(cxltier_ckpt_commit_async(ck, b.data(), b.size()), -EBUSY);
	EXPECT_EQ(cxltier_ckpt_wait(ck, &gen), 0) << why();
	EXPECT_EQ(gen, 2u);
	EXPECT_EQ(cxltier_ckpt_wait(ck, &gen), -ENOENT);
	std::vector<unsigned char> out(cap);
	ASSERT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), nullptr), 0);
	EXPECT_TRUE(std::equal(b.begin(), b.end(), out.begin()));
	ASSERT_EQ(cxltier_ckpt_commit_async(ck, want.data(), want.size()), 0);
	cxltier_ckpt_close(ck); // waits for it
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_READ, &ck), 0) << why();
	ASSERT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), nullptr), 0);
	EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin()));
	EXPECT_EQ(cxltier_ckpt_get_generation(ck), 3u);
	cxltier_ckpt_close(ck);
}

// The list names each checkpoint once, whatever copies exist; drop removes all.
TEST_F(CkptTest, ListAndDrop)
{
	cxltier_ckpt_close(create("b", 2));
	cxltier_ckpt_close(create("a", 1));
	ASSERT_EQ(cxltier_region_create(ctx.get(), "plain", 4096, CXLTIER_REGION_POLICY_FAST_FIRST, 0,
					nullptr, 0, nullptr),
		  0);
	ASSERT_EQ(cxltier_region_create(ctx.get(), "x@2", 4096, CXLTIER_REGION_POLICY_FAST_FIRST, 0,
					nullptr, 0, nullptr),
		  0);
	cxltier_ckpt_list *list = nullptr;
	ASSERT_EQ(cxltier_ckpt_list_new(ctx.get(), &list), 0) << why();
	ASSERT_EQ(cxltier_ckpt_list_get_count(list), 2u);
	EXPECT_STREQ(cxltier_ckpt_list_get_name(list, 0), "a");
	EXPECT_STREQ(cxltier_ckpt_list_get_name(list, 1), "b");
	EXPECT_EQ(cxltier_ckpt_list_get_name(list, 2), nullptr);
	cxltier_ckpt_list_free(list);
	EXPECT_EQ(cxltier_ckpt_drop(ctx.get(), "b"), 0) << why();
	cxltier_region_info *info = nullptr;
	EXPECT_EQ(cxltier_region_stat(ctx.get(), "b@1", &info), -ENOENT);
	cxltier_ckpt *ck = nullptr;
	EXPECT_EQ(cxltier_ckpt_open(ctx.get(), "b", CXLTIER_REGION_READ, &ck), -ENOENT);
}

// A copy written by a newer library: reported, restore still reads the other copy,
// and no commit writes over it.
TEST_F(CkptTest, NewerFormatCopy)
{
	cxltier_ckpt *ck = create("job", 2);
	auto a = pattern(300, 11);
	commit(ck, a);
	cxltier_ckpt_close(ck);
	{
		std::fstream f(region_data("job@1"), std::ios::in | std::ios::out | std::ios::binary);
		f.seekp(8);
		char major[2] = {2, 0};
		f.write(major, 2);
	}
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_RDWR, &ck), 0) << why();
	std::vector<unsigned char> out(cap);
	cxltier_ckpt_info *info = nullptr;
	ASSERT_EQ(cxltier_ckpt_restore(ck, out.data(), out.size(), &info), 0);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 1), CXLTIER_CKPT_COPY_NEWER_FORMAT);
	EXPECT_THAT(why(), HasSubstr("copy 1 newer-format"));
	cxltier_ckpt_info_free(info);
	void *staging = nullptr;
	EXPECT_EQ(cxltier_ckpt_begin(ck, 10, &staging), -EPROTONOSUPPORT);
	EXPECT_THAT(why(), HasSubstr("does not write over it"));
	EXPECT_EQ(cxltier_ckpt_commit_async(ck, a.data(), a.size()), 0);
	EXPECT_EQ(cxltier_ckpt_wait(ck, nullptr), -EPROTONOSUPPORT);
	cxltier_ckpt_close(ck);
}

// Issue 22's sequence through the calls: A1 on both copies; copy 1's pool lost,
// the job goes on with A2 and A3; copy 0's pool lost and copy 1 back, the job
// restarts, restores generation 1 and commits B2 and B3; both back: restore gives
// B3, reports copy 0 diverged (also verify and stat), and the next commit resyncs it.
TEST_F(CkptTest, DivergedCopyAfterRestore)
{
	cxltier_ckpt *ck = create("job", 2);
	auto a1 = pattern(1000, 21), a2 = pattern(1100, 22), a3 = pattern(1200, 23),
	     b2 = pattern(2100, 32), b3 = pattern(2200, 33), c4 = pattern(500, 44);
	EXPECT_EQ(commit(ck, a1), 1u);
	mark_region("job@1", "lost=1");
	EXPECT_EQ(commit(ck, a2), 2u);
	EXPECT_EQ(cxltier_ckpt_get_durable_copies(ck), 1u);
	EXPECT_EQ(commit(ck, a3), 3u);
	cxltier_ckpt_close(ck);

	unmark_region("job@1", "lost=1");
	mark_region("job@0", "lost=1");
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_RDWR, &ck), 0) << why();
	std::vector<unsigned char> out;
	cxltier_ckpt_info *info = nullptr;
	ASSERT_EQ(restore(ck, out, &info), 0) << why();
	EXPECT_EQ(cxltier_ckpt_info_get_generation(info), 1u);
	EXPECT_TRUE(holds(out, a1));
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_MISSING);
	cxltier_ckpt_info_free(info);
	EXPECT_EQ(commit(ck, b2), 2u);
	EXPECT_EQ(commit(ck, b3), 3u);
	cxltier_ckpt_close(ck);

	unmark_region("job@0", "lost=1");
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_RDWR, &ck), 0) << why();
	ASSERT_EQ(restore(ck, out, &info), 0) << why();
	EXPECT_EQ(cxltier_ckpt_info_get_generation(info), 3u);
	EXPECT_EQ(cxltier_ckpt_info_get_source(info), 1);
	EXPECT_TRUE(holds(out, b3));
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_DIVERGED);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 1), CXLTIER_CKPT_COPY_OK);
	EXPECT_THAT(cxltier_ckpt_info_get_copy_message(info, 0), HasSubstr("not on the timeline"));
	EXPECT_THAT(why(), HasSubstr("copy 0 diverged"));
	cxltier_ckpt_info_free(info);
	for (auto call : {cxltier_ckpt_verify, cxltier_ckpt_stat}) {
		ASSERT_EQ(call(ck, &info), 0) << why();
		EXPECT_EQ(cxltier_ckpt_info_get_generation(info), 3u);
		EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_DIVERGED);
		EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 1), CXLTIER_CKPT_COPY_OK);
		cxltier_ckpt_info_free(info);
	}
	EXPECT_STREQ(cxltier_ckpt_copy_state_name(CXLTIER_CKPT_COPY_DIVERGED), "diverged");

	EXPECT_EQ(commit(ck, c4), 4u);
	EXPECT_EQ(cxltier_ckpt_get_durable_copies(ck), 2u);
	ASSERT_EQ(cxltier_ckpt_verify(ck, &info), 0) << why();
	for (unsigned int k = 0; k < 2; k++)
		EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, k), CXLTIER_CKPT_COPY_OK) << k;
	EXPECT_STREQ(why(), "");
	cxltier_ckpt_info_free(info);
	cxltier_ckpt_close(ck);
	// Copy 0 alone holds C4 now.
	mark_region("job@1", "lost=1");
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_READ, &ck), 0) << why();
	ASSERT_EQ(restore(ck, out, nullptr), 0) << why();
	EXPECT_TRUE(holds(out, c4));
	cxltier_ckpt_close(ck);
}

// The plain case through the calls: copy 1 away while the job goes on, then back:
// it is behind (stale), the newest generation restores, the next commit catches it up.
TEST_F(CkptTest, CopyReturnsBehind)
{
	cxltier_ckpt *ck = create("job", 2);
	auto a1 = pattern(1000, 51), a2 = pattern(1100, 52), a3 = pattern(1200, 53),
	     a4 = pattern(900, 54);
	EXPECT_EQ(commit(ck, a1), 1u);
	mark_region("job@1", "lost=1");
	EXPECT_EQ(commit(ck, a2), 2u);
	EXPECT_EQ(commit(ck, a3), 3u);
	cxltier_ckpt_close(ck);
	unmark_region("job@1", "lost=1");
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_RDWR, &ck), 0) << why();
	std::vector<unsigned char> out;
	cxltier_ckpt_info *info = nullptr;
	ASSERT_EQ(restore(ck, out, &info), 0) << why();
	EXPECT_EQ(cxltier_ckpt_info_get_generation(info), 3u);
	EXPECT_TRUE(holds(out, a3));
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 0), CXLTIER_CKPT_COPY_OK);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, 1), CXLTIER_CKPT_COPY_STALE);
	EXPECT_EQ(cxltier_ckpt_info_get_copy_generation(info, 1), 1u);
	EXPECT_STREQ(why(), "");
	cxltier_ckpt_info_free(info);
	EXPECT_EQ(commit(ck, a4), 4u);
	ASSERT_EQ(cxltier_ckpt_verify(ck, &info), 0) << why();
	for (unsigned int k = 0; k < 2; k++)
		EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, k), CXLTIER_CKPT_COPY_OK) << k;
	cxltier_ckpt_info_free(info);
	cxltier_ckpt_close(ck);
}

// One committer at a time: a second open of the checkpoint, in this process or in
// another, gets -EBUSY from begin and commit_async while a commit has begun, and
// can commit once it ended.
TEST_F(CkptTest, OneCommitterAtATime)
{
	cxltier_ckpt *ck = create("job", 2);
	auto a = pattern(1000, 61), b = pattern(1000, 62);
	cxltier_ckpt *other = nullptr;
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_RDWR, &other), 0) << why();
	void *staging = nullptr;
	ASSERT_EQ(cxltier_ckpt_begin(ck, a.size(), &staging), 0) << why();
	EXPECT_EQ(cxltier_ckpt_begin(other, b.size(), &staging), -EBUSY);
	EXPECT_THAT(why(), HasSubstr("another committer"));
	EXPECT_EQ(cxltier_ckpt_commit_async(other, b.data(), b.size()), -EBUSY);

	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		// Another process, with its own context and files.
		cxltier_ctx *c = nullptr;
		cxltier_ckpt *mine = nullptr;
		void *st = nullptr;
		if (cxltier_new(&c) || cxltier_ckpt_open(c, "job", CXLTIER_REGION_RDWR, &mine))
			_exit(2);
		_exit(cxltier_ckpt_begin(mine, 10, &st) == -EBUSY ? 0 : 1);
	}
	int status = 0;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

	ASSERT_EQ(cxltier_ckpt_write(ck, 0, a.data(), a.size()), 0) << why();
	std::uint64_t gen = 0;
	ASSERT_EQ(cxltier_ckpt_commit(ck, &gen), 0) << why();
	EXPECT_EQ(gen, 1u);
	EXPECT_EQ(commit(other, b), 2u);
	ASSERT_EQ(cxltier_ckpt_begin(other, 10, &staging), 0) << why();
	EXPECT_EQ(cxltier_ckpt_begin(ck, 10, &staging), -EBUSY);
	ASSERT_EQ(cxltier_ckpt_abort(other), 0);
	EXPECT_EQ(commit(ck, a), 3u);
	cxltier_ckpt_close(other);
	cxltier_ckpt_close(ck);
}

// Two committers racing (two threads, each its own open of one checkpoint,
// retrying on -EBUSY): commits never overlap, so every generation is committed
// once, and the newest restores whole.
TEST_F(CkptTest, RacingCommittersNeverOverlap)
{
	cxltier_ckpt_close(create("job", 2));
	std::vector<std::uint64_t> gens[2];
	std::vector<unsigned char> last[2];
	auto run = [&](int t) {
		int err = 0;
		auto c = cxltier::make_ctx(err);
		cxltier_ckpt *ck = nullptr;
		if (err || cxltier_ckpt_open(c.get(), "job", CXLTIER_REGION_RDWR, &ck))
			return;
		for (int i = 0; i < 40; i++) {
			auto data = pattern(4000 + 8 * i, 100 * t + i);
			void *staging = nullptr;
			int rc;
			while ((rc = cxltier_ckpt_begin(ck, data.size(), &staging)) == -EBUSY)
				std::this_thread::yield();
			if (rc)
				break;
			std::memcpy(staging, data.data(), data.size());
			// A commit that takes a while, as a real one does: the other
			// committer comes in meanwhile.
			std::this_thread::sleep_for(std::chrono::microseconds(200));
			std::uint64_t g = 0;
			if (cxltier_ckpt_commit(ck, &g))
				break;
			gens[t].push_back(g);
			last[t] = data;
		}
		cxltier_ckpt_close(ck);
	};
	std::thread t0(run, 0), t1(run, 1);
	t0.join();
	t1.join();
	ASSERT_EQ(gens[0].size(), 40u);
	ASSERT_EQ(gens[1].size(), 40u);
	std::set<std::uint64_t> all(gens[0].begin(), gens[0].end());
	all.insert(gens[1].begin(), gens[1].end());
	EXPECT_EQ(all.size(), 80u) << "a generation was committed twice";
	cxltier_ckpt *ck = nullptr;
	ASSERT_EQ(cxltier_ckpt_open(ctx.get(), "job", CXLTIER_REGION_READ, &ck), 0) << why();
	std::vector<unsigned char> out;
	cxltier_ckpt_info *info = nullptr;
	ASSERT_EQ(restore(ck, out, &info), 0) << why();
	EXPECT_EQ(cxltier_ckpt_info_get_generation(info), *all.rbegin());
	int winner = gens[0].back() > gens[1].back() ? 0 : 1;
	EXPECT_TRUE(holds(out, last[winner]));
	for (unsigned int k = 0; k < 2; k++)
		EXPECT_EQ(cxltier_ckpt_info_get_copy_state(info, k), CXLTIER_CKPT_COPY_OK) << k;
	cxltier_ckpt_info_free(info);
	cxltier_ckpt_close(ck);
}

// Shared pools (RAM shared between hosts, not persistent) hold no checkpoint:
// skipped when the pools are chosen, refused when given, each refusal naming it.
TEST_F(CkptTest, SharedPoolRefused)
{
	// The most free space of all: the choice would take it first.
	add_shared_pool(sysfs, {.pool = {.name = "region9",
					  .size = "1073741824",
					  .free = "1073741824",
					  .blades = "mem9",
					  .uuid = "5b1e0c2a-7d44-4c39-b0f1-2e6a9c8d4f10"}});
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << why();
	cxltier_ckpt *ck = create("auto", 2);
	ASSERT_NE(ck, nullptr);
	cxltier_ckpt_info *info = nullptr;
	cxltier_ckpt_stat(ck, &info);
	ASSERT_NE(info, nullptr);
	for (unsigned int k = 0; k < 2; k++)
		EXPECT_STRNE(cxltier_ckpt_info_get_copy_pool(info, k), "region9") << k;
	cxltier_ckpt_info_free(info);
	cxltier_ckpt_close(ck);

	cxltier_ckpt_params *p = nullptr;
	ASSERT_EQ(cxltier_ckpt_params_new(&p), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_capacity(p, cap), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_pool(p, 0, "region9"), 0);
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "given", p, &ck), -EINVAL);
	EXPECT_THAT(why(), HasSubstr("pool region9 is a shared pool"));
	cxltier_ckpt_params_free(p);
	cxltier_region_info *ri = nullptr;
	EXPECT_EQ(cxltier_region_stat(ctx.get(), "given@0", &ri), -ENOENT);

	// Only shared pools with room: none to choose.
	sysfs.write("pools/region1/free", "0");
	sysfs.write("pools/region2/free", "0");
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << why();
	ASSERT_EQ(cxltier_ckpt_params_new(&p), 0);
	ASSERT_EQ(cxltier_ckpt_params_set_capacity(p, cap), 0);
	EXPECT_EQ(cxltier_ckpt_create(ctx.get(), "none", p, &ck), -ENODEV);
	EXPECT_THAT(why(), HasSubstr("not shared"));
	cxltier_ckpt_params_free(p);
}

// Names of copy states.
TEST(CkptNames, CopyStates)
{
	EXPECT_STREQ(cxltier_ckpt_copy_state_name(CXLTIER_CKPT_COPY_OK), "ok");
	EXPECT_STREQ(cxltier_ckpt_copy_state_name(CXLTIER_CKPT_COPY_STALE), "stale");
	EXPECT_STREQ(cxltier_ckpt_copy_state_name(CXLTIER_CKPT_COPY_BAD), "bad");
	EXPECT_STREQ(cxltier_ckpt_copy_state_name(CXLTIER_CKPT_COPY_MISSING), "missing");
	EXPECT_STREQ(cxltier_ckpt_copy_state_name(CXLTIER_CKPT_COPY_NEWER_FORMAT), "newer-format");
	EXPECT_STREQ(cxltier_ckpt_copy_state_name(static_cast<cxltier_ckpt_copy_state>(9)), "unknown");
}
