// SPDX-License-Identifier: GPL-2.0
// bench/trace/pagetrace.c, the QEMU plugin that records the simulator's program
// traces, driven without QEMU through the API's fake (fake-qemu-plugin/): its cache
// model, which accesses it keeps, the physical page it writes, how much of a run
// it can miss, and the protocol of the record file.  The plugin keeps its state in statics, so every
// case installs it in a child process of its own.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "qemu-plugin.h"

namespace fs = std::filesystem;

// --- the fake QEMU -------------------------------------------------------------

struct qemu_plugin_hwaddr {
	uint64_t pa;
	bool io;
};

namespace {

qemu_plugin_vcpu_tb_trans_cb_t tb_trans;
qemu_plugin_vcpu_mem_cb_t mem_cb;
void *mem_udata;
qemu_plugin_udata_cb_t exit_cb;
void *exit_udata;
qemu_plugin_hwaddr current;	// what the access under way maps to

} // namespace

extern "C" {

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t cb)
{
	tb_trans = cb;
}

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *)
{
	return 1;
}

struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t)
{
	static char insn;

	return reinterpret_cast<qemu_plugin_insn *>(&insn);
}

void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *, qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags, enum qemu_plugin_mem_rw rw,
				      void *userdata)
{
	// Loads and stores alike: a store miss fetches its line too.
	if (rw != QEMU_PLUGIN_MEM_RW)
		_exit(90);
	mem_cb = cb;
	mem_udata = userdata;
}

struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t, uint64_t)
{
	return &current;
}

bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *h)
{
	return h->io;
}

uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *h)
{
	return h->pa;
}

void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t cb, void *userdata)
{
	exit_cb = cb;
	exit_udata = userdata;
}

} // extern "C"

namespace {

// Guest-physical = virtual + this, so that a test sees which one was written.
constexpr uint64_t PHYS_OFF = 0x4000000000ULL;
constexpr uint64_t POLL = 1 << 14;	// pagetrace.c's POLL_EVERY

struct guest {
	fs::path dir;

	void access(uint64_t vaddr, unsigned cpu = 0, bool io = false)
	{
		current = { vaddr + PHYS_OFF, io };
		mem_cb(cpu, 0, vaddr, mem_udata);
	}
	// As guest-record's poke: hits on one line of its own, long enough for the
	// plugin to read the record file once.
	void poke()
	{
		for (uint64_t i = 0; i < POLL; i++)
			access(0x7000000000ULL);
	}
	void start(const std::string &name)
	{
		std::ofstream(dir / "record") << name << "\n";
		poke();
	}
	void stop()
	{
		fs::remove(dir / "record");
		poke();
	}
	void scan(uint64_t base, uint64_t bytes, uint64_t step = 64)
	{
		for (uint64_t a = base; a < base + bytes; a += step)
			access(a);
	}
};

// Runs body in a child with the plugin installed with args; returns its exit
// status (0 when body returned and the plugin's atexit ran).
int run(const fs::path &dir, std::vector<std::string> args,
	const std::function<void(guest &)> &body, bool system = true)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();

	if (pid == 0) {
		std::vector<char *> argv;

		for (auto &a : args)
			argv.push_back(a.data());
		qemu_info_t info{};
		info.system_emulation = system;
		if (qemu_plugin_install(1, &info, int(argv.size()), argv.data()))
			_exit(3);
		if (!tb_trans || !exit_cb)
			_exit(4);
		tb_trans(1, nullptr);
		if (!mem_cb)
			_exit(5);
		guest g{ dir };
		body(g);
		exit_cb(1, exit_udata);
		_exit(0);
	}
	int st = 0;

	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::vector<uint64_t> read_trace(const fs::path &p)
{
	std::ifstream f(p, std::ios::binary);
	std::vector<uint64_t> v;
	uint64_t x;

	while (f.read(reinterpret_cast<char *>(&x), sizeof(x)))
		v.push_back(x);
	return v;
}

// The trace without the pokes' own page (its one miss at the start and at most one
// at the end).
std::vector<uint64_t> body_of(std::vector<uint64_t> v)
{
	const uint64_t poke_page = (0x7000000000ULL + PHYS_OFF) >> 12;

	std::erase(v, poke_page);
	return v;
}

class PageTrace : public ::testing::Test {
protected:
	fs::path dir;

	void SetUp() override
	{
		char tmpl[] = "/tmp/pagetrace-test.XXXXXX";

		ASSERT_NE(mkdtemp(tmpl), nullptr);
		dir = tmpl;
	}
	void TearDown() override { fs::remove_all(dir); }
	std::string arg_dir() const { return "dir=" + dir.string(); }
};

} // namespace

