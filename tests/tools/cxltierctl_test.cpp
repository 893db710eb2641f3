// SPDX-License-Identifier: GPL-2.0
// cxltierctl end to end: the built binary run against fake sysfs trees, checked the
// way scripts and people use it (JSON that parses, tables that name things, one-line
// errors with the documented exit codes).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fake_sysfs.hpp"
#include "run_cli.hpp"

using namespace cxltier_test;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;

namespace {

// Runs cxltierctl with CXLTIER_SYSFS=@root (unset if nullopt).
run_result run(const std::vector<std::string> &args, const std::optional<fs::path> &root)
{
	std::optional<std::string> v;
	if (root)
		v = root->string();
	return run_cxltierctl(args, {{"CXLTIER_SYSFS", v}});
}

// A run that must succeed, with nothing on stderr.
std::string run_ok(const std::vector<std::string> &args, const fs::path &root)
{
	run_result r = run(args, root);
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.err, "");
	return r.out;
}

json run_json(const std::vector<std::string> &args, const fs::path &root)
{
	std::string out = run_ok(args, root);
	json doc = json::parse(out, nullptr, false);
	EXPECT_FALSE(doc.is_discarded()) << "not JSON:\n" << out;
	return doc;
}

// Exactly one line on stderr, "cxltierctl: ..." (the line without its newline).
std::string one_error_line(const run_result &r)
{
	EXPECT_THAT(r.err, StartsWith("cxltierctl: "));
	EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
	return r.err.substr(0, r.err.find('\n'));
}

class CxltierctlTest : public ::testing::Test {
protected:
	fake_sysfs sysfs;
};

// list --json is one JSON object with every field, numbers as numbers, and the
// region's blades in interleave position order.
TEST_F(CxltierctlTest, ListJsonHasEveryFieldWithItsType)
{
	sysfs.add_pool4();
	json doc = run_json({"list", "--json"}, sysfs.root());
	ASSERT_TRUE(doc.is_object());
	EXPECT_EQ(doc["abi_version"], 2);

	ASSERT_TRUE(doc["blades"].is_array());
	ASSERT_EQ(doc["blades"].size(), 4u);
	for (std::size_t i = 0; i < 4; i++) {
		const json &b = doc["blades"][i];
		SCOPED_TRACE(b.dump());
		EXPECT_EQ(b["name"], pool_blades[i]);
		EXPECT_TRUE(b["serial"].is_number_unsigned());
		EXPECT_EQ(b["serial"], i + 1);
		EXPECT_TRUE(b["ram_size"].is_number_unsigned());
		EXPECT_EQ(b["ram_size"], pool_blade_size);
		EXPECT_EQ(b["pmem_size"], 0);
		EXPECT_TRUE(b["pci_dev"].is_string());
		EXPECT_EQ(b["state"], "online");
		EXPECT_EQ(b["cxl_regions"], json::array({"region0"}));
	}
	EXPECT_EQ(doc["blades"][0]["pci_dev"], "0000:0d:00.0");

	ASSERT_TRUE(doc["cxl_regions"].is_array());
	ASSERT_EQ(doc["cxl_regions"].size(), 1u);
	const json &r = doc["cxl_regions"][0];
	EXPECT_EQ(r["name"], "region0");
	EXPECT_EQ(r["mode"], "ram");
	EXPECT_TRUE(r["start"].is_number_unsigned());
	EXPECT_EQ(r["start"], pool_region_start);
	EXPECT_EQ(r["size"], pool_region_size);
	EXPECT_EQ(r["interleave_ways"], 4);
	EXPECT_EQ(r["interleave_granularity"], 256);
	EXPECT_EQ(r["blades"], json::array({"mem0", "mem2", "mem1", "mem3"}));
	EXPECT_TRUE(r["numa_node"].is_number_integer());
	EXPECT_EQ(r["numa_node"], 2);
	EXPECT_EQ(r["state"], "system-ram");
}

// A 64-bit serial and an unknown NUMA node come through exactly.
TEST_F(CxltierctlTest, ListJsonKeepsFullWidthNumbers)
{
	sysfs.add_blade({.name = "mem0", .serial = "0xfedcba9876543210"});
	sysfs.add_cxl_region({.name = "region0"});
	json doc = run_json({"list", "--json"}, sysfs.root());
	EXPECT_EQ(doc["blades"][0]["serial"].get<std::uint64_t>(), 0xfedcba9876543210u);
	EXPECT_EQ(doc["cxl_regions"][0]["numa_node"], -1);
	EXPECT_EQ(doc["cxl_regions"][0]["blades"], json::array());
}

