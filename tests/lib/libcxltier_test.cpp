// SPDX-License-Identifier: GPL-2.0
// libcxltier against fake sysfs trees: what a program using the C ABI relies on.
#include <cerrno>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxltier.h"
#include "cxltier.hpp"
#include "fake_sysfs.hpp"

using namespace cxltier_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

std::vector<std::string> to_strings(std::span<const char *const> names)
{
	// The C arrays are also NULL-terminated; the span ends right before the NULL.
	EXPECT_EQ(names.data()[names.size()], nullptr);
	return {names.begin(), names.end()};
}

std::vector<std::string> blade_names(cxltier_ctx *ctx)
{
	std::vector<std::string> out;
	cxltier_blade *b;
	for_each_cxltier_blade(ctx, b)
		out.emplace_back(cxltier_blade_get_name(b));
	return out;
}

std::vector<std::string> cxl_region_names(cxltier_ctx *ctx)
{
	std::vector<std::string> out;
	cxltier_cxl_region *r;
	for_each_cxltier_cxl_region(ctx, r)
		out.emplace_back(cxltier_cxl_region_get_name(r));
	return out;
}

class LibcxltierTest : public ::testing::Test {
protected:
	// Opens a context on the fake tree, which the test must have made valid.
	cxltier::ctx_ptr open()
	{
		int err = 0;
		auto ctx = cxltier::make_ctx(err);
		EXPECT_EQ(err, 0) << cxltier_get_last_error(nullptr);
		return ctx;
	}

	// cxltier_new() must fail with @err; returns the reason it gave.
	std::string open_fails(int err)
	{
		static char garbage; // any non-NULL value: the failure must overwrite it
		auto *ctx = reinterpret_cast<cxltier_ctx *>(&garbage);
		EXPECT_EQ(cxltier_new(&ctx), err) << cxltier_get_last_error(nullptr);
		EXPECT_EQ(ctx, nullptr) << "a failed cxltier_new() must clear *ctx";
		return cxltier_get_last_error(nullptr);
	}

	fake_sysfs sysfs;
	scoped_env env{CXLTIER_SYSFS_ENV, sysfs.root().string()};
};

// The pool's four blades come back in name order with every attribute as written.
TEST_F(LibcxltierTest, Pool4BladesHaveEveryAttribute)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_get_abi_version(ctx.get()), 1u);
	EXPECT_EQ(cxltier_get_sysfs_root(ctx.get()), sysfs.root().string());
	ASSERT_THAT(blade_names(ctx.get()), ElementsAre("mem0", "mem1", "mem2", "mem3"));

	const char *pci[] = {"0000:0d:00.0", "0000:0e:00.0", "0000:0f:00.0", "0000:10:00.0"};
	std::uint64_t i = 0;
	for (cxltier_blade *b : cxltier::blades(ctx.get())) {
		SCOPED_TRACE(cxltier_blade_get_name(b));
		EXPECT_EQ(cxltier_blade_get_ctx(b), ctx.get());
		EXPECT_EQ(cxltier_blade_get_serial(b), i + 1);
		EXPECT_EQ(cxltier_blade_get_ram_size(b), pool_blade_size);
		EXPECT_EQ(cxltier_blade_get_pmem_size(b), 0u);
		EXPECT_STREQ(cxltier_blade_get_pci_dev(b), pci[i]);
		EXPECT_EQ(cxltier_blade_get_state(b), CXLTIER_BLADE_STATE_ONLINE);
		EXPECT_THAT(to_strings(cxltier::cxl_regions_of(b)), ElementsAre("region0"));
		i++;
	}
	EXPECT_EQ(i, 4u);
}

// The interleaved region reports its geometry, and its targets in position order
// (not name order), which is what placing data by interleave position needs.
TEST_F(LibcxltierTest, Pool4InterleavedRegionKeepsPositionOrder)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	ASSERT_THAT(cxl_region_names(ctx.get()), ElementsAre("region0"));

	cxltier_cxl_region *r = cxltier_cxl_region_get_first(ctx.get());
	EXPECT_EQ(cxltier_cxl_region_get_ctx(r), ctx.get());
	EXPECT_EQ(cxltier_cxl_region_get_mode(r), CXLTIER_CXL_REGION_MODE_RAM);
	EXPECT_EQ(cxltier_cxl_region_get_start(r), pool_region_start);
	EXPECT_EQ(cxltier_cxl_region_get_size(r), pool_region_size);
	EXPECT_EQ(cxltier_cxl_region_get_interleave_ways(r), 4u);
	EXPECT_EQ(cxltier_cxl_region_get_interleave_granularity(r), 256u);
	EXPECT_THAT(to_strings(cxltier::blades_of(r)), ElementsAre("mem0", "mem2", "mem1", "mem3"));
	EXPECT_EQ(cxltier_cxl_region_get_numa_node(r), 2);
	EXPECT_EQ(cxltier_cxl_region_get_state(r), CXLTIER_CXL_REGION_STATE_SYSTEM_RAM);
	EXPECT_EQ(cxltier_cxl_region_get_next(r), nullptr);
}