// A cache of 64 lines (4 KiB, 4 ways): a loop over 32 lines misses only the first
// time; a loop over 128 lines, twice its size, misses every time under LRU.
TEST_F(PageTrace, CacheModelIsLruOverLines)
{
	ASSERT_EQ(run(dir, { arg_dir(), "llc_kib=4", "ways=4" }, [](guest &g) {
		g.start("fits");
		for (int pass = 0; pass < 3; pass++)
			g.scan(0x10000, 32 * 64);
		g.stop();
		g.start("thrashes");
		for (int pass = 0; pass < 3; pass++)
			g.scan(0x10000, 128 * 64);
		g.stop();
		g.start("bytes");
		g.scan(0x10000, 4096, 8);	// 512 loads, 64 lines
		g.stop();
		// Five lines of one set (16 sets of 64 bytes apart): L0-L3 fill it, L0
		// again is a hit and the most recent, so L4 evicts L1 and L0 hits once
		// more: 5 misses under LRU (6 under FIFO, which evicts L0).
		g.start("lru");
		for (uint64_t l : { 0, 1, 2, 3, 0, 4, 0 })
			g.access(0x80000 + l * 16 * 64);
		g.stop();
	}), 0);
	EXPECT_EQ(body_of(read_trace(dir / "lru.u64")).size(), 5u);
	EXPECT_EQ(body_of(read_trace(dir / "fits.u64")).size(), 32u);
	EXPECT_EQ(body_of(read_trace(dir / "thrashes.u64")).size(), 3 * 128u);
	EXPECT_EQ(body_of(read_trace(dir / "bytes.u64")).size(), 64u);
}

// What is written is the physical page of each miss, in order; kernel addresses,
// other CPUs and I/O are not the program's memory and are left out.
TEST_F(PageTrace, WritesPhysicalPagesOfUserAccessesOfItsCpu)
{
	ASSERT_EQ(run(dir, { arg_dir(), "cpu=1" }, [](guest &g) {
		// cpu=1: the pokes must run there.
		std::ofstream(g.dir / "record") << "t\n";
		for (uint64_t i = 0; i < POLL; i++)
			g.access(0x7000000000ULL, 1);
		g.access(0x3000, 1);
		g.access(0x5008, 1);
		g.access(0x3000, 0);			// another CPU
		g.access(0xffff888000001000ULL, 1);	// the kernel's
		g.access(0x9000, 1, true);		// I/O
		g.access(0x1000, 1);
		fs::remove(g.dir / "record");
		for (uint64_t i = 0; i < POLL; i++)
			g.access(0x7000000000ULL, 1);
	}), 0);
	const std::vector<uint64_t> want = { (0x3000 + PHYS_OFF) >> 12, (0x5008 + PHYS_OFF) >> 12,
					     (0x1000 + PHYS_OFF) >> 12 };
	EXPECT_EQ(body_of(read_trace(dir / "t.u64")), want);
}

// A recording starts at the plugin's next read of the record file, at most
// 2^14 accesses after the guest wrote it: the program loses at most its first
// 2^14 (pagetrace.c's promise), wherever the count stood.
TEST_F(PageTrace, MissesAtMostTheFirstPollOfAccesses)
{
	for (uint64_t before : std::initializer_list<uint64_t>{ 0, 1, POLL / 2, POLL - 1 }) {
		ASSERT_EQ(run(dir, { arg_dir(), "llc_kib=8192" }, [before](guest &g) {
			for (uint64_t i = 0; i < before; i++)
				g.access(0x7000000000ULL);	// the count, anywhere
			std::ofstream(g.dir / "record") << "first\n";
			g.scan(0x100000, 2 * POLL * 64);	// 2^15 lines, each a miss
			g.stop();
		}), 0) << before;
		auto v = body_of(read_trace(dir / "first.u64"));

		EXPECT_GE(v.size(), POLL) << before;
		EXPECT_LE(v.size(), 2 * POLL) << before;
		fs::remove(dir / "first.u64");
	}
}

// The record file: nothing is written before it names a trace or after it is
// removed; a new name closes the last trace and starts the next with an empty
// cache; a name that is not a plain file name is ignored.
TEST_F(PageTrace, RecordFileProtocol)
{
	ASSERT_EQ(run(dir, { arg_dir() }, [](guest &g) {
		g.scan(0x20000, 64 * 64);	// before: not recorded
		g.start("a");
		g.scan(0x20000, 64 * 64);
		std::ofstream(g.dir / "record") << "b\n";
		g.poke();
		g.scan(0x20000, 64 * 64);	// in the cache, but b starts cold
		g.stop();
		g.scan(0x40000, 64 * 64);	// after: not recorded
		g.start("../escape");
		g.scan(0x20000, 64 * 64);
		g.stop();
	}), 0);
	EXPECT_EQ(body_of(read_trace(dir / "a.u64")).size(), 64u);
	EXPECT_EQ(body_of(read_trace(dir / "b.u64")).size(), 64u);
	EXPECT_FALSE(fs::exists(dir.parent_path() / "escape.u64"));
	EXPECT_FALSE(fs::exists(dir / "..escape.u64"));
	size_t files = 0;
	for (auto &e : fs::directory_iterator(dir))
		files += e.path().extension() == ".u64";
	EXPECT_EQ(files, 2u);
}

// Bad arguments are refused at install; user-mode emulation is refused.
TEST_F(PageTrace, RefusesBadArguments)
{
	auto nop = [](guest &) {};

	EXPECT_NE(run(dir, {}, nop), 0);				// no dir
	EXPECT_NE(run(dir, { arg_dir(), "ways=0" }, nop), 0);
	EXPECT_NE(run(dir, { arg_dir(), "ways=65" }, nop), 0);
	EXPECT_NE(run(dir, { arg_dir(), "llc_kib=x" }, nop), 0);
	EXPECT_NE(run(dir, { arg_dir(), "colour=blue" }, nop), 0);
	EXPECT_NE(run(dir, { arg_dir() }, nop, false), 0);
	EXPECT_EQ(run(dir, { arg_dir() }, nop), 0);
}
