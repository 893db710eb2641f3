// SPDX-License-Identifier: GPL-2.0
// libcxltier against fake sysfs trees and a fake libcxl (fake_platform.cpp): what a
// program using the C ABI relies on, and how cxltier's blades join the CXL core's
// memdevs and regions.
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

// The pool's four blades come back in name order with every attribute: state from
// cxltier, serial, sizes, PCI device and regions from the CXL core.
TEST_F(LibcxltierTest, Pool4BladesHaveEveryAttribute)
{
	sysfs.add_pool4();
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_EQ(cxltier_get_abi_version(ctx.get()), 2u);
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
	EXPECT_EQ(cxltier_get_abi_version(ctx.get()), 2u);
	EXPECT_EQ(cxltier_blade_get_first(ctx.get()), nullptr);
	EXPECT_EQ(cxltier_cxl_region_get_first(ctx.get()), nullptr);
}

// The same without the blades/ directory itself.
TEST_F(LibcxltierTest, TreeWithoutObjectDirectoriesIsEmpty)
{
	sysfs.remove("blades");
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
	for (const char *v : {"1", "3"}) {
		sysfs.write("abi_version", v);
		std::string why = open_fails(-EPROTONOSUPPORT);
		EXPECT_THAT(why, HasSubstr((sysfs.root() / "abi_version").string()));
		EXPECT_THAT(why, HasSubstr("version " + std::string(v)));
	}
}

// A root without abi_version is a broken tree, not a module that is not loaded.
TEST_F(LibcxltierTest, MissingAbiVersionIsMalformedNotUnloaded)
{
	sysfs.remove("abi_version");
	std::string why = open_fails(-EBADMSG);
	EXPECT_THAT(why, HasSubstr((sysfs.root() / "abi_version").string() + ": missing"));
}

// Blade states added by a newer module read as UNKNOWN instead of failing.
TEST_F(LibcxltierTest, UnknownStateTextReadsAsUnknown)
{
	sysfs.add_pool4();
	sysfs.write("blades/mem1/state", "melting");
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_blade *b = cxltier_blade_get_by_name(ctx.get(), "mem1");
	EXPECT_EQ(cxltier_blade_get_state(b), CXLTIER_BLADE_STATE_UNKNOWN);
}

// Full-width values survive the join, and a blade in several regions lists them
// in region number order.
TEST_F(LibcxltierTest, WideValuesAndListsRoundTrip)
{
	sysfs.add_blade({.name = "mem0",
			 .serial = "0xfedcba9876543210",
			 .ram_size = "18446744073709551615"});
	for (const char *r : {"region3", "region10", "region1"})
		sysfs.add_cxl_region({.name = r, .blades = "mem0"});
	sysfs.add_cxl_region({.name = "region2", .blades = "mem1"});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_blade *b = cxltier_blade_get_first(ctx.get());
	EXPECT_EQ(cxltier_blade_get_serial(b), 0xfedcba9876543210u);
	EXPECT_EQ(cxltier_blade_get_ram_size(b), UINT64_MAX);
	EXPECT_THAT(to_strings(cxltier::cxl_regions_of(b)),
		    ElementsAre("region1", "region3", "region10"));
	EXPECT_THAT(cxl_region_names(ctx.get()),
		    ElementsAre("region1", "region2", "region3", "region10"));
}

// A fenced blade whose memdev went away stays listed with cxltier's state; what
// only the CXL core knew reads as nothing.
TEST_F(LibcxltierTest, FencedBladeWithoutMemdevKeepsItsState)
{
	sysfs.add_pool4();
	sysfs.add_blade({.name = "mem4", .state = "fenced", .memdev = false});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_blade *b = cxltier_blade_get_by_name(ctx.get(), "mem4");
	ASSERT_NE(b, nullptr);
	EXPECT_EQ(cxltier_blade_get_state(b), CXLTIER_BLADE_STATE_FENCED);
	EXPECT_EQ(cxltier_blade_get_serial(b), 0u);
	EXPECT_EQ(cxltier_blade_get_ram_size(b), 0u);
	EXPECT_EQ(cxltier_blade_get_pmem_size(b), 0u);
	EXPECT_STREQ(cxltier_blade_get_pci_dev(b), "");
	EXPECT_TRUE(to_strings(cxltier::cxl_regions_of(b)).empty());
}

// A memdev the module does not list is no blade: cxltier's list is the blades.
TEST_F(LibcxltierTest, MemdevWithoutBladeIsNoBlade)
{
	sysfs.add_pool4();
	sysfs.add_blade({.name = "mem7"});
	sysfs.remove("blades/mem7");
	auto ctx = open();
	ASSERT_TRUE(ctx);
	EXPECT_THAT(blade_names(ctx.get()), ElementsAre("mem0", "mem1", "mem2", "mem3"));
}

// A committed region without a dax device has no node; one with a dax device has
// the dax device's target node, whatever the dax device's mode.
TEST_F(LibcxltierTest, RegionNodeIsTheDaxDevicesTargetNode)
{
	sysfs.add_cxl_region({.name = "region1", .size = "268435456", .state = "committed"});
	sysfs.add_cxl_region(
		{.name = "region2", .size = "268435456", .dax_node = "3", .state = "dax"});
	auto ctx = open();
	ASSERT_TRUE(ctx);
	cxltier_cxl_region *r1 = cxltier_cxl_region_get_by_name(ctx.get(), "region1");
	cxltier_cxl_region *r2 = cxltier_cxl_region_get_by_name(ctx.get(), "region2");
	EXPECT_EQ(cxltier_cxl_region_get_numa_node(r1), -1);
	EXPECT_EQ(cxltier_cxl_region_get_state(r1), CXLTIER_CXL_REGION_STATE_COMMITTED);
	EXPECT_EQ(cxltier_cxl_region_get_numa_node(r2), 3);
	EXPECT_EQ(cxltier_cxl_region_get_state(r2), CXLTIER_CXL_REGION_STATE_DAX);
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
		bad_value{"blades/mem1/fenced_pages", "12abc",
			  "expected a decimal number, got \"12abc\""},
		bad_value{"blades/mem1/fenced_pages", "", "expected a decimal number, got \"\""},
		bad_value{"blades/mem1/drained_pages", "-1", "expected a decimal number, got \"-1\""},
		bad_value{"blades/mem1/drain_left", "+1", "expected a decimal number, got \"+1\""},
		bad_value{"blades/mem1/drain_us", "1.5", "got \"1.5\""},
		bad_value{"blades/mem1/poisoned_pages", "18446744073709551616", "is out of range"},
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
	sysfs.write("blades/mem0/fenced_pages", "1\x1b[2J");
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
			 ::testing::Values("blades/mem1/state", "blades/mem3/tiers"),
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

	sysfs.write("blades/mem0/fence_us", "lots");
	EXPECT_EQ(cxltier_refresh(ctx.get()), -EBADMSG);
	EXPECT_THAT(cxltier_get_last_error(ctx.get()),
		    HasSubstr((sysfs.root() / "blades/mem0/fence_us").string()));
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