// A region without an address range or targets yet reads as zeros, no node, no blades.
TEST_F(LibcxltierTest, UncommittedRegionHasNoRangeNodeOrBlades)
{
	sysfs.add_pool4();
	sysfs.add_cxl_region({.name = "region1", .mode = "pmem"});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	ASSERT_THAT(cxl_region_names(ctx.get()), ElementsAre("region0", "region1"));

	cxltier_cxl_region *r = cxltier_cxl_region_get_by_name(ctx.get(), "region1");
	ASSERT_NE(r, nullptr);
	EXPECT_EQ(cxltier_cxl_region_get_mode(r), CXLTIER_CXL_REGION_MODE_PMEM);
	EXPECT_EQ(cxltier_cxl_region_get_start(r), 0u);
	EXPECT_EQ(cxltier_cxl_region_get_size(r), 0u);
	EXPECT_EQ(cxltier_cxl_region_get_numa_node(r), -1);
	EXPECT_EQ(cxltier_cxl_region_get_state(r), CXLTIER_CXL_REGION_STATE_UNCOMMITTED);
	std::size_t n = 99;
	const char *const *blades = cxltier_cxl_region_get_blades(r, &n);
	EXPECT_EQ(n, 0u);
	EXPECT_EQ(blades[0], nullptr);
}

// mem10 sorts after mem2, as the kernel numbers them, not as strings compare.
TEST_F(LibcxltierTest, BladesAreInNumericOrder)
{
	for (const char *name : {"mem10", "mem2", "mem1", "mem0"})
		sysfs.add_blade({.name = name});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_THAT(blade_names(ctx.get()), ElementsAre("mem0", "mem1", "mem2", "mem10"));
}

// Lookup by name finds what iteration finds and nothing else.
TEST_F(LibcxltierTest, GetByNameFindsOnlyExistingObjects)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_blade *b = cxltier_blade_get_by_name(ctx.get(), "mem2");
	ASSERT_NE(b, nullptr);
	EXPECT_STREQ(cxltier_blade_get_name(b), "mem2");
	EXPECT_EQ(cxltier_blade_get_by_name(ctx.get(), "mem4"), nullptr);
	EXPECT_EQ(cxltier_blade_get_by_name(ctx.get(), nullptr), nullptr);
	EXPECT_NE(cxltier_cxl_region_get_by_name(ctx.get(), "region0"), nullptr);
	EXPECT_EQ(cxltier_cxl_region_get_by_name(ctx.get(), "region9"), nullptr);
}

// A loaded module that found no CXL devices is a valid, empty context.
TEST_F(LibcxltierTest, EmptyTreeHasNoBladesOrRegions)
{
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_get_abi_version(ctx.get()), 1u);
	EXPECT_EQ(cxltier_blade_get_first(ctx.get()), nullptr);
	EXPECT_EQ(cxltier_cxl_region_get_first(ctx.get()), nullptr);
}

// The same without the blades/ and cxl_regions/ directories themselves.
TEST_F(LibcxltierTest, TreeWithoutObjectDirectoriesIsEmpty)
{
	sysfs.remove("blades");
	sysfs.remove("cxl_regions");
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_blade_get_first(ctx.get()), nullptr);
	EXPECT_EQ(cxltier_cxl_region_get_first(ctx.get()), nullptr);
}

// Files beside the object directories are not objects.
TEST_F(LibcxltierTest, StrayFilesAreNotBlades)
{
	sysfs.add_pool4();
	sysfs.write("blades/uevent", "");
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_THAT(blade_names(ctx.get()), ElementsAre("mem0", "mem1", "mem2", "mem3"));
}

