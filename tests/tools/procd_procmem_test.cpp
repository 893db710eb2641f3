// SPDX-License-Identifier: GPL-2.0
// cxltier-procd's view of a process's memory (tools/procd/procmem.cpp): which
// mappings it may move, from smaps; what tells it that smaps must be read again; and
// every node's free pages and watermarks, from /proc/zoneinfo.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <memory>

#include "procmem.hpp"

using namespace cxlt_procd;

namespace {

// One mapping of smaps: its line, a field the parser must pass over, its flags.
std::string mapping(const char *line, const char *flags)
{
	return std::string(line) + "\nSize:                 16 kB\nRss:                   8 kB\n"
	       "Locked:                0 kB\nVmFlags: " + flags + "\n";
}

// Four writable pages between two inaccessible ones, so that no neighbour merges
// with them and maps stays as it was through an mlock of all four.
struct isolated_mapping {
	static constexpr size_t len = 4 * 4096;
	char *res = static_cast<char *>(mmap(nullptr, len + 2 * 4096, PROT_NONE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	char *p = res == MAP_FAILED ? nullptr : res + 4096;

	isolated_mapping()
	{
		if (p && mprotect(p, len, PROT_READ | PROT_WRITE))
			p = nullptr;
	}
	isolated_mapping(const isolated_mapping &) = delete;
	isolated_mapping &operator=(const isolated_mapping &) = delete;
	~isolated_mapping()
	{
		if (res != MAP_FAILED)
			munmap(res, len + 2 * 4096);
	}
	// Whether a layout has all of it in one eligible range.
	bool in(const proc_layout &l) const
	{
		auto start = reinterpret_cast<std::uint64_t>(p);
		for (const auto &r : l.ranges)
			if (r.start <= start && start + len <= r.end)
				return true;
		return false;
	}
};

} // namespace

TEST(ProcdProcmem, SmapsOnlyPrivateAnonymousUnlockedMappingsAreEligible)
{
	std::string s = mapping("00400000-00401000 r-xp 00000000 fe:01 1234    /usr/bin/x", "rd ex mr mw me") +
			mapping("01000000-01010000 rw-p 00000000 00:00 0          [heap]", "rd wr mr mw me ac") +
			mapping("7f0000000000-7f0000004000 rw-p 00000000 00:00 0 ", "rd wr mr mw me ac") +
			mapping("7f0000004000-7f0000008000 rw-p 00000000 00:00 0 ", "rd wr mr mw me lo ac") +
			mapping("7f0000008000-7f000000c000 rw-s 00000000 00:01 77   /dev/zero (deleted)", "rd wr sh mr mw me ms") +
			mapping("7f000000c000-7f0000010000 rw-p 00000000 00:00 0   [anon:jemalloc]", "rd wr mr mw me dd") +
			mapping("7f0000010000-7f0000014000 rw-p 00000000 00:00 0   [anon:arena]", "rd wr mr mw me ac") +
			mapping("7f0000014000-7f0000214000 rw-p 00000000 00:0f 9   /anon_hugepage (deleted)", "rd wr mr mw me ht") +
			mapping("7f0000214000-7f0000218000 r--p 00000000 00:00 0 ", "rd mr mw me") +
			mapping("7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0   [stack]", "rd wr mr mw me gd ac") +
			mapping("7ffd00021000-7ffd00023000 r-xp 00000000 00:00 0   [vdso]", "rd ex mr mw me de");
	auto l = parse_smaps(s);
	std::vector<anon_range> want = {{0x01000000, 0x01010000},
					{0x7f0000000000, 0x7f0000004000},
					{0x7f0000010000, 0x7f0000014000},
					{0x7ffd00000000, 0x7ffd00021000}};
	EXPECT_EQ(want, l.ranges);
	EXPECT_EQ(0x4000u, l.locked_bytes);
	// A mapping whose VmFlags were cut off (the process changed it as it was read)
	// is not taken.
	auto cut = parse_smaps("01000000-01010000 rw-p 00000000 00:00 0 [heap]\nSize: 64 kB\n");
	EXPECT_TRUE(cut.ranges.empty());
	EXPECT_TRUE(parse_smaps("").ranges.empty());
}

TEST(ProcdProcmem, ZoneinfoSumsEachNodesZonesAndSkipsThePerCpuHigh)
{
	const char *z =
		"Node 0, zone      DMA\n"
		"  per-node stats\n"
		"      nr_inactive_anon 10\n"
		"  pages free     100\n"
		"        boost    0\n"
		"        min      1\n"
		"        low      2\n"
		"        high     3\n"
		"  pagesets\n"
		"    cpu: 0\n"
		"              count: 5\n"
		"              high:  999\n"
		"              batch: 1\n"
		"Node 0, zone   Normal\n"
		"  pages free     1000\n"
		"        high     30\n"
		"Node 2, zone  Movable\n"
		"  pages free     7\n"
		"        high     0\n";
	auto m = parse_zoneinfo(z);
	ASSERT_EQ(2u, m.size());
	EXPECT_EQ(1100u, m[0].free);
	EXPECT_EQ(33u, m[0].high);
	EXPECT_EQ(7u, m[2].free);
	EXPECT_EQ(0u, m[2].high);
	EXPECT_TRUE(parse_zoneinfo("").empty());
	// This machine's own: the parser agrees with the kernel's format.
	auto own = read_whole("/proc/zoneinfo");
	ASSERT_TRUE(own);
	auto mine = parse_zoneinfo(*own);
	ASSERT_FALSE(mine.empty());
	std::uint64_t free = 0;
	for (const auto &[node, mem] : mine)
		free += mem.free;	// a memoryless node has none
	EXPECT_GT(free, 0u);
}

// The layout is read again only when its key changes: an mlock(2) of a whole mapping
// leaves /proc/PID/maps as it was, so the key must see it in VmLck, or the service
// would move locked pages until its next full read.
TEST(ProcdProcmem, LayoutKeySeesAnMlockOfAWholeMapping)
{
	auto m = std::make_unique<isolated_mapping>();
	const size_t len = isolated_mapping::len;
	ASSERT_TRUE(m->p);
	auto l0 = read_layout(getpid());
	ASSERT_TRUE(l0);
	EXPECT_TRUE(m->in(*l0));
	// Two reads in a row agree once this test's own heap has stopped growing.
	std::optional<layout_key> before;
	for (int i = 0; i < 10 && !before; i++) {
		auto a = read_layout_key(getpid()), b = read_layout_key(getpid());
		ASSERT_TRUE(a && b);
		if (*a == *b)
			before = std::move(a);
	}
	ASSERT_TRUE(before) << "the maps of this test changed at every read";
	ASSERT_EQ(0, mlock(m->p, len)) << "mlock of 16 KiB (RLIMIT_MEMLOCK too low?)";
	auto locked = read_layout_key(getpid());
	auto l1 = read_layout(getpid());
	ASSERT_TRUE(locked && l1);
	EXPECT_FALSE(m->in(*l1));
	EXPECT_GE(l1->locked_bytes, l0->locked_bytes + len);
	EXPECT_EQ(before->maps, locked->maps);
	EXPECT_NE(*before, *locked);
	EXPECT_EQ(before->locked_kb + len / 1024, locked->locked_kb);
	ASSERT_EQ(0, munlock(m->p, len));
	auto after = read_layout_key(getpid());
	ASSERT_TRUE(after);
	EXPECT_EQ(before->locked_kb, after->locked_kb);
	m.reset();
	auto unmapped = read_layout_key(getpid());
	ASSERT_TRUE(unmapped);
	EXPECT_NE(after->maps, unmapped->maps);
	EXPECT_FALSE(read_layout_key(0x7fffffff));
}

// smaps is read again when the key changed, while anything is locked (one mapping
// unlocked and another of its size locked would leave the key as it was), and every
// refresh reads; otherwise not.
TEST(ProcdProcmem, LayoutCacheReadsSmapsOnlyWhenTheLayoutMayHaveChanged)
{
	isolated_mapping m;
	const size_t len = isolated_mapping::len;
	ASSERT_TRUE(m.p);
	auto before = read_layout_key(getpid());
	ASSERT_TRUE(before);
	ASSERT_EQ(0u, before->locked_kb) << "this test needs a process with nothing locked";

	layout_cache c(5);
	ASSERT_TRUE(c.get(getpid()));
	EXPECT_EQ(1u, c.reads());
	// Unchanged (once this test's heap is settled): not read again, up to the refresh.
	std::uint64_t r = c.reads();
	for (int i = 0; i < 3; i++) {
		r = c.reads();
		ASSERT_TRUE(c.get(getpid()));
	}
	EXPECT_EQ(r, c.reads()) << "smaps read again with nothing changed";
	EXPECT_TRUE(m.in(*c.get(getpid())));

	// Locked: read at once, and at every call while anything is locked.
	ASSERT_EQ(0, mlock(m.p, len));
	r = c.reads();
	ASSERT_TRUE(c.get(getpid()));
	EXPECT_EQ(r + 1, c.reads());
	EXPECT_FALSE(m.in(*c.get(getpid())));
	EXPECT_EQ(r + 2, c.reads());
	ASSERT_TRUE(c.get(getpid()));
	EXPECT_EQ(r + 3, c.reads());

	// Unlocked: read once more, then left alone.
	ASSERT_EQ(0, munlock(m.p, len));
	ASSERT_TRUE(c.get(getpid()));
	EXPECT_TRUE(m.in(*c.get(getpid())));
	r = c.reads();
	ASSERT_TRUE(c.get(getpid()));
	EXPECT_EQ(r, c.reads());

	// The refresh: at most every 5 calls with nothing changed.
	r = c.reads();
	for (int i = 0; i < 5; i++)
		ASSERT_TRUE(c.get(getpid()));
	EXPECT_EQ(r + 1, c.reads());

	EXPECT_FALSE(c.get(0x7fffffff));
}

// A process past the service's page cap is managed up to it: where its pages are is
// asked for the first npages only (this test builds with _GLIBCXX_ASSERTIONS, so an
// index past the vector aborts it).
TEST(ProcdProcmem, PageNodesStopsAtTheCap)
{
	const size_t pages = 8;
	char *p = static_cast<char *>(mmap(nullptr, pages * 4096, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	ASSERT_NE(MAP_FAILED, p);
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = 1;
	auto start = reinterpret_cast<std::uint64_t>(p);
	std::vector<anon_range> ranges = {{start, start + pages * 4096}, {start, start + 4096}};
	auto nodes = page_nodes(getpid(), ranges, 4);
	ASSERT_TRUE(nodes);
	ASSERT_EQ(4u, nodes->size());
	for (int n : *nodes)
		EXPECT_GE(n, 0);
	auto all = page_nodes(getpid(), ranges, pages + 1);
	ASSERT_TRUE(all);
	ASSERT_EQ(pages + 1, all->size());
	for (int n : *all)
		EXPECT_GE(n, 0);
	ASSERT_EQ(0, munmap(p, pages * 4096));
}