// The per-noun lists print the same document shape with only their own array.
TEST_F(CxltierctlTest, NounListsJsonHaveOnlyTheirKind)
{
	sysfs.add_pool4();
	json full = run_json({"list", "--json"}, sysfs.root());

	json blades = run_json({"blade", "list", "--json"}, sysfs.root());
	EXPECT_EQ(blades["abi_version"], 2);
	EXPECT_EQ(blades["blades"], full["blades"]);
	EXPECT_FALSE(blades.contains("cxl_regions"));

	json regions = run_json({"cxl-region", "list", "--json"}, sysfs.root());
	EXPECT_EQ(regions["abi_version"], 2);
	EXPECT_EQ(regions["cxl_regions"], full["cxl_regions"]);
	EXPECT_FALSE(regions.contains("blades"));
}

// The table names every blade and region with readable sizes and ranges.
TEST_F(CxltierctlTest, ListTableShowsBladesAndRegions)
{
	sysfs.add_pool4();
	std::string out = run_ok({"list"}, sysfs.root());
	for (const char *b : pool_blades)
		EXPECT_THAT(out, HasSubstr(b));
	EXPECT_THAT(out, AllOf(HasSubstr("region0"), HasSubstr("256 MiB"), HasSubstr("1 GiB"),
			       HasSubstr("0x390000000-0x3cfffffff"),
			       HasSubstr("mem0,mem2,mem1,mem3"), HasSubstr("system-ram"),
			       HasSubstr("0000:0d:00.0")));
	EXPECT_THAT(out, Not(HasSubstr("{"))) << "human output is not JSON";
}

// Sizes in binary units with at most one decimal; "-" where there is nothing.
TEST_F(CxltierctlTest, TableUsesBinaryUnitsAndDashes)
{
	sysfs.add_blade({.name = "mem0", .ram_size = "1610612736", .pmem_size = "0"});
	sysfs.add_cxl_region({.name = "region0", .interleave_granularity = "4096"});
	std::string out = run_ok({"list"}, sysfs.root());
	EXPECT_THAT(out, AllOf(HasSubstr("1.5 GiB"), HasSubstr("0 B"), HasSubstr("4 KiB")));
	std::string region_row = out.substr(out.rfind("region0"));
	EXPECT_THAT(region_row, HasSubstr("  -  ")) << "no HPA range, blades or node yet";
	EXPECT_THAT(region_row, HasSubstr("uncommitted"));
}

// Each noun's table shows its kind only.
TEST_F(CxltierctlTest, NounListTablesShowOnlyTheirKind)
{
	sysfs.add_pool4();
	std::string blades = run_ok({"blade", "list"}, sysfs.root());
	EXPECT_THAT(blades, AllOf(HasSubstr("mem3"), HasSubstr("BLADE"), Not(HasSubstr("HPA-RANGE"))));
	std::string regions = run_ok({"cxl-region", "list"}, sysfs.root());
	EXPECT_THAT(regions, AllOf(HasSubstr("region0"), HasSubstr("CXL-REGION"),
				   Not(HasSubstr("PCI-DEV"))));
}

// A loaded module with nothing found is not an error: empty arrays, a plain message.
TEST_F(CxltierctlTest, EmptyTreeListsNothingAndSucceeds)
{
	json doc = run_json({"list", "--json"}, sysfs.root());
	EXPECT_EQ(doc["abi_version"], 2);
	EXPECT_EQ(doc["blades"], json::array());
	EXPECT_EQ(doc["cxl_regions"], json::array());
	EXPECT_THAT(run_ok({"list"}, sysfs.root()),
		    AllOf(HasSubstr("No blades found."), HasSubstr("No CXL regions found.")));
}

// The subcommands a help text lists ("Subcommands:", then "  name   description").
std::vector<std::string> subcommands_of(const std::string &help)
{
	std::vector<std::string> names;
	std::istringstream in(help);
	std::string line;
	bool in_list = false;
	while (std::getline(in, line)) {
		if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
			in_list = true;
			continue;
		}
		if (!in_list)
			continue;
		if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') {
			if (line.empty() || line[0] != ' ')
				in_list = false;
			continue;
		}
		names.push_back(line.substr(2, line.find(' ', 2) - 2));
	}
	return names;
}