// No sysfs root means the module is not loaded: -ENOENT and a reason saying so.
TEST_F(LibcxltierTest, MissingRootIsENOENT)
{
	sysfs.unload();
	std::string why = open_fails(-ENOENT);
	EXPECT_THAT(why, HasSubstr("cxltier module not loaded"));
	EXPECT_THAT(why, HasSubstr(sysfs.root().string()));
}

// An empty CXLTIER_SYSFS means the real root, not the current directory.
TEST_F(LibcxltierTest, EmptyEnvironmentVariableMeansDefaultRoot)
{
	scoped_env empty(CXLTIER_SYSFS_ENV, "");
	cxltier_ctx *raw = nullptr;
	int err = cxltier_new(&raw);
	cxltier::ctx_ptr ctx(raw);
	if (err == 0)
		EXPECT_STREQ(cxltier_get_sysfs_root(ctx.get()), CXLTIER_SYSFS_ROOT);
	else
		EXPECT_THAT(cxltier_get_last_error(nullptr), HasSubstr(CXLTIER_SYSFS_ROOT));
}

// A layout version this library does not know is refused before anything is read.
TEST_F(LibcxltierTest, UnknownAbiVersionIsRefused)
{
	sysfs.add_pool4();
	sysfs.write("abi_version", "2");
	std::string why = open_fails(-EPROTONOSUPPORT);
	EXPECT_THAT(why, HasSubstr((sysfs.root() / "abi_version").string()));
	EXPECT_THAT(why, HasSubstr("version 2"));
}

// A root without abi_version is a broken tree, not a module that is not loaded.
TEST_F(LibcxltierTest, MissingAbiVersionIsMalformedNotUnloaded)
{
	sysfs.remove("abi_version");
	std::string why = open_fails(-EBADMSG);
	EXPECT_THAT(why, HasSubstr((sysfs.root() / "abi_version").string() + ": missing"));
}

// States and modes added by a newer module read as UNKNOWN instead of failing.
TEST_F(LibcxltierTest, UnknownStateTextReadsAsUnknown)
{
	sysfs.add_pool4();
	sysfs.write("blades/mem1/state", "melting");
	sysfs.write("cxl_regions/region0/mode", "hdm-db");
	sysfs.write("cxl_regions/region0/state", "frozen");
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_blade *b = cxltier_blade_get_by_name(ctx.get(), "mem1");
	EXPECT_EQ(cxltier_blade_get_state(b), CXLTIER_BLADE_STATE_UNKNOWN);
	cxltier_cxl_region *r = cxltier_cxl_region_get_first(ctx.get());
	EXPECT_EQ(cxltier_cxl_region_get_mode(r), CXLTIER_CXL_REGION_MODE_UNKNOWN);
	EXPECT_EQ(cxltier_cxl_region_get_state(r), CXLTIER_CXL_REGION_STATE_UNKNOWN);
}

// Full-width values survive: a 64-bit serial and a blade in several regions.
TEST_F(LibcxltierTest, WideValuesAndListsRoundTrip)
{
	sysfs.add_blade({.name = "mem0",
			 .serial = "0xfedcba9876543210",
			 .ram_size = "18446744073709551615",
			 .cxl_regions = "region0  region3\tregion1"});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_blade *b = cxltier_blade_get_first(ctx.get());
	EXPECT_EQ(cxltier_blade_get_serial(b), 0xfedcba9876543210u);
	EXPECT_EQ(cxltier_blade_get_ram_size(b), UINT64_MAX);
	EXPECT_THAT(to_strings(cxltier::cxl_regions_of(b)),
		    ElementsAre("region0", "region3", "region1"));
}

struct bad_value {
	const char *file; // relative to the root
	const char *value;
	const char *why; // expected in the message
};

void PrintTo(const bad_value &v, std::ostream *os)
{
	*os << v.file << " = \"" << v.value << "\"";
}

// Each malformed value fails cxltier_new() with -EBADMSG and a message naming the
// file and quoting the value; none is silently read as 0.
class MalformedValueTest : public LibcxltierTest, public ::testing::WithParamInterface<bad_value> {};

TEST_P(MalformedValueTest, NamesFileAndValue)
{
	const bad_value &p = GetParam();
	sysfs.add_pool4();
	sysfs.write(p.file, p.value);
	std::string why = open_fails(-EBADMSG);
	EXPECT_THAT(why, HasSubstr((sysfs.root() / p.file).string() + ": "));
	EXPECT_THAT(why, HasSubstr(p.why));
	EXPECT_EQ(why.find('\n'), std::string::npos) << "one line";
}

