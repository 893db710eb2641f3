// SPDX-License-Identifier: GPL-2.0
// Fake /sys/kernel/cxltier trees for host tests, in a temporary directory that is
// removed at scope exit, with the CXL topology next to them for the fake libcxl
// (fake_platform.cpp).  Values are written as strings, as sysfs shows them (with a
// trailing newline), so tests can write malformed ones just as easily.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace cxltier_test {

namespace fs = std::filesystem;

class temp_dir {
public:
	temp_dir()
	{
		std::string tmpl = (fs::temp_directory_path() / "cxltier-test-XXXXXX").string();
		if (!::mkdtemp(tmpl.data()))
			throw std::system_error(errno, std::generic_category(), "mkdtemp " + tmpl);
		path_ = tmpl;
	}
	~temp_dir()
	{
		std::error_code ec; // nothing useful to do if cleanup fails
		fs::remove_all(path_, ec);
	}
	temp_dir(const temp_dir &) = delete;
	temp_dir &operator=(const temp_dir &) = delete;

	const fs::path &path() const noexcept { return path_; }

private:
	fs::path path_;
};

inline std::string slurp(const fs::path &p)
{
	std::ifstream f(p);
	return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A directory tree under a temporary directory, written the way sysfs shows values
// (with a trailing newline).  The fake module tree and the fake standard sysfs build
// on it.
class fake_tree {
public:
	explicit fake_tree(std::string_view top) : root_(dir_.path() / top) {}

	const fs::path &root() const noexcept { return root_; }

	void write(const fs::path &rel, std::string_view value) const
	{
		fs::path p = root_ / rel;
		fs::create_directories(p.parent_path());
		std::ofstream f(p, std::ios::trunc);
		f << value << '\n';
		if (!f.flush())
			throw std::runtime_error("cannot write " + p.string());
	}

	std::string read(const fs::path &rel) const { return slurp(root_ / rel); }

	void remove(const fs::path &rel) const { fs::remove_all(root_ / rel); }

private:
	temp_dir dir_;
	fs::path root_;
};

// Defaults are one 256 MiB volatile QEMU cxl-type3 device.  state and tiers are
// cxltier's (blades/<memdev>/); serial, sizes and pci_dev the CXL core's, which
// the library takes from libcxl (here: the fake libcxl of fake_platform.cpp).
struct blade_spec {
	std::string name;
	std::string serial = "0x1";
	std::string ram_size = "268435456";
	std::string pmem_size = "0";
	std::string pci_dev = "0000:0d:00.0";
	std::string state = "online";
	std::string tiers{};
	bool memdev = true; // false: a fenced blade whose memdev went away
};

// A CXL region as libcxl shows it; state is "uncommitted", "committed", "dax" or
// "system-ram" (a tier is committed: cxltier's tiers/ says the rest).
struct cxl_region_spec {
	std::string name;
	std::string mode = "ram";
	std::string start = "0x0";
	std::string size = "0";
	std::string interleave_ways = "1";
	std::string interleave_granularity = "256";
	std::string blades{}; // targets, position order
	std::string dax_node = "-1";
	std::string state = "uncommitted";
};

// The 4-blade pool the tests share: mem0..mem3 of 256 MiB each, all interleaved by
// region0 (1 GiB of System RAM on node 2); position order differs from name order.
inline constexpr const char *pool_blades[] = {"mem0", "mem1", "mem2", "mem3"};
inline constexpr const char *pool_positions[] = {"mem0", "mem2", "mem1", "mem3"};
inline constexpr std::uint64_t pool_region_start = 0x390000000;
inline constexpr std::uint64_t pool_region_size = 1ull << 30;
inline constexpr std::uint64_t pool_blade_size = 256ull << 20;

class fake_sysfs : public fake_tree {
public:
	// A loaded module that found nothing: abi_version and an empty blades/.
	fake_sysfs() : fake_tree("cxltier")
	{
		fs::create_directories(root() / "blades");
		write("abi_version", "2");
	}

	// As if the module were unloaded: the root goes away.
	void unload() const { fs::remove_all(root()); }

	// Where fake_platform.cpp's libcxl reads memdevs/ and regions/ from.
	fs::path cxl_root() const { return root().parent_path() / "fake-libcxl"; }

	// Writes @value to @rel under cxl_root(), as write() does under root().
	void write_cxl(const fs::path &rel, std::string_view value) const
	{
		write(fs::path("..") / "fake-libcxl" / rel, value);
	}

	void remove_cxl(const fs::path &rel) const { fs::remove_all(cxl_root() / rel); }

	void add_blade(const blade_spec &b) const
	{
		fs::path d = fs::path("blades") / b.name;
		write(d / "state", b.state);
		write(d / "tiers", b.tiers);
		if (!b.memdev)
			return;
		fs::path m = fs::path("memdevs") / b.name;
		write_cxl(m / "serial", b.serial);
		write_cxl(m / "ram_size", b.ram_size);
		write_cxl(m / "pmem_size", b.pmem_size);
		write_cxl(m / "host", b.pci_dev);
	}

	void add_cxl_region(const cxl_region_spec &r) const
	{
		fs::path d = fs::path("regions") / r.name;
		write_cxl(d / "mode", r.mode);
		write_cxl(d / "start", r.start);
		write_cxl(d / "size", r.size);
		write_cxl(d / "interleave_ways", r.interleave_ways);
		write_cxl(d / "interleave_granularity", r.interleave_granularity);
		write_cxl(d / "targets", r.blades);
		write_cxl(d / "dax_node", r.dax_node);
		write_cxl(d / "state", r.state);
	}

	void add_pool4() const
	{
		for (int i = 0; i < 4; i++) {
			char pci[16];
			std::snprintf(pci, sizeof(pci), "0000:%02x:00.0", 0x0d + i);
			add_blade({.name = pool_blades[i],
				   .serial = "0x" + std::to_string(i + 1),
				   .pci_dev = pci});
		}
		add_cxl_region({.name = "region0",
				.start = "0x390000000",
				.size = std::to_string(pool_region_size),
				.interleave_ways = "4",
				.interleave_granularity = "256",
				.blades = "mem0 mem2 mem1 mem3",
				.dax_node = "2",
				.state = "system-ram"});
	}
};

// Sets (or with nullopt unsets) an environment variable until scope exit.
class scoped_env {
public:
	scoped_env(const char *name, std::optional<std::string> value) : name_(name)
	{
		if (const char *old = std::getenv(name))
			old_ = old;
		if (value)
			::setenv(name, value->c_str(), 1);
		else
			::unsetenv(name);
	}
	~scoped_env()
	{
		if (old_)
			::setenv(name_.c_str(), old_->c_str(), 1);
		else
			::unsetenv(name_.c_str());
	}
	scoped_env(const scoped_env &) = delete;
	scoped_env &operator=(const scoped_env &) = delete;

private:
	std::string name_;
	std::optional<std::string> old_;
};

} // namespace cxltier_test