// Every command that prints JSON takes -j as well as --json (as ndctl's do): walks
// every command's help, so a new command cannot leave it out.
TEST_F(CxltierctlTest, EveryJsonFlagHasMinusJ)
{
	std::vector<std::vector<std::string>> todo{{}};
	int with_json = 0, seen = 0;
	while (!todo.empty()) {
		auto path = todo.back();
		todo.pop_back();
		auto args = path;
		args.push_back("--help");
		run_result r = run(args, sysfs.root());
		ASSERT_EQ(r.status, 0) << r.err;
		seen++;
		std::string where = "cxltierctl";
		for (const auto &a : path)
			where += " " + a;
		if (r.out.find("--json") != std::string::npos) {
			with_json++;
			EXPECT_THAT(r.out, HasSubstr("-j,--json")) << where;
		}
		for (const auto &sub : subcommands_of(r.out)) {
			auto next = path;
			next.push_back(sub);
			todo.push_back(next);
		}
	}
	EXPECT_LT(40, seen) << "the walk found too few commands: the help format changed?";
	EXPECT_LT(10, with_json);
}

TEST_F(CxltierctlTest, MinusJIsJson)
{
	sysfs.add_pool4();
	for (auto cmd : std::vector<std::vector<std::string>>{{"list"}, {"blade", "list"}, {"tier", "list"}}) {
		auto a = cmd, b = cmd;
		a.push_back("-j");
		b.push_back("--json");
		EXPECT_EQ(run_ok(a, sysfs.root()), run_ok(b, sysfs.root())) << cmd[0];
	}
}

// Without the module every list command says how to load it, in one line, exit 1.
TEST_F(CxltierctlTest, ModuleNotLoadedSaysHowToLoadIt)
{
	sysfs.unload();
	for (auto args : std::vector<std::vector<std::string>>{
		     {"list"}, {"list", "--json"}, {"blade", "list"}, {"cxl-region", "list", "--json"}}) {
		SCOPED_TRACE(args[0]);
		run_result r = run(args, sysfs.root());
		EXPECT_EQ(r.status, 1);
		EXPECT_EQ(r.out, "");
		EXPECT_EQ(r.err, "cxltierctl: cxltier module not loaded (" + sysfs.root().string() +
					 " missing); load it with: modprobe cxltier\n");
	}
}

// Without CXLTIER_SYSFS the tool reads /sys/kernel/cxltier.
TEST_F(CxltierctlTest, DefaultRootIsSysKernelCxltier)
{
	if (fs::exists("/sys/kernel/cxltier"))
		GTEST_SKIP() << "the cxltier module is loaded on this host";
	run_result r = run({"list"}, std::nullopt);
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.err, "cxltierctl: cxltier module not loaded (/sys/kernel/cxltier missing); "
			 "load it with: modprobe cxltier\n");
}

// A malformed value fails the command with the file and value in one line.
TEST_F(CxltierctlTest, MalformedValueFailsWithFileAndValue)
{
	sysfs.add_pool4();
	sysfs.write("blades/mem2/fenced_pages", "256M");
	run_result r = run({"list", "--json"}, sysfs.root());
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "") << "no partial JSON";
	EXPECT_EQ(one_error_line(r), "cxltierctl: " + (sysfs.root() / "blades/mem2/fenced_pages").string() +
					     ": expected a decimal number, got \"256M\"");
}

// Usage errors exit 2 with one line on stderr and do no work.
TEST_F(CxltierctlTest, UsageErrorsExitTwo)
{
	for (auto args : std::vector<std::vector<std::string>>{
		     {}, {"bogus"}, {"blade"}, {"blade", "bogus"}, {"list", "--bogus"}, {"list", "extra"}}) {
		SCOPED_TRACE(args.empty() ? "(none)" : args.back());
		run_result r = run(args, sysfs.root());
		EXPECT_EQ(r.status, 2);
		EXPECT_EQ(r.out, "");
		one_error_line(r);
	}
	EXPECT_THAT(run({"bogus"}, sysfs.root()).err, HasSubstr("bogus"));
}

// --version prints the project version; --help lists the commands; both exit 0.
TEST_F(CxltierctlTest, VersionAndHelp)
{
	EXPECT_EQ(run_ok({"--version"}, sysfs.root()), "cxltierctl " CXLTIER_VERSION "\n");
	std::string help = run_ok({"--help"}, sysfs.root());
	EXPECT_THAT(help, AllOf(HasSubstr("list"), HasSubstr("blade"), HasSubstr("cxl-region")));
}

} // namespace