INSTANTIATE_TEST_SUITE_P(
	Values, MalformedValueTest,
	::testing::Values(
		bad_value{"blades/mem1/ram_size", "12abc", "expected a decimal number, got \"12abc\""},
		bad_value{"blades/mem1/ram_size", "", "expected a decimal number, got \"\""},
		bad_value{"blades/mem1/ram_size", "-1", "expected a decimal number, got \"-1\""},
		bad_value{"blades/mem1/ram_size", "+1", "expected a decimal number, got \"+1\""},
		bad_value{"blades/mem1/pmem_size", "1.5", "got \"1.5\""},
		bad_value{"blades/mem1/pmem_size", "18446744073709551616", "is out of range"},
		bad_value{"blades/mem2/serial", "1234",
			  "expected a 0x-prefixed hexadecimal number, got \"1234\""},
		bad_value{"blades/mem2/serial", "0x", "got \"0x\""},
		bad_value{"blades/mem2/serial", "0xcafeg", "got \"0xcafeg\""},
		bad_value{"cxl_regions/region0/start", "0x10000000000000000", "is out of range"},
		bad_value{"cxl_regions/region0/size", "1G", "got \"1G\""},
		bad_value{"cxl_regions/region0/interleave_ways", "four", "got \"four\""},
		bad_value{"cxl_regions/region0/interleave_ways", "-4", "-4 is out of range"},
		bad_value{"cxl_regions/region0/interleave_granularity", "4294967296",
			  "is out of range"},
		bad_value{"cxl_regions/region0/numa_node", "-2", "-2 is out of range"},
		bad_value{"cxl_regions/region0/numa_node", "node1", "got \"node1\""},
		bad_value{"abi_version", "one", "got \"one\""}),
	[](const ::testing::TestParamInfo<bad_value> &info) {
		// "blades/mem1/ram_size" -> "ram_size_3" (index keeps names unique)
		std::string file = fs::path(info.param.file).filename().string();
		return file + "_" + std::to_string(info.index);
	});

// Control characters in a bad value are not copied into the message.
TEST_F(LibcxltierTest, BadValueIsQuotedPrintably)
{
	sysfs.add_pool4();
	sysfs.write("blades/mem0/ram_size", "1\x1b[2J");
	std::string why = open_fails(-EBADMSG);
	EXPECT_THAT(why, HasSubstr("got \"1?[2J\""));
}

// A missing attribute file in an object that is still there is a malformed tree.
class MissingFileTest : public LibcxltierTest, public ::testing::WithParamInterface<const char *> {};

TEST_P(MissingFileTest, NamesFile)
{
	sysfs.add_pool4();
	sysfs.remove(GetParam());
	std::string why = open_fails(-EBADMSG);
	EXPECT_EQ(why, (sysfs.root() / GetParam()).string() + ": missing");
}

INSTANTIATE_TEST_SUITE_P(Files, MissingFileTest,
			 ::testing::Values("blades/mem1/serial", "blades/mem3/cxl_regions",
					   "cxl_regions/region0/interleave_granularity",
					   "cxl_regions/region0/state"),
			 [](const ::testing::TestParamInfo<const char *> &info) {
				 std::string s = info.param;
				 for (char &c : s)
					 if (c == '/')
						 c = '_';
				 return s;
			 });

// A refresh picks up blades that appeared since the last one.
TEST_F(LibcxltierTest, RefreshSeesNewBlades)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	sysfs.add_blade({.name = "mem4", .ram_size = "536870912"});
	ASSERT_EQ(cxltier_refresh(ctx.get()), 0) << cxltier_get_last_error(ctx.get());
	EXPECT_THAT(blade_names(ctx.get()), ElementsAre("mem0", "mem1", "mem2", "mem3", "mem4"));
	EXPECT_EQ(cxltier_blade_get_ram_size(cxltier_blade_get_by_name(ctx.get(), "mem4")),
		  512u << 20);
}

// A failed refresh reports why on the context and leaves the old snapshot, and
// the pointers into it, usable.
TEST_F(LibcxltierTest, FailedRefreshKeepsPreviousSnapshot)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_blade *mem3 = cxltier_blade_get_by_name(ctx.get(), "mem3");
	EXPECT_STREQ(cxltier_get_last_error(ctx.get()), "");

	sysfs.write("blades/mem0/pmem_size", "lots");
	EXPECT_EQ(cxltier_refresh(ctx.get()), -EBADMSG);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()),
		    HasSubstr((sysfs.root() / "blades/mem0/pmem_size").string()));
	EXPECT_STREQ(cxltier_blade_get_name(mem3), "mem3");
	EXPECT_EQ(cxltier_blade_get_ram_size(mem3), pool_blade_size);
	EXPECT_EQ(blade_names(ctx.get()).size(), 4u);
}

// Unloading the module under an open context makes refresh say so.
TEST_F(LibcxltierTest, RefreshAfterUnloadIsENOENT)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	sysfs.unload();
	EXPECT_EQ(cxltier_refresh(ctx.get()), -ENOENT);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()), HasSubstr("not loaded"));
}

// References keep a context alive: the last unref, not the first, frees it.
TEST_F(LibcxltierTest, ReferenceCounting)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_ctx *second = cxltier_ref(ctx.get());
	EXPECT_EQ(second, ctx.get());
	ctx.reset(); // drops the first reference
	EXPECT_EQ(blade_names(second).size(), 4u);
	cxltier_unref(second);
	cxltier_unref(nullptr); // allowed, like free(NULL)
}

// Invalid arguments fail cleanly instead of crashing.
TEST_F(LibcxltierTest, NullArgumentsAreRefused)
{
	EXPECT_EQ(cxltier_new(nullptr), -EINVAL);
	EXPECT_EQ(cxltier_refresh(nullptr), -EINVAL);
	EXPECT_EQ(cxltier_blade_get_first(nullptr), nullptr);
	EXPECT_EQ(cxltier_blade_get_next(nullptr), nullptr);
	EXPECT_EQ(cxltier_cxl_region_get_first(nullptr), nullptr);
	EXPECT_EQ(cxltier_cxl_region_get_next(nullptr), nullptr);
}

// strerror takes either sign, has the library's meaning for its own errors and
// never returns NULL.
TEST(LibcxltierStrerror, DescribesEveryCode)
{
	EXPECT_STREQ(cxltier_strerror(-EBADMSG), cxltier_strerror(EBADMSG));
	EXPECT_THAT(cxltier_strerror(-EBADMSG), HasSubstr("sysfs"));
	EXPECT_THAT(cxltier_strerror(-EPROTONOSUPPORT), HasSubstr("ABI version"));
	EXPECT_STREQ(cxltier_strerror(-ENOENT), "No such file or directory");
	EXPECT_NE(cxltier_strerror(-123456), nullptr);
	EXPECT_NE(cxltier_strerror(INT32_MIN + 1), nullptr);
}

// The name functions cover every enumerator and unknown values.
TEST(LibcxltierNames, EveryEnumeratorHasAName)
{
	EXPECT_STREQ(cxltier_blade_state_name(CXLTIER_BLADE_STATE_ONLINE), "online");
	EXPECT_STREQ(cxltier_blade_state_name(CXLTIER_BLADE_STATE_OFFLINE), "offline");
	EXPECT_STREQ(cxltier_blade_state_name(static_cast<cxltier_blade_state>(77)), "unknown");
	EXPECT_STREQ(cxltier_cxl_region_mode_name(CXLTIER_CXL_REGION_MODE_RAM), "ram");
	EXPECT_STREQ(cxltier_cxl_region_mode_name(CXLTIER_CXL_REGION_MODE_PMEM), "pmem");
	EXPECT_STREQ(cxltier_cxl_region_mode_name(CXLTIER_CXL_REGION_MODE_UNKNOWN), "unknown");
	EXPECT_STREQ(cxltier_cxl_region_state_name(CXLTIER_CXL_REGION_STATE_UNCOMMITTED),
		     "uncommitted");
	EXPECT_STREQ(cxltier_cxl_region_state_name(CXLTIER_CXL_REGION_STATE_COMMITTED), "committed");
	EXPECT_STREQ(cxltier_cxl_region_state_name(CXLTIER_CXL_REGION_STATE_DAX), "dax");
	EXPECT_STREQ(cxltier_cxl_region_state_name(CXLTIER_CXL_REGION_STATE_SYSTEM_RAM),
		     "system-ram");
}

} // namespace
